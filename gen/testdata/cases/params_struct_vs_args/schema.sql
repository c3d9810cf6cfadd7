CREATE TABLE items (
    id     BIGINT PRIMARY KEY,
    name   TEXT NOT NULL,
    qty    INTEGER NOT NULL,
    note   TEXT,
    tok    BIGINT NOT NULL DEFAULT 0
);

COMMENT ON COLUMN items.tok IS 'fencegen:token';
