-- name: A :one
SELECT id FROM t;
