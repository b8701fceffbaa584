-- Panes that no row stands for any more and that could not be killed when their subshell was
-- deleted (the node was out of reach), or whose launch answered after the plane gave up on it.
-- The node's next census kills them and has it forget their logs; kept here so a plane
-- restart before the node returns does not leave them running.
CREATE TABLE doomed_panes (
    node_id TEXT NOT NULL REFERENCES nodes (id) ON DELETE CASCADE,
    subshell_id TEXT NOT NULL,
    doomed_at INTEGER NOT NULL,
    PRIMARY KEY (node_id, subshell_id)
);
