-- The terminals attached to panes at every plane on the database (see the PostgreSQL migration
-- of the same number). A plane on SQLite holds its database alone and keeps its viewers in
-- memory: the table is here so that both backends have one schema, and stays empty.
CREATE TABLE viewers (
    viewer_id INTEGER PRIMARY KEY AUTOINCREMENT,
    replica TEXT NOT NULL,
    subshell_id TEXT NOT NULL,
    can_write BIGINT NOT NULL,
    info TEXT NOT NULL
);
CREATE INDEX viewers_subshell ON viewers (subshell_id);
CREATE INDEX viewers_replica ON viewers (replica);
