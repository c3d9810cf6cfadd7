-- pgx/v4 only (pgx4db): a fenced :copyfrom and fenced :batch* items,
-- which database/sql has no form of.

-- name: CopyJobs :copyfrom
INSERT INTO jobs (id, status) VALUES (@id, @status);

-- name: SetStatusBatch :batchexec
UPDATE jobs SET status = @status WHERE id = @id;

-- name: TagBatch :batchone
UPDATE jobs SET tags = @tags WHERE id = @id RETURNING id, tags, tok;

-- name: TagOwnerBatch :batchmany
UPDATE jobs SET tags = @tags WHERE owner = @owner RETURNING id;
