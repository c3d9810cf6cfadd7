-- name: GetJob :one
SELECT id, state FROM jobs WHERE id = $1;

-- name: SetJobState :exec
UPDATE jobs SET state = $2 WHERE id = $1;
