-- name: InsertNote :batchexec
INSERT INTO jobs (id, note) VALUES ($1, $2);

-- name: SetNotes :exec
UPDATE jobs SET note = @note WHERE id = @id AND note = @old;

-- name: GetX :one
SELECT 'b_c'::x, 'v'::valid;
