-- name: ExpireSessions :execrows
DELETE FROM sessions WHERE expires_at < @now;

-- name: DeleteSession :exec
DELETE FROM sessions WHERE id = $1;

-- name: DeleteBanned :execrows
DELETE FROM sessions s USING banned_users b WHERE s.user_id = b.user_id;

-- name: DeleteForUser :many
DELETE FROM sessions WHERE user_id = @user_id RETURNING id;
