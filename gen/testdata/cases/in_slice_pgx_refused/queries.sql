-- name: ItemsIn :many
SELECT id FROM items WHERE id IN (sqlc.slice(ids));

-- name: ItemsNotIn :many
SELECT id FROM items WHERE owner = @owner AND id NOT IN (sqlc.slice(ids));

-- name: ItemsAny :many
SELECT id FROM items WHERE id = ANY(sqlc.slice(ids));
