-- name: Get :one
SELECT id FROM t;
SELECT 2;

UPDATE t SET id = id;

-- name: Count :one
SELECT count(*) FROM t;
