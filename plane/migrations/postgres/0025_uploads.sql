-- Uploads into panes in progress, kept where every plane on the database finds them, so that an
-- upload started at one replica takes its next piece at any other. `next_chunk` is the node's
-- count of chunks written so far (a chunk out of order makes the node drop the partial file);
-- `typer` is who uploads, as JSON, for the pane's input mark once the file is complete.
-- `writing_until` is 0, or the time until which one replica writes a piece to the node (its
-- claim: no other piece, cancel or abandon runs meanwhile, and a claim that lapses — its replica
-- died in the middle of a piece — abandons the upload). One upload to a file at a time.
CREATE TABLE uploads (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL,
    subshell_id TEXT NOT NULL,
    node_id TEXT NOT NULL,
    path TEXT NOT NULL,
    name TEXT NOT NULL,
    typer TEXT NOT NULL,
    size BIGINT NOT NULL,
    received BIGINT NOT NULL,
    next_piece BIGINT NOT NULL,
    next_chunk BIGINT NOT NULL,
    last_at BIGINT NOT NULL,
    writing_until BIGINT NOT NULL,
    UNIQUE (node_id, path)
);
CREATE INDEX uploads_last_at ON uploads (last_at);
