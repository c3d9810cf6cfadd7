CREATE TABLE counters (
    id     BIGINT PRIMARY KEY,
    value  BIGINT NOT NULL,
    tok    BIGINT NOT NULL DEFAULT 0
);

CREATE TABLE ledgers (
    id     BIGINT PRIMARY KEY,
    total  BIGINT NOT NULL,
    tok    BIGINT NOT NULL DEFAULT 0
);

COMMENT ON COLUMN counters.tok IS 'fencegen:token';
COMMENT ON COLUMN ledgers.tok IS 'fencegen:token strict';
