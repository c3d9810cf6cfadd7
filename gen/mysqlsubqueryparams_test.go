package gen_test

import (
	"testing"
)

// TestMySQLSubqueryParamsAsSqlc (issue 27 trial t27 F7): a parameter
// compared with a scalar subquery is named and typed as sqlc v1.31.1
// names and types it: after the first column reference in the
// comparison's left operand, else its right one, searched through the
// subquery (its select list first, inside SUM, MAX or COALESCE too), the
// column looked up in every table the statement names and taken with
// its own nullability; with no column (COUNT(*)) interface{} and
// unnamed. A parameter tested by IN (SELECT ...) under nothing but AND,
// OR and NOT is interface{} and unnamed, as sqlc's In node gives it no
// parent. Before, fencegen named such parameters coalesce, count or
// dollar_1 and typed them by the subquery's result (a real project,
// whose hand-written code passes a uint64 by the column's override, no
// longer compiled). The files are compared with sqlc's, text for text,
// below the header.
func TestMySQLSubqueryParamsAsSqlc(t *testing.T) {
	schema := `CREATE TABLE items (id BIGINT PRIMARY KEY, size BIGINT NOT NULL, owner_id BIGINT NOT NULL, name VARCHAR(50) NOT NULL,
  data JSON, price DECIMAL(10,2), created DATETIME NOT NULL, file_size BIGINT UNSIGNED NOT NULL);
CREATE TABLE owners (id BIGINT PRIMARY KEY, title VARCHAR(50), quota INT);
`
	queries := `-- name: SumCoalesce :many
SELECT o.id FROM owners o
WHERE (SELECT COALESCE(SUM(i.size), 0) FROM items i WHERE i.owner_id = o.id) <= ?;

-- name: SumBare :many
SELECT o.id FROM owners o WHERE (SELECT SUM(i.size) FROM items i WHERE i.owner_id = o.id) <= ?;

-- name: MaxBare :many
SELECT o.id FROM owners o WHERE (SELECT MAX(i.size) FROM items i WHERE i.owner_id = o.id) <= ?;

-- name: ParamLeft :many
SELECT id FROM owners o WHERE ? <= (SELECT SUM(i.size) FROM items i WHERE i.owner_id = o.id);

-- name: LimitOne :many
SELECT id FROM owners o WHERE (SELECT i.name FROM items i WHERE i.owner_id = o.id LIMIT 1) = ?;

-- name: InSubquery :many
SELECT id FROM items WHERE ? IN (SELECT owner_id FROM items);

-- name: InSubqueryAnd :many
SELECT id FROM items WHERE size > 0 AND NOT (? IN (SELECT owner_id FROM items)) AND name = ?;

-- name: CountStar :many
SELECT id FROM items WHERE (SELECT COUNT(*) FROM owners) > ?;

-- name: CountWhere :many
SELECT id FROM owners o WHERE (SELECT COUNT(*) FROM items i WHERE i.owner_id = o.id) >= ?;

-- name: MaxId :many
SELECT id FROM items WHERE (SELECT MAX(o.id) FROM owners o) = ?;

-- name: CoalesceTitle :many
SELECT id FROM items WHERE (SELECT COALESCE(MAX(o.title), '') FROM owners o) = ?;

-- name: Unsigned :many
SELECT id FROM owners o WHERE (SELECT COALESCE(SUM(i.file_size), 0) FROM items i WHERE i.owner_id = o.id) < ?;

-- name: NullableQuota :many
SELECT id FROM items WHERE (SELECT MAX(o.quota) FROM owners o) <> ?;

-- name: NamedArg :many
SELECT id FROM owners o WHERE (SELECT SUM(i.size) FROM items i WHERE i.owner_id = o.id) > sqlc.arg(min_total);

-- name: Nested :many
SELECT id FROM owners o WHERE (SELECT SUM(i.size) FROM items i WHERE i.owner_id = o.id) > ? + 1;

-- name: InsideSubquery :many
SELECT id FROM owners o WHERE (SELECT SUM(i.size) FROM items i WHERE i.owner_id = o.id AND i.name = ?) > 10;

-- name: UpdateBySubquery :exec
UPDATE owners SET title = ? WHERE (SELECT COUNT(*) FROM items WHERE items.owner_id = owners.id) < ?;

-- name: DeleteBySubquery :exec
DELETE FROM owners WHERE ? > (SELECT MAX(items.price) FROM items WHERE items.owner_id = owners.id);

-- name: Like :many
SELECT id FROM items WHERE (SELECT MAX(o.title) FROM owners o) LIKE ?;

-- name: Untouched :many
SELECT id FROM items WHERE name LIKE CONCAT('%', ?, '%') AND size + ? > ? AND owner_id IN (SELECT id FROM owners WHERE title = ?);
`
	got, want, _ := sqlcBodyOf(t, "mysql", schema, queries)
	if got != want {
		t.Errorf("q.sql.go differs from sqlc's below the header:\n--- fencegen\n%s\n--- sqlc\n%s", got, want)
	}
}
