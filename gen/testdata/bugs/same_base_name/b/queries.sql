-- name: GetID :one
SELECT id FROM t WHERE name = $1;
