CREATE TABLE accounts (
    id      BIGINT PRIMARY KEY,
    balance NUMERIC NOT NULL,
    tok     BIGINT NOT NULL DEFAULT 0
);
COMMENT ON COLUMN accounts.tok IS 'fencegen:token';

CREATE FUNCTION credit(acct BIGINT, amount NUMERIC) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE accounts SET balance = balance + amount WHERE id = acct;
END
$$;
