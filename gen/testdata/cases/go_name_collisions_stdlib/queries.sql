-- name: Close :exec
DELETE FROM jobs WHERE id = $1;

-- name: exec :exec
DELETE FROM jobs WHERE id = $1;

-- name: Get :one
SELECT v FROM (SELECT 'x'::valid AS v, 'y'::scan AS s) q;
