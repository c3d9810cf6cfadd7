-- name: AddNote :execresult
INSERT INTO notes (id, body, tags) VALUES (@id, @body, @tags);

-- name: GetNote :one
SELECT * FROM notes WHERE id = @id;

-- name: ListNotes :many
SELECT * FROM notes ORDER BY id;

-- name: CountNotes :execrows
DELETE FROM notes WHERE body = '';

-- name: Touch :exec
UPDATE notes SET body = body WHERE id = @id;

-- name: CloseTask :one
UPDATE tasks SET state = 'closed' WHERE id = @id RETURNING *;

-- name: Reschedule :execrows
UPDATE tasks SET due = @due WHERE state = @state;
