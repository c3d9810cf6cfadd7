-- name: SaveDocument :exec
UPDATE documents SET body = @body WHERE id = @id;

-- name: GetDocument :one
SELECT * FROM documents WHERE id = @id;
