-- How long recordings are kept, per node and per workspace (days; NULL: the plane's default,
-- `--recording-retention-days`), and whether a workspace's panes are recorded, set by an
-- administrator. A pane is recorded when its plane, node and workspace all say so; it is kept as
-- long as its workspace says, else its node, else the plane.
ALTER TABLE nodes ADD COLUMN recording_retention_days INTEGER;
ALTER TABLE workspaces ADD COLUMN recording INTEGER NOT NULL DEFAULT 1;
ALTER TABLE workspaces ADD COLUMN recording_retention_days INTEGER;
