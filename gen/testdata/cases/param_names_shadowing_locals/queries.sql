-- name: MarkBatch :batchexec
UPDATE jobs SET status = 'batched' WHERE id = @batch;

-- name: StatusByBr :batchone
SELECT status FROM jobs WHERE id = @br;

-- name: IDsByVals :batchmany
SELECT id FROM jobs WHERE status = @vals;

-- name: MarkA :batchexec
UPDATE jobs SET status = 'a' WHERE id = @a;

-- name: StatusByLen :batchone
UPDATE jobs SET status = 'len' WHERE id = @len RETURNING status;

-- name: AddNotesB :batchexec
INSERT INTO notes (body) VALUES (@b);

-- name: NotesByT :batchmany
SELECT id FROM notes WHERE body = @t;

-- name: NoteByF :batchone
SELECT id FROM notes WHERE body = @f;

-- name: StatusByCtx :batchone
SELECT status FROM jobs WHERE id = @ctx;

-- name: IDsByAppend :many
SELECT id FROM jobs WHERE status = @append;

-- name: StatusByNil :one
UPDATE jobs SET status = 'nil' WHERE id = @nil RETURNING status;

-- name: MarkInt64 :exec
UPDATE jobs SET status = 'int64' WHERE id = @int64;

-- name: MarkError :many
UPDATE jobs SET status = 'error' WHERE id >= @error RETURNING id;

-- name: CreatedAfter :one
SELECT created_at FROM jobs WHERE created_at > @time ORDER BY created_at LIMIT 1;
