-- name: GetUser :one
SELECT id, name FROM user_accounts WHERE id = $1;

-- name: JoinMissing :many
SELECT u.id FROM users u JOIN groups g ON g.id = u.id;

-- name: UpdateMissing :exec
UPDATE people SET name = $1 WHERE id = $2;

-- name: DeleteMissing :exec
DELETE FROM app.users WHERE id = $1;

-- name: InsertMissing :exec
INSERT INTO userz (id, name) VALUES ($1, $2);

-- name: Fine :one
SELECT name FROM users WHERE id = $1;
