CREATE TYPE job_state AS ENUM ('queued', 'running', 'done');

CREATE TABLE jobs (
    id       BIGINT PRIMARY KEY,
    state    job_state NOT NULL,
    payload  JSONB NOT NULL,
    note     TEXT,
    fence    BIGINT NOT NULL DEFAULT 0
);

COMMENT ON COLUMN jobs.fence IS 'fencegen:token';
