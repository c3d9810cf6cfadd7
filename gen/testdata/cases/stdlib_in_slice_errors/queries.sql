-- name: Twice :many
SELECT id FROM items WHERE id IN (sqlc.slice(ids)) OR id = ANY(sqlc.slice(ids));

-- name: SetOwnerByKey :exec
UPDATE items SET owner = @new_owner WHERE id = @id AND owner IN (sqlc.slice(owners));
