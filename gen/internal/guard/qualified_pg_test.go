package guard

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestGuardQualified is trial-pg3 finding 11: the guard (fencegen_guard.sql
// and every migration format) names the table, the function and the
// trigger's target with their schema, so a session whose search_path an
// earlier migration (or a role, or the DSN) set to another schema with a
// table of the same name still installs the trigger on the fenced table.
// A guard migration an older fencegen wrote (unqualified) is read as the
// same guard.
func TestGuardQualified(t *testing.T) {
	const schema = `CREATE SCHEMA app;
CREATE TABLE public.jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT 'new', tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN public.jobs.tok IS 'fencegen:token';
CREATE TABLE app.jobs (id bigint PRIMARY KEY, status text, tok bigint);
`
	dir := t.TempDir()
	g := guardOf(t, dir, schema)
	guardSQL, err := g.SQL()
	if err != nil {
		t.Fatal(err)
	}
	texts := map[string]string{"fencegen_guard.sql": string(guardSQL)}
	for _, format := range MigrationFormats {
		files, err := g.Migration(format, "2")
		if err != nil {
			t.Fatal(err)
		}
		for name, b := range files {
			if !strings.Contains(name, ".down.") {
				texts[format+" "+name] = string(b)
			}
		}
	}
	fn := g.data.Tables[0].Function
	for name, text := range texts {
		for _, want := range []string{"CREATE OR REPLACE FUNCTION public." + fn + "()", "CREATE TRIGGER fencegen_guard BEFORE UPDATE ON public.jobs\n",
			"EXECUTE FUNCTION public." + fn + "();", "DROP TRIGGER IF EXISTS fencegen_guard ON public.jobs;"} {
			if !strings.Contains(text, want) {
				t.Errorf("%s: no %q", name, want)
			}
		}
	}

	// An older guard migration, unqualified: the same guard, no finding.
	files, err := g.Migration("goose", "2")
	if err != nil {
		t.Fatal(err)
	}
	old := strings.ReplaceAll(string(files["2_fencegen_guard.sql"]), "public.", "")
	parsed := parseFiles(t, filepath.Join(dir, "schema.sql"), writeFile(t, dir, "m/2_fencegen_guard.sql", old))
	if found := g.compare(replayGuard(parsed), nil); len(found) != 0 {
		t.Errorf("an unqualified guard migration: %v, want no finding", found)
	}

	// PostgreSQL: installed from a session whose search_path puts app
	// first, the trigger is on public.jobs.
	pool := testenv.Database(t, schema)
	defer pool.Close()
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, "SET search_path = app, public"); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, string(guardSQL)); err != nil {
		t.Fatal(err)
	}
	conn.Release()
	if _, err := pool.Exec(ctx, "INSERT INTO public.jobs (id, tok) VALUES (1, 100)"); err != nil {
		t.Fatal(err)
	}
	if _, err := pool.Exec(ctx, "UPDATE public.jobs SET status = 'stale', tok = 5 WHERE id = 1"); err == nil {
		t.Error("a stale UPDATE of public.jobs passes: the guard went elsewhere")
	}
	var n int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM pg_trigger WHERE tgname = 'fencegen_guard' AND tgrelid = 'public.jobs'::regclass").Scan(&n); err != nil || n != 1 {
		t.Errorf("guard triggers on public.jobs: %d (%v), want 1", n, err)
	}
}
