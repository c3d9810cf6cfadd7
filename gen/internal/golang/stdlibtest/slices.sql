-- name: JobsIn :many
SELECT id FROM jobs WHERE status <> @not_status AND id IN (sqlc.slice(ids)) ORDER BY id;

-- name: JobsNotIn :many
SELECT id FROM jobs WHERE id NOT IN (sqlc.slice(ids)) ORDER BY id;

-- name: JobsInTwoLists :many
SELECT id FROM jobs WHERE id IN (sqlc.slice(ids)) OR owner IN (sqlc.slice(owners)) ORDER BY id;

-- name: SetStatusIn :execrows
UPDATE jobs SET status = @status WHERE id IN (sqlc.slice(ids));

-- name: SetStatusAny :execrows
UPDATE jobs SET status = @status WHERE id = ANY(sqlc.slice(ids));

-- name: TagIn :many
UPDATE jobs SET tags = @tags WHERE id IN (sqlc.slice(ids)) RETURNING id;

-- name: TagAny :many
UPDATE jobs SET tags = @tags WHERE id = ANY(sqlc.slice(ids)) RETURNING id;

-- name: RemoveJobsIn :execrows
DELETE FROM jobs WHERE id IN (sqlc.slice(ids)) AND status = @status;

-- name: RemoveJobsAny :execrows
DELETE FROM jobs WHERE id = ANY(sqlc.slice(ids)) AND status = @status;
