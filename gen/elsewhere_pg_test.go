package gen_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestFencedElsewhereAgainstPostgreSQL (trial t24 F11): two sql entries
// over one database, entry a fencing jobs, entry b's schema without jobs
// but with a function and a trigger whose bodies write it. b's queries
// that run them are refused; PostgreSQL, given both schemas, writes jobs
// from each, and from none of b's queries fencegen generates.
func TestFencedElsewhereAgainstPostgreSQL(t *testing.T) {
	const (
		a = "CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL, tok bigint NOT NULL DEFAULT 0);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n"
		b = "CREATE TABLE notes (id bigint PRIMARY KEY, body text NOT NULL);\n" +
			"CREATE FUNCTION archive_jobs() RETURNS void LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET status = 'archived'; END $$;\n" +
			"CREATE FUNCTION note_trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE public.jobs SET status = 'noted'; RETURN NEW; END $$;\n" +
			"CREATE TABLE logs (id bigint PRIMARY KEY);\n" +
			"CREATE TRIGGER notes_t AFTER INSERT ON notes FOR EACH ROW EXECUTE FUNCTION note_trg();\n" +
			"CREATE FUNCTION log_it() RETURNS void LANGUAGE plpgsql AS $$ BEGIN INSERT INTO logs VALUES (1); END $$;\n"
	)
	queries := map[string]string{
		"Archive": "SELECT archive_jobs()",
		"AddNote": "INSERT INTO notes VALUES (1, 'n')",
		"LogIt":   "SELECT log_it()",
	}
	refused := map[string]bool{"Archive": true, "AddNote": true}
	dir := t.TempDir()
	qb := ""
	for _, name := range []string{"Archive", "AddNote", "LogIt"} {
		qb += "-- name: " + name + " :exec\n" + queries[name] + ";\n"
	}
	for n, s := range map[string]string{
		"a.sql": a, "b.sql": b,
		"qa.sql": "-- name: SetStatus :exec\nUPDATE jobs SET status = @status WHERE id = @id;\n",
		"qb.sql": qb,
		"sqlc.yaml": `version: "2"
sql:
  - {engine: postgresql, schema: a.sql, queries: qa.sql, gen: {go: {package: adb, out: adb, sql_package: pgx/v5}}}
  - {engine: postgresql, schema: b.sql, queries: qb.sql, gen: {go: {package: bdb, out: bdb, sql_package: pgx/v5}}}
`,
	} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := gen.LoadConfig(filepath.Join(dir, "sqlc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = gen.Generate(context.Background(), cfg)
	if err == nil {
		t.Fatal("generated b's queries that write fenced jobs through a function and a trigger")
	}
	msg := err.Error()
	for name := range queries {
		got := strings.Contains(msg, "query "+name+" ")
		if got != refused[name] {
			t.Errorf("query %s refused: %v, want %v:\n%s", name, got, refused[name], msg)
		}
	}
	if !strings.Contains(msg, "qb.sql:2:8: query Archive calls function archive_jobs() (") || !strings.Contains(msg, "b.sql:2), which may write a fenced table: it runs UPDATE on jobs, which the schema of this sql entry does not define, and sql entry adb fences table public.jobs (") {
		t.Errorf("Archive's refusal does not say why:\n%s", msg)
	}
	// PostgreSQL, given both schemas: which queries write jobs.
	pool := testenv.Database(t, a+b)
	ctx := context.Background()
	for name, q := range queries {
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO jobs VALUES (1, 'done', 10)"); err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		var status string
		if err := tx.QueryRow(ctx, "SELECT status FROM jobs WHERE id = 1").Scan(&status); err != nil {
			t.Fatal(err)
		}
		tx.Rollback(ctx) //nolint:errcheck
		if wrote := status != "done"; wrote != refused[name] {
			t.Errorf("%s: PostgreSQL wrote jobs: %v; fencegen refused it: %v", name, wrote, refused[name])
		}
	}
}
