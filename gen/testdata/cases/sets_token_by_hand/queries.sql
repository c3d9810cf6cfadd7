-- name: SetTok :exec
UPDATE leases SET tok = $1 WHERE id = $2;

-- name: SetBoth :exec
UPDATE leases SET owner = $1, tok = tok + 1 WHERE id = $2;

-- name: SetRow :exec
UPDATE leases SET (owner, tok) = ($1, $2) WHERE id = $3;

-- name: InsertTok :exec
INSERT INTO leases (id, owner, tok) VALUES ($1, $2, $3);

-- name: Upsert :exec
INSERT INTO leases (id, owner) VALUES ($1, $2)
ON CONFLICT (id) DO UPDATE SET owner = excluded.owner, tok = excluded.tok;
