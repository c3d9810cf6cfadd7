-- name: CloseTicket :one
UPDATE tickets SET status = 'closed', owner = @owner WHERE id = @id RETURNING *;

-- name: Reassign :many
UPDATE tickets SET owner = @owner WHERE owner = @old_owner RETURNING id, owner, score;

-- name: Purge :execrows
DELETE FROM tickets WHERE status = @status;

-- name: Rescore :exec
-- Rescore runs a fenced UPDATE with RETURNING under :exec.
UPDATE tickets SET score = @score WHERE id = @id RETURNING id;

-- name: Open :one
INSERT INTO tickets (id, status) VALUES (@id, 'open') RETURNING *;

-- name: List :many
SELECT id, owner, score FROM tickets WHERE status = @status;
