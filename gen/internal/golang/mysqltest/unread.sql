-- Parameters sqlc v1.31.1 does not read (its MySQL converter makes an
-- ast.TODO of the expression, or leaves the clause out): one query per
-- kind, each with a parameter sqlc reads after it.

-- name: Regexp :many
SELECT id FROM t WHERE name REGEXP ? AND id > ? ORDER BY id;

-- name: NotNullSafeEqual :many
SELECT id FROM t WHERE NOT (note <=> ?) AND id > ? ORDER BY id;

-- name: Collate :many
SELECT id FROM t WHERE name = ? COLLATE utf8mb4_bin AND id > ? ORDER BY id;

-- name: RowIn :many
SELECT id FROM t WHERE (a, b) IN ((?, ?)) AND id > ? ORDER BY id;

-- name: RowEqual :many
SELECT id FROM t WHERE (a, b) = (?, ?) AND id > ? ORDER BY id;

-- name: Negated :many
SELECT id FROM t WHERE a = -? AND id > ? ORDER BY id;

-- name: IsTrue :many
SELECT id FROM t WHERE (a > ?) IS TRUE AND id > ? ORDER BY id;

-- name: AnySubquery :many
SELECT id FROM t WHERE a = ANY (SELECT b FROM t WHERE id = ?) AND id > ? ORDER BY id;

-- name: GroupByExpr :many
SELECT a > ? AS big, COUNT(*) AS n FROM t WHERE id > ? GROUP BY a > ? ORDER BY big;

-- name: WindowOrder :many
SELECT id, ROW_NUMBER() OVER (ORDER BY ABS(a - ?), id) AS r FROM t WHERE id > ? ORDER BY id;

-- name: GroupConcatOrder :one
SELECT GROUP_CONCAT(name ORDER BY ABS(a - ?), id) AS names FROM t WHERE id > ?;

-- name: NamedRegexp :many
SELECT id FROM t WHERE name REGEXP sqlc.arg(pattern) AND id > sqlc.arg(min_id) ORDER BY id;

-- name: OnlyUnread :many
SELECT id FROM t WHERE NOT (a = ?) ORDER BY id;

-- name: LowerIn :many
SELECT id FROM t WHERE LOWER(name) IN (?, ?) AND id > ? ORDER BY id;

-- name: CountBetween :many
SELECT a, COUNT(*) AS n FROM t WHERE id > ? GROUP BY a HAVING COUNT(*) BETWEEN ? AND ? ORDER BY a;

-- name: UpdateOrder :execrows
UPDATE t SET note = ? WHERE id > ? ORDER BY ABS(b - ?), id LIMIT 1;
