-- name: CreditAccount :exec
-- CreditAccount adds amount to an account's balance.
UPDATE account_balances SET balance = balance + @amount WHERE id = @id;

-- name: ResetBalance :exec
UPDATE account_balances SET balance = 0 WHERE id = $1;
