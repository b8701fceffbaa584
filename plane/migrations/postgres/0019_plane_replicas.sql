-- The planes running on this database (the cluster's replicas), each under a lease it renews
-- while it runs (see the plane's `service::cluster`): where its peers reach it, its version,
-- its host, since when it runs and until when its lease holds. A replica that stopped cleanly
-- removes its row; a lapsed row is kept a day, for the operator to see, then pruned.
CREATE TABLE plane_replicas (
    id TEXT PRIMARY KEY,
    address TEXT NOT NULL,
    version TEXT NOT NULL,
    host TEXT NOT NULL,
    started_at BIGINT NOT NULL,
    lease_until BIGINT NOT NULL
);
