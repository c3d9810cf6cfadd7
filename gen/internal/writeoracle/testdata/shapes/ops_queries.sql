-- name: Neg :many
SELECT id FROM t WHERE NOT (n ~=~ @n::int);

-- name: NoNegator :many
SELECT id FROM t WHERE NOT (n === @n::int);

