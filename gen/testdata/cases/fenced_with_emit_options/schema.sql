CREATE TYPE status AS ENUM ('open', 'closed');

CREATE TABLE tickets (
    id      BIGINT PRIMARY KEY,
    status  status NOT NULL,
    owner   TEXT,
    score   INTEGER,
    tok     BIGINT NOT NULL DEFAULT 0
);

COMMENT ON COLUMN tickets.tok IS 'fencegen:token';
