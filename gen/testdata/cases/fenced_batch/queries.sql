-- name: CreditAccounts :batchexec
UPDATE account_balances SET balance = balance + @amount WHERE id = @id;

-- name: SetBalances :batchone
-- SetBalances overwrites balances and returns the rows.
-- @fence strict
UPDATE account_balances SET balance = @balance WHERE id = @id RETURNING *;

-- name: CloseAccountsAbove :batchmany
DELETE FROM account_balances WHERE balance > $1 RETURNING id, balance;

-- name: OpenAccounts :batchexec
INSERT INTO account_balances (id, balance) VALUES ($1, $2);

-- name: PutAccounts :batchexec
INSERT INTO account_balances AS a (id, balance) VALUES ($1, $2)
ON CONFLICT (id) DO UPDATE SET balance = EXCLUDED.balance WHERE a.balance <> EXCLUDED.balance;
