-- name: AddSlot :exec
INSERT INTO slots (id, r) SELECT max(id) + 1, '[-10,1000)' FROM slots;

-- name: GetJob :one
SELECT id, state FROM jobs WHERE id = $1;

-- name: SetJobState :exec
UPDATE jobs SET state = $2 WHERE id = $1;
