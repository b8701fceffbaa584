-- Who typed into a pane, kept beside its recording (see the plane's `service::subshells::inputs`
-- module): one row per batch of keystrokes a viewer typed (a batch ends after a pause),
-- per paste, per text or keys sent through the API and per file uploaded into the pane. What
-- was typed is not kept: the recording shows what the screen showed, no more.
CREATE TABLE input_marks (
    id TEXT PRIMARY KEY,
    subshell_id TEXT NOT NULL REFERENCES subshells (id) ON DELETE CASCADE,
    at_ms BIGINT NOT NULL,
    until_ms BIGINT NOT NULL,
    kind TEXT NOT NULL,
    actor_user_id TEXT REFERENCES users (id) ON DELETE SET NULL,
    actor_kind TEXT NOT NULL,
    via_subshell_id TEXT,
    viewer_id BIGINT,
    detail TEXT
);
CREATE INDEX input_marks_by_pane ON input_marks (subshell_id, at_ms);
