-- name: ListT :many
SELECT id, name FROM t;

-- name: Other :one
SELECT name FROM t WHERE id = $1;

-- name: Other :one
SELECT id FROM t WHERE name = $1;
