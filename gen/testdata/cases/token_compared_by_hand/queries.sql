-- name: SetStatus :exec
UPDATE jobs SET status = @status WHERE id = @id AND tok <= @token;

-- name: SetStatusPositional :exec
UPDATE jobs SET status = $1 WHERE id = $2 AND jobs.tok <= $3 AND owner = $4;

-- name: TokenFirst :execrows
UPDATE jobs j SET status = @status WHERE @fencing_token::bigint >= j.tok AND j.owner = @owner;

-- name: RemoveJob :exec
DELETE FROM jobs WHERE tok <= sqlc.arg(tok) AND id = sqlc.arg(id);

-- name: ClaimOnce :one
-- @fence strict
UPDATE jobs SET owner = @owner WHERE id = @id AND tok < @token
RETURNING id, owner;

-- name: PutJob :exec
INSERT INTO jobs (id, status) VALUES (@id, @status)
ON CONFLICT (id) DO UPDATE SET status = excluded.status WHERE jobs.tok <= @token;

-- name: SetStatuses :batchexec
UPDATE jobs SET status = @status WHERE id = @id AND tok <= @token;
