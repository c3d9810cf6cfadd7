package gen_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/gen/internal/guard/mysqlguard"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestMySQLTokenTriggersOnMariaDB: fencegen refuses a schema's BEFORE
// UPDATE trigger of a fenced table exactly when, on MariaDB, the trigger
// lets a stale holder through the guarded write (issue 27): for each
// trigger, SetStatus (UPDATE jobs SET status = ? WHERE id = ?, guarded by
// key) runs with token 9, then with the stale token 2; the stale write
// must change nothing unless fencegen refused the trigger, at its name.
// The triggers that assign NEW.tok (SET, a procedure's OUT parameter) let
// it through (SELECT ... INTO NEW.tok, which fencegen refuses too,
// MariaDB 10.11 does not accept: "Undeclared variable: NEW"); the ones that read it or set another
// column do not.
func TestMySQLTokenTriggersOnMariaDB(t *testing.T) {
	const table = "CREATE TABLE jobs (id BIGINT PRIMARY KEY, status VARCHAR(20), n INT, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token')"
	const proc = "CREATE PROCEDURE reset_tok(OUT t BIGINT) SET t = 0"
	tests := []struct {
		name, trigger string
		// params is the DSN's: the session that creates the trigger.
		params string
	}{
		{"set", "CREATE TRIGGER jobs_bu BEFORE UPDATE ON jobs FOR EACH ROW SET NEW.tok = 0", ""},
		{"set_list", "CREATE TRIGGER jobs_bu BEFORE UPDATE ON jobs FOR EACH ROW SET NEW.n = 1, new.`TOK` := NEW.tok - 100", ""},
		{"call", "CREATE TRIGGER jobs_bu BEFORE UPDATE ON jobs FOR EACH ROW CALL reset_tok(NEW.tok)", ""},
		{"compound", "CREATE TRIGGER jobs_bu BEFORE UPDATE ON jobs FOR EACH ROW BEGIN IF NEW.status IS NOT NULL THEN SET NEW.tok = OLD.tok - OLD.tok; END IF; END", ""},
		{"reads", "CREATE TRIGGER jobs_bu BEFORE UPDATE ON jobs FOR EACH ROW SET NEW.n = NEW.tok, @t = CONCAT('t', NEW.tok)", ""},
		{"other", "CREATE TRIGGER jobs_bu BEFORE UPDATE ON jobs FOR EACH ROW SET NEW.n = NEW.n + 1", ""},
		{"after", "CREATE TRIGGER jobs_au AFTER UPDATE ON jobs FOR EACH ROW SET @last = NEW.tok", ""},
		// Created under NO_BACKSLASH_ESCAPES, which the server stores with
		// the trigger: 'a\' is a whole string and SET NEW.tok = 0 code.
		{"sql_mode", "CREATE TRIGGER jobs_bu BEFORE UPDATE ON jobs FOR EACH ROW BEGIN SET @x = 'a\\'; SET NEW.tok = 0; -- ';\nEND", "sql_mode=%27NO_BACKSLASH_ESCAPES%27"},
		{"sql_mode_default", "CREATE TRIGGER jobs_bu BEFORE UPDATE ON jobs FOR EACH ROW BEGIN SET @x = 'a\\'; SET NEW.n = 0; -- ';\nEND", ""},
	}
	g, err := mysqlguard.Rewrite("UPDATE jobs SET status = ? WHERE id = ?", mysqlguard.Spec{Column: "tok", Key: []string{"id"}, Param: 3, Table: "jobs", Name: "jobs"})
	if err != nil {
		t.Fatal(err)
	}
	refusedN, passedN := 0, 0
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			schema := table + ";\n" + proc + ";\nDELIMITER $$\n" + tt.trigger + "$$\nDELIMITER ;\n"
			files := map[string]string{
				"schema.sql":    schema,
				"q.sql":         "-- name: SetStatus :exec\nUPDATE jobs SET status = ? WHERE id = ?;\n",
				"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
			}
			cfg := mysqlConfig(t, dir, files, "fencegen.yaml")
			_, gerr := gen.Generate(context.Background(), cfg)
			refused := gerr != nil && strings.Contains(gerr.Error(), "schema.sql:4:16: trigger jobs_bu on fenced table jobs runs BEFORE UPDATE and ")
			if gerr != nil && !refused {
				t.Fatalf("generation failed otherwise: %v", gerr)
			}

			db := testenv.MySQL(t, tt.params, table, proc, tt.trigger, "INSERT INTO jobs (id, status, n, tok) VALUES (1, 'new', 0, 0)")
			params := func(status string, token int64) []any {
				var out []any
				for _, p := range g.Params {
					out = append(out, []any{status, int64(1), token}[p-1])
				}
				return out
			}
			if _, err := db.Exec(g.SQL, params("running", 9)...); err != nil {
				t.Fatal(err)
			}
			if _, err := db.Exec(g.SQL, params("stale", 2)...); err != nil {
				t.Fatal(err)
			}
			var status string
			var tok int64
			if err := db.QueryRow("SELECT status, tok FROM jobs WHERE id = 1").Scan(&status, &tok); err != nil {
				t.Fatal(err)
			}
			staleWrote := status == "stale"
			switch {
			case staleWrote && !refused:
				t.Errorf("on MariaDB the stale token 2 wrote the row (token stored after token 9: %d), and fencegen accepted the trigger", tok)
			case refused && !staleWrote:
				t.Errorf("fencegen refused a trigger that keeps the guard sound on MariaDB (status %q, token %d): %v", status, tok, gerr)
			}
			if refused {
				refusedN++
			} else {
				passedN++
			}
		})
	}
	t.Logf("%d triggers: %d refused (each let a stale write through on MariaDB), %d accepted (none did)", len(tests), refusedN, passedN)
}
