-- Channels and identities (see plane/src/api/channels.rs). An identity's row outlives its
-- account and its pane, so the entries it signed keep verifying; an entry's body is sealed
-- under its channel's key, which is itself sealed under the plane's channel key file.
CREATE TABLE identities (
    id TEXT PRIMARY KEY,
    user_id TEXT REFERENCES users (id) ON DELETE SET NULL,
    subshell_id TEXT,
    name TEXT NOT NULL,
    public_jwk TEXT NOT NULL,
    thumbprint TEXT NOT NULL UNIQUE,
    created_at INTEGER NOT NULL,
    revoked_at INTEGER
);
CREATE INDEX identities_by_user ON identities (user_id);

CREATE TABLE channels (
    id TEXT PRIMARY KEY,
    owner_user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    description TEXT NOT NULL,
    sealed_key TEXT NOT NULL,
    head_seq INTEGER NOT NULL,
    head_hash TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
CREATE INDEX channels_by_owner ON channels (owner_user_id);

CREATE TABLE channel_members (
    channel_id TEXT NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    access TEXT NOT NULL,
    PRIMARY KEY (channel_id, user_id)
);
CREATE INDEX channel_members_by_user ON channel_members (user_id);

CREATE TABLE channel_entries (
    channel_id TEXT NOT NULL REFERENCES channels (id) ON DELETE CASCADE,
    seq INTEGER NOT NULL,
    identity_id TEXT NOT NULL REFERENCES identities (id),
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL,
    signature TEXT NOT NULL,
    sealed_body TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (channel_id, seq)
);
