-- Subshells shared with other accounts: `read` watches, `write` also types and resizes.
CREATE TABLE subshell_shares (
    subshell_id TEXT NOT NULL REFERENCES subshells (id) ON DELETE CASCADE,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    access TEXT NOT NULL CHECK (access IN ('read', 'write')),
    granted_by TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (subshell_id, user_id)
);
CREATE INDEX subshell_shares_by_user ON subshell_shares (user_id);
