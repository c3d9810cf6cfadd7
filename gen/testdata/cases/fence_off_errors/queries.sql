-- name: NoReason :exec
-- @fence off
UPDATE accounts SET balance = @balance WHERE id = @id;

-- name: EmptyReason :exec
-- @fence off:
UPDATE accounts SET balance = @balance WHERE id = @id;

-- name: BlankReason :exec
-- @fence off:    
UPDATE accounts SET balance = @balance WHERE id = @id;

-- name: WithStrict :exec
-- @fence strict
-- @fence off: because
UPDATE accounts SET balance = @balance WHERE id = @id;

-- name: Twice :exec
-- @fence off: one
-- @fence off: two
UPDATE accounts SET balance = @balance WHERE id = @id;

-- name: ReadsOnly :one
-- @fence off: nothing to opt out of
SELECT balance FROM accounts WHERE id = @id;
