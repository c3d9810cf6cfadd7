package templates_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/templates"
)

const (
	longOne = "a_very_long_table_name_that_goes_on_and_on_and_on_alpha_one"
	longTwo = "a_very_long_table_name_that_goes_on_and_on_and_on_alpha_two"
)

func TestGuardFunctionNames(t *testing.T) {
	seen := map[string]string{}
	for _, table := range []string{
		longOne, longTwo, "jobs", "app.jobs", `"app.jobs"`, `app."jobs"`, `"Jobs"`, `"user".jobs`,
		`"` + strings.Repeat("é", 40) + `"`, `"` + strings.Repeat("é", 40) + `x"`,
	} {
		fn, err := templates.GuardFunction(table)
		if err != nil {
			t.Fatalf("GuardFunction(%s): %v", table, err)
		}
		if again, _ := templates.GuardFunction(table); again != fn {
			t.Errorf("GuardFunction(%s) = %s, then %s", table, fn, again)
		}
		// The function's own name, unquoted, fits in an identifier.
		name := fn
		if i := strings.LastIndex(fn, ".fencegen_guard_"); i >= 0 {
			name = fn[i+1:]
		} else if i := strings.LastIndex(fn, `."fencegen_guard_`); i >= 0 {
			name = fn[i+1:]
		}
		name = strings.ReplaceAll(strings.Trim(name, `"`), `""`, `"`)
		if len(name) > templates.MaxIdentifier || !strings.HasPrefix(name, "fencegen_guard_") {
			t.Errorf("GuardFunction(%s) = %s: %d bytes, want at most %d, starting fencegen_guard_", table, fn, len(name), templates.MaxIdentifier)
		}
		if other, ok := seen[name]; ok && table != `app."jobs"` {
			t.Errorf("GuardFunction(%s) and GuardFunction(%s) both name %s", table, other, name)
		}
		seen[name] = table
	}
	// Quoting a name that needs no quotes names the same table.
	a, _ := templates.GuardFunction("app.jobs")
	b, _ := templates.GuardFunction(`app."jobs"`)
	if a != b || !strings.HasPrefix(a, "app.fencegen_guard_jobs_") {
		t.Errorf("app.jobs: %s and %s", a, b)
	}
	if fn, _ := templates.GuardFunction(`"Jobs"`); !strings.HasPrefix(fn, `"fencegen_guard_Jobs_`) {
		t.Errorf(`"Jobs": %s, want a quoted name`, fn)
	}
	for _, bad := range []string{"", `"x`, "a.b.c", "a..b", `"a"b`} {
		if fn, err := templates.GuardFunction(bad); err == nil {
			t.Errorf("GuardFunction(%q) = %s, want an error", bad, fn)
		}
	}
}

// TestGuardTriggersOfCollidingNames applies the generated guard migration
// to real PostgreSQL with fenced tables whose names used to give one
// function for two tables (two names that PostgreSQL truncates to the same
// 63 bytes), and with jobs in two schemas. Each table has its own token
// column, so a trigger running another table's function fails with
// `record "new" has no field`. Every trigger must refuse a lower token with
// SQLSTATE FN001, naming its own table, and let a higher one through; and
// there must be one function per table.
func TestGuardTriggersOfCollidingNames(t *testing.T) {
	schema := `
CREATE SCHEMA app;
CREATE TABLE ` + longOne + ` (id bigint PRIMARY KEY, tok_a bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN ` + longOne + `.tok_a IS 'fencegen:token';
CREATE TABLE ` + longTwo + ` (id bigint PRIMARY KEY, tok_b bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN ` + longTwo + `.tok_b IS 'fencegen:token';
CREATE TABLE app.jobs (id bigint PRIMARY KEY, app_tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN app.jobs.app_tok IS 'fencegen:token';
CREATE TABLE public.jobs (id bigint PRIMARY KEY, pub_tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN public.jobs.pub_tok IS 'fencegen:token strict';
`
	dir := t.TempDir()
	for name, src := range map[string]string{
		"schema.sql":    schema,
		"query.sql":     "-- name: CountJobs :one\nSELECT count(*) FROM app.jobs;\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: query.sql, gen: {go: {package: db, out: out}}}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	guard := string(out.Files["out/"+gen.GuardFile])
	if guard == "" {
		t.Fatalf("no %s in %v", gen.GuardFile, out.Files)
	}
	pool := testenv.Database(t, schema, guard)
	ctx := context.Background()
	for _, tt := range []struct {
		table, column, message string
		strict                 bool
	}{
		{longOne, "tok_a", longOne + ".tok_a", false},
		{longTwo, "tok_b", longTwo + ".tok_b", false},
		{"app.jobs", "app_tok", "app.jobs.app_tok", false},
		{"public.jobs", "pub_tok", "jobs.pub_tok, strict", true},
	} {
		t.Run(tt.table, func(t *testing.T) {
			if _, err := pool.Exec(ctx, "INSERT INTO "+tt.table+" (id, "+tt.column+") VALUES (1, 5)"); err != nil {
				t.Fatal(err)
			}
			if _, err := pool.Exec(ctx, "UPDATE "+tt.table+" SET "+tt.column+" = 6 WHERE id = 1"); err != nil {
				t.Fatalf("raising the token: %v", err)
			}
			_, err := pool.Exec(ctx, "UPDATE "+tt.table+" SET "+tt.column+" = 4 WHERE id = 1")
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != fence.SQLState || !strings.Contains(pe.Message, "("+tt.message+")") {
				t.Fatalf("lowering the token: %v; want SQLSTATE %s naming (%s)", err, fence.SQLState, tt.message)
			}
			_, err = pool.Exec(ctx, "UPDATE "+tt.table+" SET "+tt.column+" = 6 WHERE id = 1")
			if tt.strict != (err != nil) {
				t.Fatalf("keeping the token (strict %v): %v", tt.strict, err)
			}
		})
	}
	var functions int
	if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_proc WHERE proname LIKE 'fencegen\_guard\_%'`).Scan(&functions); err != nil {
		t.Fatal(err)
	}
	if functions != 4 {
		t.Errorf("%d guard functions, want one per table (4)", functions)
	}
}
