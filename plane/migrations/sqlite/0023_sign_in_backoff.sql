-- Sign-in backoff, kept where every plane on the database counts it (see the plane's
-- `service::backoff`): failures per key (an account × address pair, an account, an address, a
-- password change), each key kept as its SHA-256 digest. `next_at` is when the key's wait
-- ends, `last_at` its last failure. A quiet key is deleted when it is next looked at, or swept
-- a day after its last failure.
CREATE TABLE sign_in_backoff (
    key_digest TEXT PRIMARY KEY,
    failures BIGINT NOT NULL,
    next_at BIGINT NOT NULL,
    last_at BIGINT NOT NULL
);
CREATE INDEX sign_in_backoff_last_at ON sign_in_backoff (last_at);

-- Addresses where each account signed in successfully (the digest of account and address) and
-- when, for thirty days: attempts from them meet only the account × address key.
CREATE TABLE sign_in_known_addresses (
    pair_digest TEXT PRIMARY KEY,
    signed_in_at BIGINT NOT NULL
);
CREATE INDEX sign_in_known_addresses_at ON sign_in_known_addresses (signed_in_at);
