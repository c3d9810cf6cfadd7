-- name: ClaimTask :one
UPDATE tasks SET worker_id = @worker_id, attempts = attempts + 1
WHERE id = @id AND status = 'queued'
RETURNING *;

-- name: CompleteTask :exec
UPDATE tasks SET status = 'done' WHERE id = @id;

-- name: GetTask :one
SELECT * FROM tasks WHERE id = @id;

-- name: NewTask :one
INSERT INTO tasks (status) VALUES ('queued') RETURNING id;
