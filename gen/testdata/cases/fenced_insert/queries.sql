-- name: CreateLease :exec
INSERT INTO leases (name, holder) VALUES (@name, @holder);

-- name: CreateLeaseReturning :one
INSERT INTO leases (name, holder) VALUES ($1, $2) RETURNING *;

-- name: CreateTwo :execrows
INSERT INTO leases (name, holder) VALUES (@a, @holder), (@b, @holder);

-- name: CreateFromRequests :execrows
INSERT INTO leases (name, holder) SELECT name, holder FROM lease_requests WHERE holder = @holder;

-- name: CreateIfAbsent :execrows
INSERT INTO leases (name, holder) VALUES (@name, @holder) ON CONFLICT (name) DO NOTHING;
