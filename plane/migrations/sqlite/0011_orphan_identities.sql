-- Identities of accounts deleted before deleting an account revoked them: every identity is
-- registered by an account, so one without an account is such an orphan. Revoked now; what
-- they signed keeps verifying.
UPDATE identities SET revoked_at = CAST(strftime('%s', 'now') AS INTEGER) * 1000
WHERE user_id IS NULL AND revoked_at IS NULL;
