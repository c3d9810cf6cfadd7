-- name: Select :one
SELECT name FROM t WHERE id = $1;

-- name: Type :exec
UPDATE t SET name = $1 WHERE id = $2;

-- name: Append :many
SELECT id FROM t;
