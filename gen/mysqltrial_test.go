package gen_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// mysqlGenerate writes files (fencegen.yaml made for engine mysql with
// schema and q.sql when absent) into a new directory and runs Generate;
// it returns the error's text, "" when it generated.
func mysqlGenerate(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	if _, ok := files["fencegen.yaml"]; !ok {
		schema := "schema.sql"
		if _, ok := files["schema.sql"]; !ok {
			schema = "migrations"
		}
		files["fencegen.yaml"] = "version: \"2\"\nsql:\n  - {engine: mysql, schema: " + schema + ", queries: q.sql, gen: {go: {package: x, out: out}}}\n"
	}
	for n, s := range files {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gen.Generate(context.Background(), cfg); err != nil {
		return err.Error()
	}
	return ""
}

// TestMySQLMessagesNameTheServer: an error of a MySQL entry names
// MariaDB/MySQL, never PostgreSQL: a fenced write that the server
// refuses (an unknown column), and a generated token column.
func TestMySQLMessagesNameTheServer(t *testing.T) {
	for _, c := range []struct{ schema, query, want string }{
		{"CREATE TABLE accounts (id BIGINT PRIMARY KEY, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');",
			"-- name: Credit :exec\nUPDATE accounts SET nosuch = 1 WHERE id = ?;\n",
			`q.sql:2:1: column "nosuch" of relation "accounts" does not exist; query Credit writes fenced table accounts, and a fenced write is generated only when MariaDB/MySQL accepts it`},
		{"CREATE TABLE a (id BIGINT PRIMARY KEY, b BIGINT, fence_token BIGINT GENERATED ALWAYS AS (b + 1) STORED COMMENT 'fencegen:token');",
			"-- name: X :exec\nUPDATE a SET b = ? WHERE id = ?;\n",
			"schema.sql:1:1: fencing token column a.fence_token is a generated column (GENERATED ALWAYS AS ... STORED): MariaDB/MySQL computes it"},
	} {
		msg := mysqlGenerate(t, map[string]string{"schema.sql": c.schema, "q.sql": c.query})
		if !strings.Contains(msg, c.want) || strings.Contains(msg, "PostgreSQL") {
			t.Errorf("%s\nwant %q, and no PostgreSQL, in:\n%s", c.query, c.want, msg)
		}
	}
}
