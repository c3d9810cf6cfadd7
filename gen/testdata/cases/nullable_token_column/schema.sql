CREATE TABLE leases (
    id   BIGINT PRIMARY KEY,
    tok  BIGINT
);
COMMENT ON COLUMN leases.tok IS 'fencegen:token';

CREATE TABLE other (
    id   BIGINT PRIMARY KEY,
    tok  INTEGER
);
