package gen_test

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// explainSchema fences jobs; notes has a trigger that writes jobs.
const explainSchema = `CREATE TABLE jobs (id bigint PRIMARY KEY, state text NOT NULL, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';
CREATE TABLE notes (id bigint PRIMARY KEY, body text);
CREATE FUNCTION notes_touch() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE jobs SET state = 'noted' WHERE id = NEW.id;
    RETURN NEW;
END
$$;
CREATE TRIGGER notes_touch AFTER INSERT ON notes FOR EACH ROW EXECUTE FUNCTION notes_touch();
`

// TestExplainAsSqlc (issue 24): EXPLAIN of a SELECT, INSERT, UPDATE or
// DELETE, with any command, is generated as sqlc v1.31.1 generates it:
// the parameters of the statement explained (named, typed and numbered as
// sqlc does) and, for :one and :many, a row type with no fields, which a
// vet note says fails every call. Without ANALYZE the statement is only
// planned, so EXPLAIN of a write of fenced table jobs gets no guard and
// no refusal; the file is compared with sqlc's, text for text, below its
// header.
//
// sqlc is $(go env GOPATH)/bin/sqlc; without it the test skips with one
// line, and fails under CI=true.
func TestExplainAsSqlc(t *testing.T) {
	queries := `-- name: ExplainMany :many
EXPLAIN SELECT id, state FROM jobs WHERE state = $1;

-- name: ExplainOne :one
EXPLAIN (FORMAT JSON) SELECT id FROM jobs WHERE id = @id;

-- name: ExplainExec :exec
EXPLAIN SELECT id FROM jobs WHERE id = sqlc.arg(job_id) AND state = @state;

-- name: ExplainUpdate :many
EXPLAIN UPDATE jobs SET state = @state WHERE id = @id;

-- name: ExplainDelete :exec
EXPLAIN (ANALYZE false) DELETE FROM jobs WHERE id = $1;

-- name: ExplainInsertNotes :execrows
EXPLAIN INSERT INTO notes (id, body) VALUES (@id, @body);

-- name: ExplainAnalyzeRead :many
EXPLAIN ANALYZE SELECT id FROM jobs WHERE state = ANY(@states::text[]);
`
	g, w, out := sqlcBody(t, explainSchema, queries)
	if g != w {
		t.Errorf("q.sql.go differs from sqlc's below the header:\n--- fencegen\n%s\n--- sqlc\n%s", g, w)
	}
	if out.Fenced != 0 {
		t.Errorf("%d queries guarded; EXPLAIN's text cannot be wrapped", out.Fenced)
	}
	vet := strings.Join(out.Vet, "\n")
	for _, q := range []string{"ExplainMany is an EXPLAIN with :many", "ExplainOne is an EXPLAIN with :one", "ExplainUpdate is an EXPLAIN with :many", "ExplainAnalyzeRead is an EXPLAIN with :many"} {
		if !strings.Contains(vet, q) {
			t.Errorf("vet has no note %q:\n%s", q, vet)
		}
	}
	if n := strings.Count(vet, "is an EXPLAIN with"); n != 4 {
		t.Errorf("%d EXPLAIN notes, want 4 (none for :exec and :execrows):\n%s", n, vet)
	}
}

// TestExplainAnalyzeRefused (issue 24): EXPLAIN ANALYZE runs the
// statement it explains, so a write of a fenced table under it, named or
// set off (a trigger), is refused where the write is, as the write
// analysis locates it.
func TestExplainAnalyzeRefused(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"schema.sql": explainSchema,
		"q.sql": `-- name: ExplainAnalyzeUpdate :many
EXPLAIN ANALYZE UPDATE jobs SET state = @state WHERE id = @id;

-- name: ExplainAnalyzeNotes :exec
EXPLAIN (ANALYZE, FORMAT JSON) INSERT INTO notes (id, body) VALUES (@id, @body);
`,
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
		t.Fatal("generated fenced writes under EXPLAIN ANALYZE")
	}
	got := regexp.MustCompile(`(?m)^\S*q\.sql:`).ReplaceAllString(err.Error(), "q.sql:")
	for _, w := range []string{
		"q.sql:2:24: query ExplainAnalyzeUpdate runs UPDATE on fenced table jobs inside EXPLAIN ANALYZE",
		"q.sql:5:44: query ExplainAnalyzeNotes",
	} {
		if !strings.Contains(got, w) {
			t.Errorf("error lacks %q:\n%s", w, got)
		}
	}
}
