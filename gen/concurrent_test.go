package gen_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// concurrentInput writes, into dir, a project whose queries exercise what
// Generate does concurrently: several schema and query files (parsed
// concurrently), hundreds of queries (analysed concurrently), fenced
// tables whose writes are guarded, and user-defined functions whose writes
// to fenced tables are looked up through the shared cache of funcwrites.go.
// A second sql entry (generated concurrently with the first) takes two of
// the query files. With broken set, the query files also hold errors of every stage: bad
// annotations, duplicate names across files, unknown columns and tables,
// calls of functions that write fenced tables, and an annotation with no
// statement.
func concurrentInput(t *testing.T, dir string, broken bool) {
	t.Helper()
	const tables, queryFiles = 24, 4
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var s1, s2 strings.Builder
	for i := 0; i < tables; i++ {
		s := &s1
		if i >= tables/2 {
			s = &s2
		}
		fmt.Fprintf(s, "CREATE TABLE t%d (id BIGINT PRIMARY KEY, name TEXT NOT NULL, amount NUMERIC NOT NULL DEFAULT 0, note TEXT, tok BIGINT NOT NULL DEFAULT 0);\n", i)
		if i%2 == 0 {
			fmt.Fprintf(s, "COMMENT ON COLUMN t%d.tok IS 'fencegen:token';\n", i)
		}
		// Functions that write a fenced table (plpgsql, sql, and one
		// through another), and one that writes an unfenced one.
		fmt.Fprintf(s, "CREATE FUNCTION bump%[1]d(k BIGINT) RETURNS void LANGUAGE plpgsql AS $$ BEGIN UPDATE t%[2]d SET amount = amount + 1 WHERE id = k; END $$;\n", i, i-i%2)
		fmt.Fprintf(s, "CREATE FUNCTION drop%[1]d(k BIGINT) RETURNS BIGINT LANGUAGE sql AS $$ DELETE FROM t%[2]d WHERE id = k RETURNING id; $$;\n", i, i-i%2)
		fmt.Fprintf(s, "CREATE FUNCTION via%[1]d(k BIGINT) RETURNS void LANGUAGE plpgsql AS $$ BEGIN PERFORM bump%[1]d(k); END $$;\n", i)
	}
	write("schema1.sql", s1.String())
	write("schema2.sql", s2.String())
	var queries []string
	for f := 0; f < queryFiles; f++ {
		var q strings.Builder
		for i := f; i < tables; i += queryFiles {
			fmt.Fprintf(&q, `-- name: Get%[1]d :one
SELECT * FROM t%[1]d WHERE id = $1;

-- name: List%[1]d :many
SELECT id, name, amount FROM t%[1]d WHERE amount > @min ORDER BY id LIMIT @lim;

-- name: Create%[1]d :one
INSERT INTO t%[1]d (id, name, amount) VALUES ($1, $2, $3) RETURNING *;

-- name: Rename%[1]d :exec
UPDATE t%[1]d SET name = @name WHERE id = @id;

-- name: Delete%[1]d :execrows
DELETE FROM t%[1]d WHERE id = $1;

-- name: Join%[1]d :many
SELECT a.id, a.name, b.note FROM t%[1]d a LEFT JOIN t%[2]d b ON b.id = a.id WHERE a.name LIKE $1;

-- name: Total%[1]d :one
SELECT COALESCE(sum(amount), 0)::numeric AS total FROM t%[1]d;

`, i, (i+1)%tables)
			if broken {
				fmt.Fprintf(&q, `-- name: Bump%[1]d :exec
SELECT bump%[1]d(@id);

-- name: Drop%[1]d :one
SELECT drop%[1]d(@id);

-- name: Via%[1]d :exec
SELECT via%[1]d($1);

-- name: Unknown%[1]d :one
SELECT nope FROM t%[1]d WHERE id = $1;

-- name: NoTable%[1]d :many
SELECT * FROM missing%[1]d;

-- name: Typo%[1]d :exexc
SELECT 1;

-- name: Get%[2]d :one
SELECT * FROM t%[2]d WHERE id = $1;

`, i, (i+1)%tables)
			}
		}
		if broken {
			fmt.Fprintf(&q, "-- name: Dangling%d :exec\n", f)
		}
		name := fmt.Sprintf("q%d.sql", f)
		write(name, q.String())
		queries = append(queries, name)
	}
	write("fencegen.yaml", `version: "2"
sql:
  - engine: postgresql
    schema: [schema1.sql, schema2.sql]
    queries: [`+strings.Join(queries, ", ")+`]
    gen:
      go:
        package: db
        out: out
  - engine: postgresql
    schema: [schema1.sql, schema2.sql]
    queries: [q0.sql, q1.sql]
    gen:
      go:
        package: db2
        out: out2
`)
}

// generateOnce runs Generate on dir's configuration and returns its files
// (name, then contents, sorted by name), its vet notes, and its error
// ("" for none).
func generateOnce(t *testing.T, dir string) (files []string, vet []string, errText string) {
	t.Helper()
	cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		var lines []string
		for _, p := range gen.Problems(err) {
			lines = append(lines, p.Error())
		}
		return nil, nil, err.Error() + "\n--- Problems:\n" + strings.Join(lines, "\n")
	}
	for _, name := range slices.Sorted(maps.Keys(out.Files)) {
		files = append(files, name, string(out.Files[name]))
	}
	return files, out.Vet, ""
}

// TestGenerateConcurrentIsDeterministic checks that Generate, which parses
// and analyses concurrently, returns the same files, notes and errors,
// byte for byte, on every run and as when it runs on one thread
// (GOMAXPROCS=1). Run it with -race: the runs share nothing but the
// process, and each run's queries share the catalog and the
// function-write cache.
func TestGenerateConcurrentIsDeterministic(t *testing.T) {
	for _, broken := range []bool{false, true} {
		t.Run(fmt.Sprintf("broken=%v", broken), func(t *testing.T) {
			dir := t.TempDir()
			concurrentInput(t, dir, broken)
			old := runtime.GOMAXPROCS(1)
			wantFiles, wantVet, wantErr := generateOnce(t, dir)
			runtime.GOMAXPROCS(max(old, 8))
			defer runtime.GOMAXPROCS(old)
			if broken {
				// Every kind of problem is there, from several files.
				for _, s := range []string{"duplicate query name", "whose body runs UPDATE", "whose body runs DELETE", "through bump", "unknown command", "q0.sql:", "q3.sql:"} {
					if !strings.Contains(wantErr, s) {
						t.Fatalf("the error list has no %q:\n%s", s, wantErr)
					}
				}
			} else {
				if wantErr != "" {
					t.Fatalf("Generate: %s", wantErr)
				}
				all := strings.Join(wantFiles, "\n")
				for _, s := range []string{"out/q0.sql.go", "out/q3.sql.go", "out2/q1.sql.go", "fencegen_guard.sql", "func (q *Queries) Rename22(", "fence.Token"} {
					if !strings.Contains(all, s) {
						t.Fatalf("the output has no %q", s)
					}
				}
			}
			runs := 20
			if testing.Short() {
				runs = 5
			}
			for i := 0; i < runs; i++ {
				files, vet, errText := generateOnce(t, dir)
				if errText != wantErr {
					t.Fatalf("run %d: errors differ from the one-thread run's:\n%s\n--- want:\n%s", i, errText, wantErr)
				}
				if !slices.Equal(vet, wantVet) {
					t.Fatalf("run %d: vet notes differ: %q, want %q", i, vet, wantVet)
				}
				if !slices.Equal(files, wantFiles) {
					t.Fatalf("run %d: generated files differ from the one-thread run's", i)
				}
			}
		})
	}
}
