-- name: OpenAccount :one
-- OpenAccount creates an account with an opening balance.
INSERT INTO account_balances (id, balance) VALUES (@id, @balance)
RETURNING *;

-- name: GetAccount :one
SELECT * FROM account_balances WHERE id = @id;

-- name: ListAccounts :many
SELECT id, balance FROM account_balances ORDER BY id;

-- name: CreditAccount :exec
-- CreditAccount adds amount to an account's balance.
UPDATE account_balances SET balance = balance + @amount WHERE id = @id;

-- name: SetBalance :one
-- SetBalance overwrites a balance and returns the new row.
UPDATE account_balances SET balance = sqlc.arg(balance) WHERE id = sqlc.arg(id)
RETURNING *;

-- name: CloseAccount :execrows
DELETE FROM account_balances WHERE id = $1;

-- name: RecordCredit :exec
INSERT INTO account_credits (account_id, amount, worker) VALUES ($1, $2, $3);

-- name: CreditsFor :many
SELECT c.id, c.amount, c.worker, a.balance
FROM account_credits c
JOIN account_balances a ON a.id = c.account_id
WHERE c.account_id = @account_id
ORDER BY c.id;

-- name: ApplyInterest :exec
-- ApplyInterest multiplies a balance by rate. It must run at most once per
-- lease, so it uses the strict guard: a second call under the same token is
-- refused.
-- @fence strict
UPDATE account_balances SET balance = round(balance * @rate::numeric, 2) WHERE id = @id;
