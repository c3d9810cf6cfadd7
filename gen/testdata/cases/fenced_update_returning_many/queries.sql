-- name: TakeRegion :many
UPDATE shards SET owner = @owner, moved_at = now()
WHERE region = @region
RETURNING id, owner, moved_at;

-- name: TakeAll :many
UPDATE shards SET owner = $1 RETURNING *;

-- name: TakeIDs :many
UPDATE shards s SET owner = @owner WHERE s.id = ANY(@ids::int[]) RETURNING s.id;
