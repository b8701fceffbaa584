-- Which plane of the cluster holds each remote node's link (a replica id of `plane_replicas`),
-- or NULL when none does. A node's link is held under its holder's lease: when that lease lapses
-- (the replica died), any live replica marks the node offline and clears its holder, and the
-- node redials to whichever replica the load balancer picks; the newest link wins across
-- replicas as it does on one (see the plane's `link` module).
ALTER TABLE nodes ADD COLUMN held_by TEXT;
CREATE INDEX nodes_held_by ON nodes (held_by);
