CREATE TABLE account_balances (
    id                 BIGINT PRIMARY KEY,
    balance            NUMERIC(15, 2) NOT NULL,
    last_fencing_token BIGINT NOT NULL DEFAULT 0
);

COMMENT ON COLUMN account_balances.last_fencing_token IS 'fencegen:token';
