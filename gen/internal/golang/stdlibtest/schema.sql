CREATE TABLE jobs (
    id     BIGINT PRIMARY KEY,
    status TEXT NOT NULL,
    owner  TEXT,
    tags   TEXT[] NOT NULL DEFAULT '{}',
    tok    BIGINT NOT NULL DEFAULT 0
);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';

CREATE TABLE plain_log (
    id  BIGSERIAL PRIMARY KEY,
    msg TEXT
);

-- Strict: the database-side guard refuses an UPDATE that leaves the token
-- as it is, as an opted-out write does.
CREATE TABLE strict_jobs (
    id     BIGINT PRIMARY KEY,
    status TEXT NOT NULL,
    tok    BIGINT NOT NULL DEFAULT 0
);
COMMENT ON COLUMN strict_jobs.tok IS 'fencegen:token strict';
