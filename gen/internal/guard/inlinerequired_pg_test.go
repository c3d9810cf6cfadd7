package guard

import (
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
			text, err := g.Inline(files, into, nil, format)
			if err != nil {
				t.Fatal(err)
			}
			write(filepath.Base(into), string(text))
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
			if format == "golang-migrate" {
				return // its down migration is a file of its own (InlineDown)
			}
			src, _ := os.ReadFile(into)
			if _, down := sections(string(src), format); down != "" {
				if err := exec(pool, "BEGIN;\n"+down+"\nCOMMIT;"); err != nil {
					t.Errorf("applying the down section of %s: %v\n%s", filepath.Base(into), err, down)
				}
				if err := exec(pool, "UPDATE rjobs SET tok = 1 WHERE id = 1"); err == nil {
					t.Errorf("after the down section, a stale token's UPDATE passed")
				}
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
