package guard

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// guardOf builds the catalog of schema (as the schema file dir/schema.sql)
// and returns its database guard, whose schema files are schema.sql and
// those given.
func guardOf(t testing.TB, dir, schema string, files ...string) *DatabaseGuard {
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
func parseFiles(t testing.TB, files ...string) []*sqlparse.File {
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
	pinned := map[int]string{2: "296ff700c49de839", 3: "d9860f2e4c02c410", 4: "7b77816119961630"}
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

// FuzzReplayGuard replays a guard migration fencegen wrote followed by
// arbitrary SQL as a later migration, and that SQL as a guard migration
// itself (its first line guard's header): nothing may panic, every
// finding points into a file of the replay, and the migration that fixes
// the findings installs the guard (replayed again, no finding is left).
// Seeds: the changes of cmd/fencegen's guard_life.txtar and the schema
// files of ../shared/corpus when present.
func FuzzReplayGuard(f *testing.F) {
	for _, s := range []string{
		"ALTER TABLE jobs RENAME COLUMN tok TO fence;",
		"ALTER TABLE jobs DROP COLUMN tok;",
		"ALTER TABLE jobs ALTER COLUMN tok TYPE integer;",
		"DROP TABLE jobs;\nCREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';",
		"ALTER TABLE jobs RENAME TO tasks;",
		"ALTER TABLE app.\"Order\" SET SCHEMA public;",
		"COMMENT ON COLUMN jobs.tok IS NULL;",
		"DROP TRIGGER fencegen_guard ON jobs;",
		"ALTER TABLE jobs RENAME COLUMN tok TO fence;\nALTER TABLE jobs ADD COLUMN tok bigint NOT NULL DEFAULT 0;",
		"DROP TABLE jobs;\nCREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL);",
	} {
		f.Add(s)
	}
	var files []string
	_ = filepath.WalkDir(filepath.Join("..", "..", "..", "..", "shared", "corpus"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".sql" {
			files = append(files, path)
		}
		return nil
	})
	slices.Sort(files)
	for i, path := range files {
		if i == 100 {
			break
		}
		if b, err := os.ReadFile(path); err == nil && len(b) < 16<<10 {
			f.Add(string(b))
		}
	}
	dir := f.TempDir()
	g := guardOf(f, dir, guardmigSchema)
	mig, err := g.Migration("goose", "2")
	if err != nil {
		f.Fatal(err)
	}
	first, err := sqlparse.Parse("m/2_fencegen_guard.sql", mig["2_fencegen_guard.sql"])
	if err != nil {
		f.Fatal(err)
	}
	header, _, _ := strings.Cut(string(mig["2_fencegen_guard.sql"]), "\n")
	f.Fuzz(func(t *testing.T, src string) {
		later, err := sqlparse.Parse("m/3_change.sql", []byte(src))
		if err != nil || later == nil {
			return
		}
		asGuard := &sqlparse.File{Name: "m/4_fencegen_guard.sql", Src: []byte(header + "\n" + src)}
		have := replayGuard([]*sqlparse.File{first, later, asGuard})
		for _, fd := range g.compare(have, nil) {
			if fd.File != first.Name && fd.File != later.Name && fd.File != asGuard.Name {
				t.Errorf("%v: outside the replayed files", fd)
			}
			if fd.Line < 1 || fd.Col < 1 {
				t.Errorf("%v: no position", fd)
			}
		}
		// The fix, replayed after them, leaves nothing to fix (the
		// schema g's catalog has is not changed by src: only the
		// guard's view of it).
		have = replayGuard([]*sqlparse.File{first, later})
		if len(g.compare(have, nil)) == 0 {
			return
		}
		fix, err := g.next(have, nil, "goose", "5")
		if err != nil {
			return // a newer template: refused
		}
		fixed := &sqlparse.File{Name: "m/5_fencegen_guard.sql", Src: fix["5_fencegen_guard.sql"]}
		if left := g.compare(replayGuard([]*sqlparse.File{first, later, fixed}), nil); len(left) > 0 {
			t.Errorf("after the fix:\n%s\nstill: %v", fix["5_fencegen_guard.sql"], left)
		}
	})
}

// TestGuardReplayCauses replays a guard migration and then a migration of
// the team's that changes what a trigger reads: each change is one finding,
// at its statement (Finding.Cause), and a change undone in the same
// migration is none.
func TestGuardReplayCauses(t *testing.T) {
	dir := t.TempDir()
	g := guardOf(t, dir, guardmigSchema)
	mig, err := g.Migration("goose", "2")
	if err != nil {
		t.Fatal(err)
	}
	first := parseFiles(t, writeFile(t, dir, "m/2_fencegen_guard.sql", string(mig["2_fencegen_guard.sql"])))[0]
	jobsFn := ""
	for _, tb := range g.data.Tables {
		if tb.QualifiedTable == "jobs" {
			jobsFn = tb.Function
		}
	}
	for _, tc := range []struct{ sql, want string }{
		{"ALTER TABLE jobs RENAME COLUMN tok TO t2;", `3:1: renames column tok of fenced table jobs to t2, which the guard trigger that`},
		{"ALTER TABLE public.jobs DROP COLUMN tok;", `3:1: drops column tok of fenced table public.jobs, which`},
		{"SET search_path TO app;\nALTER TABLE \"Order\" RENAME COLUMN \"Tok\" TO t2;", `4:1: renames column Tok of fenced table Order to t2`},
		{"SET search_path TO app;\nDROP TABLE \"Order\";", `4:1: drops fenced table Order, and with it the guard trigger`},
		{"DROP SCHEMA app CASCADE;", `3:1: drops schema app with its fenced table app."Order"`},
		{"DROP FUNCTION " + jobsFn + "() CASCADE;", `3:1: drops the guard function ` + jobsFn + `, and with it (CASCADE) the guard trigger of table jobs`},
		{"ALTER TABLE jobs DISABLE TRIGGER fencegen_guard;", `3:1: disables the guard trigger of fenced table jobs`},
		{"ALTER TABLE jobs DISABLE TRIGGER ALL;", `3:1: disables the guard trigger of fenced table jobs`},
		{"ALTER TABLE jobs DISABLE TRIGGER fencegen_guard;\nALTER TABLE jobs ENABLE TRIGGER fencegen_guard;", ""},
		{"ALTER TABLE app.\"Order\" SET SCHEMA public;", `3:1: moves fenced table app.Order to schema public; table app.Order is fenced`},
		{"SET search_path TO app;\nALTER TABLE jobs RENAME COLUMN tok TO t2;", ""}, // app.jobs: no such table
		{"ALTER TABLE jobs RENAME COLUMN tok TO t2;\nALTER TABLE jobs RENAME COLUMN t2 TO tok;", ""},
	} {
		later := parseFiles(t, writeFile(t, dir, "m/3_change.sql", "-- +goose Up\n-- change\n"+tc.sql+"\n"))[0]
		found := g.compare(replayGuard([]*sqlparse.File{first, later}), nil)
		if tc.want == "" {
			for _, f := range found {
				if f.Cause {
					t.Errorf("%s: %v, want no cause", tc.sql, f)
				}
			}
			continue
		}
		if len(found) == 0 || !found[0].Cause || !strings.HasPrefix(found[0].String(), later.Name+":"+tc.want) {
			t.Errorf("%s:\n%v\nwant first %s:%s...", tc.sql, found, later.Name, tc.want)
		}
	}
}

// TestGuardReplayRequired: a migration that drops or retypes the token
// column of a table in mode required is refused by PostgreSQL (its guard
// trigger fires on UPDATE OF the column): the finding says so, and how to
// go on; dropping the trigger first in that migration is followed.
func TestGuardReplayRequired(t *testing.T) {
	dir := t.TempDir()
	g := guardOf(t, dir, "CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token required';\n")
	mig, err := g.Migration("goose", "2")
	if err != nil {
		t.Fatal(err)
	}
	first := parseFiles(t, writeFile(t, dir, "m/2_fencegen_guard.sql", string(mig["2_fencegen_guard.sql"])))[0]
	for _, tc := range []struct{ sql, want string }{
		{"ALTER TABLE jobs ALTER COLUMN tok TYPE integer;", "3:1: changes the type of column tok of fenced table jobs: PostgreSQL refuses it, since the guard trigger that " + first.Name + " installs fires on UPDATE OF that column (mode required)"},
		{"ALTER TABLE jobs DROP COLUMN tok;", "3:1: drops column tok of fenced table jobs: PostgreSQL refuses it"},
		{"DROP TRIGGER IF EXISTS fencegen_guard ON jobs;\nALTER TABLE jobs ALTER COLUMN tok TYPE integer;", "3:1: drops the guard trigger of table jobs that " + first.Name + " installs; table jobs is fenced"},
	} {
		later := parseFiles(t, writeFile(t, dir, "m/3_change.sql", "-- +goose Up\n-- change\n"+tc.sql+"\n"))[0]
		found := g.compare(replayGuard([]*sqlparse.File{first, later}), nil)
		if len(found) == 0 || !found[0].Cause || !strings.HasPrefix(found[0].String(), later.Name+":"+tc.want) {
			t.Errorf("%s:\n%v\nwant first %s:%s...", tc.sql, found, later.Name, tc.want)
		}
	}
}

// TestGuardReplayCopies: a migration after the guard migrations that
// creates a table fenced by copying a fenced one (LIKE ... INCLUDING
// COMMENTS or ALL copies the token column's mark; INHERITS, or ALTER
// TABLE ... INHERIT, makes an inheritance child, fenced with its parent,
// whose rows an UPDATE of the parent writes without the parent's row
// trigger) is the cause of the missing guard, at its statement, and the
// guard belongs in that migration (trial N3: reported at the guard
// migration's first line); a LIKE copy without its comments is not
// fenced, and a partition gets the clone of the parent's trigger.
func TestGuardReplayCopies(t *testing.T) {
	const base = "CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 1);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n"
	mig, err := guardOf(t, t.TempDir(), base).Migration("goose", "2")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ sql, want string }{
		{"SELECT 1;\nCREATE TABLE jobs_copy (LIKE jobs INCLUDING ALL);", "4:1: creates table jobs_copy as a copy of fenced table jobs (LIKE ... INCLUDING COMMENTS), with token column tok and its fencing mark; table jobs_copy has no guard trigger"},
		{"CREATE TABLE jobs_copy (LIKE jobs INCLUDING COMMENTS);", "3:1: creates table jobs_copy as a copy of fenced table jobs"},
		{"CREATE TABLE jobs_copy (LIKE jobs INCLUDING DEFAULTS);", ""},
		{"CREATE TABLE jobs_child (extra int) INHERITS (jobs);", "3:1: creates table jobs_child as an inheritance child of fenced table jobs, which fences it too (token column tok of table jobs); table jobs_child has no guard trigger"},
		{"CREATE TABLE jobs_child (id bigint, tok bigint NOT NULL DEFAULT 1);\nALTER TABLE jobs_child INHERIT jobs;", "4:1: makes table jobs_child inherit from fenced table jobs, which fences it too"},
	} {
		dir := t.TempDir()
		first := parseFiles(t, writeFile(t, dir, "m/2_fencegen_guard.sql", string(mig["2_fencegen_guard.sql"])))[0]
		change := writeFile(t, dir, "m/3_change.sql", "-- +goose Up\n-- change\n"+tc.sql+"\n")
		g := guardOf(t, dir, base, change)
		later := parseFiles(t, change)[0]
		found := g.compare(replayGuard([]*sqlparse.File{first, later}), nil)
		if tc.want == "" {
			if len(found) > 0 {
				t.Errorf("%s: %v, want none", tc.sql, found)
			}
			continue
		}
		if len(found) == 0 || !found[0].Cause || found[0].Into != later.Name || !strings.HasPrefix(found[0].String(), later.Name+":"+tc.want) {
			t.Errorf("%s:\n%v\nwant first %s:%s..., into %[3]s", tc.sql, found, later.Name, tc.want)
		}
	}
}

// writeFile writes text to dir/name and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestInline is fencegen guard -into on a migration that drops and
// re-creates a fenced table: the finding names it (Finding.Into), and
// the guard added to its up section (before dbmate's down section; with
// its CRLF line ends kept) installs the guard the replay expects, and the
// earlier guard follows the down section's statements; it is added once,
// never to a guard migration, and without SetAt only to the newest
// migration.
func TestInline(t *testing.T) {
	const table = "CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n"
	for _, format := range []string{"golang-migrate", "dbmate"} {
		t.Run(format, func(t *testing.T) {
			dir := t.TempDir()
			g := guardOf(t, dir, table)
			g.parse = func(name string) (*sqlparse.File, error) { return parseFiles(t, name)[0], nil }
			guardFiles, err := g.Migration(format, "2")
			if err != nil {
				t.Fatal(err)
			}
			write := func(name, text string) string {
				p := filepath.Join(dir, "m", name)
				if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				return p
			}
			recreate := "DROP TABLE jobs;\r\n" + strings.ReplaceAll(table, "\n", "\r\n")
			var files []string
			if format == "dbmate" {
				files = []string{
					write("1_init.sql", "-- migrate:up\n"+table+"-- migrate:down\nDROP TABLE jobs;\n"),
					write("2_fencegen_guard.sql", string(guardFiles["2_fencegen_guard.sql"])),
					write("3_recreate.sql", "-- migrate:up\r\n"+recreate+"-- migrate:down\r\nSELECT 1;\r\n"),
				}
			} else {
				files = []string{
					write("1_init.up.sql", table),
					write("2_fencegen_guard.up.sql", string(guardFiles["2_fencegen_guard.up.sql"])),
					write("3_recreate.up.sql", recreate),
				}
			}
			into := files[2]
			replay := func() []Finding {
				t.Helper()
				var parsed []*sqlparse.File
				for _, f := range files {
					parsed = append(parsed, parseFiles(t, f)...)
				}
				return g.compare(replayGuard(parsed), nil)
			}
			found := replay()
			if len(found) != 1 || found[0].Into != into || !found[0].Cause || found[0].Line != 1+map[bool]int{true: 1}[format == "dbmate"] {
				t.Fatalf("findings %+v; want one, at the DROP TABLE of %s, Into it", found, into)
			}
			if _, err := g.Inline(files, files[1], nil, format); err == nil || !strings.Contains(err.Error(), "a guard migration already") {
				t.Errorf("Inline into the guard migration: %v", err)
			}
			// Without SetAt (gen sets it), no guard of an older
			// migration's schema can be built: only the newest.
			if _, err := g.Inline(files, files[0], nil, format); err == nil || !strings.Contains(err.Error(), "not the newest") {
				t.Errorf("Inline into an older migration: %v", err)
			}
			text, err := g.Inline(files, into, nil, format)
			if err != nil {
				t.Fatal(err)
			}
			s := string(text)
			if strings.Count(s, "\n") != strings.Count(s, "\r\n") {
				t.Errorf("line ends mixed:\n%q", s)
			}
			if !strings.HasPrefix(s, map[bool]string{true: "-- migrate:up\r\n", false: ""}[format == "dbmate"]+recreate) {
				t.Errorf("the migration's own statements changed:\n%s", s)
			}
			// The down section keeps its statements, then restores the
			// guard the migrations before it installed.
			if _, down, _ := strings.Cut(s, "\r\n-- migrate:down\r\n"); format == "dbmate" &&
				(!strings.HasPrefix(down, "SELECT 1;\r\n\r\n-- fencegen guard -into: back to the guard") || !strings.HasSuffix(down, "CREATE TRIGGER fencegen_guard BEFORE UPDATE ON public.jobs\r\n    FOR EACH ROW EXECUTE FUNCTION public."+g.data.Tables[0].Function+"();\r\n")) {
				t.Errorf("the down section is not its statements, then the earlier guard:\n%s", s)
			}
			if !strings.Contains(s, "\r\n"+inlineHeader+format+" migration: ") || !strings.Contains(s, "CREATE TRIGGER fencegen_guard BEFORE UPDATE ON public.jobs\r\n") {
				t.Errorf("no guard added:\n%s", s)
			}
			write(filepath.Base(into), s)
			if found := replay(); len(found) != 0 {
				t.Errorf("after -into: %v, want none", found)
			}
			if _, err := g.Inline(files, into, nil, format); err == nil || !strings.Contains(err.Error(), "added already") {
				t.Errorf("Inline again: %v", err)
			}
		})
	}
}

// TestGuardReplayDroppedTable: a fenced table dropped for good takes its
// trigger along and leaves its guard function, which names the table and
// its token column: a finding at the DROP TABLE, until a guard migration
// (or the team's own DROP FUNCTION) removes the function; a table of the
// name fenced again re-creates the function under its name, so that one
// is no finding of this kind.
func TestGuardReplayDroppedTable(t *testing.T) {
	dir := t.TempDir()
	both := "CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n" +
		"CREATE TABLE old_jobs (id bigint PRIMARY KEY, tok bigint NOT NULL);\nCOMMENT ON COLUMN old_jobs.tok IS 'fencegen:token';\n"
	g := guardOf(t, dir, both)
	mig, err := g.Migration("goose", "2")
	if err != nil {
		t.Fatal(err)
	}
	first := parseFiles(t, writeFile(t, dir, "m/2_fencegen_guard.sql", string(mig["2_fencegen_guard.sql"])))[0]
	oldFn := ""
	for _, tb := range g.data.Tables {
		if tb.QualifiedTable == "old_jobs" {
			oldFn = tb.Function
		}
	}
	// The schema as the team has it after the drop: jobs alone.
	after := guardOf(t, t.TempDir(), "CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n")
	for _, tc := range []struct{ sql, want string }{
		{"DROP TABLE old_jobs;", "3:1: drops fenced table old_jobs, and with it the guard trigger that " + first.Name + " installs; its guard function " + oldFn + "() stays in the database, run by no trigger"},
		{"DROP TABLE old_jobs;\nDROP FUNCTION " + oldFn + "();", ""},
		{"DROP TABLE old_jobs CASCADE;\nDROP FUNCTION IF EXISTS " + oldFn + "() CASCADE;", ""},
	} {
		later := parseFiles(t, writeFile(t, dir, "m/3_change.sql", "-- +goose Up\n-- change\n"+tc.sql+"\n"))[0]
		found := after.compare(replayGuard([]*sqlparse.File{first, later}), nil)
		if tc.want == "" {
			if len(found) > 0 {
				t.Errorf("%s: %v, want no finding", tc.sql, found)
			}
			continue
		}
		if len(found) != 1 || !found[0].Cause || !strings.HasPrefix(found[0].String(), later.Name+":"+tc.want) {
			t.Errorf("%s:\n%v\nwant one finding %s:%s...", tc.sql, found, later.Name, tc.want)
		}
	}
}
