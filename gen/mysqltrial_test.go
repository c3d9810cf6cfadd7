package gen_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
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

// mysqlConfig writes files (name → text; a name may hold slashes) into
// dir and loads the configuration file config among them; a failure to
// write or load fails the test.
func mysqlConfig(t *testing.T, dir string, files map[string]string, config string) *gen.Config {
	t.Helper()
	for n, s := range files {
		p := filepath.Join(dir, n)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := gen.LoadConfig(filepath.Join(dir, config))
	if err != nil {
		t.Fatal(err)
	}
	return cfg
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
	cfg := mysqlConfig(t, dir, files, "fencegen.yaml")
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
		// trial-my3 F12: a VIRTUAL token column is named VIRTUAL, not STORED.
		{"CREATE TABLE a (id BIGINT PRIMARY KEY, b BIGINT, fence_token BIGINT GENERATED ALWAYS AS (b + 1) VIRTUAL COMMENT 'fencegen:token');",
			"-- name: X :exec\nUPDATE a SET b = ? WHERE id = ?;\n",
			"schema.sql:1:1: fencing token column a.fence_token is a generated column (GENERATED ALWAYS AS ... VIRTUAL): MariaDB/MySQL computes it"},
		{"CREATE TABLE a (id BIGINT PRIMARY KEY, b BIGINT, fence_token BIGINT AS (b + 1) COMMENT 'fencegen:token');",
			"-- name: X :exec\nUPDATE a SET b = ? WHERE id = ?;\n",
			"schema.sql:1:1: fencing token column a.fence_token is a generated column (GENERATED ALWAYS AS ... VIRTUAL): MariaDB/MySQL computes it"},
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

// TestMySQLForeignKeyUpdateOfOtherColumns: an UPDATE (or an upsert's ON
// DUPLICATE KEY UPDATE) of a table that a fenced table references ON
// UPDATE CASCADE writes the fenced table only when it may change a
// referenced column: one assigned, a GENERATED one, or any through a
// BEFORE UPDATE trigger or a view; REPLACE and DELETE always. MariaDB is
// the oracle: each statement runs on a row of holds that references the
// parent, and fencegen refuses it exactly when MariaDB changed holds
// (or, for a table with a GENERATED column, always).
func TestMySQLForeignKeyUpdateOfOtherColumns(t *testing.T) {
	base := []string{
		"CREATE TABLE parents (id BIGINT PRIMARY KEY, code BIGINT NOT NULL, name VARCHAR(20), UNIQUE KEY (code)) ENGINE=InnoDB",
		"CREATE TABLE holds (id BIGINT PRIMARY KEY, pid BIGINT, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token') ENGINE=InnoDB",
		"ALTER TABLE holds ADD CONSTRAINT fk_pid FOREIGN KEY (pid) REFERENCES parents (id) ON UPDATE CASCADE ON DELETE CASCADE",
	}
	addG := "ALTER TABLE parents ADD COLUMN g BIGINT AS (code + 1) STORED, ADD UNIQUE KEY (g)"
	byG := "CREATE TABLE gholds (id BIGINT PRIMARY KEY, pg BIGINT, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token', FOREIGN KEY (pg) REFERENCES parents (g) ON UPDATE SET NULL) ENGINE=InnoDB"
	for _, c := range []struct {
		extra []string
		query string
		// wide is set where fencegen refuses more than MariaDB writes:
		// a GENERATED (or ON UPDATE) column makes every UPDATE of the
		// table count, whichever columns it feeds.
		wide bool
	}{
		{nil, "UPDATE parents SET name = 'b' WHERE id = 1", false},
		{nil, "UPDATE parents SET name = 'b', code = 11 WHERE id = 1", false},
		{nil, "UPDATE parents SET id = 2 WHERE id = 1", false},
		{nil, "UPDATE parents p SET p.id = 2 WHERE p.id = 1", false},
		{nil, "INSERT INTO parents (id, code, name) VALUES (1, 10, 'c') ON DUPLICATE KEY UPDATE name = VALUES(name)", false},
		{nil, "INSERT INTO parents (id, code, name) VALUES (3, 10, 'c') ON DUPLICATE KEY UPDATE id = VALUES(id)", false},
		{nil, "REPLACE INTO parents (id, code, name) VALUES (1, 10, 'd')", false},
		{nil, "DELETE FROM parents WHERE id = 1", false},
		{[]string{"CREATE TRIGGER p_bu BEFORE UPDATE ON parents FOR EACH ROW SET NEW.id = NEW.id + 100"}, "UPDATE parents SET name = 'b' WHERE id = 1", false},
		{[]string{"ALTER TABLE parents RENAME COLUMN id TO pid2"}, "UPDATE parents SET pid2 = 2 WHERE pid2 = 1", false},
		{[]string{"CREATE VIEW pv AS SELECT id AS label, name FROM parents"}, "UPDATE pv SET label = 2 WHERE name = 'a'", false},
		{[]string{addG, byG}, "UPDATE parents SET code = 20 WHERE id = 1", false},
		{extra: []string{addG, byG}, query: "UPDATE parents SET name = 'b' WHERE id = 1", wide: true},
	} {
		gholds := slices.Contains(c.extra, byG)
		stmts := append(append(slices.Clone(base), "INSERT INTO parents (id, code, name) VALUES (1, 10, 'a')", "INSERT INTO holds (id, pid) VALUES (1, 1)"), c.extra...)
		if gholds {
			stmts = append(stmts, "INSERT INTO gholds (id, pg) VALUES (1, 11)")
		}
		db := testenv.MySQL(t, "", stmts...)
		snapshot := func() string {
			var s string
			if err := db.QueryRow("SELECT CONCAT((SELECT COALESCE(GROUP_CONCAT(id, ':', COALESCE(pid, 'null')), '') FROM holds), '/', (SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = 'gholds'))").Scan(&s); err != nil {
				t.Fatal(err)
			}
			if gholds {
				var g string
				if err := db.QueryRow("SELECT COALESCE(GROUP_CONCAT(id, ':', COALESCE(pg, 'null')), '') FROM gholds").Scan(&g); err != nil {
					t.Fatal(err)
				}
				s += "/" + g
			}
			return s
		}
		before := snapshot()
		if _, err := db.Exec(c.query); err != nil {
			t.Fatalf("%s: %v", c.query, err)
		}
		changed := snapshot() != before
		schema := strings.Join(append(slices.Clone(base), c.extra...), ";\n") + ";\n"
		_, msg := mysqlGenerateOut(t, map[string]string{"schema.sql": schema, "q.sql": "-- name: Q :exec\n" + c.query + ";\n"})
		refused := strings.Contains(msg, "writes fenced table") || strings.Contains(msg, "into fenced table")
		if msg != "" && !refused {
			t.Errorf("%s: %s", c.query, msg)
		}
		if refused != changed && !(c.wide && refused) {
			t.Errorf("%v %s: MariaDB changed the fenced rows: %v; fencegen refused it: %v (%s)", c.extra, c.query, changed, refused, msg)
		}
	}
}

// TestMySQLForeignKeyActionsSkipTheGuard: MariaDB fires no trigger for
// the rows a foreign-key action writes, so a fenced table's guard
// triggers do not stop a parent's DELETE or key UPDATE by another writer
// from deleting or changing its rows without a token; fencegen says so,
// in a note at each such foreign key that fencegen guard (and vet)
// prints, and none for a RESTRICT one.
func TestMySQLForeignKeyActionsSkipTheGuard(t *testing.T) {
	schema := `CREATE TABLE parents (id BIGINT PRIMARY KEY) ENGINE=InnoDB;
CREATE TABLE others (id BIGINT PRIMARY KEY) ENGINE=InnoDB;
CREATE TABLE accounts (id BIGINT PRIMARY KEY, parent_id BIGINT, other_id BIGINT, balance BIGINT NOT NULL DEFAULT 0,
  fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token required',
  CONSTRAINT fk_o FOREIGN KEY (other_id) REFERENCES others (id) ON DELETE RESTRICT) ENGINE=InnoDB;
ALTER TABLE accounts ADD CONSTRAINT fk_p FOREIGN KEY (parent_id) REFERENCES parents (id) ON DELETE CASCADE ON UPDATE SET NULL;
CREATE TABLE ledger (id BIGINT PRIMARY KEY, parent_id BIGINT REFERENCES parents (id) ON DELETE CASCADE,
  fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token required') ENGINE=InnoDB;
`
	dir := t.TempDir()
	for n, s := range map[string]string{
		"schema.sql":    schema,
		"q.sql":         "-- name: Credit :exec\nUPDATE accounts SET balance = balance + ? WHERE id = ?;\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.GenerateGuard(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	notes := gen.GuardNotes(out)
	if len(notes) != 2 || !strings.Contains(notes[0], "schema.sql:6:1: note: foreign key of fenced table accounts to parents has ON DELETE CASCADE, ON UPDATE SET NULL: MariaDB and MySQL fire no triggers") ||
		!strings.Contains(notes[1], "schema.sql:7:1: note: foreign key of fenced table ledger to parents has ON DELETE CASCADE: ") {
		t.Errorf("guard notes %q, want one at the ALTER TABLE adding fk_p and one at ledger's inline REFERENCES", notes)
	}

	var stmts []string
	for _, s := range strings.Split(schema, ";\n") {
		if strings.TrimSpace(s) != "" {
			stmts = append(stmts, s)
		}
	}
	stmts = append(stmts, "INSERT INTO parents VALUES (1), (2)", "INSERT INTO accounts (id, parent_id, fence_token) VALUES (1, 1, 5), (2, 2, 5)", "INSERT INTO ledger (id, parent_id, fence_token) VALUES (1, 1, 5)")
	db := testenv.MySQL(t, "", append(stmts, guardTriggers(t, string(out.Files["out/fencegen_guard.sql"]))...)...)
	// The guard stops a direct write without the token ...
	if _, err := db.Exec("UPDATE accounts SET parent_id = NULL WHERE id = 1"); err == nil || !strings.Contains(err.Error(), "1644") {
		t.Fatalf("the guard trigger let an UPDATE without a token through: %v", err)
	}
	// ... but not the rows the foreign key's actions write.
	if _, err := db.Exec("UPDATE parents SET id = 3 WHERE id = 2"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("DELETE FROM parents WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	var rows, nulled, ledger int
	if err := db.QueryRow("SELECT COUNT(*), COUNT(*) - COUNT(parent_id), (SELECT COUNT(*) FROM ledger) FROM accounts").Scan(&rows, &nulled, &ledger); err != nil {
		t.Fatal(err)
	}
	if rows != 1 || nulled != 1 || ledger != 0 {
		t.Errorf("after the parents' writes accounts has %d rows, %d with parent_id NULL, ledger %d; want 1, 1 and 0 (ON DELETE CASCADE deleted one and ledger's, ON UPDATE SET NULL changed the other, no trigger firing)", rows, nulled, ledger)
	}
}
