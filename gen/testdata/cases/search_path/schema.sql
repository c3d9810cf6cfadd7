CREATE SCHEMA app;
SET search_path = app, public;

CREATE TYPE status AS ENUM ('queued', 'done');

CREATE TABLE jobs (
    id    BIGINT PRIMARY KEY,
    state status NOT NULL,
    tok   BIGINT NOT NULL DEFAULT 0
);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';
