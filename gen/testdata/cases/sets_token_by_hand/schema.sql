CREATE TABLE leases (
    id    BIGINT PRIMARY KEY,
    owner TEXT NOT NULL,
    tok   BIGINT NOT NULL DEFAULT 0
);
COMMENT ON COLUMN leases.tok IS 'fencegen:token';
