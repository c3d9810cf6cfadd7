-- name: I :one
SELECT id, email FROM users WHERE id = $1;
-- name: Items :many
SELECT id, email FROM users;
-- name: Row :one
SELECT email FROM users WHERE id = $1;
-- name: Rows :many
SELECT email FROM users;
-- name: Err :exec
DELETE FROM users WHERE id = $1;
-- name: Result :execresult
DELETE FROM users WHERE id = $1;
-- name: Results :execrows
DELETE FROM users WHERE email = $1;
