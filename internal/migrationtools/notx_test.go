package migrationtools

import (
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pressly/goose/v3"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestGuardIntoNoTransaction: fencegen guard -into refuses a goose
// migration with -- +goose NO TRANSACTION (trial t24h), and goose shows
// why. It applies such a migration statement by statement, each
// committed: when one fails after the table is re-created, the database
// keeps the table without its guard trigger, and a stale token's UPDATE
// passes; in a transaction, the same failure leaves the table as it was,
// guarded.
func TestGuardIntoNoTransaction(t *testing.T) {
	p := newLifeProject(t, "goose")
	p.write("fencegen.yaml", "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: migrations\n    queries: query.sql\n"+
		"    gen: {go: {package: db, out: db, sql_package: pgx/v5}}\n")
	p.write("query.sql", lifeQueries("jobs"))
	table := "CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT '', tok bigint NOT NULL DEFAULT 1);\n" +
		"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n"
	p.initMigration("CREATE TABLE notes (id bigint PRIMARY KEY, body text NOT NULL);\n"+table+"INSERT INTO jobs (id, tok) VALUES (1, 5);\n", "DROP TABLE jobs;\nDROP TABLE notes;\n")
	p.fencegen(0, "guard", "-format", "goose", "-dir", "migrations")
	change := "-- +goose Up\nDROP TABLE jobs;\n" + table + "INSERT INTO jobs (id, tok) VALUES (1, 5);\n-- +goose Down\nSELECT 1;\n"
	p.write("migrations/00003_change.sql", "-- +goose NO TRANSACTION\n"+change)
	stderr := p.fencegen(1, "guard", "-format", "goose", "-dir", "migrations", "-into", "migrations/00003_change.sql")
	if want := "-into migrations/00003_change.sql: goose runs it outside a transaction (line 1: -- +goose NO TRANSACTION), so writers see each state between its statements"; !strings.Contains(stderr, want) {
		t.Errorf("fencegen guard -into:\n%s\nwant ...%s", stderr, want)
	}
	// In a transaction, -into adds the guard; a statement that fails
	// before it (SELECT 1/0) shows what each way leaves behind.
	p.write("migrations/00003_change.sql", change)
	p.fencegen(0, "guard", "-format", "goose", "-dir", "migrations", "-into", "migrations/00003_change.sql")
	b, err := os.ReadFile(filepath.Join(p.dir, "migrations", "00003_change.sql"))
	if err != nil {
		t.Fatal(err)
	}
	failing := strings.Replace(string(b), "\n-- fencegen guard -into", "\nSELECT 1/0;\n-- fencegen guard -into", 1)
	for _, noTx := range []bool{true, false} {
		text := failing
		if noTx {
			text = "-- +goose NO TRANSACTION\n" + failing
		}
		p.write("migrations/00003_change.sql", text)
		url := testenv.NewDatabase(t)
		db, err := sql.Open("pgx", url)
		if err != nil {
			t.Fatal(err)
		}
		pr, err := goose.NewProvider(goose.DialectPostgres, db, os.DirFS(filepath.Join(p.dir, "migrations")))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		if _, err := pr.Up(ctx); err == nil || !strings.Contains(err.Error(), "division by zero") {
			t.Errorf("NO TRANSACTION %v: goose up: %v, want the change to fail", noTx, err)
		}
		_, err = db.ExecContext(ctx, "UPDATE jobs SET tok = 1 WHERE id = 1")
		if passed := err == nil; passed != noTx {
			t.Errorf("NO TRANSACTION %v: a stale UPDATE after the failed change: %v; want it to pass: %v", noTx, err, noTx)
		}
		db.Close()
	}
}
