-- name: Com :many
SELECT id FROM t WHERE @x::int ~~= n;
