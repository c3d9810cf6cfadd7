package gen_test

import (
	"context"
	"fmt"
	"maps"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
)

// vetPrepareSchema and vetPrepareQueries are the cases of
// TestVetNotesPostgresRefusalsAtPrepare: queries sqlc v1.31.1 generates
// without a database, most of which PostgreSQL refuses at PREPARE, one
// class each (issue 23).
const vetPrepareSchema = `CREATE TABLE books (id bigint PRIMARY KEY, title text NOT NULL, author text NOT NULL, n int NOT NULL, r real NOT NULL);
CREATE TABLE accounts (id bigint PRIMARY KEY, balance bigint NOT NULL, fence_token bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN accounts.fence_token IS '@fence';
`

var vetPrepareQueries = []struct{ name, cmd, sql string }{
	{"NotGrouped", ":many", "SELECT author, title, count(*) AS c FROM books GROUP BY author"},
	{"DistinctOrder", ":many", "SELECT DISTINCT author FROM books ORDER BY title"},
	{"BadLiteral", ":one", "SELECT 'abc'::int AS x"},
	{"AggregateInWhere", ":many", "SELECT id FROM books WHERE count(*) > 1"},
	{"WindowInWhere", ":many", "SELECT id FROM books WHERE row_number() OVER () > 1"},
	{"GroupPastList", ":many", "SELECT author FROM books GROUP BY 2"},
	{"IntegerModReal", ":many", "SELECT n % r AS x FROM books"},
	{"AggregateInUpdate", ":exec", "UPDATE books SET n = max(n) WHERE id = $1"},
	// Noted by the analysis already: one note, not two.
	{"TextPlus", ":many", "SELECT title + 1 AS x FROM books"},
	// Prepared: no note.
	{"Grouped", ":many", "SELECT author, count(*) AS c FROM books GROUP BY author"},
	{"ByID", ":one", "SELECT id, title FROM books WHERE id = $1"},
	{"Credit", ":exec", "UPDATE accounts SET balance = balance + @amount WHERE id = @id"},
}

// TestVetNotesPostgresRefusalsAtPrepare (issue 23): with a server at
// DATABASE_URL, fencegen vet prepares every query on a scratch database
// holding the entry's schema and notes each refusal at the query with
// PostgreSQL's own message, which the test takes from PREPARE on
// PostgreSQL itself; queries PostgreSQL prepares get no note, a refusal
// the analysis notes already is noted once, the files are Generate's,
// and the scratch database is gone afterwards. Without the variable,
// vet says once that the check needs it. Without PostgreSQL the test
// skips with one line, and fails under CI=true.
func TestVetNotesPostgresRefusalsAtPrepare(t *testing.T) {
	uri := testenv.DatabaseURL()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	admin, err := pgx.Connect(ctx, uri)
	if err != nil {
		testenv.Unavailable(t, "PostgreSQL", "DATABASE_URL", err)
	}
	defer admin.Close(context.Background())
	scratch := func() []string {
		rows, err := admin.Query(ctx, "SELECT datname FROM pg_database WHERE datname LIKE 'fencegen_vet_%'")
		if err != nil {
			t.Fatal(err)
		}
		names, err := pgx.CollectRows(rows, pgx.RowTo[string])
		if err != nil {
			t.Fatal(err)
		}
		return names
	}
	before := scratch()

	// The oracle: PostgreSQL's answer to PREPARE of each query.
	pool := testenv.Database(t, vetPrepareSchema)
	want := map[string]string{}
	var query strings.Builder
	for i, q := range vetPrepareQueries {
		fmt.Fprintf(&query, "-- name: %s %s\n%s;\n\n", q.name, q.cmd, q.sql)
		sql := strings.NewReplacer("@amount", "$1", "@id", "$2").Replace(q.sql)
		if _, err := pool.Exec(ctx, fmt.Sprintf("PREPARE p%d AS %s", i, sql)); err != nil {
			pe, ok := err.(*pgconn.PgError)
			if !ok {
				t.Fatalf("PREPARE %s: %v", q.name, err)
			}
			want[q.name] = pe.Message
		}
	}
	if len(want) != 9 {
		t.Fatalf("PostgreSQL refuses %d of the queries, want 9 (the test's premise): %v", len(want), want)
	}

	dir := t.TempDir()
	gen.WriteTree(t, dir, map[string]string{
		"schema.sql": vetPrepareSchema,
		"query.sql":  query.String(),
		"sqlc.yaml":  "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: schema.sql\n    queries: query.sql\n    gen: {go: {package: db, out: db, sql_package: pgx/v5}}\n",
	})
	cfg, err := gen.LoadConfig(filepath.Join(dir, "sqlc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	generated, err := gen.Generate(ctx, cfg)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	refusals := func(notes []string) map[string][]string {
		got := map[string][]string{}
		for _, n := range notes {
			_, rest, ok := strings.Cut(n, ": note: query ")
			if !ok {
				continue
			}
			name, msg, ok := strings.Cut(rest, ": PostgreSQL refuses this query: ")
			if ok {
				got[name] = append(got[name], strings.TrimSuffix(msg, "; generated as sqlc generates it"))
			}
		}
		return got
	}

	t.Setenv(gen.VetDatabaseEnv, uri)
	out, err := gen.Vet(ctx, cfg)
	if err != nil {
		t.Fatalf("vet: %v", err)
	}
	got := refusals(out.Vet)
	for _, q := range vetPrepareQueries {
		w, refused := want[q.name]
		switch {
		case refused && !slices.Equal(got[q.name], []string{w}):
			t.Errorf("%s: PostgreSQL answers %q; vet notes %q", q.name, w, got[q.name])
		case !refused && len(got[q.name]) > 0:
			t.Errorf("%s: PostgreSQL prepares it; vet notes %q", q.name, got[q.name])
		}
	}
	for _, n := range out.Vet {
		if strings.Contains(n, "vet did not check") || strings.Contains(n, "set "+gen.VetDatabaseEnv) {
			t.Errorf("vet with a server: %s", n)
		}
	}
	if !maps.EqualFunc(out.Files, generated.Files, func(a, b []byte) bool { return string(a) == string(b) }) {
		t.Errorf("vet renders other files than generate")
	}
	// Other packages' tests run vet at the same time (go test runs
	// packages in parallel): a scratch database that was not there before
	// must be gone within a minute, as theirs are when their vet ends.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(500 * time.Millisecond) {
		var left []string
		for _, n := range scratch() {
			if !slices.Contains(before, n) {
				left = append(left, n)
			}
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("scratch databases %q left after vet (%q before): vet drops its own", left, before)
			break
		}
	}

	// Without a server: one note says so, and only the analysis's own
	// refusal is noted.
	t.Setenv(gen.VetDatabaseEnv, "")
	out, err = gen.Vet(ctx, cfg)
	if err != nil {
		t.Fatalf("vet: %v", err)
	}
	got = refusals(out.Vet)
	if len(got) != 1 || len(got["TextPlus"]) != 1 {
		t.Errorf("vet without a server notes refusals %q, want TextPlus's only", got)
	}
	n := 0
	for _, note := range out.Vet {
		if strings.HasSuffix(note, "note: vet checks that PostgreSQL prepares each query only with a server to create a scratch database on: set "+gen.VetDatabaseEnv) {
			n++
		}
	}
	if n != 1 {
		t.Errorf("vet without a server says %d times that the check needs one, want once:\n%s", n, strings.Join(out.Vet, "\n"))
	}
}
