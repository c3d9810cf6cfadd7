-- name: GetJob :one
SELECT * FROM jobs WHERE id = @job;

-- name: Count :one
SELECT count(*) FROM jobs WHERE note = @make;
