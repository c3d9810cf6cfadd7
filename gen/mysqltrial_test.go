package gen_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/internal/testenv"

	"github.com/fencegen/fencegen/gen"
)

// mysqlGenerate writes files (fencegen.yaml made for engine mysql with
// schema and q.sql when absent) into a new directory and runs Generate;
// it returns the error's text, "" when it generated.
func mysqlGenerate(t *testing.T, files map[string]string) string {
	_, msg := mysqlGenerateOut(t, files)
	return msg
}

// mysqlGenerateOut is mysqlGenerate with the Output (nil on an error).
func mysqlGenerateOut(t *testing.T, files map[string]string) (*gen.Output, string) {
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
	out, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		return nil, err.Error()
	}
	return out, ""
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

// TestMySQLModifyDropsTheMark: MariaDB drops a column's COMMENT on MODIFY
// and CHANGE that do not repeat it, so one of the fencing token column
// without a COMMENT is an error at the ALTER TABLE (the table would
// silently stop being fenced); with the mark repeated the table stays
// fenced, with another COMMENT it is unfenced as written. MariaDB is the
// oracle: the column's comment after each ALTER holds the mark exactly
// when fencegen keeps the table fenced.
func TestMySQLModifyDropsTheMark(t *testing.T) {
	const table = "CREATE TABLE accounts (id BIGINT PRIMARY KEY, b BIGINT, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token')"
	for _, c := range []struct {
		alter, column string
		want          string // "error", "fenced" or "unfenced"
	}{
		{"ALTER TABLE accounts MODIFY fence_token BIGINT NOT NULL DEFAULT 1", "fence_token", "error"},
		{"ALTER TABLE accounts MODIFY COLUMN fence_token BIGINT NOT NULL DEFAULT 1, ADD COLUMN c INT", "fence_token", "error"},
		{"ALTER TABLE accounts CHANGE fence_token ft BIGINT NOT NULL DEFAULT 0", "ft", "error"},
		{"ALTER TABLE accounts MODIFY fence_token BIGINT NOT NULL DEFAULT 1 COMMENT 'fencegen:token'", "fence_token", "fenced"},
		{"ALTER TABLE accounts CHANGE fence_token ft BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token'", "ft", "fenced"},
		{"ALTER TABLE accounts MODIFY fence_token BIGINT NOT NULL DEFAULT 1 COMMENT ''", "fence_token", "unfenced"},
		{"ALTER TABLE accounts MODIFY b INT", "fence_token", "fenced"},
	} {
		db := testenv.MySQL(t, "", table, c.alter)
		var comment string
		if err := db.QueryRow("SELECT column_comment FROM information_schema.columns WHERE table_schema = DATABASE() AND table_name = 'accounts' AND column_name = ?", c.column).Scan(&comment); err != nil {
			t.Fatal(err)
		}
		if marked := strings.Contains(comment, "fencegen:token"); marked != (c.want == "fenced") {
			t.Errorf("%s: MariaDB's comment of %s is %q, want the mark: %v", c.alter, c.column, comment, c.want == "fenced")
		}
		out, msg := mysqlGenerateOut(t, map[string]string{
			"schema.sql": table + ";\n" + c.alter + ";\n",
			"q.sql":      "-- name: SetB :exec\nUPDATE accounts SET b = ? WHERE id = ?;\n",
		})
		switch {
		case c.want == "error":
			if !strings.Contains(msg, "schema.sql:2:1: ALTER TABLE accounts ") || !strings.Contains(msg, "Repeat the mark in the new definition") {
				t.Errorf("%s: want an error at schema.sql:2:1 saying to repeat the mark, got %q", c.alter, msg)
			}
		case msg != "":
			t.Errorf("%s: %s", c.alter, msg)
		case out.Fenced != map[string]int{"fenced": 1, "unfenced": 0}[c.want]:
			t.Errorf("%s: %d fenced queries, want the table %s", c.alter, out.Fenced, c.want)
		}
	}
}
