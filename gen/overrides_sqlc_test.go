package gen_test

import (
	"fmt"
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

// TestCTEColumnOverridesAsSqlc (issue 23, trial t23b F8): sqlc's column
// overrides match a WITH entry's column as a column of a table named
// after the entry, in the default schema, under the entry's column name:
// "*.id" and "c.id" apply to SELECT ... FROM c (plain and WITH
// RECURSIVE, through column aliases and a second entry), "bar.id" does
// not apply through the CTE, db_type overrides still do; and a column
// override matching only a CTE's column gets no note that it matches
// nothing. PostgreSQL on three sql_packages, and MySQL.
func TestCTEColumnOverridesAsSqlc(t *testing.T) {
	queries := `-- name: CTERecursive :many
WITH RECURSIVE cte AS (
        SELECT b.* FROM bar AS b
        WHERE b.id = $1
    UNION ALL
        SELECT b.*
        FROM bar AS b, cte AS c
        WHERE b.parent_id = c.id
) SELECT * FROM cte;

-- name: CTEPlain :many
WITH c AS (SELECT * FROM bar) SELECT * FROM c;

-- name: CTEAliased :many
WITH c(ident, parent) AS (SELECT id, parent_id FROM bar), d AS (SELECT ident AS id, parent FROM c)
SELECT d.id, d.parent, c.ident AS other FROM d JOIN c ON c.ident = d.id;

-- name: CTECount :one
WITH n AS (SELECT count(*) AS total, max(note) AS note FROM bar) SELECT total, note FROM n;

-- name: BarPlain :many
SELECT id, parent_id FROM bar;
`
	myQueries := `-- name: CTEPlain :many
WITH c AS (SELECT * FROM bar) SELECT * FROM c;

-- name: CTEAliased :many
WITH c AS (SELECT id AS ident, parent_id AS parent FROM bar), d AS (SELECT ident AS id, parent FROM c)
SELECT d.id, d.parent, c.ident AS other FROM d JOIN c ON c.ident = d.id;

-- name: CTECount :one
WITH n AS (SELECT count(*) AS total, max(note) AS note FROM bar) SELECT total, note FROM n;

-- name: BarPlain :many
SELECT id, parent_id FROM bar;
`
	overrides := []string{
		`[{column: "*.id", go_type: {import: example.com/ids/v3, type: ID}}]`,
		`[{column: "c.id", go_type: {import: example.com/ids/v3, type: ID}}, {column: "c.ident", go_type: "example.com/other.Ident"}, {column: "d.parent", go_type: "example.com/other.Parent"}]`,
		`[{column: "n.total", go_type: "example.com/other.Total"}, {column: "cte.parent_id", go_type: {type: "*int64"}}, {column: "bar.id", go_type: "example.com/other.BarID"}]`,
		`[{db_type: "pg_catalog.int4", go_type: "example.com/x.Int"}, {column: "*.id", go_type: {import: example.com/ids/v3, type: ID}}]`,
	}
	for _, engine := range []string{"pgx/v5", "pgx/v4", "database/sql", "mysql"} {
		for i, ovr := range overrides {
			t.Run(fmt.Sprintf("%s/%d", engine, i), func(t *testing.T) {
				schema := "CREATE TABLE bar (id INT NOT NULL, parent_id INT, note text);\n"
				q, eng, pkg := queries, "postgresql", ", sql_package: "+engine
				if engine == "mysql" {
					q, eng, pkg = myQueries, "mysql", ""
					ovr = strings.ReplaceAll(ovr, "pg_catalog.int4", "int")
				}
				vet := filesAsSqlc(t, map[string]string{
					"schema.sql": schema,
					"q.sql":      q,
					"sqlc.yaml": "version: \"2\"\nsql:\n  - {engine: " + eng + ", schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out" + pkg +
						",\n    overrides: " + ovr + "}}}\n",
				}, "sqlc.yaml")
				for _, n := range vet {
					if strings.Contains(n, "matches no column") && !(engine == "mysql" && strings.Contains(n, `"cte.parent_id"`)) {
						t.Errorf("note on an override sqlc applies to a CTE's column: %s", n)
					}
				}
			})
		}
	}
}

// TestQueryNameFirstCharacterAsSqlc (issue 23, trial t23b F6, F7): a
// query name starting with a non-ASCII letter (ÜberQuery: constant
// überQuery, sqlc's unicode.ToLower of the first rune; before, fencegen
// lower-cased the first byte and failed with an internal error) or with
// "_" (_Purge: an unexported method, which sqlc generates and which
// compiles; before, refused) is generated as sqlc generates it, under
// several option sets.
func TestQueryNameFirstCharacterAsSqlc(t *testing.T) {
	queries := "-- name: ÜberQuery :exec\nDELETE FROM t WHERE id = $1;\n\n-- name: _Purge :many\nSELECT id, note FROM t WHERE id > $1 AND note = $2;\n\n-- name: Écrire :one\nSELECT note FROM t WHERE id = $1;\n"
	for _, opts := range []string{
		"sql_package: pgx/v5",
		"sql_package: pgx/v5, emit_interface: true, emit_exported_queries: true",
		"emit_prepared_queries: true, emit_interface: true, query_parameter_limit: 0",
		"sql_package: pgx/v4, emit_methods_with_db_argument: true, emit_result_struct_pointers: true",
	} {
		t.Run(opts, func(t *testing.T) {
			filesAsSqlc(t, map[string]string{
				"schema.sql": "CREATE TABLE t (id bigint PRIMARY KEY, note text);\n",
				"q.sql":      queries,
				"sqlc.yaml":  "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, " + opts + "}}}\n",
			}, "sqlc.yaml")
		})
	}
}

// TestParamBesideCallWithoutColumnAsSqlc (issue 23, trial t23a F2): a
// parameter compared with a call that holds no column (count(*),
// now()) is unnamed for sqlc (its resolve step names a parameter after
// the first column either operand holds): dollar_1, not count; where
// the call holds one it is named after it (count(id) >= $1: id).
func TestParamBesideCallWithoutColumnAsSqlc(t *testing.T) {
	filesAsSqlc(t, map[string]string{
		"schema.sql": "CREATE TABLE books (id bigint PRIMARY KEY, author text NOT NULL, title text NOT NULL, price numeric);\n",
		"q.sql": "-- name: HavingCount :many\nSELECT author FROM books GROUP BY author HAVING count(*) > $1;\n\n" +
			"-- name: Now :many\nSELECT id FROM books WHERE now() > $1;\n\n" +
			"-- name: HavingCountID :many\nSELECT author FROM books GROUP BY author HAVING count(id) >= $1;\n\n" +
			"-- name: Length :many\nSELECT id FROM books WHERE length(title) > $1;\n\n" +
			"-- name: Two :many\nSELECT author FROM books GROUP BY author HAVING count(*) > $1 AND max(price) < $2;\n\n" +
			// BETWEEN (t23a F1): named and typed after the left
			// operand's first column, unnamed without one.
			"-- name: B1 :many\nSELECT id FROM books WHERE length(title) BETWEEN $1 AND $2;\n\n" +
			"-- name: B2 :many\nSELECT id FROM books WHERE id + 1 NOT BETWEEN $1 AND $2;\n\n" +
			"-- name: B3 :many\nSELECT author FROM books GROUP BY author HAVING count(*) BETWEEN $1 AND $2;\n\n" +
			"-- name: B4 :many\nSELECT id FROM books WHERE price BETWEEN @lo AND @hi;\n\n" +
			"-- name: B5 :many\nSELECT id FROM books WHERE NOT (lower(title) BETWEEN $1 AND $2);\n",
		"sqlc.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, sql_package: pgx/v5}}}\n",
	}, "sqlc.yaml")
}
