-- name: First :one
SELECT name FROM t WHERE id = $1

-- name: Second :many
SELECT id FROM t;

-- name: Third :one
SELECT name FROM t WHERE id = $1;
