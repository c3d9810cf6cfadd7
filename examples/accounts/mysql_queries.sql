-- name: GetAccount :one
SELECT * FROM account_balances WHERE id = ?;

-- name: OpenAccount :exec
-- OpenAccount creates an account with an opening balance.
INSERT INTO account_balances (id, balance) VALUES (?, ?);

-- name: CreditAccount :exec
-- CreditAccount adds amount to an account's balance.
UPDATE account_balances SET balance = balance + sqlc.arg(amount) WHERE id = sqlc.arg(id);

-- name: SetBalance :execrows
-- SetBalance overwrites a balance.
UPDATE account_balances SET balance = sqlc.arg(balance) WHERE id = sqlc.arg(id);

-- name: CloseAccount :execrows
-- CloseAccount deletes an account's row.
DELETE FROM account_balances WHERE id = ?;

-- name: RecreateAccount :exec
-- RecreateAccount opens an account, or re-opens a closed one: the update
-- branch is fenced.
INSERT INTO account_balances (id, balance) VALUES (sqlc.arg(id), sqlc.arg(balance))
ON DUPLICATE KEY UPDATE balance = VALUES(balance), closed_at = NULL;

-- name: CreditAccounts :execrows
-- CreditAccounts adds amount to the balance of every open account with an
-- id in [from_id, to_id]: all or nothing.
UPDATE account_balances SET balance = balance + sqlc.arg(amount)
WHERE id BETWEEN sqlc.arg(from_id) AND sqlc.arg(to_id) AND closed_at IS NULL;

-- name: CreditAccountsIn :execrows
-- CreditAccountsIn adds amount to the balance of every open account whose
-- id is in ids: all or nothing.
UPDATE account_balances SET balance = balance + sqlc.arg(amount)
WHERE id IN (sqlc.slice(ids)) AND closed_at IS NULL;

-- name: CloseAccountsIn :execrows
-- CloseAccountsIn deletes the rows of the accounts whose id is in ids: all
-- or nothing.
DELETE FROM account_balances WHERE id IN (sqlc.slice(ids));
