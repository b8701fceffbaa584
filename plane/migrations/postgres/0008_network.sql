-- Extra addresses the plane listens on (network plugins), started with the plane and at run
-- time by an administrator; each one's origin is trusted while it listens.
CREATE TABLE network_listeners (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    address TEXT NOT NULL UNIQUE,
    origin TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
