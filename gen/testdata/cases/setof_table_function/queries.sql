-- name: UsersOf :many
SELECT * FROM users_of($1);

-- name: UsersOfID :many
SELECT id FROM users_of($1);
