-- name: Upsert :exec
INSERT INTO jobs (id, status, tok) VALUES (@id, @status, DEFAULT)
ON CONFLICT (id) DO UPDATE SET status = excluded.status;

-- name: OneRowByHand :exec
INSERT INTO jobs (id, status, tok) VALUES (1, 'a', DEFAULT), (2, 'b', @tok);

-- name: NoDefault :exec
INSERT INTO runs (id, tok) VALUES (@id, DEFAULT);
