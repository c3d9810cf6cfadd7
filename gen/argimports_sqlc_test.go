package gen_test

import (
	"os"
	"path/filepath"
	"regexp"
	"testing"
)

// TestArgImportNamesAsSqlc (issue 23, trial t23f): sqlc renames a
// method's one argument that is named as the last element of a path its
// file imports (uuid, pq, time, fmt, strings) to arg and the name
// (argUuid), file by file (replaceConflictedArg): in a query file after
// that file's imports, in the querier file after the querier's, which
// spell only a single result column's type and each argument's (not a
// Params struct's fields), and in the batch file after the batch
// file's. fencegen named the querier's argument after every parameter
// type (argUuid where sqlc's interface keeps uuid), wrote pq_ where
// sqlc writes argPq (the file imports lib/pq for a result's array) or
// keeps pq (it does not), and did not see fmt (wrap_errors), strings (a
// sqlc.slice with database/sql) or a batch file's imports. The files are
// compared with sqlc's, text for text, below the header.
func TestArgImportNamesAsSqlc(t *testing.T) {
	yaml := func(pkg, queries, extra string) string {
		return "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: " + queries +
			", gen: {go: {package: x, out: out, emit_interface: true, sql_package: " + pkg + extra + "}}}\n"
	}
	nullUUID := `, overrides: [{db_type: uuid, nullable: true, go_type: "github.com/google/uuid.NullUUID"}]`
	uuidSchema := "CREATE TABLE t (id bigint PRIMARY KEY, uuid uuid NOT NULL, ext uuid);\n"
	pqSchema := "CREATE TABLE t (id bigint PRIMARY KEY, pq text, tags text[]);\n"
	cases := []struct {
		name  string
		files map[string]string
	}{
		// The query file imports uuid for SetExtParams' field: argUuid
		// there, uuid in the querier, which spells SetExtParams only.
		{"uuid", map[string]string{
			"schema.sql": uuidSchema,
			"q.sql":      "-- name: ByUUID :one\nSELECT id FROM t WHERE uuid = $1;\n\n-- name: SetExt :exec\nUPDATE t SET ext = $2 WHERE id = $1;\n",
			"sqlc.yaml":  yaml("pgx/v5", "q.sql", nullUUID),
		}},
		// The same queries in two files: uuid in both.
		{"uuid two files", map[string]string{
			"schema.sql": uuidSchema,
			"a.sql":      "-- name: SetExt :exec\nUPDATE t SET ext = $2 WHERE id = $1;\n",
			"b.sql":      "-- name: ByUUID :one\nSELECT id FROM t WHERE uuid = $1;\n",
			"sqlc.yaml":  yaml("pgx/v5", "[a.sql, b.sql]", nullUUID),
		}},
		// SetExt's one argument is a uuid.NullUUID, which the querier
		// spells: argUuid there, uuid in b.sql.go.
		{"uuid querier", map[string]string{
			"schema.sql": uuidSchema,
			"a.sql":      "-- name: SetExt :exec\nUPDATE t SET ext = $1;\n",
			"b.sql":      "-- name: ByUUID :one\nSELECT id FROM t WHERE uuid = $1;\n",
			"sqlc.yaml":  yaml("pgx/v5", "[a.sql, b.sql]", nullUUID),
		}},
		// database/sql: the file imports lib/pq to scan Tags' text[]:
		// argPq in the method, pq in the querier.
		{"pq", map[string]string{
			"schema.sql": pqSchema,
			"q.sql":      "-- name: ByPq :many\nSELECT id FROM t WHERE pq = $1;\n\n-- name: Tags :one\nSELECT tags FROM t WHERE id = $1;\n",
			"sqlc.yaml":  yaml("database/sql", "q.sql", ""),
		}},
		// The array is another file's: pq stays.
		{"pq other file", map[string]string{
			"schema.sql": pqSchema,
			"a.sql":      "-- name: ByPq :many\nSELECT id FROM t WHERE pq = $1;\n",
			"b.sql":      "-- name: Tags :one\nSELECT tags FROM t WHERE id = $1;\n",
			"sqlc.yaml":  yaml("database/sql", "[a.sql, b.sql]", ""),
		}},
		// A model's array field is scanned through pq.Array too.
		{"pq model", map[string]string{
			"schema.sql": pqSchema,
			"q.sql":      "-- name: ByPq :many\nSELECT * FROM t WHERE pq = $1;\n",
			"sqlc.yaml":  yaml("database/sql", "q.sql", ""),
		}},
		// wrap_errors imports fmt.
		{"fmt", map[string]string{
			"schema.sql": "CREATE TABLE t (id bigint PRIMARY KEY, fmt text NOT NULL);\n",
			"q.sql":      "-- name: ByFmt :many\nSELECT id FROM t WHERE fmt = $1;\n",
			"sqlc.yaml":  yaml("database/sql", "q.sql", ", wrap_errors: true"),
		}},
		// A batch method's argument is named after the batch file's
		// imports (time), the query file's after its own.
		{"batch", map[string]string{
			"schema.sql": "CREATE TABLE t (id bigint PRIMARY KEY, time timestamptz NOT NULL);\n",
			"q.sql":      "-- name: ByTime :batchmany\nSELECT id FROM t WHERE time = $1;\n\n-- name: OneByTime :one\nSELECT id FROM t WHERE time = $1;\n\n-- name: Times :many\nSELECT time FROM t;\n",
			"sqlc.yaml":  yaml("pgx/v5", "q.sql", ""),
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			filesAsSqlc(t, c.files, "sqlc.yaml")
		})
	}
	// A sqlc.slice with database/sql imports strings: argStrings in the
	// method, strings in the querier. fencegen's body of the query
	// differs from sqlc's on purpose (docs/sqlc.md): the querier and the
	// signature are compared.
	t.Run("strings", func(t *testing.T) {
		r := sqlcAndFencegen(t, map[string]string{
			"schema.sql": "CREATE TABLE t (id bigint PRIMARY KEY, strings bigint NOT NULL);\n",
			"q.sql":      "-- name: ByStrings :many\nSELECT id FROM t WHERE strings IN (sqlc.slice(strings));\n",
			"sqlc.yaml":  yaml("database/sql", "q.sql", ""),
		}, "sqlc.yaml")
		r.mustBoth(t)
		for _, f := range []string{"out/querier.go", "out/q.sql.go"} {
			want, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(f)))
			if err != nil {
				t.Fatal(err)
			}
			g, w := belowHeader(r.out.Files[f]), belowHeader(want)
			if f == "out/q.sql.go" {
				sig := regexp.MustCompile(`(?m)^func \(q \*Queries\).*$`)
				g, w = sig.FindString(g), sig.FindString(w)
			}
			if g != w {
				t.Errorf("%s differs from sqlc's:\n--- fencegen\n%s\n--- sqlc\n%s", f, g, w)
			}
		}
	})
}
