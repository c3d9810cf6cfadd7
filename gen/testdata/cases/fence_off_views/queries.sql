-- name: SetLogMessage :exec
-- SetLogMessage writes logs through its view: no fenced table, no guard,
-- as sqlc generates it.
UPDATE logs_v SET msg = $2 WHERE id = $1;

-- name: FixBalanceViaView :exec
-- @fence off: operator repair from the admin console, run with the workers stopped
UPDATE accounts_v SET balance = @balance WHERE id = @id;

-- name: RunMaintenance :exec
-- @fence off: maintenance script, run with the workers stopped
SELECT run_sql(@cmd);
