-- Devices that receive Web Push notifications for their account (a browser's push
-- subscription), the notification inbox, and each account's choices of what to be told.
CREATE TABLE devices (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    endpoint TEXT NOT NULL,
    p256dh TEXT NOT NULL,
    auth TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    last_sent_at BIGINT,
    last_error TEXT,
    UNIQUE (user_id, endpoint)
);
CREATE TABLE notifications (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    kind TEXT NOT NULL,
    subject_id TEXT NOT NULL,
    title TEXT NOT NULL,
    body TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    read_at BIGINT
);
CREATE INDEX notifications_by_user ON notifications (user_id, created_at);
CREATE TABLE notification_prefs (
    user_id TEXT PRIMARY KEY REFERENCES users (id) ON DELETE CASCADE,
    needs_input BIGINT NOT NULL DEFAULT 1,
    exited BIGINT NOT NULL DEFAULT 1,
    crashed BIGINT NOT NULL DEFAULT 1,
    node_offline BIGINT NOT NULL DEFAULT 1
);
