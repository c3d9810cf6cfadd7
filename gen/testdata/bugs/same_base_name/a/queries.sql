-- name: GetName :one
SELECT name FROM t WHERE id = $1;
