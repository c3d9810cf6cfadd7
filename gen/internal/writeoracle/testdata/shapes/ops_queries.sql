-- name: Neg :many
SELECT id FROM t WHERE NOT (n ~=~ @n::int);

-- name: NoNegator :many
SELECT id FROM t WHERE NOT (n === @n::int);

-- name: Summarize :one
SELECT brin_summarize_new_values('readings_brin');

-- name: ReadReadings :many
SELECT id FROM readings WHERE id = @id;
