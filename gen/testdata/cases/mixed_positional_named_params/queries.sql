-- name: AtAndDollar :many
SELECT id FROM t WHERE name = @name AND qty = $1;

-- name: DollarAndArg :exec
UPDATE t SET name = $1 WHERE id = sqlc.arg(id);

-- name: Fine :one
SELECT name FROM t WHERE id = @id AND qty = @qty;
