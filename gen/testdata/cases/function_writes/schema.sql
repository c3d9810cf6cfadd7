CREATE TABLE accounts (
    id    BIGINT PRIMARY KEY,
    balance NUMERIC NOT NULL,
    tok   BIGINT NOT NULL DEFAULT 0
);
COMMENT ON COLUMN accounts.tok IS 'fencegen:token';

CREATE TABLE audit (id BIGSERIAL PRIMARY KEY, note TEXT NOT NULL);

CREATE FUNCTION credit(acct BIGINT, amount NUMERIC) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE accounts SET balance = balance + amount WHERE id = acct;
END
$$;

CREATE FUNCTION purge(acct BIGINT) RETURNS BIGINT LANGUAGE sql AS $$
    DELETE FROM public.accounts WHERE id = acct RETURNING id;
$$;

CREATE FUNCTION reset_all() RETURNS void LANGUAGE sql
BEGIN ATOMIC
    UPDATE accounts SET balance = 0;
END;

CREATE FUNCTION dynamic_wipe() RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    -- a comment that says update accounts is not a write
    EXECUTE 'TRUNCATE audit, accounts';
END
$$;

CREATE FUNCTION outer_fn(acct BIGINT) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    PERFORM credit(acct, 1);
END
$$;

CREATE PROCEDURE move_money(src BIGINT, dst BIGINT, amount NUMERIC) LANGUAGE plpgsql AS $$
BEGIN
    UPDATE accounts SET balance = balance - amount WHERE id = src;
    INSERT INTO "accounts" (id, balance) VALUES (dst, amount);
END
$$;

-- Only reads the fenced table (FOR UPDATE OF is no write), writes an
-- unfenced one.
CREATE FUNCTION note_balance(acct BIGINT) RETURNS NUMERIC LANGUAGE plpgsql AS $$
DECLARE b NUMERIC;
BEGIN
    SELECT balance INTO b FROM accounts WHERE id = acct FOR UPDATE OF accounts;
    INSERT INTO audit (note) VALUES ('balance read');
    RETURN b;
END
$$;

-- Replaced by a version that no longer writes.
CREATE FUNCTION touch(acct BIGINT) RETURNS void LANGUAGE sql AS $$
    UPDATE accounts SET balance = balance WHERE id = acct;
$$;
CREATE OR REPLACE FUNCTION touch(acct BIGINT) RETURNS void LANGUAGE sql AS $$
    SELECT 1;
$$;
