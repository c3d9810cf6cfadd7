-- name: SetJobState :exec
UPDATE "Jobs" SET state = $1 WHERE id = $2;

-- name: SetRunNote :exec
UPDATE app.runs SET note = $1 WHERE id = $2;
