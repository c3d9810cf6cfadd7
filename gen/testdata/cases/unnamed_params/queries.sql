-- A parameter that neither its query nor a column names is dollar_N as a
-- method argument and ColumnN as a Params field, as in sqlc.

-- name: ByQtyPlus :many
SELECT id FROM items WHERE qty = $1 + 2;

-- name: ByQtyBetween :many
SELECT id FROM items WHERE qty = $1 + 2 OR qty = $2 * 3;

-- name: Retry :exec
UPDATE items SET qty = @qty::int + 1 WHERE id = @id;
