-- Who was told a subshell is gone (deleted, or a share of it revoked), kept for a minute so
-- that the other replicas on the database, told by a `gone` word that names only the subshell,
-- tell the same accounts' live feeds (see the plane's `service::words`). `audience` is a JSON
-- list of account ids; `admins` whether administrators are told too.
CREATE TABLE subshells_gone (
    subshell_id TEXT PRIMARY KEY,
    audience TEXT NOT NULL,
    admins BIGINT NOT NULL,
    gone_at BIGINT NOT NULL
);
