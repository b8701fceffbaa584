-- termplane control plane, initial schema (PostgreSQL). Timestamps are Unix milliseconds.
CREATE TABLE instance (
    id BIGINT PRIMARY KEY CHECK (id = 1),
    display_name TEXT NOT NULL,
    setup_done_at BIGINT,
    created_at BIGINT NOT NULL
);

CREATE TABLE users (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE,
    display_name TEXT NOT NULL,
    role TEXT NOT NULL CHECK (role IN ('admin', 'user', 'service')),
    password_hash TEXT,
    disabled BIGINT NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE sessions (
    digest TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id);

CREATE TABLE system_keys (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    digest TEXT NOT NULL UNIQUE,
    preview TEXT NOT NULL,
    enabled BIGINT NOT NULL DEFAULT 1,
    created_by TEXT REFERENCES users (id) ON DELETE SET NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE TABLE setup_keys (
    id TEXT PRIMARY KEY,
    key_text TEXT NOT NULL,
    digest TEXT NOT NULL UNIQUE,
    owner_user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at BIGINT,
    used_by_node_id TEXT,
    revoked_at BIGINT
);

CREATE TABLE nodes (
    id TEXT PRIMARY KEY,
    owner_user_id TEXT REFERENCES users (id) ON DELETE SET NULL,
    name TEXT NOT NULL,
    os TEXT NOT NULL,
    arch TEXT NOT NULL,
    hostname TEXT NOT NULL,
    agent_version TEXT NOT NULL,
    identity_jwk TEXT,
    encrypt_public_key TEXT,
    node_key_digest TEXT UNIQUE,
    key_disabled BIGINT NOT NULL DEFAULT 0,
    liveness TEXT NOT NULL DEFAULT 'offline' CHECK (liveness IN ('online', 'offline')),
    runtime TEXT,
    maintenance TEXT,
    allowed_dirs TEXT NOT NULL DEFAULT '[]',
    is_local BIGINT NOT NULL DEFAULT 0,
    ws_url TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);
CREATE UNIQUE INDEX nodes_one_local ON nodes (is_local) WHERE is_local = 1;

CREATE TABLE seen_ephemeral_keys (
    node_id TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    eph TEXT NOT NULL,
    at BIGINT NOT NULL,
    PRIMARY KEY (node_id, eph)
);

CREATE TABLE audit_log (
    id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    at BIGINT NOT NULL,
    actor_user_id TEXT,
    actor_kind TEXT NOT NULL,
    action TEXT NOT NULL,
    target TEXT,
    detail TEXT NOT NULL DEFAULT '{}'
);
