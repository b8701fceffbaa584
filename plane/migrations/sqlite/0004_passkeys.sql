-- Passkeys (WebAuthn credentials) of accounts. `passkey` is the verifier's serialised credential
-- (its id, public key, signature counter and backup flags): nothing in it signs anything.
CREATE TABLE passkeys (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    credential_id TEXT NOT NULL UNIQUE,
    passkey TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    last_used_at INTEGER
);
CREATE INDEX passkeys_by_user ON passkeys (user_id);
