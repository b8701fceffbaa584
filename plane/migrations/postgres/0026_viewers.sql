-- The terminals attached to panes at every plane on the database: one row per viewer (its
-- socket open at `replica`), so that who watches a pane and the grid its viewers hold it to are
-- the cluster's, not one replica's. `viewer_id` numbers the viewer across the cluster (its
-- `viewerId` in presence frames); `info` is the viewer as presence frames list it, as JSON;
-- `can_write` whether it may type (only such viewers take part in sizing). A replica's rows go
-- when its viewers leave, and those of a replica whose lease lapsed are swept by the others.
CREATE TABLE viewers (
    viewer_id BIGSERIAL PRIMARY KEY,
    replica TEXT NOT NULL,
    subshell_id TEXT NOT NULL,
    can_write BIGINT NOT NULL,
    info TEXT NOT NULL
);
CREATE INDEX viewers_subshell ON viewers (subshell_id);
CREATE INDEX viewers_replica ON viewers (replica);
