-- name: SetStatus :exec
UPDATE jobs SET status = @status WHERE id = @id;
