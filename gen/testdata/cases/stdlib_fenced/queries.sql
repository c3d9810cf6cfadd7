-- name: OpenAccount :exec
INSERT INTO accounts (id, owner, balance) VALUES (@id, @owner, @balance);

-- name: Credit :execrows
UPDATE accounts SET balance = balance + @amount WHERE id = @id;

-- name: Retag :one
UPDATE accounts SET tags = @tags WHERE id = @id RETURNING *;

-- name: CloseOwned :many
UPDATE accounts SET closed_on = @closed_on WHERE owner = @owner RETURNING id, tags;

-- name: SetMeta :execresult
UPDATE accounts SET meta = @meta WHERE id = @id;

-- name: Remove :exec
DELETE FROM accounts WHERE id = @id;

-- name: Repair :exec
-- @fence off: operator repair
UPDATE accounts SET balance = 0 WHERE id = @id;

-- name: ByTags :many
SELECT id, owner, balance FROM accounts WHERE tags && @tags::text[];

-- name: Get :one
SELECT * FROM accounts WHERE id = @id;
