-- name: FinishJob :exec
UPDATE app.jobs SET done = true WHERE id = @id;

-- name: FinishJobReturning :one
UPDATE app.jobs j SET done = true WHERE j.id = @id RETURNING j.id, j.kind;

-- name: DeleteJob :execrows
DELETE FROM app.jobs WHERE id = @id;

-- name: ListJobs :many
SELECT * FROM app.jobs WHERE kind = @kind ORDER BY id;
