-- name: FinishJob :exec
UPDATE app.jobs SET state = 'done' WHERE id = @id;

-- name: RequeueJob :exec
UPDATE jobs SET state = 'queued' WHERE id = @id;

-- name: GetJob :one
SELECT id, state FROM jobs WHERE id = @id;
