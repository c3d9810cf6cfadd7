-- Opted-out writes of a fenced table: the database-side guard's refusal
-- must come back as a *fence.StaleError from every form.

-- name: RepairExec :exec
-- @fence off: operator repair
UPDATE strict_jobs SET status = @status WHERE id = @id;

-- name: RepairExecRows :execrows
-- @fence off: operator repair
UPDATE strict_jobs SET status = @status WHERE id = @id;

-- name: RepairExecResult :execresult
-- @fence off: operator repair
UPDATE strict_jobs SET status = @status WHERE id = @id;

-- name: RepairOne :one
-- @fence off: operator repair
UPDATE strict_jobs SET status = @status WHERE id = @id RETURNING status;

-- name: RepairMany :many
-- @fence off: operator repair
UPDATE strict_jobs SET status = @status WHERE id >= @min_id RETURNING id;

-- name: RepairBatch :batchexec
-- @fence off: operator repair
UPDATE strict_jobs SET status = @status WHERE id = @id;

-- name: RepairBatchOne :batchone
-- @fence off: operator repair
UPDATE strict_jobs SET status = @status WHERE id = @id RETURNING status;

-- name: RepairBatchMany :batchmany
-- @fence off: operator repair
UPDATE strict_jobs SET status = @status WHERE id >= @min_id RETURNING id;

-- A fenced :copyfrom stores the token (and would map the guard's SQLSTATE).

-- name: CopyJobs :copyfrom
INSERT INTO jobs (id, status) VALUES (@id, @status);

-- A batch whose one parameter is named as a local of the batch method.

-- name: MarkBatch :batchexec
UPDATE jobs SET status = 'batched' WHERE id = @batch;

-- Fenced writes in WITH, alone and as batch items: the same outcomes. (A
-- statement that also writes elsewhere, as CteFilter does, is refused as a
-- batch item: its refusal fails the statement, which would roll back the
-- batch's other items.)

-- name: CteFilter :exec
WITH u AS (UPDATE jobs SET status = @status WHERE id = @id RETURNING id, status)
INSERT INTO plain_log (msg) SELECT status FROM u WHERE status <> 'skip';

-- name: CteCount :one
WITH u AS (UPDATE jobs SET status = @status WHERE id = @id RETURNING id, status)
SELECT count(*) FROM u;

-- name: BatchCteCount :batchone
WITH u AS (UPDATE jobs SET status = @status WHERE id = @id RETURNING id, status)
SELECT count(*) FROM u;

-- name: CteFiltered :one
WITH u AS (UPDATE jobs SET status = @status WHERE id = @id RETURNING id, status)
SELECT id, status FROM u WHERE status <> 'skip';

-- name: BatchCteFiltered :batchone
WITH u AS (UPDATE jobs SET status = @status WHERE id = @id RETURNING id, status)
SELECT id, status FROM u WHERE status <> 'skip';

-- name: CteByOwner :many
WITH u AS (UPDATE jobs SET status = @status WHERE owner = @owner RETURNING id, status)
SELECT id FROM u WHERE status <> 'skip' ORDER BY id;

-- name: BatchCteByOwner :batchmany
WITH u AS (UPDATE jobs SET status = @status WHERE owner = @owner RETURNING id, status)
SELECT id FROM u WHERE status <> 'skip' ORDER BY id;

-- name: ListJobs :many
SELECT * FROM jobs ORDER BY id;

-- name: CountLog :one
SELECT count(*) FROM plain_log;
