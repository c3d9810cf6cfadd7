-- name: RequeueExec :exec
-- @fence sweep
UPDATE jobs SET status = 'queued', owner = NULL WHERE status = 'running' AND owner = @owner;

-- name: RequeueRows :execrows
-- @fence sweep
UPDATE jobs SET status = 'queued' WHERE status = 'running' AND owner = @owner AND tok <= @token;

-- name: RequeueMany :many
-- @fence sweep
UPDATE jobs SET status = 'queued' WHERE status = 'running' AND owner = @owner RETURNING id;

-- name: RequeueResult :execresult
-- @fence sweep
DELETE FROM jobs WHERE status = 'stuck' AND owner = @owner;
