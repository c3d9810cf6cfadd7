CREATE TABLE workers (
    id        TEXT PRIMARY KEY,
    last_seen TIMESTAMPTZ NOT NULL
);

CREATE TABLE tasks (
    id          BIGSERIAL PRIMARY KEY,
    worker_id   TEXT REFERENCES workers (id),
    status      TEXT NOT NULL,
    attempts    INTEGER NOT NULL DEFAULT 0,
    lease_token BIGINT NOT NULL DEFAULT 0
);

COMMENT ON COLUMN tasks.lease_token IS 'fencegen:token';

CREATE TABLE task_log (
    task_id  BIGINT NOT NULL,
    message  TEXT NOT NULL
);
