-- name: SetNote :exec
UPDATE notes SET body = $1 WHERE id = $2;
