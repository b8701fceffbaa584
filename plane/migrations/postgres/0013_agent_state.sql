-- What the agent in a pane is doing, as its signals last said (see the plane's
-- `service::subshells::agent` module): the state, when it entered it, a one-line summary, an
-- optional link, which signal set it and the reporter's own time of that signal (to refuse
-- reports that arrive out of order). A fresh launch or restart sets `starting`.
ALTER TABLE subshells ADD COLUMN agent_state TEXT NOT NULL DEFAULT 'starting';
ALTER TABLE subshells ADD COLUMN agent_since BIGINT;
ALTER TABLE subshells ADD COLUMN agent_summary TEXT;
ALTER TABLE subshells ADD COLUMN agent_link TEXT;
ALTER TABLE subshells ADD COLUMN agent_source TEXT NOT NULL DEFAULT 'lifecycle';
ALTER TABLE subshells ADD COLUMN agent_observed_at BIGINT;
