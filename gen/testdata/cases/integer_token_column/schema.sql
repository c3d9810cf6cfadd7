CREATE TABLE jobs (
    id     BIGINT PRIMARY KEY,
    status TEXT NOT NULL,
    tok    INTEGER NOT NULL DEFAULT 0
);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';
