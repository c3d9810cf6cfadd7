-- name: Increment :exec
-- Increment must run once per token.
-- @fence strict
UPDATE counters SET value = value + 1 WHERE id = @id;

-- name: SetCounter :exec
UPDATE counters SET value = @value WHERE id = @id;

-- name: AddToLedger :exec
UPDATE ledgers SET total = total + @amount WHERE id = @id;

-- name: SetLedger :exec
-- @fence non-strict
UPDATE ledgers SET total = @total WHERE id = @id;
