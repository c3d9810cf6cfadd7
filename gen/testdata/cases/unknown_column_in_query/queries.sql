-- name: SelectList :one
SELECT id, email FROM users WHERE id = $1;

-- name: WhereClause :many
SELECT id FROM users WHERE nickname = $1;

-- name: SetClause :exec
UPDATE users SET email = $1 WHERE id = $2;

-- name: InsertColumns :exec
INSERT INTO users (id, email) VALUES ($1, $2);

-- name: Returning :one
UPDATE users SET name = $1 WHERE id = $2 RETURNING id, email;

-- name: Qualified :many
SELECT u.email FROM users u;

-- name: OrderBy :many
SELECT id FROM users ORDER BY created_at;
