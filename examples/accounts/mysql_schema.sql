-- The accounts example on MySQL or MariaDB (engine: mysql): the same
-- balances, the token column marked in its COMMENT.
CREATE TABLE account_balances (
    id                 BIGINT PRIMARY KEY,
    balance            DECIMAL(15, 2) NOT NULL,
    last_fencing_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token',
    closed_at          DATETIME NULL
);
