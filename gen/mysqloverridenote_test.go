package gen_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// TestMySQLOverrideNoteNamesMySQL is trial tnew F3: on an engine: mysql
// entry, a db_type override of a MySQL type (tinyint, mediumint,
// longtext, year...) applies as in sqlc and gets no "matches no column"
// note naming PostgreSQL; a type neither MySQL nor the schema has still
// does, naming MySQL, and one in upper case (which sqlc never matches:
// the parser spells types in lower case) says so.
func TestMySQLOverrideNoteNamesMySQL(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("schema.sql", "CREATE TABLE t (id BIGINT NOT NULL PRIMARY KEY, small TINYINT NOT NULL, md MEDIUMINT NOT NULL, d DATETIME NOT NULL, b BLOB NOT NULL, lt LONGTEXT NOT NULL);\n")
	write("query.sql", "-- name: GetT :one\nSELECT * FROM t WHERE id = ?;\n")
	var ovs strings.Builder
	for _, ty := range []string{"tinyint", "mediumint", "DATETIME", "blob", "longtext", "year", "varbinary", "tinyitn"} {
		ovs.WriteString("          - {db_type: \"" + ty + "\", go_type: \"github.com/x/y.T\"}\n")
	}
	write("sqlc.yaml", "version: \"2\"\nsql:\n  - engine: mysql\n    schema: schema.sql\n    queries: query.sql\n    gen:\n      go:\n        package: ov\n        out: ov\n        overrides:\n"+ovs.String())
	t.Chdir(dir)
	cfg, err := gen.LoadConfig("sqlc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	want := `sqlc.yaml:13:13: note: override: db_type "DATETIME" matches no column: sqlc compares it with the type as MySQL's parser spells it, in lower case (write "datetime")
sqlc.yaml:18:13: note: override: db_type "tinyitn" is no type MySQL or the schema has, so it matches no column`
	if got := strings.Join(out.Vet, "\n"); got != want {
		t.Errorf("vet notes:\n%s\nwant:\n%s", got, want)
	}
	if m := string(out.Files["ov/models.go"]); !strings.Contains(m, "Small y.T") || !strings.Contains(m, "Lt    y.T") {
		t.Errorf("models.go does not apply the tinyint and datetime overrides:\n%s", m)
	}
}
