-- name: Credit :exec
SELECT credit(@acct, @amount);

-- name: Purge :one
SELECT purge(@acct);

-- name: ResetAll :exec
SELECT reset_all();

-- name: Wipe :exec
SELECT * FROM dynamic_wipe();

-- name: Outer :exec
SELECT outer_fn(@acct);

-- name: Move :exec
CALL move_money(@src, @dst, @amount);

-- name: NoteBalance :one
SELECT note_balance(@acct);

-- name: Touch :exec
SELECT touch(@acct);

-- name: Truncate :exec
TRUNCATE accounts;

-- name: Merge :exec
MERGE INTO accounts a USING audit b ON a.id = b.id WHEN MATCHED THEN DELETE;

-- name: Load :exec
COPY accounts FROM STDIN;
