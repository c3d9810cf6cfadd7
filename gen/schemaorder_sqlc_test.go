package gen_test

import (
	"strings"
	"testing"
)

// TestSchemaOrderAsSqlc (issue 23, trial t23f): sqlc v1.31.1 reads a
// schema directory's files lexically (os.ReadDir), so 0_init.sql,
// 2_add_b.sql and 10_add_c.sql are read as 0_, 10_, 2_, and t's model has
// its columns id, a, c, b. fencegen read them in the order their
// migration tool applies them (id, a, b, c). The catalog, and so the
// API, is built in sqlc's order unless the entry declares
// postgresql_types, which keeps the tool's; where sqlc's order fails
// (10_alter_u.sql altering a table 2_u.sql creates: sqlc's "relation u
// does not exist"), fencegen reads the tool's order, with a vet note.
func TestSchemaOrderAsSqlc(t *testing.T) {
	files := map[string]string{
		"migrations/0_init.sql":   "CREATE TABLE t (id bigint PRIMARY KEY, a text);\n",
		"migrations/2_add_b.sql":  "ALTER TABLE t ADD COLUMN b text;\n",
		"migrations/10_add_c.sql": "ALTER TABLE t ADD COLUMN c text;\n",
		"q.sql":                   "-- name: GetT :one\nSELECT * FROM t WHERE id = $1;\n",
	}
	for _, pkg := range []string{"database/sql", "pgx/v5"} {
		t.Run(pkg, func(t *testing.T) {
			files["sqlc.yaml"] = "version: \"2\"\nsql:\n  - {engine: postgresql, schema: migrations, queries: q.sql, gen: {go: {package: x, out: out, sql_package: " + pkg + "}}}\n"
			filesAsSqlc(t, files, "sqlc.yaml")
		})
	}
	t.Run("postgresql_types", func(t *testing.T) {
		files["sqlc.yaml"] = "version: \"2\"\nsql:\n  - {engine: postgresql, schema: migrations, queries: q.sql, gen: {go: {package: x, out: out, sql_package: pgx/v5}}}\n"
		files["fencegen.yaml"] = "extends: sqlc.yaml\ngen: {go: {postgresql_types: true}}\n"
		r := sqlcAndFencegen(t, files, "fencegen.yaml")
		if r.cfgErr != nil || r.err != nil {
			t.Fatal(r.cfgErr, r.err)
		}
		m := string(r.out.Files["out/models.go"])
		if !strings.Contains(m, "ID int64\n\tA  pgtype.Text\n\tB  pgtype.Text\n\tC  pgtype.Text\n") {
			t.Errorf("postgresql_types: the model's columns are not in the tool's order:\n%s", m)
		}
	})
	t.Run("sqlc fails", func(t *testing.T) {
		r := sqlcAndFencegen(t, map[string]string{
			"migrations/1_init.sql":     "CREATE TABLE t (id bigint PRIMARY KEY);\n",
			"migrations/2_u.sql":        "CREATE TABLE u (id bigint PRIMARY KEY);\n",
			"migrations/10_alter_u.sql": "ALTER TABLE u ADD COLUMN c text;\n",
			"q.sql":                     "-- name: GetU :one\nSELECT * FROM u WHERE id = $1;\n",
			"sqlc.yaml":                 "version: \"2\"\nsql:\n  - {engine: postgresql, schema: migrations, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
		}, "sqlc.yaml")
		if r.sqlcErr == nil || !strings.Contains(string(r.sqlcOut), `relation "u" does not exist`) {
			t.Fatalf("sqlc: %v\n%s; want its failure", r.sqlcErr, r.sqlcOut)
		}
		if r.err != nil {
			t.Fatal(r.err)
		}
		if !strings.Contains(string(r.out.Files["out/models.go"]), "type U struct {\n\tID int64\n\tC  sql.NullString\n}") {
			t.Errorf("models:\n%s", r.out.Files["out/models.go"])
		}
		want := `sqlc.yaml:3:5: note: sqlc v1.31.1 reads the schema files lexically (migrations/10_alter_u.sql before migrations/1_init.sql) and fails: relation "u" does not exist; fencegen reads them in the order their migration tool applies them`
		found := false
		for _, v := range r.out.Vet {
			found = found || strings.HasSuffix(v, want)
		}
		if !found {
			t.Errorf("vet:\n%s\nwant a note ending %s", strings.Join(r.out.Vet, "\n"), want)
		}
	})
}
