CREATE TABLE leases (
    name      TEXT PRIMARY KEY,
    holder    TEXT NOT NULL,
    fence     BIGINT NOT NULL
);

CREATE TABLE lease_requests (
    name    TEXT NOT NULL,
    holder  TEXT NOT NULL
);

COMMENT ON COLUMN leases.fence IS 'fencegen:token';
