-- name: ArgSliceArg :many
SELECT id FROM t WHERE name = sqlc.arg(n) AND ev IN (sqlc.slice(evs)) AND name = sqlc.arg(n) ORDER BY id;

-- name: SliceTwice :many
SELECT id FROM t WHERE ev IN (sqlc.slice(evs)) OR id IN (sqlc.slice(evs)) ORDER BY id;

-- name: SliceArgSlice :one
SELECT id FROM t
WHERE id IN (sqlc.slice(ids)) AND name = sqlc.arg(n) AND ev IN (sqlc.slice(evs)) AND id IN (sqlc.slice(ids)) AND name = sqlc.arg(n)
ORDER BY id LIMIT 1;

-- name: CountArgsFirst :one
SELECT COUNT(*) FROM t WHERE ev > sqlc.arg(min_ev) AND name = sqlc.arg(n) AND ev <> sqlc.arg(min_ev) AND id IN (sqlc.slice(ids));

-- name: DeleteSliceFirst :exec
DELETE FROM t WHERE ev IN (sqlc.slice(evs)) AND name = sqlc.arg(n) AND id IN (sqlc.slice(evs)) AND name <> concat(sqlc.arg(n), 'x');

-- name: BumpPlainAndSlice :execrows
UPDATE t SET ev = ev + 10 WHERE id IN (sqlc.slice(ids)) AND (ev = ? OR ev IN (sqlc.slice(ids)));

-- name: FencedBumpAll :execrows
UPDATE acct SET bal = bal + sqlc.arg(d) WHERE id IN (sqlc.slice(ids)) AND name = sqlc.arg(n) AND bal <> sqlc.arg(d) AND id IN (sqlc.slice(ids));

-- name: FencedDeleteByKey :exec
DELETE FROM acct WHERE id = sqlc.arg(id) AND bal IN (sqlc.slice(bals)) AND name = sqlc.arg(n) AND id <> sqlc.arg(id) + 1000 AND bal IN (sqlc.slice(bals));
