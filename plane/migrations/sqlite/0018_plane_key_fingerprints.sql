-- A fingerprint of each of the plane's key files (a salted SHA-256 of the secret; see the
-- plane's `keys` module), recorded at the first start that used them: a plane started on this
-- database with other key files, or with none, refuses to start instead of making new ones (every
-- enrolled node pins the link and signing keys; channel entries are sealed under the channel
-- key; push subscriptions are bound to the VAPID key).
CREATE TABLE plane_keys (
    name TEXT PRIMARY KEY,
    fingerprint TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
