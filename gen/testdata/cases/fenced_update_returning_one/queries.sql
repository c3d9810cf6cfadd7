-- name: SetState :one
UPDATE jobs SET state = @state WHERE id = @id RETURNING *;

-- name: SetNote :one
-- SetNote replaces the note and returns what changed.
UPDATE jobs SET note = sqlc.narg(note) WHERE id = @id RETURNING id, note, fence;

-- name: Touch :one
UPDATE jobs SET payload = payload WHERE id = $1 RETURNING state;
