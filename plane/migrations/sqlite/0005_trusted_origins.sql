-- Origins an administrator added to the trusted list (a JSON array of normalised origins); the
-- base URL and TRUSTED_ORIGINS are trusted as well and are not stored.
ALTER TABLE instance ADD COLUMN trusted_origins TEXT NOT NULL DEFAULT '[]';
