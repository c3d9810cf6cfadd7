-- name: B1 :one
SELECT nope FROM t;

-- name: B2 :exec
UPDATE t SET tok = 1;
