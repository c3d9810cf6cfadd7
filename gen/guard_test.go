package gen_test

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
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// generateDir writes files (name → contents, one of them fencegen.yaml)
// to a temporary directory and generates from it.
func generateDir(t *testing.T, files map[string]string) *gen.Output {
	t.Helper()
	dir := t.TempDir()
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
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
	return out
}

// guardFor generates schema (with one query file holding query) and
// returns its guard migration.
func guardFor(t *testing.T, schema, query string) string {
	t.Helper()
	out := generateDir(t, map[string]string{
		"schema.sql":    schema,
		"q.sql":         query,
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	})
	guard := string(out.Files["out/"+gen.GuardFile])
	if guard == "" {
		t.Fatalf("no %s in %v", gen.GuardFile, out.Files)
	}
	return guard
}

// The guard migration quotes reserved words: a fenced table named "order"
// gets CREATE TRIGGER ... ON public."order".
func TestGuardSQLQuotesReservedNames(t *testing.T) {
	guard := guardFor(t, `CREATE TABLE "order" (id bigint PRIMARY KEY, "user" bigint NOT NULL DEFAULT 0); COMMENT ON COLUMN "order"."user" IS 'fencegen:token';`,
		"-- name: Get :one\nSELECT id FROM \"order\" WHERE id = $1;\n")
	for _, want := range []string{`ON public."order"`, `presented := NEW."user";`, `col name := 'user';`} {
		if !strings.Contains(guard, want) {
			t.Errorf("guard SQL lacks %s:\n%s", want, guard)
		}
	}
}

const (
	longOne = "a_very_long_table_name_that_goes_on_and_on_and_on_alpha_one"
	longTwo = "a_very_long_table_name_that_goes_on_and_on_and_on_alpha_two"
)

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
	guard := guardFor(t, schema, "-- name: CountJobs :one\nSELECT count(*) FROM app.jobs;\n")
	pool := testenv.Database(t, schema, guard)
	ctx := context.Background()
	for _, tt := range []struct {
		table, column, message string
		strict                 bool
		// The error's SCHEMA and TABLE fields, and its DETAIL.
		schemaName, tableName, detail string
	}{
		{longOne, "tok_a", longOne + ".tok_a", false, "public", longOne, "presented=4 stored=6 mode=non-strict"},
		{longTwo, "tok_b", longTwo + ".tok_b", false, "public", longTwo, "presented=4 stored=6 mode=non-strict"},
		{"app.jobs", "app_tok", "app.jobs.app_tok", false, "app", "jobs", "presented=4 stored=6 mode=non-strict"},
		{"public.jobs", "pub_tok", "jobs.pub_tok, strict", true, "public", "jobs", "presented=4 stored=6 mode=strict"},
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
			if !errors.As(err, &pe) || pe.Code != fenceimpl.SQLState || !strings.Contains(pe.Message, "("+tt.message+")") {
				t.Fatalf("lowering the token: %v; want SQLSTATE %s naming (%s)", err, fenceimpl.SQLState, tt.message)
			}
			if pe.SchemaName != tt.schemaName || pe.TableName != tt.tableName || pe.ColumnName != tt.column || pe.Detail != tt.detail {
				t.Fatalf("lowering the token: SCHEMA %q, TABLE %q, COLUMN %q, DETAIL %q; want %q, %q, %q, %q",
					pe.SchemaName, pe.TableName, pe.ColumnName, pe.Detail, tt.schemaName, tt.tableName, tt.column, tt.detail)
			}
			var se *fence.StaleError
			if err := fenceimpl.TriggerError("Q", err, tt.table, "other"); !errors.As(err, &se) || se.Presented != 4 || se.Stored != 6 ||
				(se.Mode == fence.Strict) != tt.strict || se.Table != strings.TrimPrefix(tt.table, "public.") {
				t.Fatalf("TriggerError = %v (%+v); want presented 4, stored 6, strict %v, table %s", err, se, tt.strict, tt.table)
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

// A schema dumped by a current pg_dump starts and ends with psql's
// \restrict and \unrestrict meta-commands: they are not SQL, and are
// skipped (as sqlc does), with the lines after them keeping their numbers.
func TestPgDumpRestrictLinesSkipped(t *testing.T) {
	guard := guardFor(t, `--
-- PostgreSQL database dump
--

\restrict 5h4mF2sd9kPq1Xy

SET statement_timeout = 0;
CREATE TABLE public.jobs (id bigint NOT NULL, tok bigint DEFAULT 0 NOT NULL);
ALTER TABLE ONLY public.jobs ADD CONSTRAINT jobs_pkey PRIMARY KEY (id);
COMMENT ON COLUMN public.jobs.tok IS 'fencegen:token';

\unrestrict 5h4mF2sd9kPq1Xy
`, "-- name: Get :one\nSELECT id FROM jobs WHERE id = $1;\n")
	if !strings.Contains(guard, "ON public.jobs") {
		t.Fatalf("no guard for jobs:\n%s", guard)
	}
}

// Two sql entries over one database: a non-strict query on a strict table
// in one makes the table's trigger non-strict in both guard files (a
// database has one trigger per table, whichever file is applied last).
func TestGuardSQLSameAcrossEntries(t *testing.T) {
	out := generateDir(t, map[string]string{
		"schema.sql": "CREATE TABLE counters (id text PRIMARY KEY, n bigint NOT NULL, tok bigint NOT NULL DEFAULT 0);\nCOMMENT ON COLUMN counters.tok IS 'fencegen:token strict';\n",
		"a.sql":      "-- name: Add :exec\n-- @fence non-strict\nUPDATE counters SET n = n + 1 WHERE id = @id;\n",
		"b.sql":      "-- name: Set :exec\nUPDATE counters SET n = @n WHERE id = @id;\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n" +
			"  - {engine: postgresql, schema: schema.sql, queries: a.sql, gen: {go: {package: a, out: a}}}\n" +
			"  - {engine: postgresql, schema: schema.sql, queries: b.sql, gen: {go: {package: b, out: b}}}\n",
	})
	a, b := string(out.Files["a/"+gen.GuardFile]), string(out.Files["b/"+gen.GuardFile])
	if a == "" || a != b || !strings.Contains(a, "IF presented < stored THEN") {
		t.Fatalf("guard files differ or are strict:\n--- a\n%s\n--- b\n%s", a, b)
	}
}

// TestGuardMigrations applies the guard as each migration tool would (its
// rules for splitting a file into statements, its up and down sections)
// to real PostgreSQL: after up, a lower token is refused with SQLSTATE
// FN001; after down, the trigger and its function are gone; up again
// works.
func TestGuardMigrations(t *testing.T) {
	schema := "CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 0);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n" +
		// A strict table with a quoted name in a schema, and a partitioned
		// one: each needs its own statements in every format.
		"CREATE SCHEMA app;\nCREATE TABLE app.\"Order\" (id bigint PRIMARY KEY, \"Tok\" bigint NOT NULL DEFAULT 0);\nCOMMENT ON COLUMN app.\"Order\".\"Tok\" IS 'fencegen:token strict';\n" +
		"CREATE TABLE events (id bigint, at date, tok bigint NOT NULL DEFAULT 0, PRIMARY KEY (id, at)) PARTITION BY RANGE (at);\nCREATE TABLE events_2026 PARTITION OF events FOR VALUES FROM ('2026-01-01') TO ('2027-01-01');\nCOMMENT ON COLUMN events.tok IS 'fencegen:token';\n"
	out := generateDir(t, map[string]string{
		"schema.sql":    schema,
		"q.sql":         "-- name: Get :one\nSELECT id FROM jobs WHERE id = $1;\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	})
	if len(out.Guards) != 1 || out.Guards[0].Out != "out" {
		t.Fatalf("Guards = %v, want one for out", out.Guards)
	}
	for _, format := range gen.MigrationFormats {
		t.Run(format, func(t *testing.T) {
			files, err := out.Guards[0].Migration(format, "20260102150405")
			if err != nil {
				t.Fatal(err)
			}
			var up, down []string
			switch format {
			case "golang-migrate":
				// The postgres driver runs each file as one multi-statement query.
				up = []string{string(files["20260102150405_fencegen_guard.up.sql"])}
				down = []string{string(files["20260102150405_fencegen_guard.down.sql"])}
			case "goose":
				up, down = gooseStatements(t, string(files["20260102150405_fencegen_guard.sql"]))
			case "dbmate":
				src := string(files["20260102150405_fencegen_guard.sql"])
				u, d, ok := strings.Cut(src, "\n-- migrate:down\n")
				if !ok || !strings.Contains(u, "\n-- migrate:up\n") {
					t.Fatalf("no dbmate sections:\n%s", src)
				}
				up, down = []string{u}, []string{d}
			case "atlas":
				up = []string{string(files["20260102150405_fencegen_guard.sql"])}
			}
			if len(files) != map[bool]int{true: 2, false: 1}[format == "golang-migrate"] {
				t.Fatalf("files %v", files)
			}
			for name, b := range files {
				if strings.HasPrefix(string(b), "-- Code generated") {
					t.Errorf("%s carries the generated-code header: generate would remove it from an out directory", name)
				}
			}
			pool := testenv.Database(t, schema)
			ctx := context.Background()
			apply := func(stmts []string) {
				t.Helper()
				for _, s := range stmts {
					if _, err := pool.Exec(ctx, s); err != nil {
						t.Fatalf("%v in:\n%s", err, s)
					}
				}
			}
			apply(up)
			if _, err := pool.Exec(ctx, "INSERT INTO jobs VALUES (1, 5)"); err != nil {
				t.Fatal(err)
			}
			_, err = pool.Exec(ctx, "UPDATE jobs SET tok = 4 WHERE id = 1")
			var pe *pgconn.PgError
			if !errors.As(err, &pe) || pe.Code != fenceimpl.SQLState {
				t.Fatalf("lowering the token after up: %v; want SQLSTATE %s", err, fenceimpl.SQLState)
			}
			for _, s := range []string{
				`INSERT INTO app."Order" VALUES (1, 5)`, `UPDATE app."Order" SET "Tok" = 5 WHERE id = 1`,
				"INSERT INTO events VALUES (1, '2026-05-01', 5)", "UPDATE events SET tok = 4 WHERE id = 1",
			} {
				_, err := pool.Exec(ctx, s)
				if strings.HasPrefix(s, "UPDATE") && (!errors.As(err, &pe) || pe.Code != fenceimpl.SQLState) {
					t.Fatalf("%s after up: %v; want SQLSTATE %s", s, err, fenceimpl.SQLState)
				} else if strings.HasPrefix(s, "INSERT") && err != nil {
					t.Fatal(err)
				}
			}
			if down == nil {
				return // atlas computes down migrations itself
			}
			apply(down)
			if _, err := pool.Exec(ctx, "UPDATE jobs SET tok = 4 WHERE id = 1"); err != nil {
				t.Fatalf("lowering the token after down: %v", err)
			}
			var n int
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_proc WHERE proname LIKE 'fencegen\_guard\_%'`).Scan(&n); err != nil || n != 0 {
				t.Fatalf("%d guard functions after down (%v), want 0", n, err)
			}
			if err := pool.QueryRow(ctx, `SELECT count(*) FROM pg_trigger WHERE tgname = 'fencegen_guard'`).Scan(&n); err != nil || n != 0 {
				t.Fatalf("%d guard triggers after down (%v), want 0", n, err)
			}
			apply(up)
		})
	}
}

// gooseStatements splits a goose migration into its Up and Down
// statements by goose's rules (pressly/goose, "SQL Migrations"): a
// statement ends at a line ending in a semicolon, unless it lies between
// "-- +goose StatementBegin" and "-- +goose StatementEnd".
func gooseStatements(t *testing.T, src string) (up, down []string) {
	var cur *[]string
	var b strings.Builder
	block := false
	for _, line := range strings.SplitAfter(src, "\n") {
		switch strings.TrimSpace(line) {
		case "-- +goose Up":
			cur = &up
			continue
		case "-- +goose Down":
			cur = &down
			continue
		case "-- +goose StatementBegin":
			block = true
			continue
		case "-- +goose StatementEnd":
			block = false
			*cur = append(*cur, b.String())
			b.Reset()
			continue
		}
		if cur == nil {
			continue
		}
		b.WriteString(line)
		if !block && strings.HasSuffix(strings.TrimSpace(line), ";") {
			*cur = append(*cur, b.String())
			b.Reset()
		}
	}
	if up == nil || down == nil || block {
		t.Fatalf("goose migration without Up and Down sections, or an open StatementBegin:\n%s", src)
	}
	return up, down
}
