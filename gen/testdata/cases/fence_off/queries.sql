-- name: FixBalance :exec
-- FixBalance corrects a balance by hand.
-- @fence off: operator repair from the admin console, run with the workers stopped
UPDATE accounts SET balance = @balance WHERE id = @id;

-- name: ImportAccount :exec
-- @fence off: one-off migration import, before any worker runs
INSERT INTO accounts (id, balance) VALUES ($1, $2);

-- name: WipeTestData :exec
-- @fence off: test fixture reset
TRUNCATE accounts;

-- name: CreditViaFunction :exec
/* @fence off: credit() is only called by the nightly batch, which holds a table lock */
SELECT credit(@acct, @amount);

-- name: Guarded :exec
UPDATE accounts SET balance = @balance WHERE id = @id;
