-- Passkey ceremonies under way (registration or sign-in, begun and not yet finished), kept where
-- every plane on the database finds them, so that a ceremony begun at one replica finishes at
-- any other, once. Only the ceremony id's SHA-256 digest is kept; `step` is the ceremony's
-- server-side state as JSON (the challenge it issued and what it is for), never sent to a client.
-- A ceremony is deleted as it is finished; expired ones are deleted at the next begin.
CREATE TABLE passkey_ceremonies (
    digest TEXT PRIMARY KEY,
    step TEXT NOT NULL,
    expires_at BIGINT NOT NULL
);
CREATE INDEX passkey_ceremonies_expires_at ON passkey_ceremonies (expires_at);
