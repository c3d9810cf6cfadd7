-- name: DelOwner1 :exec
DELETE FROM owners_1 WHERE id = @id;

-- name: DelOwner2 :exec
DELETE FROM owners_2 WHERE id = @id;

-- name: MoveOwner :exec
UPDATE owners_2 SET id = id + 1000 WHERE id = @id;

-- name: TruncOwner :exec
TRUNCATE owners_2 CASCADE;

-- name: DelHostParent :exec
DELETE FROM hosts WHERE id = @id;

-- name: DelBase :exec
DELETE FROM base WHERE id = @id;

-- name: UpsertAccount :exec
INSERT INTO accounts (id, code) VALUES (@id + 10, @code) ON CONFLICT (code) DO UPDATE SET id = excluded.id;

-- name: UpsertAccountKeep :exec
INSERT INTO accounts (id, code) VALUES (@id, @code) ON CONFLICT (id) DO UPDATE SET code = excluded.code;

-- A builtin that runs SQL text, in a schema where no function or view
-- writes: not refused.
-- name: QueryToXmlNoWriter :one
SELECT query_to_xml('SELECT 1 AS x', true, false, '')::text;
