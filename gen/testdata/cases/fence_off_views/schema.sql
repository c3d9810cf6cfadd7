CREATE TABLE accounts (
    id      BIGINT PRIMARY KEY,
    balance NUMERIC NOT NULL,
    tok     BIGINT NOT NULL DEFAULT 0
);
COMMENT ON COLUMN accounts.tok IS 'fencegen:token';

CREATE TABLE ledger (
    id  BIGINT PRIMARY KEY,
    tok BIGINT NOT NULL DEFAULT 0
);
COMMENT ON COLUMN ledger.tok IS 'fencegen:token';

CREATE TABLE logs (id BIGINT PRIMARY KEY, msg TEXT);

-- Automatically updatable views: a write of one is a write of its base
-- table (PostgreSQL docs, CREATE VIEW, "Updatable Views").
CREATE VIEW logs_v AS SELECT id, msg FROM logs;
CREATE VIEW accounts_v AS SELECT id, balance FROM accounts WITH CHECK OPTION;

CREATE FUNCTION run_sql(cmd TEXT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE cmd;
END
$$;
