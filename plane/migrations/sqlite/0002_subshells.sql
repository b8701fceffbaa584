-- Subshells, their catalog (harness plugins, presets, workspaces), node facts from `ready`, and
-- what nodes report about their harnesses. Timestamps are Unix milliseconds; JSON is text.

-- What `ready` says about the node daemon, kept for launching panes with an MCP child.
ALTER TABLE nodes ADD COLUMN self_invoke TEXT;
ALTER TABLE nodes ADD COLUMN home_dir TEXT;
ALTER TABLE nodes ADD COLUMN data_dir TEXT;
ALTER TABLE nodes ADD COLUMN capabilities TEXT NOT NULL DEFAULT '[]';
-- Whether scripts (system keys) may launch onto this node; the local node always allows them.
ALTER TABLE nodes ADD COLUMN system_access INTEGER NOT NULL DEFAULT 0;

-- Harness plugins are built in; an administrator turns them on or off.
CREATE TABLE plugin_settings (
    plugin_id TEXT PRIMARY KEY,
    enabled INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);

-- The last `detect` answer per node and harness (the launch gate's 10-minute freshness).
CREATE TABLE node_harnesses (
    node_id TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    harness_id TEXT NOT NULL,
    installed INTEGER NOT NULL,
    version TEXT,
    binary_path TEXT,
    reason TEXT,
    checked_at INTEGER NOT NULL,
    PRIMARY KEY (node_id, harness_id)
);

-- The last `inventory` event per node.
CREATE TABLE node_inventory (
    node_id TEXT PRIMARY KEY REFERENCES nodes (id) ON DELETE CASCADE,
    inventory TEXT NOT NULL,
    at INTEGER NOT NULL
);

CREATE TABLE presets (
    id TEXT PRIMARY KEY,
    owner_user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    harness_id TEXT,
    env TEXT NOT NULL,
    flags TEXT NOT NULL,
    settings TEXT,
    config_isolation INTEGER NOT NULL DEFAULT 0,
    auto_restart INTEGER NOT NULL DEFAULT 0,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX presets_owner ON presets (owner_user_id);

CREATE TABLE workspaces (
    id TEXT PRIMARY KEY,
    owner_user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    node_id TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    path TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX workspaces_owner ON workspaces (owner_user_id);

CREATE TABLE subshells (
    id TEXT PRIMARY KEY,
    owner_user_id TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    node_id TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    harness_id TEXT NOT NULL,
    name TEXT NOT NULL,
    cwd TEXT NOT NULL,
    preset_id TEXT REFERENCES presets (id) ON DELETE SET NULL,
    workspace_id TEXT REFERENCES workspaces (id) ON DELETE SET NULL,
    launch_spec TEXT NOT NULL,
    state TEXT NOT NULL,
    exit_code INTEGER,
    error TEXT,
    cols INTEGER NOT NULL,
    rows INTEGER NOT NULL,
    prompt TEXT,
    prompt_state TEXT NOT NULL DEFAULT 'none',
    auto_restart INTEGER NOT NULL DEFAULT 0,
    restarts INTEGER NOT NULL DEFAULT 0,
    attention TEXT NOT NULL DEFAULT 'none',
    attention_at INTEGER,
    harness_session_id TEXT,
    token_digest TEXT UNIQUE,
    token_perms TEXT NOT NULL,
    token_expires_at INTEGER,
    parent_subshell_id TEXT,
    created_by_kind TEXT NOT NULL,
    mcp_seen_at INTEGER,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    started_at INTEGER,
    ended_at INTEGER
);
CREATE INDEX subshells_owner ON subshells (owner_user_id);
CREATE INDEX subshells_node ON subshells (node_id);
