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
-- CloseAccount deletes an account's row. A hard DELETE leaves nothing to
-- fence a later INSERT against: prefer SoftCloseAccount (README, "Deleting
-- fenced rows").
DELETE FROM account_balances WHERE id = $1;

-- name: SoftCloseAccount :exec
-- SoftCloseAccount closes an account with a tombstone instead of deleting
-- it: the row stays, and stores the closing holder's token, so a stale
-- holder's later write to it is refused.
UPDATE account_balances SET closed_at = coalesce(closed_at, now()) WHERE id = @id;

-- name: ReopenAccount :one
-- ReopenAccount brings a closed account back (what a re-INSERT would do after
-- a hard DELETE), as a fenced UPDATE that clears the tombstone.
UPDATE account_balances SET balance = @balance, closed_at = NULL WHERE id = @id
RETURNING *;

-- name: RecreateAccount :one
-- RecreateAccount opens an account, or re-opens a closed one: the DO UPDATE
-- branch is fenced, so a stale holder cannot re-open what a newer holder
-- closed.
INSERT INTO account_balances (id, balance) VALUES (@id, @balance)
ON CONFLICT (id) DO UPDATE SET balance = excluded.balance, closed_at = NULL
RETURNING *;

-- name: CreditAccounts :batchexec
-- CreditAccounts credits many accounts in one round trip under one token,
-- so all of them must be leased through one resource by every writer (a
-- lease on account-shard:N, say, not account:N one by one as the worker
-- takes them; docs/guard.md, batches); each item reports its own outcome.
UPDATE account_balances SET balance = balance + @amount WHERE id = @id;

-- name: SetBalances :batchone
UPDATE account_balances SET balance = @balance WHERE id = @id
RETURNING *;

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

-- name: RecreateAccounts :batchexec
-- RecreateAccounts is RecreateAccount for many accounts in one round trip:
-- each item reports its own outcome.
INSERT INTO account_balances (id, balance) VALUES (@id, @balance)
ON CONFLICT (id) DO UPDATE SET balance = excluded.balance, closed_at = NULL;
