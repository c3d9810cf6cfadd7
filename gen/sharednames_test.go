package gen_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// TestSharedNamesAcrossEntries (trial r24s N12, N20): b's schema
// statement defining a view of the name of a's fenced table is an error,
// and a query of one sql
// entry that uses a name another entry's schema defines otherwise is
// refused at the name (a's policy on r1, a's fenced table jobs where b
// has a view of that name, and so a's own write of jobs), and a name
// qualified with a schema the other entry's differing object is not in
// passes. writeoracle's
// TestOracleSharedDatabase runs the other shapes against PostgreSQL.
func TestSharedNamesAcrossEntries(t *testing.T) {
	const (
		a = "CREATE SCHEMA app;\n" +
			"CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL, tok bigint NOT NULL DEFAULT 0);\n" +
			"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n" +
			"CREATE FUNCTION vw(i bigint) RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET status = 'vw'; RETURN i; END $$;\n" +
			"CREATE TABLE r1 (id bigint PRIMARY KEY, v text);\n" +
			"ALTER TABLE r1 ENABLE ROW LEVEL SECURITY;\n" +
			"CREATE POLICY r1_vw ON r1 USING (vw(id) = id);\n" +
			"CREATE TABLE app.notes (id bigint PRIMARY KEY, v text);\n" +
			"CREATE POLICY n_vw ON app.notes USING (vw(id) = id);\n"
		b = "CREATE TABLE r1 (id bigint PRIMARY KEY, v text);\n" +
			"CREATE TABLE b_jobs (id bigint PRIMARY KEY, status text NOT NULL);\n" +
			"CREATE VIEW jobs AS SELECT id, status FROM b_jobs;\n" +
			"CREATE TABLE notes (id bigint PRIMARY KEY, v text);\n"
	)
	_, err := generateTwoEntries(t, a, b,
		"-- name: SetStatus :exec\nUPDATE jobs SET status = @status WHERE id = @id;\n",
		"-- name: ReadR1 :many\nSELECT id FROM r1;\n\n"+
			"-- name: SetViewStatus :exec\nUPDATE jobs SET status = @status WHERE id = @id;\n\n"+
			"-- name: ReadNotes :many\nSELECT id FROM public.notes;\n")
	if err == nil {
		t.Fatal("generated b's queries whose names a's schema defines otherwise")
	}
	msg := err.Error()
	for _, want := range []string{
		"qb.sql:2:16: this statement names r1, which the schema of sql entry adb, which shares this entry's database, defines or changes at ",
		"a.sql:6:1 as this entry's schema does not",
		"qa.sql:2:8: this statement names jobs, which the schema of sql entry bdb",
		"qb.sql:5:8: this statement names jobs, which the schema of sql entry adb, which shares this entry's database, defines or changes at ",
		"a.sql:2:1 as this entry's schema does not",
		"b.sql:3:1: this statement defines or changes jobs, which sql entry adb fences (",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("missing %q in:\n%s", want, msg)
		}
	}
	for _, not := range []string{"qb.sql:8:"} {
		if strings.Contains(msg, not) {
			t.Errorf("refused a query at %s:\n%s", not, msg)
		}
	}
}

// TestSharedNamesIgnoreMarks: entry b's copy of a's table without a's
// fencegen mark is the same table (the mark fences it in b too), so b's
// write of it is generated, guarded, not refused as a name a's schema
// defines otherwise.
func TestSharedNamesIgnoreMarks(t *testing.T) {
	const table = "CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL, tok bigint NOT NULL DEFAULT 0);\n"
	q := "-- name: SetStatus :exec\nUPDATE jobs SET status = @status WHERE id = @id;\n"
	out, err := generateTwoEntries(t, table+"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n", table, q, q)
	if err != nil {
		t.Fatal(err)
	}
	src, ok := out.Files["bdb/qb.sql.go"]
	if !ok {
		t.Fatalf("no bdb/qb.sql.go among %d files", len(out.Files))
	}
	if !strings.Contains(string(src), "tok") {
		t.Errorf("b's write of jobs is not guarded:\n%s", src)
	}
}

// TestSharedImplicitOperator (trial r24s N19, operator form): a's
// operator = over varchar, whose function writes fenced jobs, is what
// PostgreSQL calls for b's IN over a varchar column, which names no =:
// every query of b is refused, naming a's operator.
func TestSharedImplicitOperator(t *testing.T) {
	_, err := generateTwoEntries(t,
		"CREATE TABLE jobs (id bigint PRIMARY KEY, v varchar(20), tok bigint NOT NULL DEFAULT 0);\n"+
			"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n"+
			"CREATE FUNCTION eqf(a varchar, b varchar) RETURNS boolean LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET v = 'x'; RETURN a::text = b::text; END $$;\n"+
			"CREATE OPERATOR public.= (LEFTARG = varchar, RIGHTARG = varchar, FUNCTION = eqf);\n",
		"CREATE TABLE notes (id bigint PRIMARY KEY, v varchar(20));\n",
		"-- name: GetJob :one\nSELECT id FROM jobs WHERE id = @id;\n",
		"-- name: InNotes :many\nSELECT id FROM notes WHERE v IN ('a'::varchar, 'b'::varchar);\n")
	if err == nil || !strings.Contains(err.Error(), "qb.sql:2:1: the schema of sql entry adb, which shares this entry's database, defines or changes = at ") {
		t.Fatalf("b's IN under a's operator = is not refused: %v", err)
	}
}

// generateTwoEntries generates a sqlc.yaml of two pgx/v5 sql entries
// sharing one database: adb (schema a, queries qa) and bdb (schema b,
// queries qb), in files a.sql, b.sql, qa.sql and qb.sql of a new
// directory.
func generateTwoEntries(t *testing.T, a, b, qa, qb string) (*gen.Output, error) {
	t.Helper()
	dir := t.TempDir()
	gen.WriteTree(t, dir, map[string]string{
		"a.sql": a, "b.sql": b, "qa.sql": qa, "qb.sql": qb,
		"sqlc.yaml": `version: "2"
sql:
  - {engine: postgresql, schema: a.sql, queries: qa.sql, gen: {go: {package: adb, out: adb, sql_package: pgx/v5}}}
  - {engine: postgresql, schema: b.sql, queries: qb.sql, gen: {go: {package: bdb, out: bdb, sql_package: pgx/v5}}}
`,
	})
	cfg, err := gen.LoadConfig(filepath.Join(dir, "sqlc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	return gen.Generate(context.Background(), cfg)
}
