package gen_test

import (
	"strings"
	"testing"
)

// TestParamFirstUseAsSqlc (issue 23, trial t23f): sqlc v1.31.1 names and
// types a parameter used more than once by its first use in its own walk
// of the statement (find_params.go), which takes a statement's WITH
// entries last and a select list before FROM and WHERE. In
// WITH g AS (SELECT id FROM roots WHERE group_key = @k) INSERT INTO
// events (root_id) VALUES (length(@k)) that is length(@k): sqlc's first
// length taking one argument, lseg (interface{} with database/sql,
// pgtype.Lseg with pgx/v5), and with $1 for @k it is named length.
// fencegen typed and named it by the first use its own analysis reached
// (group_key's bytea, []byte, groupKey), which PostgreSQL's typing keeps
// (postgresql_types). The files are compared with sqlc's, text for text.
func TestParamFirstUseAsSqlc(t *testing.T) {
	schema := "CREATE TABLE roots (id bigint PRIMARY KEY, group_key bytea);\nCREATE TABLE events (id bigserial PRIMARY KEY, root_id bigint);\n"
	with := "WITH g AS (SELECT id FROM roots WHERE group_key = @k)\n"
	queries := []string{
		"-- name: Insert :exec\n" + with + "INSERT INTO events (root_id) VALUES (length(@k));",
		"-- name: InsertDollar :exec\n" + strings.ReplaceAll(with, "@k", "$1") + "INSERT INTO events (root_id) VALUES (length($1));",
		"-- name: InsertSelect :exec\n" + with + "INSERT INTO events (root_id) SELECT id FROM roots WHERE id = length(@k);",
		"-- name: Update :exec\n" + with + "UPDATE events SET root_id = length(@k);",
		"-- name: UpdateWhere :exec\n" + with + "UPDATE events SET root_id = 1 WHERE root_id = length(@k);",
		"-- name: Delete :exec\n" + with + "DELETE FROM events WHERE root_id = length(@k);",
		"-- name: SelectWith :many\n" + with + "SELECT id FROM events WHERE root_id = length(@k);",
		// The select list before WHERE, a scalar subquery's included.
		"-- name: SelectList :many\nSELECT length(@k) AS x FROM roots WHERE group_key = @k;",
		"-- name: SelectListDollar :many\nSELECT length($1) AS x FROM roots WHERE group_key = $1;",
		"-- name: SubqueryList :many\nSELECT id, (SELECT count(*) FROM events WHERE root_id = length(@k)) AS c FROM roots WHERE group_key = @k;",
		// PostgreSQL refuses this one (bytea and bigint for one
		// parameter); sqlc types @k as root_id, its VALUES use.
		"-- name: InsertValue :exec\n" + with + "INSERT INTO events (root_id) VALUES (@k);",
	}
	for _, pkg := range []string{"database/sql", "pgx/v5"} {
		t.Run(pkg, func(t *testing.T) {
			vet := filesAsSqlc(t, map[string]string{
				"schema.sql": schema,
				"q.sql":      strings.Join(queries, "\n\n") + "\n",
				"sqlc.yaml":  "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, sql_package: " + pkg + "}}}\n",
			}, "sqlc.yaml")
			found := false
			for _, v := range vet {
				if strings.Contains(v, "query InsertValue: PostgreSQL refuses this query") {
					found = true
					if !strings.HasSuffix(v, "$1 typed int8 from its first use in sqlc's reading") {
						t.Errorf("vet: %s, want sqlc's typing, int8", v)
					}
				}
			}
			if !found {
				t.Errorf("vet: no note for InsertValue, which PostgreSQL refuses:\n%s", strings.Join(vet, "\n"))
			}
		})
	}
}
