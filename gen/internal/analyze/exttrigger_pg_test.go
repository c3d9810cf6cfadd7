package analyze

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestExtensionTriggerAgainstPostgreSQL: a trigger of contrib's
// moddatetime (a C function of an extension, which fencegen does not
// read) on a fenced table: its behaviour is known (it sets the column its
// argument names, and writes no table), so the UPDATE is guarded, and
// PostgreSQL shows that the guard holds with the trigger in place
// (holder 7's write lands and the trigger sets updated_at; stale holder
// 6's does not land). On the token column it is refused; an extension
// function fencegen does not know stays refused, with a hint that does
// not ask to define a C function in the schema.
func TestExtensionTriggerAgainstPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	const query = "update jobs set k = k + 1 where id = 1"
	withTrigger := func(ext, fn, arg string) string {
		return "create extension if not exists " + ext + ";\n" + pgJobs +
			"alter table jobs add column updated_at timestamptz not null default '2000-01-01';\n" +
			"create trigger jobs_ext before update on jobs for each row execute procedure " + fn + "(" + arg + ");\n"
	}
	schema := withTrigger("moddatetime", "moddatetime", "updated_at")
	if got, _ := soundVerdict(t, schema, query); got != "guarded" {
		t.Fatalf("moddatetime(updated_at): fencegen: %s, want guarded", got)
	}
	files, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+query+";\n")
	if len(msgs) > 0 {
		t.Fatal(msgs)
	}
	guarded := files[0].Queries[0].SQL
	landed, err := staleWriteLands(pool, schema, guarded)
	if err != nil || landed {
		t.Errorf("moddatetime(updated_at): stale write landed: %v, %v; want false", landed, err)
	}
	// The trigger ran: holder 7's write set updated_at.
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	var year int
	if _, err := tx.Exec(ctx, schema+pgSeed); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, guarded, 7); err != nil {
		t.Fatal(err)
	}
	if err := tx.QueryRow(ctx, "select extract(year from updated_at)::int from jobs where id = 1").Scan(&year); err != nil || year == 2000 {
		t.Errorf("moddatetime did not run: year %d, %v", year, err)
	}

	for _, tc := range []struct{ name, schema, want string }{
		{"moddatetime on the token column", withTrigger("moddatetime", "moddatetime", "tok"), "which assigns NEW.tok"},
		{"moddatetime without its CREATE EXTENSION", strings.Replace(schema, "create extension if not exists moddatetime;\n", "", 1), "define the function in the schema"},
		{"an extension function fencegen does not know", withTrigger("insert_username", "check_primary_key", "id"), "write the trigger function in plpgsql"},
	} {
		_, msgs := analyzeSrc(t, tc.schema, "-- name: Q :exec\n"+query+";\n")
		if len(msgs) == 0 || !strings.Contains(strings.Join(msgs, "\n"), tc.want) {
			t.Errorf("%s: %q, want a refusal saying %q", tc.name, msgs, tc.want)
		}
	}
}
