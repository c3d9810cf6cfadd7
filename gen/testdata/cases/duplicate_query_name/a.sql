-- name: GetT :one
SELECT name FROM t WHERE id = $1;

-- name: ListT :many
SELECT id FROM t;
