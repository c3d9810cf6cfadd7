package gen_test

import (
	"strings"
	"testing"
)

// TestUnresolvedReferencesAsSqlc (issue 23, trial t23f): sqlc v1.31.1
// resolves a column reference of a query only where it computes output
// columns (compiler's outputColumns and findColumnForNode): a select-list
// or RETURNING entry that is a column, a COALESCE's column arguments, a
// scalar subquery's own list, and an ORDER BY or GROUP BY item that is a
// column, of the statement, its WITH entries and FROM subqueries, and
// of a UNION's left side only; beside a parameter's partner, which gives
// the parameter its type. A function it does not know in FROM gives no
// columns. Everywhere else (an operator's operands, a cast, CASE, EXISTS,
// an ORDER BY or GROUP BY expression, a UNION's right side and ORDER BY,
// INSERT ... SELECT's query, an UPDATE's SET value) it generates what
// PostgreSQL refuses: SELECT page_count * page_size AS size_in_bytes
// FROM pragma_page_count(), pragma_page_size() is DBSize(ctx) (int32,
// error), and so is a WITH entry that names itself without RECURSIVE
// (Subtree). fencegen refused each ("column page_count does not exist",
// "relation sub does not exist"); it now generates sqlc's files with a
// vet note that PostgreSQL refuses the query. The files are compared
// with sqlc's, text for text, and where sqlc refuses, fencegen refuses.
func TestUnresolvedReferencesAsSqlc(t *testing.T) {
	schema := "CREATE TABLE nodes (k int PRIMARY KEY, parent int);\n"
	queries := []string{
		"-- name: DBSize :one\nSELECT page_count * page_size AS size_in_bytes FROM pragma_page_count(), pragma_page_size();",
		"-- name: Subtree :many\nWITH sub (k, depth) AS (\n  SELECT r.k, 0 AS depth FROM nodes r WHERE r.k = $1\n  UNION ALL\n  SELECT c.k, depth + 1 FROM nodes c JOIN sub r ON c.parent = r.k\n) SELECT * FROM sub WHERE depth < 3;",
		"-- name: Forward :many\nWITH a AS (SELECT k FROM nodes WHERE k IN (SELECT k FROM b)), b AS (SELECT k FROM nodes) SELECT k FROM a;",
		"-- name: Plus :many\nSELECT k + nope AS x FROM nodes;",
		"-- name: PlusParam :many\nSELECT k + $1 + nope AS x FROM nodes;",
		"-- name: Cast :many\nSELECT nope::int AS x FROM nodes;",
		"-- name: CaseWhen :many\nSELECT CASE WHEN nope THEN 1 ELSE 0 END AS x FROM nodes;",
		"-- name: Exists :many\nSELECT EXISTS (SELECT nope FROM nodes) AS x FROM nodes;",
		"-- name: InScalar :many\nSELECT (SELECT k + nope FROM nodes LIMIT 1) AS x FROM nodes;",
		"-- name: InCTE :many\nWITH c AS (SELECT k + nope AS x FROM nodes) SELECT x FROM c;",
		"-- name: InFromSubquery :many\nSELECT k FROM (SELECT k, k + nope AS z FROM nodes) s;",
		"-- name: UnionRight :many\nSELECT k FROM nodes UNION SELECT nope FROM nodes;",
		"-- name: UnionOrder :many\nSELECT k FROM nodes UNION SELECT k FROM nodes ORDER BY nope;",
		"-- name: OrderExpr :many\nSELECT k FROM nodes ORDER BY k + nope;",
		"-- name: GroupExpr :many\nSELECT k FROM nodes GROUP BY k, k + nope;",
		"-- name: Returning :many\nDELETE FROM nodes RETURNING k + nope AS x;",
		"-- name: InsertSelect :exec\nINSERT INTO nodes (k) SELECT nope FROM nodes;",
		"-- name: SetValue :exec\nUPDATE nodes SET parent = k + nope;",
	}
	for _, pkg := range []string{"database/sql", "pgx/v5"} {
		t.Run(pkg, func(t *testing.T) {
			vet := filesAsSqlc(t, map[string]string{
				"schema.sql": schema,
				"q.sql":      strings.Join(queries, "\n\n") + "\n",
				"sqlc.yaml":  "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, sql_package: " + pkg + "}}}\n",
			}, "sqlc.yaml")
			for _, q := range queries {
				name := strings.Fields(q)[2]
				found := false
				for _, v := range vet {
					found = found || strings.Contains(v, "query "+name+": PostgreSQL refuses this query")
				}
				if !found {
					t.Errorf("vet: no note that PostgreSQL refuses %s:\n%s", name, strings.Join(vet, "\n"))
				}
			}
		})
	}
	// Where sqlc resolves the reference, both refuse the query.
	for _, q := range []string{
		"SELECT page_count FROM pragma_page_count();",
		"SELECT nope AS x FROM nodes;",
		"SELECT coalesce(nope, 1) AS x FROM nodes;",
		"SELECT (SELECT nope) AS x FROM nodes;",
		"SELECT k FROM nodes ORDER BY nope;",
		"WITH c AS (SELECT nope FROM nodes) SELECT 1 AS x FROM c;",
		"DELETE FROM nodes RETURNING nope;",
		"UPDATE nodes SET parent = $1 + nope;",
		"WITH sub AS (SELECT k FROM sub) SELECT k FROM sub;",
	} {
		r := sqlcAndFencegen(t, map[string]string{
			"schema.sql": schema,
			"q.sql":      "-- name: Q1 :many\n" + q + "\n",
			"sqlc.yaml":  "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
		}, "sqlc.yaml")
		if r.sqlcErr == nil || r.err == nil {
			t.Errorf("%s: sqlc's error %v, fencegen's %v; want both", q, r.sqlcErr, r.err)
		}
	}
}
