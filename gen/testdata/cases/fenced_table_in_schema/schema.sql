CREATE SCHEMA app;

CREATE TYPE app.job_kind AS ENUM ('email', 'report');

CREATE TABLE app.jobs (
    id     BIGSERIAL PRIMARY KEY,
    kind   app.job_kind NOT NULL,
    done   BOOLEAN NOT NULL DEFAULT false,
    fence  BIGINT NOT NULL DEFAULT 0
);

COMMENT ON COLUMN app.jobs.fence IS 'fencegen:token';
