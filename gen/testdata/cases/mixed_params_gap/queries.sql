-- name: Gap :many
SELECT id FROM t WHERE name = @name AND qty = $2;

-- name: Gap2 :many
SELECT id FROM t WHERE name = $3 AND qty = $1;
