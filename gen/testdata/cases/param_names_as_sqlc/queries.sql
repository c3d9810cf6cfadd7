-- name: ManyI :many
SELECT id FROM people WHERE name = @i;

-- name: ResultRows :execresult
DELETE FROM people WHERE name = @rows;

-- name: ByUUID :many
SELECT id FROM people WHERE uuid = @uuid;

-- name: ByToken :one
SELECT id FROM people WHERE token = @token;

-- name: OneRow :one
SELECT id FROM people WHERE name = @row;

-- name: ExecNil :execrows
DELETE FROM people WHERE name = @nil;

-- name: ExecItems :exec
DELETE FROM people WHERE name = @items;
