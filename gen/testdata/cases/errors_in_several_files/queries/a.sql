-- name: A1 :one
SELECT id FROM nowhere;

-- name: A2 :bogus
SELECT 1;
