-- name: GetA :one
SELECT id FROM a WHERE id = @id;
