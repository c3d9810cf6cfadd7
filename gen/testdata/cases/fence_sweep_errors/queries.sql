-- name: SweepInsert :exec
-- @fence sweep
INSERT INTO jobs (id, status) VALUES (@id, 'new');

-- name: SweepOne :one
-- @fence sweep
UPDATE jobs SET status = 'queued' WHERE owner = @owner RETURNING id;

-- name: SweepOff :exec
-- @fence sweep
-- @fence off: repair
UPDATE jobs SET status = 'queued' WHERE owner = @owner;

-- name: SweepRead :many
-- @fence sweep
SELECT id FROM jobs;
