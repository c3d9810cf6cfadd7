package gen_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSingularModelNamesMeet (issue 23): tables status and statuses both
// singularise to the model Status. sqlc v1.31.1 declares type Status
// twice (code that does not compile); fencegen renames neither: it is
// an error at the later table that says how to keep the plural, and
// with that option (inflection_exclude_table_names) both generate the
// same models.go. Without sqlc the test skips with one line, and fails
// under CI=true.
func TestSingularModelNamesMeet(t *testing.T) {
	needSqlc(t)
	for _, tt := range []struct {
		name, opt, err string
	}{
		{name: "singular", err: "schema.sql:2:14: Go name Status is the model of table statuses and also the model of table status (schema.sql:1:14): the generated code would not compile; keep the model's name plural with gen.go's inflection_exclude_table_names: [statuses]"},
		{name: "plural kept", opt: ", inflection_exclude_table_names: [statuses]"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := sqlcGenerate(t, map[string]string{
				"schema.sql": "CREATE TABLE status (id bigint PRIMARY KEY, a text);\nCREATE TABLE statuses (id bigint PRIMARY KEY, b text);\n",
				"query.sql":  "-- name: GetStatus :one\nSELECT * FROM status WHERE id = $1;\n\n-- name: GetStatuses :one\nSELECT * FROM statuses WHERE id = $1;\n",
				"sqlc.yaml":  "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: schema.sql\n    queries: query.sql\n    gen:\n      go: {package: db, out: db, sql_package: pgx/v5" + tt.opt + "}\n",
			})
			if r.sqlcErr != nil {
				t.Fatalf("sqlc generate: %v\n%s", r.sqlcErr, r.sqlcOut)
			}
			want, err := os.ReadFile(filepath.Join(r.dir, "db", "models.go"))
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(want), "type Status struct"); tt.err != "" && n != 2 {
				t.Fatalf("sqlc declares type Status %d times, want twice (the test's premise):\n%s", n, want)
			}
			t.Chdir(r.dir) // file names in messages relative to it
			r.fencegen("sqlc.yaml")
			if r.cfgErr != nil {
				t.Fatal(r.cfgErr)
			}
			out, err := r.out, r.err
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Errorf("error\n%v\nwant\n%s", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("generate: %v", err)
			}
			if got := out.Files["db/models.go"]; belowHeader(got) != belowHeader(want) {
				t.Errorf("models.go:\n%s\nsqlc's:\n%s", got, want)
			}
		})
	}
}
