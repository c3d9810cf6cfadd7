-- The accounts example: balances that workers credit under a Redis lease.
CREATE TABLE account_balances (
    id                 BIGINT PRIMARY KEY,
    balance            NUMERIC(15, 2) NOT NULL,
    -- The highest fencing token that wrote this row (Kleppmann 2016).
    last_fencing_token BIGINT NOT NULL DEFAULT 0,
    -- A tombstone: a closed account keeps its row, and with it the token of
    -- the holder that closed it, so that a stale holder cannot bring it back
    -- (README, "Deleting fenced rows").
    closed_at          TIMESTAMPTZ
);

-- COMMENT ON COLUMN survives pg_dump, so a schema dumped from a live
-- database keeps the annotation.
COMMENT ON COLUMN account_balances.last_fencing_token IS 'fencegen:token';

-- An append-only audit trail of the credits, not fenced.
CREATE TABLE account_credits (
    id          BIGSERIAL PRIMARY KEY,
    account_id  BIGINT NOT NULL REFERENCES account_balances (id),
    amount      NUMERIC(15, 2) NOT NULL,
    worker      TEXT NOT NULL,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);
