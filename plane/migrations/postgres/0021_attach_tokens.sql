-- Attach tokens waiting to be spent (`POST /api/auth/ws-token`), kept where every plane on the
-- database finds them, so a token minted at one replica opens a socket at any other and is
-- spent once across all of them. Only the token's SHA-256 digest is kept; `minter_kind` and
-- `minter_digest` name the credential that minted it (checked again when it is spent);
-- `subshell_id` the pane it is bound to, if any. A token is deleted as it is spent; expired ones
-- are deleted at the next mint.
CREATE TABLE attach_tokens (
    digest TEXT PRIMARY KEY,
    minter_kind TEXT NOT NULL CHECK (minter_kind IN ('session', 'bearer')),
    minter_digest TEXT NOT NULL,
    subshell_id TEXT,
    expires_at BIGINT NOT NULL
);
CREATE INDEX attach_tokens_expires_at ON attach_tokens (expires_at);
