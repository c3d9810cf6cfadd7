package guard

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestInlineRequiredRetype is fencegen guard -into on a migration that
// retypes (or drops and adds again) the token column of a table whose
// guard is of mode required, which PostgreSQL refuses while the guard
// trigger BEFORE UPDATE OF that column depends on it (trial pg4 F6): the
// finding names the migration (Finding.Into), and the migration -into
// writes drops the guard triggers before its own statements and installs
// the guard after them. PostgreSQL applies the migrations in order, the
// guard then refuses a stale token's write, and goose's and dbmate's down
// section applies too.
func TestInlineRequiredRetype(t *testing.T) {
	const table = "CREATE TABLE rjobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT 'q', tok bigint NOT NULL DEFAULT 0);\nCOMMENT ON COLUMN rjobs.tok IS 'fencegen:token required';\n"
	const change = "ALTER TABLE rjobs ALTER COLUMN tok TYPE integer;\n"
	const back = "ALTER TABLE rjobs ALTER COLUMN tok TYPE bigint;\n"
	for _, format := range []string{"golang-migrate", "goose", "dbmate"} {
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
			var files []string
			switch format {
			case "golang-migrate":
				files = []string{write("1_init.up.sql", table), write("2_fencegen_guard.up.sql", string(guardFiles["2_fencegen_guard.up.sql"])), write("3_retype.up.sql", change)}
				write("3_retype.down.sql", back)
			case "goose":
				files = []string{write("1_init.sql", "-- +goose Up\n"+table+"-- +goose Down\nDROP TABLE rjobs;\n"), write("2_fencegen_guard.sql", string(guardFiles["2_fencegen_guard.sql"])), write("3_retype.sql", "-- +goose Up\n"+change+"-- +goose Down\n"+back)}
			case "dbmate":
				files = []string{write("1_init.sql", "-- migrate:up\n"+table+"-- migrate:down\nDROP TABLE rjobs;\n"), write("2_fencegen_guard.sql", string(guardFiles["2_fencegen_guard.sql"])), write("3_retype.sql", "-- migrate:up\n"+change+"-- migrate:down\n"+back)}
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
			if len(found) != 1 || found[0].Into != into || !found[0].Cause || !strings.Contains(found[0].Msg, "PostgreSQL refuses it") {
				t.Fatalf("findings %+v; want one, at the ALTER of %s, Into it", found, into)
			}
			// A new guard migration after into is refused: PostgreSQL
			// never gets past into as written (trial t24 F5).
			if _, out, err := g.NextMigration(files, nil, format, "4"); err == nil || !strings.Contains(err.Error(), "-into "+filepath.ToSlash(into)) {
				t.Errorf("fencegen guard without -into: %v, %d files; want an error naming -into %s", err, len(out), into)
			}
			// golang-migrate's down file, read before into changes (as
			// cmd/fencegen does).
			downName, downText, err := g.InlineDown(files, into, format)
			if err != nil {
				t.Fatal(err)
			}
			text, err := g.Inline(files, into, nil, format)
			if err != nil {
				t.Fatal(err)
			}
			write(filepath.Base(into), string(text))
			if format == "golang-migrate" {
				if downText == nil {
					t.Fatalf("InlineDown wrote no down file")
				}
				write(filepath.Base(downName), string(downText))
			}
			if found := replay(); len(found) != 0 {
				t.Errorf("after -into: %v, want none\n%s", found, text)
			}
			// PostgreSQL: each migration's up section in order.
			pool := testenv.Database(t)
			defer pool.Close()
			for _, f := range files {
				src, err := os.ReadFile(f)
				if err != nil {
					t.Fatal(err)
				}
				up, _ := sections(string(src), format)
				if err := exec(pool, "BEGIN;\n"+up+"\nCOMMIT;"); err != nil {
					t.Fatalf("applying %s: %v\n%s", filepath.Base(f), err, up)
				}
			}
			if err := exec(pool, "INSERT INTO rjobs (id, tok) VALUES (1, 5)"); err != nil {
				t.Fatal(err)
			}
			if err := exec(pool, "UPDATE rjobs SET tok = 1 WHERE id = 1"); err == nil {
				t.Errorf("after -into's migration, a stale token's UPDATE passed: the guard is not installed\n%s", text)
			}
			if err := exec(pool, "UPDATE rjobs SET status = 'x' WHERE id = 1"); err == nil {
				t.Errorf("after -into's migration, an UPDATE without a token passed: the guard of mode required is not installed\n%s", text)
			}
			// The down section (golang-migrate: the .down.sql file), the
			// change undone under the guard: it must apply, and leave the
			// earlier guard of mode required installed.
			src, _ := os.ReadFile(into)
			_, down := sections(string(src), format)
			if format == "golang-migrate" {
				down = string(downText)
			}
			if down == "" {
				t.Fatalf("no down section in %s", filepath.Base(into))
			}
			if err := exec(pool, "BEGIN;\n"+down+"\nCOMMIT;"); err != nil {
				t.Fatalf("applying the down section of %s: %v\n%s", filepath.Base(into), err, down)
			}
			if err := exec(pool, "UPDATE rjobs SET tok = 1 WHERE id = 1"); err == nil {
				t.Errorf("after the down section, a stale token's UPDATE passed")
			}
			if err := exec(pool, "UPDATE rjobs SET status = 'y' WHERE id = 1"); err == nil {
				t.Errorf("after the down section, an UPDATE without a token passed: the guard of mode required is not installed\n%s", down)
			}
			var typ string
			if err := pool.QueryRow(context.Background(), "SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attrelid = 'rjobs'::regclass AND attname = 'tok'").Scan(&typ); err != nil || typ != "bigint" {
				t.Errorf("after the down section, tok is %q (%v), want bigint", typ, err)
			}
		})
	}
}

// sections splits a migration of format into its up and down sections.
func sections(src, format string) (up, down string) {
	if format == "golang-migrate" {
		return src, ""
	}
	up, down, _ = strings.Cut(src, downMark[format])
	if i := strings.Index(down, "\n"); i >= 0 {
		down = down[i+1:]
	}
	return up, down
}

// TestInlineMarked: a table marked for fencing by a migration after the
// last guard migration (trial pg4 F7) is a finding at the mark, not at
// the guard migration, naming that migration (Finding.Into); -into adds
// the guard to it, and PostgreSQL, applying the migrations in order,
// then refuses a stale token's write of the table.
func TestInlineMarked(t *testing.T) {
	const jobs = "CREATE TABLE mjobs (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 0);\nCOMMENT ON COLUMN mjobs.tok IS 'fencegen:token';\n"
	const logs = "CREATE TABLE mlogs (id bigint PRIMARY KEY, fence bigint NOT NULL DEFAULT 0);\n"
	const mark = "COMMENT ON COLUMN mlogs.fence IS 'fencegen:token';\n"
	dir := t.TempDir()
	before := guardOf(t, t.TempDir(), jobs+logs)
	guardFiles, err := before.Migration("goose", "2")
	if err != nil {
		t.Fatal(err)
	}
	g := guardOf(t, dir, jobs+logs+mark)
	g.parse = func(name string) (*sqlparse.File, error) { return parseFiles(t, name)[0], nil }
	files := []string{
		writeFile(t, dir, "m/1_init.sql", "-- +goose Up\n"+jobs+logs),
		writeFile(t, dir, "m/2_fencegen_guard.sql", string(guardFiles["2_fencegen_guard.sql"])),
		writeFile(t, dir, "m/3_mark.sql", "-- +goose Up\nSELECT 1;\n"+mark),
	}
	replay := func() []Finding {
		t.Helper()
		var parsed []*sqlparse.File
		for _, f := range files {
			parsed = append(parsed, parseFiles(t, f)...)
		}
		return g.compare(replayGuard(parsed), nil)
	}
	found := replay()
	if len(found) != 1 || found[0].Into != files[2] || !found[0].Cause || found[0].File != files[2] || found[0].Line != 3 {
		t.Fatalf("findings %+v; want one, at the COMMENT of %s (line 3), Into it", found, files[2])
	}
	text, err := g.Inline(files, files[2], nil, "goose")
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "m/3_mark.sql", string(text))
	if found := replay(); len(found) != 0 {
		t.Errorf("after -into: %v, want none\n%s", found, text)
	}
	pool := testenv.Database(t)
	defer pool.Close()
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		up, _ := sections(string(src), "goose")
		if err := exec(pool, "BEGIN;\n"+up+"\nCOMMIT;"); err != nil {
			t.Fatalf("applying %s: %v\n%s", filepath.Base(f), err, up)
		}
	}
	if err := exec(pool, "INSERT INTO mlogs (id, fence) VALUES (1, 5)"); err != nil {
		t.Fatal(err)
	}
	if err := exec(pool, "UPDATE mlogs SET fence = 1 WHERE id = 1"); err == nil {
		t.Errorf("after -into's migration, a stale token's UPDATE of mlogs passed\n%s", text)
	}
}
