-- name: StrictByHand :exec
UPDATE jobs SET status = @status WHERE id = @id AND tok < @token;

-- name: MineOnly :exec
UPDATE jobs SET status = @status WHERE id = @id AND tok = @token;

-- name: Newer :exec
DELETE FROM jobs WHERE id = @id AND @token > tok;
