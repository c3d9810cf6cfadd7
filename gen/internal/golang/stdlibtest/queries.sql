-- Every fenced write shape, generated from this file for pgx/v5 (pgxdb),
-- pgx/v4 (pgx4db) and database/sql (sqldb, sqlprepdb). The tests run each
-- through all of them and compare what they return and what they write.

-- name: AddJob :exec
INSERT INTO jobs (id, status, owner, tags) VALUES (@id, @status, @owner, @tags);

-- name: AddJobs :execrows
INSERT INTO jobs (id, status) SELECT unnest(@ids::bigint[]), @status;

-- name: SetStatus :exec
UPDATE jobs SET status = @status WHERE id = @id;

-- name: SetStatusRows :execrows
UPDATE jobs SET status = @status WHERE id = @id;

-- name: SetStatusResult :execresult
UPDATE jobs SET status = @status WHERE id = @id;

-- name: SetOwnerStatus :execrows
UPDATE jobs SET status = @status WHERE owner = @owner;

-- name: SetOwnerStatusResult :execresult
UPDATE jobs SET status = @status WHERE owner = @owner;

-- name: SetStatusIfNew :exec
UPDATE jobs SET status = @status WHERE id = @id AND status = 'new';

-- name: Tag :one
UPDATE jobs SET tags = @tags WHERE id = @id RETURNING *;

-- name: TagOwner :many
UPDATE jobs SET tags = @tags WHERE owner = @owner RETURNING id, tags;

-- name: RemoveJob :exec
DELETE FROM jobs WHERE id = @id;

-- name: RemoveOwnerJobs :execrows
DELETE FROM jobs WHERE owner = @owner;

-- name: PutJob :one
INSERT INTO jobs (id, status) VALUES (@id, @status)
ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status RETURNING id, status;

-- name: PutJobs :execrows
INSERT INTO jobs (id, status) SELECT unnest(@ids::bigint[]), @status
ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status;

-- name: CteCount :one
WITH u AS (UPDATE jobs SET status = @status WHERE id = @id RETURNING id, status)
SELECT count(*) FROM u;

-- name: CteByOwner :many
WITH u AS (UPDATE jobs SET status = @status WHERE owner = @owner RETURNING id, status)
SELECT id FROM u WHERE status <> 'skip' ORDER BY id;

-- name: CteLog :exec
WITH u AS (UPDATE jobs SET status = @status WHERE id = @id RETURNING id, status)
INSERT INTO plain_log (msg) SELECT status FROM u;

-- name: AddStrictJob :exec
INSERT INTO strict_jobs (id, status) VALUES (@id, @status);

-- name: SetStrictStatus :execrows
UPDATE strict_jobs SET status = @status WHERE id = @id;

-- name: RepairExec :exec
-- @fence off: operator repair
UPDATE strict_jobs SET status = @status WHERE id = @id;

-- name: RepairOne :one
-- @fence off: operator repair
UPDATE strict_jobs SET status = @status WHERE id = @id RETURNING status;

-- name: RepairMany :many
-- @fence off: operator repair
UPDATE strict_jobs SET status = @status WHERE id >= @min_id RETURNING id;

-- name: ListJobs :many
SELECT * FROM jobs ORDER BY id;

-- name: Dump :one
SELECT coalesce(string_agg(format('%s:%s:%s:%s:%s', id, status, owner, tags, tok), ' ' ORDER BY id), '')::text
FROM jobs;

-- name: DumpStrict :one
SELECT coalesce(string_agg(format('%s:%s:%s', id, status, tok), ' ' ORDER BY id), '')::text
FROM strict_jobs;

-- name: CountLog :one
SELECT count(*) FROM plain_log;
