-- name: JobsInState :many
SELECT id FROM jobs WHERE state = @state ORDER BY state, id;

-- name: SetJobState :exec
UPDATE jobs SET state = @state WHERE id = @id;

-- name: AddTags :exec
INSERT INTO tags (id, label) SELECT g, 'l' || g FROM generate_series(@first::bigint, @first::bigint + 20) g;
