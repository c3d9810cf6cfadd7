-- name: Touch :exec
UPDATE leases SET id = id WHERE id = @id;
