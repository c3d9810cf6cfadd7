package migrationtools

import (
	"context"
	"database/sql"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/fencegen/fencegen/internal/testenv"
)

// fencegen guard numbers its migration after goose's Go migrations too
// (issue 24, trial-pg3 finding 14: it wrote 00002_fencegen_guard.sql
// beside 00002_backfill.go and goose refused both, "duplicate version 2"),
// and says that it does not read them. goose then applies the init, the
// Go migration and the guard, and the guard refuses a write that lowers
// the token.
func TestGuardAfterGooseGoMigration(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) {
		t.Helper()
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("fencegen.yaml", "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: migrations\n    queries: query.sql\n"+
		"    gen: {go: {package: db, out: db, sql_package: pgx/v5}}\n")
	write("query.sql", lifeQueries("jobs"))
	write("migrations/00001_init.sql", "-- +goose Up\nCREATE TABLE notes (id bigint PRIMARY KEY, body text NOT NULL);\n"+
		"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n"+
		"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n-- +goose Down\nDROP TABLE jobs;\nDROP TABLE notes;\n")
	write("migrations/00002_backfill.go", "package migrations\n\nimport (\n\t\"context\"\n\t\"database/sql\"\n\n\t\"github.com/pressly/goose/v3\"\n)\n\n"+
		"func init() { goose.AddMigrationContext(upBackfill, nil) }\n\n"+
		"func upBackfill(ctx context.Context, tx *sql.Tx) error {\n\t_, err := tx.ExecContext(ctx, \"INSERT INTO jobs (id, tok) VALUES (1, 100)\")\n\treturn err\n}\n")
	cmd := exec.Command(fencegenBin, "guard", "-format", "goose", "-dir", "migrations")
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("fencegen guard: %v\n%s", err, out)
	}
	if want := "fencegen: note: migrations/00002_backfill.go is a Go migration: its version is counted, but fencegen reads only .sql migrations"; !strings.Contains(string(out), want) {
		t.Errorf("fencegen guard said:\n%s\nwant a note: %s", out, want)
	}
	if _, err := os.Stat(filepath.Join(dir, "migrations", "00003_fencegen_guard.sql")); err != nil {
		t.Fatalf("fencegen guard did not write 00003_fencegen_guard.sql: %v\n%s", err, out)
	}

	url := testenv.NewDatabase(t)
	db, err := sql.Open("pgx", url)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	backfill := goose.NewGoMigration(2, &goose.GoFunc{RunTx: func(ctx context.Context, tx *sql.Tx) error {
		_, err := tx.ExecContext(ctx, "INSERT INTO jobs (id, tok) VALUES (1, 100)")
		return err
	}}, nil)
	p, err := goose.NewProvider(goose.DialectPostgres, db, os.DirFS(filepath.Join(dir, "migrations")), goose.WithGoMigrations(backfill))
	if err != nil {
		t.Fatalf("goose: %v", err)
	}
	ctx := context.Background()
	res, err := p.Up(ctx)
	if err != nil {
		t.Fatalf("goose up: %v", err)
	}
	if len(res) != 3 {
		t.Fatalf("goose up applied %d migrations, want 3", len(res))
	}
	_, err = db.ExecContext(ctx, "UPDATE jobs SET status = 'stale', tok = 5 WHERE id = 1")
	if err == nil || !strings.Contains(err.Error(), "(SQLSTATE FN001)") {
		t.Errorf("a write that lowers the token after goose up: %v, want the guard trigger to refuse it", err)
	}
}
