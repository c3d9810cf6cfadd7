-- name: GetU :one
SELECT id FROM u WHERE id = $1;

-- name: GetMissing :one
SELECT id FROM nowhere WHERE id = $1;
