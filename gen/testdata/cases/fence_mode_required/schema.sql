CREATE TABLE payouts (
    id     BIGINT PRIMARY KEY,
    status TEXT NOT NULL,
    tok    BIGINT NOT NULL DEFAULT 0
);
COMMENT ON COLUMN payouts.tok IS 'fencegen:token required';

CREATE TABLE runs (
    id    BIGINT PRIMARY KEY,
    state TEXT NOT NULL,
    tok   BIGINT NOT NULL DEFAULT 0
);
