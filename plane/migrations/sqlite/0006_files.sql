-- Files people keep on the plane for their panes. The bytes are on disk under the data
-- directory, named by their SHA-256 (one copy however many rows name it); only complete files
-- have a row.
CREATE TABLE files (
    id TEXT PRIMARY KEY,
    owner_user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    size INTEGER NOT NULL,
    sha256 TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX files_by_owner ON files (owner_user_id);
CREATE INDEX files_by_digest ON files (sha256);
