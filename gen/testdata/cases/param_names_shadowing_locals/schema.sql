CREATE TABLE jobs (
    id         BIGINT PRIMARY KEY,
    status     TEXT NOT NULL,
    created_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    tok        BIGINT NOT NULL DEFAULT 0
);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';

CREATE TABLE notes (
    id   BIGSERIAL PRIMARY KEY,
    body TEXT NOT NULL
);
