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

// docs/guard.md quotes the guarded SQL of the example's schema verbatim:
// the by-key form of CreditAccount (the write, then its stored-token read)
// and the locking form of CreditOverdrawn. This test generates both and
// compares, so that the documentation shows what fencegen sends.
func TestGuardDocQuotesGeneratedSQL(t *testing.T) {
	schema, err := os.ReadFile(filepath.Join("..", "examples", "accounts", "schema.sql"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "guard.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := generateDir(t, map[string]string{
		"schema.sql": string(schema),
		"q.sql": "-- name: CreditAccount :exec\nUPDATE account_balances SET balance = balance + @amount WHERE id = @id;\n\n" +
			"-- name: CreditOverdrawn :exec\n-- CreditOverdrawn adds amount to every overdrawn account.\nUPDATE account_balances SET balance = balance + @amount WHERE balance < 0;\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n",
	})
	src := string(out.Files["out/q.sql.go"])
	constant := func(name string) string {
		m := regexp.MustCompile("(?s)const " + name + " = `(.*?)`").FindStringSubmatch(src)
		if m == nil {
			t.Fatalf("no constant %s in the generated code:\n%s", name, src)
		}
		return m[1]
	}
	// The by-key write and its read, without their "-- name:" lines.
	withoutName := func(s string) string {
		_, rest, _ := strings.Cut(s, "\n")
		return rest
	}
	for _, want := range []string{
		withoutName(constant("creditAccount")),
		withoutName(constant("fenceStoredCreditAccount")),
		constant("creditOverdrawn"),
	} {
		if !strings.Contains(string(doc), "```sql\n"+want+"```\n") {
			t.Errorf("docs/guard.md does not quote this generated statement verbatim in a sql block:\n%s", want)
		}
	}
	if !strings.HasPrefix(withoutName(constant("creditOverdrawn")), "-- fencegen: guarded by locking the rows it matches (account_balances.last_fencing_token <= $2)\n") {
		t.Errorf("the locking form's comment line is missing:\n%s", constant("creditOverdrawn"))
	}
}

// TestGuardDocQuotesNearFlagNote keeps docs/guard.md's quote of the vet
// note for a misspelled @fence line (trial tnew F5) equal to the note, and
// checks that the query it is on stays non-strict, with the line in its
// doc comment as sqlc writes it.
func TestGuardDocQuotesNearFlagNote(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "docs", "guard.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for n, s := range map[string]string{
		"schema.sql": "CREATE TABLE jobs (id BIGINT PRIMARY KEY, state TEXT NOT NULL, fence_token BIGINT NOT NULL DEFAULT 0);\nCOMMENT ON COLUMN jobs.fence_token IS 'fencegen:token';\n",
		"query.sql": "-- name: Set1 :exec\n-- @fence strict\nUPDATE jobs SET state = $2 WHERE id = $1;\n\n" +
			"-- name: Set2 :exec\n-- @fnce strict\nUPDATE jobs SET state = $2 WHERE id = $1;\n\n" +
			// An @-word the statement uses as its parameter documents it:
			// no note.
			"-- name: Set3 :exec\n-- @state the new state\nUPDATE jobs SET state = @state WHERE id = @id;\n",
		"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: query.sql, gen: {go: {package: jobs, out: jobs}}}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	cfg, err := gen.LoadConfig("fencegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	var notes []string
	for _, n := range out.Vet {
		if strings.Contains(n, "fencegen flag") || strings.Contains(n, "@state") {
			notes = append(notes, n)
		}
	}
	if len(notes) != 1 || !strings.Contains(string(doc), "```\n"+notes[0]+"\n```\n") {
		t.Errorf("docs/guard.md does not quote the vet note for \"-- @fnce strict\" in a code block; vet's notes:\n%s", strings.Join(notes, "\n"))
	}
	src := string(out.Files["jobs/query.sql.go"])
	if !strings.Contains(src, `"Set2", "jobs", fence.NonStrict`) || !strings.Contains(src, "// @fnce strict\n") {
		t.Errorf("Set2 is not the non-strict write with the line in its doc comment:\n%s", src)
	}
}
