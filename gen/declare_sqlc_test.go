package gen_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
)

// sqlcBody generates queries over schema with sqlc v1.31.1 (pgx/v5) and
// with fencegen, and returns q.sql.go of each below its header, and
// fencegen's output. sqlc is $(go env GOPATH)/bin/sqlc; without it the
// test skips with one line, and fails under CI=true.
func sqlcBody(t *testing.T, schema, queries string) (fencegen, sqlc string, out *gen.Output) {
	t.Helper()
	return sqlcBodyOf(t, "postgresql", schema, queries)
}

// sqlcBodyOf is sqlcBody on engine ("postgresql": pgx/v5; "mysql":
// database/sql).
func sqlcBodyOf(t *testing.T, engine, schema, queries string) (fencegen, sqlc string, out *gen.Output) {
	t.Helper()
	pkg := ", sql_package: pgx/v5"
	if engine == "mysql" {
		pkg = ""
	}
	r := sqlcAndFencegen(t, map[string]string{
		"schema.sql": schema,
		"q.sql":      queries,
		"sqlc.yaml":  "version: \"2\"\nsql:\n  - {engine: " + engine + ", schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out" + pkg + "}}}\n",
	}, "sqlc.yaml")
	r.mustBoth(t)
	want, err := os.ReadFile(filepath.Join(r.dir, "out", "q.sql.go"))
	if err != nil {
		t.Fatal(err)
	}
	return belowHeader(r.out.Files["out/q.sql.go"]), belowHeader(want), r.out
}

// sqlcRun is what sqlcAndFencegen ran: sqlc's combined output and error
// (its files are in dir, beside the inputs), and fencegen's: LoadConfig's
// error, or Generate's output or error.
type sqlcRun struct {
	dir     string
	sqlcOut []byte
	sqlcErr error
	cfgErr  error // LoadConfig's
	out     *gen.Output
	err     error // Generate's
}

// sqlcAndFencegen writes files (name to text) into a new directory, runs
// sqlc v1.31.1's generate there and fencegen's Generate on config, one
// of the files, and returns both outcomes without judging them. sqlc is
// $(go env GOPATH)/bin/sqlc; without it the test skips with one line,
// and fails under CI=true.
func sqlcAndFencegen(t *testing.T, files map[string]string, config string) sqlcRun {
	t.Helper()
	r := sqlcGenerate(t, files)
	r.fencegen(config)
	return r
}

// sqlcGenerate is sqlcAndFencegen's first half: it writes files into a
// new directory and runs sqlc v1.31.1's generate there, leaving
// fencegen's fields unset (r.fencegen fills them).
func sqlcGenerate(t *testing.T, files map[string]string) sqlcRun {
	t.Helper()
	bin := needSqlc(t)
	r := sqlcRun{dir: t.TempDir()}
	gen.WriteTree(t, r.dir, files)
	cmd := exec.Command(bin, "generate")
	cmd.Dir = r.dir
	r.sqlcOut, r.sqlcErr = cmd.CombinedOutput()
	return r
}

// fencegen runs fencegen's LoadConfig on config, a file in r.dir, and
// Generate on what it loads, and records their outcome in r.
func (r *sqlcRun) fencegen(config string) {
	cfg, err := gen.LoadConfig(filepath.Join(r.dir, config))
	if err != nil {
		r.cfgErr = err
		return
	}
	r.out, r.err = gen.Generate(context.Background(), cfg)
}

// needSqlc returns the path of sqlc v1.31.1, $(go env GOPATH)/bin/sqlc;
// without it the test skips with one line, and fails under CI=true.
func needSqlc(t *testing.T) string {
	t.Helper()
	bin := testenv.SqlcBinary()
	if bin == "" {
		testenv.UnavailableAt(t, "sqlc v1.31.1 (go install github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1)", "SQLC", "", errors.New("not in $SQLC, GOPATH/bin or PATH"))
	}
	return bin
}

// mustBoth fails the test unless sqlc and fencegen both generated.
func (r sqlcRun) mustBoth(t *testing.T) {
	t.Helper()
	if r.sqlcErr != nil {
		t.Fatalf("sqlc generate: %v\n%s", r.sqlcErr, r.sqlcOut)
	}
	if r.cfgErr != nil {
		t.Fatal(r.cfgErr)
	}
	if r.err != nil {
		t.Fatalf("refused what sqlc generates: %v", r.err)
	}
}

// belowHeader is a generated file's text after its header: from its
// package clause's name on.
func belowHeader(src []byte) string {
	_, rest, _ := strings.Cut(string(src), "\npackage ")
	return rest
}

// TestDeclareCursorAsSqlc (issue 24): DECLARE ... CURSOR FOR a SELECT
// or VALUES is generated as sqlc v1.31.1 generates it: with the
// parameters of the cursor's query (named, typed and numbered as sqlc
// does), which PostgreSQL binds to it, and for :one and :many a row type
// with no fields, which a vet note explains. The file is compared with
// sqlc's, text for text, below its header. Before, fencegen generated
// every one without its parameters, so PostgreSQL refused each call.
func TestDeclareCursorAsSqlc(t *testing.T) {
	got, want, out := sqlcBody(t, explainSchema, `-- name: DeclareExec :exec
DECLARE c CURSOR FOR SELECT id, state FROM jobs WHERE id = $1;

-- name: DeclareNamed :exec
DECLARE c2 NO SCROLL CURSOR WITH HOLD FOR SELECT id FROM notes WHERE body = @body AND id > sqlc.arg(min_id);

-- name: DeclareForUpdate :exec
DECLARE c3 CURSOR FOR SELECT id FROM jobs WHERE state = ANY(@states::text[]) FOR UPDATE;

-- name: DeclareMany :many
DECLARE c4 CURSOR FOR SELECT id, state FROM jobs WHERE id = $1;

-- name: DeclareOne :one
DECLARE c5 CURSOR FOR SELECT id FROM jobs WHERE id = @id;

-- name: DeclareValues :execrows
DECLARE c6 BINARY SCROLL CURSOR FOR VALUES ($1::int);
`)
	if got != want {
		t.Errorf("q.sql.go differs from sqlc's below the header:\n--- fencegen\n%s\n--- sqlc\n%s", got, want)
	}
	if out.Fenced != 0 {
		t.Errorf("%d queries guarded; a cursor over a read writes nothing", out.Fenced)
	}
	vet := strings.Join(out.Vet, "\n")
	for _, w := range []string{
		"query DeclareMany is a DECLARE CURSOR with :many, which sqlc v1.31.1 generates with a row type of no fields; DECLARE returns no row, so every call returns no row",
		"query DeclareOne is a DECLARE CURSOR with :one, which sqlc v1.31.1 generates with a row type of no fields; DECLARE returns no row, so every call fails (no rows in result set)",
	} {
		if !strings.Contains(vet, w) {
			t.Errorf("vet has no note %q:\n%s", w, vet)
		}
	}
	if n := strings.Count(vet, "is a DECLARE CURSOR with"); n != 2 {
		t.Errorf("%d DECLARE notes, want 2 (none for :exec and :execrows):\n%s", n, vet)
	}
}

// TestDeclareCursorWriterRefused (issue 24): a cursor whose query writes
// a fenced table when fetched (a function that updates jobs) is refused
// as before its parameters were read, where the write analysis locates
// the write.
func TestDeclareCursorWriterRefused(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"schema.sql":    explainSchema + "CREATE FUNCTION bump(i bigint) RETURNS bigint LANGUAGE sql VOLATILE AS $$ UPDATE jobs SET state = 'x' WHERE id = i RETURNING id $$;\n",
		"q.sql":         "-- name: DeclareBump :exec\nDECLARE c CURSOR FOR SELECT bump(@id);\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	}
	for n, s := range files {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = gen.Generate(context.Background(), cfg)
	if err == nil {
		t.Fatal("generated a cursor over a write of fenced table jobs")
	}
	if w := "q.sql:2:29: query DeclareBump calls function bump()"; !strings.Contains(err.Error(), w) {
		t.Errorf("error lacks %q:\n%v", w, err)
	}
}

// TestDollarZeroAsSqlc (issue 23): a query written with $0 that writes
// no fenced table is generated as sqlc v1.31.1 generates it, each $0 a
// parameter of its own named and typed from its use, the text keeping
// $0; the file is compared with sqlc's below its header. Each query gets
// a vet note saying that PostgreSQL answers every call with "there is no
// parameter $0", as the test checks on PostgreSQL when it is reachable.
func TestDollarZeroAsSqlc(t *testing.T) {
	// jobs is fenced; notes is not, and sets off no write.
	schema := `CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';
CREATE TABLE notes (id bigint PRIMARY KEY, body text);
`
	got, want, out := sqlcBody(t, schema, `-- name: ZeroOnly :many
SELECT id FROM notes WHERE id = $0;

-- name: ZeroTwice :exec
SELECT id FROM notes WHERE id = $0 OR id > $0;

-- name: ZeroUpdateNotes :execrows
UPDATE notes SET body = $0 WHERE id = $0;

-- name: ZeroCastOne :one
SELECT body FROM notes WHERE id = $0::int;

-- name: ZeroInsert :exec
INSERT INTO notes (id, body) VALUES ($0, $0);

-- name: ZeroLimit :many
SELECT id FROM notes LIMIT $0;

-- name: ZeroExplain :exec
EXPLAIN SELECT id FROM jobs WHERE state = $0 AND id = $0;

-- name: ZeroDeclare :exec
DECLARE c CURSOR FOR SELECT id FROM jobs WHERE state = $0;
`)
	if got != want {
		t.Errorf("q.sql.go differs from sqlc's below the header:\n--- fencegen\n%s\n--- sqlc\n%s", got, want)
	}
	vet := strings.Join(out.Vet, "\n")
	if n := strings.Count(vet, `generates as a parameter of its own for each $0; PostgreSQL numbers parameters from $1 and answers every call with "there is no parameter $0" (SQLSTATE 42P02)`); n != 8 {
		t.Errorf("%d $0 notes, want 8:\n%s", n, vet)
	}
	// What the note says PostgreSQL answers.
	conn := testenv.Database(t)
	_, err := conn.Exec(context.Background(), "SELECT 1 WHERE 1 = $0", 1)
	if err == nil || !strings.Contains(err.Error(), "there is no parameter $0") || !strings.Contains(err.Error(), "42P02") {
		t.Errorf("PostgreSQL answered %v, not the note's \"there is no parameter $0\" (42P02)", err)
	}
}

// TestCopyPrepareAsSqlc (issue 24): COPY (query) TO and PREPARE name AS
// query are generated as sqlc v1.31.1 generates them, with the
// parameters of the query they wrap as the method's (the file is
// compared with sqlc's below its header). PostgreSQL binds no parameter
// to these statements, so each query with parameters gets a vet note
// that every call fails, and :one and :many one that sqlc's row type has
// no field. PREPARE of a write of unfenced table notes is generated as
// sqlc does; COPY of a write of fenced table jobs runs it, and PREPARE
// of one runs it whenever the session executes the name (a driver's
// cached statement of that name, rebound, trial t24f): both refused.
func TestCopyPrepareAsSqlc(t *testing.T) {
	schema := `CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';
CREATE TABLE notes (id bigint PRIMARY KEY, body text);
`
	got, want, out := sqlcBody(t, schema, `-- name: CopyTo :exec
COPY (SELECT id FROM notes WHERE id = $1) TO STDOUT;

-- name: CopyNamed :many
COPY (SELECT id, body FROM notes WHERE body = @body AND id > @id) TO STDOUT (FORMAT csv);

-- name: CopyInsert :exec
COPY (INSERT INTO notes (id, body) VALUES (@id, @body) RETURNING id) TO STDOUT;

-- name: CopyPlain :exec
COPY (SELECT id FROM notes) TO STDOUT;

-- name: PrepareAs :exec
PREPARE p1 AS SELECT id FROM notes WHERE id = $1;

-- name: PrepareTyped :one
PREPARE p2 (bigint) AS SELECT id, body FROM notes WHERE id = $1;

-- name: PrepareUpdateNotes :execrows
PREPARE p3 AS UPDATE notes SET body = @body WHERE id = @id;
`)
	if got != want {
		t.Errorf("q.sql.go differs from sqlc's below the header:\n--- fencegen\n%s\n--- sqlc\n%s", got, want)
	}
	if out.Fenced != 0 {
		t.Errorf("%d queries guarded; none writes a fenced table, and a COPY's or PREPARE's text cannot be wrapped", out.Fenced)
	}
	vet := strings.Join(out.Vet, "\n")
	if n := strings.Count(vet, "whose query has parameters, which sqlc v1.31.1 generates as the statement's"); n != 6 {
		t.Errorf("%d parameter notes, want 6 (none for CopyPlain):\n%s", n, vet)
	}
	for _, w := range []string{
		"query CopyNamed is a COPY with :many, which sqlc v1.31.1 generates with a row type of no fields",
		"query PrepareTyped is a PREPARE with :one, which sqlc v1.31.1 generates with a row type of no fields; PREPARE returns no row to the DBTX, so every call fails (no rows in result set)",
	} {
		if !strings.Contains(vet, w) {
			t.Errorf("vet has no note %q:\n%s", w, vet)
		}
	}
	// What the parameter note says the driver answers.
	pool := testenv.Database(t, "CREATE TABLE notes (id bigint PRIMARY KEY, body text)")
	for _, q := range []string{"COPY (SELECT id FROM notes WHERE id = $1) TO STDOUT", "PREPARE p1 AS SELECT id FROM notes WHERE id = $1"} {
		if _, err := pool.Exec(context.Background(), q, int64(1)); err == nil || !strings.Contains(err.Error(), "mismatched param and argument count") {
			t.Errorf("%s with one argument: %v, not the note's mismatched param and argument count", q, err)
		}
	}

	// COPY of a write of fenced table jobs runs it, PREPARE of one
	// whenever the name is executed: refused.
	for _, tc := range []struct{ query, want string }{
		{"-- name: CopyUpdateJobs :exec\nCOPY (UPDATE jobs SET state = @state WHERE id = @id RETURNING id) TO STDOUT;\n",
			"q.sql:2:14: query CopyUpdateJobs runs UPDATE on fenced table jobs inside COPY (query) TO"},
		{"-- name: PrepareUpdateJobs :execrows\nPREPARE p3 AS UPDATE jobs SET state = @state WHERE id = @id;\n",
			"q.sql:2:22: query PrepareUpdateJobs prepares UPDATE on fenced table jobs (PREPARE)"},
	} {
		dir := t.TempDir()
		for n, s := range map[string]string{
			"schema.sql":    schema,
			"q.sql":         tc.query,
			"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
		} {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := gen.Generate(context.Background(), cfg); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: %v, want the write analysis' refusal %q", tc.query, err, tc.want)
		}
	}
}

// TestLaxOrderByAsSqlc (issue 23, trial sw4 F5): with strict_order_by:
// false, sqlc v1.31.1 does not check the columns an ORDER BY names, and
// generates a query whose ORDER BY names one that does not exist;
// fencegen generates it as sqlc does (the file compared with sqlc's below
// its header) with a vet note of what PostgreSQL answers. With sqlc's
// default (true) both refuse it.
func TestLaxOrderByAsSqlc(t *testing.T) {
	files := map[string]string{
		"schema.sql": "CREATE TABLE t (id bigint PRIMARY KEY, name text NOT NULL);\n",
		"q.sql":      "-- name: O :many\nSELECT id FROM t WHERE name = $1 ORDER BY nope_col;\n",
		"sqlc.yaml":  "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, strict_order_by: false, gen: {go: {package: x, out: out, sql_package: pgx/v5}}}\n",
	}
	r := sqlcAndFencegen(t, files, "sqlc.yaml")
	r.mustBoth(t)
	want, err := os.ReadFile(filepath.Join(r.dir, "out", "q.sql.go"))
	if err != nil {
		t.Fatal(err)
	}
	if got := belowHeader(r.out.Files["out/q.sql.go"]); got != belowHeader(want) {
		t.Errorf("q.sql.go differs from sqlc's below the header:\n--- fencegen\n%s\n--- sqlc\n%s", got, belowHeader(want))
	}
	if vet := strings.Join(r.out.Vet, "\n"); !strings.Contains(vet, `refuses this query: column "nope_col" does not exist`) {
		t.Errorf("vet notes:\n%s\nwant the unknown ORDER BY column noted", vet)
	}
	files["sqlc.yaml"] = strings.Replace(files["sqlc.yaml"], "strict_order_by: false, ", "", 1)
	r = sqlcAndFencegen(t, files, "sqlc.yaml")
	if r.sqlcErr == nil || r.err == nil {
		t.Errorf("with strict_order_by unset: sqlc err %v, fencegen err %v; want both to refuse", r.sqlcErr, r.err)
	}
}

// TestRowExpansionAsSqlc (issue 23, trial sw4 F3): sqlc v1.31.1 reads
// (p).* of a composite column as one column; a configuration sqlc reads
// gets that API (the file compared with sqlc's below its header) and a
// vet note naming PostgreSQL's reading, which postgresql_types gives.
func TestRowExpansionAsSqlc(t *testing.T) {
	got, want, out := sqlcBody(t, "CREATE TYPE pair AS (a int, b text);\nCREATE TABLE holder (id bigint PRIMARY KEY, p pair);\n",
		"-- name: HolderPair :many\nSELECT (p).* FROM holder;\n")
	if got != want {
		t.Errorf("q.sql.go differs from sqlc's below the header:\n--- fencegen\n%s\n--- sqlc\n%s", got, want)
	}
	if vet := strings.Join(out.Vet, "\n"); !strings.Contains(vet, "query HolderPair: result columns are (column_1 interface{}), as sqlc reads the query; postgresql_types: true returns (a pgtype.Int4, b pgtype.Text)") {
		t.Errorf("vet notes:\n%s\nwant the row expansion noted", vet)
	}
}
