-- name: GetT :one
SELECT * FROM t WHERE id = $1;

-- name: ListInts :many
SELECT ints FROM t WHERE id > $1;

-- name: PutT :exec
INSERT INTO t (id, ints, fs, bigs, tags, doc, raw) VALUES ($1, $2, $3, $4, $5, $6, $7);

-- name: SetInts :exec
UPDATE t SET ints = $1 WHERE id = $2;
