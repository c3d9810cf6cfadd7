-- name: SetStatus :exec
UPDATE jobs SET status = $1 WHERE id = $2;

-- name: FenceStoredSetStatus :one
SELECT status FROM jobs WHERE id = $1;

-- name: GetJob :one
SELECT id, status FROM jobs WHERE id = $1;

-- name: ToTimestamp :many
SELECT id FROM events WHERE to_timestamp = @to_timestamp;

-- name: WithTx :one
SELECT 1::int;

-- name: db :one
SELECT 2::int;

