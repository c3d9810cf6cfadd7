-- name: NoParams :many
SELECT id FROM items;

-- name: OneParam :one
SELECT name FROM items WHERE id = @id;

-- name: TwoParams :exec
UPDATE items SET qty = @qty WHERE id = @id;

-- name: ThreeParams :exec
UPDATE items SET qty = @qty, note = @note WHERE id = @id;

-- name: DuplicateNames :many
SELECT id FROM items WHERE qty > @qty AND qty < @qty + 10 AND name = @name AND note = @type;
