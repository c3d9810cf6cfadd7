CREATE TABLE jobs (
    id     BIGINT PRIMARY KEY,
    status TEXT NOT NULL,
    tok    BIGINT NOT NULL DEFAULT 0
);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';

CREATE TABLE runs (
    id  BIGINT PRIMARY KEY,
    tok BIGINT NOT NULL
);
COMMENT ON COLUMN runs.tok IS 'fencegen:token';
