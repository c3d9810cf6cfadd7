-- name: PutArrays :exec
INSERT INTO arrays (id, ints, fs, bigs, tags) VALUES ($1, $2, $3, $4, $5);

-- name: GetArrays :one
SELECT * FROM arrays WHERE id = $1;
