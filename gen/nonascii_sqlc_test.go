package gen_test

import (
	"os"
	"path/filepath"
	"testing"
)

// TestNonASCIINamesAsSqlc (issue 23): sqlc v1.31.1 and fencegen write
// the same files, header aside, for a MySQL table and column named in
// back-quotes ending in a non-ASCII letter (`café`, which fencegen
// refused as a possible multi-byte trail: mysqlwrites.MultibyteTrail),
// and for json tags of columns whose names are non-ASCII or make an
// unexported Go field (2fa: _2fa, 日本, ß), under each
// json_tags_case_style (fencegen left the unexported fields' tags out).
// Without sqlc the test skips with one line, and fails under CI=true.
func TestNonASCIINamesAsSqlc(t *testing.T) {
	needSqlc(t)
	const pgSchema = `CREATE TABLE t (id bigint PRIMARY KEY, "café" text, "naïveName" text, "2fa" text, "_hidden" text, "Éclair" int, "ÉCLAIR_X" int, "übung_id" int, "straße" text, "日本" text, "x日本y" text, "Has Space" text, "ß" text, "ǅungla" text);` + "\n"
	const pgQuery = "-- name: Get :one\nSELECT * FROM t WHERE id = $1;\n\n-- name: Some :many\nSELECT \"2fa\", \"日本\", \"ǅungla\" FROM t WHERE \"ß\" = $1 AND \"2fa\" = $2;\n"
	type entry struct{ engine, goOpts, schema, query string }
	cases := map[string]entry{
		"mysql café": {"mysql", "", "CREATE TABLE `café` (id int PRIMARY KEY, `naïve` text, `prix_é` int NOT NULL);\n",
			"-- name: GetCafe :one\nSELECT * FROM `café` WHERE id = ?;\n\n-- name: Naive :many\nSELECT `naïve`, `prix_é` FROM `café` WHERE `naïve` = ?;\n"},
	}
	for _, style := range []string{"", "camel", "pascal", "snake", "none"} {
		opts := ", sql_package: pgx/v5, emit_json_tags: true, query_parameter_limit: 0"
		if style != "" {
			opts += ", json_tags_case_style: " + style
		}
		cases["json tags "+style] = entry{"postgresql", opts, pgSchema, pgQuery}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			r := sqlcAndFencegen(t, map[string]string{
				"schema.sql": c.schema,
				"query.sql":  c.query,
				"sqlc.yaml":  "version: \"2\"\nsql:\n  - engine: " + c.engine + "\n    schema: schema.sql\n    queries: query.sql\n    gen:\n      go: {package: db, out: db" + c.goOpts + "}\n",
			}, "sqlc.yaml")
			r.mustBoth(t)
			dir, out := r.dir, r.out
			entries, err := os.ReadDir(filepath.Join(dir, "db"))
			if err != nil {
				t.Fatal(err)
			}
			if len(entries) != len(out.Files) {
				t.Errorf("sqlc writes %d files, fencegen %d", len(entries), len(out.Files))
			}
			for _, e := range entries {
				want, err := os.ReadFile(filepath.Join(dir, "db", e.Name()))
				if err != nil {
					t.Fatal(err)
				}
				if got := out.Files["db/"+e.Name()]; belowHeader(got) != belowHeader(want) {
					t.Errorf("%s:\n%s\nsqlc's:\n%s", e.Name(), got, want)
				}
			}
		})
	}
}
