package guard

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// guardOf builds the catalog of schema (as the schema file dir/schema.sql)
// and returns its database guard, whose schema files are schema.sql and
// those given.
func guardOf(t *testing.T, dir, schema string, files ...string) *DatabaseGuard {
	t.Helper()
	name := filepath.Join(dir, "schema.sql")
	if err := os.WriteFile(name, []byte(schema), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dir, "m"), 0o755); err != nil {
		t.Fatal(err)
	}
	parsed := parseFiles(t, append([]string{name}, files...)...)
	cat := catalog.New()
	for _, f := range parsed {
		for _, st := range f.Stmts {
			cat.Update(f, st)
		}
	}
	if errs := cat.Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	g, err := NewDatabaseGuard(cat, nil, "out", parsed, nil)
	if err != nil || g == nil {
		t.Fatalf("NewDatabaseGuard: %v, %v", g, err)
	}
	return g
}

// parseFiles reads and parses files.
func parseFiles(t *testing.T, files ...string) []*sqlparse.File {
	t.Helper()
	var out []*sqlparse.File
	for _, name := range files {
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		// As gen reads a schema file: without a byte order mark.
		f, err := sqlparse.Parse(name, bytes.TrimPrefix(src, []byte("\uFEFF")))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, f)
	}
	return out
}

const guardmigSchema = "CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n" +
	"CREATE SCHEMA app;\nCREATE TABLE app.\"Order\" (id bigint PRIMARY KEY, \"Tok\" bigint NOT NULL);\nCOMMENT ON COLUMN app.\"Order\".\"Tok\" IS 'fencegen:token strict';\n"

// TestTemplateVersion pins the text of the trigger functions to
// TemplateVersion: a change to the function in templates/guard.sql.tmpl
// fails here until the version is raised (so that check tells the guard
// migrations of the old text from the new) and the digest updated.
func TestTemplateVersion(t *testing.T) {
	g := guardOf(t, t.TempDir(), guardmigSchema)
	var text strings.Builder
	for _, tb := range g.data.Tables {
		text.WriteString(g.want().tables[tb.QualifiedTable].fn.text)
	}
	digest := fmt.Sprintf("%x", sha256.Sum256([]byte(text.String())))[:16]
	pinned := map[int]string{2: "296ff700c49de839"}
	if got := pinned[TemplateVersion]; got != digest {
		t.Errorf("guard template %d: trigger functions' digest %s, pinned %s: a changed function needs a new TemplateVersion (and this digest)\n%s",
			TemplateVersion, digest, got, text.String())
	}
}

// A guard migration is read as the migration tool applies it: with CRLF
// line ends or a BOM it installs the same guard; the down section is not
// applied; a later migration's DROP TRIGGER removes a table's guard.
func TestGuardReplay(t *testing.T) {
	dir := t.TempDir()
	g := guardOf(t, dir, guardmigSchema)
	files, err := g.Migration("goose", "2")
	if err != nil {
		t.Fatal(err)
	}
	up := string(files["2_fencegen_guard.sql"])
	write := func(name, s string) string {
		p := filepath.Join(dir, "m", name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, variant := range []string{up, "\uFEFF" + strings.ReplaceAll(up, "\n", "\r\n")} {
		p := write("2_fencegen_guard.sql", variant)
		have := replayGuard(parseFiles(t, p))
		if len(have.migrations) != 1 || have.migrations[0].format != "goose" || have.migrations[0].template != TemplateVersion {
			t.Fatalf("migrations %+v", have.migrations)
		}
		if found := g.compare(have, nil); len(found) != 0 {
			t.Errorf("%q...: %v, want none", variant[:8], found)
		}
	}
	// A later guard migration whose up section drops the guard of jobs.
	drop := strings.SplitN(up, "\n", 2)[0] + "\n-- +goose Up\nDROP TRIGGER IF EXISTS fencegen_guard ON jobs;\n-- +goose Down\nCREATE TRIGGER fencegen_guard BEFORE UPDATE ON app.\"Order\"\n    FOR EACH ROW EXECUTE FUNCTION nothing();\n"
	p3 := write("3_fencegen_guard.sql", drop)
	have := replayGuard(parseFiles(t, filepath.Join(dir, "m", "2_fencegen_guard.sql"), p3))
	found := g.compare(have, nil)
	if len(found) != 1 || !strings.Contains(found[0].Msg, "fenced table jobs has no guard trigger") || found[0].File != p3 {
		t.Errorf("after dropping jobs' trigger: %v", found)
	}
}
