package gen_test

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// filesAsSqlc generates files (name to text; config names the sqlc
// configuration among them) with sqlc v1.31.1 and with fencegen, and
// fails the test unless both generate the same Go files with the same
// text below the header. It returns fencegen's vet notes.
func filesAsSqlc(t *testing.T, files map[string]string, config string) []string {
	t.Helper()
	r := sqlcAndFencegen(t, files, config)
	r.mustBoth(t)
	var sqlcFiles []string
	err := filepath.WalkDir(r.dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".go") {
			return err
		}
		rel, _ := filepath.Rel(r.dir, p)
		sqlcFiles = append(sqlcFiles, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for n := range r.out.Files {
		if strings.HasSuffix(n, ".go") {
			got = append(got, n)
		}
	}
	sort.Strings(got)
	if strings.Join(got, " ") != strings.Join(sqlcFiles, " ") {
		t.Errorf("fencegen wrote %v, sqlc %v", got, sqlcFiles)
	}
	for _, n := range sqlcFiles {
		want, err := os.ReadFile(filepath.Join(r.dir, filepath.FromSlash(n)))
		if err != nil {
			t.Fatal(err)
		}
		if g, w := belowHeader(r.out.Files[n]), belowHeader(want); g != w {
			t.Errorf("%s differs from sqlc's below the header:\n--- fencegen\n%s\n--- sqlc\n%s", n, g, w)
		}
	}
	return r.out.Vet
}

// TestOverrideTypePrefixImportsAsSqlc (issue 23, trial t23b F4): an
// override's object form without import whose type is one sqlc knows
// behind a "[]" and/or "*" ({type: "*time.Time"}, "[]time.Time",
// "[]*json.RawMessage", "*uuid.UUID", "*pgtype.Text", "[]sql.NullString")
// imports the type's package as sqlc does: sqlc matches its known types
// by name less one leading "[]" and then one "*". Before, fencegen wrote
// the type without its import, and the package did not compile.
func TestOverrideTypePrefixImportsAsSqlc(t *testing.T) {
	schema := "CREATE TABLE t (id bigint PRIMARY KEY, a timestamptz, b timestamptz, c jsonb, d uuid, e text, f text, g timestamptz, h timestamptz);\n"
	queries := "-- name: GetT :one\nSELECT * FROM t WHERE id = $1;\n\n-- name: SetA :exec\nUPDATE t SET a = $1, c = $2, d = $3 WHERE id = $4;\n"
	overrides := `[{column: t.a, go_type: {type: "*time.Time"}}, {column: t.b, go_type: {type: "[]time.Time"}},
      {column: t.c, go_type: {type: "[]*json.RawMessage"}}, {column: t.d, go_type: {type: "*uuid.UUID"}},
      {column: t.e, go_type: {type: "*pgtype.Text"}}, {column: t.f, go_type: {type: "[]sql.NullString"}},
      {column: t.g, go_type: {type: "*time.Time", pointer: true}}, {column: t.h, go_type: {type: "time.Time", slice: true, pointer: true}}]`
	for _, pkg := range []string{"pgx/v5", "pgx/v4", "database/sql"} {
		t.Run(pkg, func(t *testing.T) {
			filesAsSqlc(t, map[string]string{
				"schema.sql": schema,
				"q.sql":      queries,
				"sqlc.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, sql_package: " + pkg +
					",\n    overrides: " + overrides + "}}}\n",
			}, "sqlc.yaml")
		})
	}
}
