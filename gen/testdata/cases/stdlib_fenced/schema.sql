CREATE TABLE accounts (
    id         UUID PRIMARY KEY,
    owner      TEXT,
    balance    NUMERIC NOT NULL,
    tags       TEXT[] NOT NULL DEFAULT '{}',
    meta       JSONB,
    opened_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    closed_on  DATE,
    last_fencing_token BIGINT NOT NULL DEFAULT 0
);
COMMENT ON COLUMN accounts.last_fencing_token IS 'fencegen:token';
