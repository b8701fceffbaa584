-- A person's quiet hours (minutes after midnight, from and to, in an IANA time zone: while
-- they last, a notification reaches the inbox but no device), and the panes a person muted
-- (nothing about them is told, until `until_ms` or for good when it is NULL). See the plane's
-- `service::needs_you` and `service::notifications` modules.
ALTER TABLE notification_prefs ADD COLUMN quiet_from BIGINT;
ALTER TABLE notification_prefs ADD COLUMN quiet_to BIGINT;
ALTER TABLE notification_prefs ADD COLUMN quiet_zone TEXT;

CREATE TABLE notification_mutes (
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    subshell_id TEXT NOT NULL REFERENCES subshells (id) ON DELETE CASCADE,
    until_ms BIGINT,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (user_id, subshell_id)
);
