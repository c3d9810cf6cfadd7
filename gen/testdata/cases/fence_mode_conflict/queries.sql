-- name: SetBody :exec
UPDATE documents SET body = $1 WHERE id = $2;

-- name: SetNote :exec
UPDATE notes SET body = $1 WHERE id = $2;
