-- name: CreateJob :exec
-- CreateJob is what an API runs: it holds no lease.
INSERT INTO jobs (id, status, tok) VALUES (@id, @status, DEFAULT);

-- name: CreateJobIfAbsent :execrows
INSERT INTO jobs (id, status, tok) VALUES (@id, 'new', DEFAULT)
ON CONFLICT (id) DO NOTHING;

-- name: CreateTwoJobs :many
INSERT INTO jobs (tok, id, status) VALUES (DEFAULT, @a, 'new'), (DEFAULT, @b, 'new')
RETURNING id, tok;

-- name: OpenJob :exec
-- OpenJob is a worker's INSERT: it stores the token.
INSERT INTO jobs (id, status) VALUES (@id, @status);
