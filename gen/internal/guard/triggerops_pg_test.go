package guard

import (
	"context"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestGuardTriggerOperatorsArePostgreSQLs: the guard trigger's function
// compares tokens with pg_catalog's operators whatever the session's
// search_path (trial t24h F_domop, the database side). A session whose
// search_path names a schema before pg_catalog would otherwise bind the
// function's presented < stored to that schema's < (numeric, numeric),
// and a public ? (jsonb, name), an exact fit for the fallback's test of
// the token column after a rename, would make it guard nothing. Each
// hijacker here says no token is below another and no column is there:
// a stale UPDATE must still be refused, in each mode and after a rename.
func TestGuardTriggerOperatorsArePostgreSQLs(t *testing.T) {
	const schema = `CREATE TABLE plain (id bigint PRIMARY KEY, v text, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN plain.tok IS 'fencegen:token';
CREATE TABLE strict (id bigint PRIMARY KEY, v text, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN strict.tok IS 'fencegen:token strict';
CREATE TABLE req (id bigint PRIMARY KEY, v text, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN req.tok IS 'fencegen:token required';
`
	const hijack = `CREATE SCHEMA hijack;
CREATE FUNCTION hijack.no(numeric, numeric) RETURNS bool LANGUAGE sql IMMUTABLE AS $$ SELECT false $$;
CREATE OPERATOR hijack.< (LEFTARG = numeric, RIGHTARG = numeric, FUNCTION = hijack.no);
CREATE OPERATOR hijack.<= (LEFTARG = numeric, RIGHTARG = numeric, FUNCTION = hijack.no);
CREATE FUNCTION public.nokey(jsonb, name) RETURNS bool LANGUAGE sql IMMUTABLE AS $$ SELECT false $$;
CREATE OPERATOR public.? (LEFTARG = jsonb, RIGHTARG = name, FUNCTION = public.nokey);
`
	g := guardOf(t, t.TempDir(), schema)
	guardSQL, err := g.SQL()
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(guardSQL), "\nSET search_path = pg_catalog\n"); n != 3 {
		t.Errorf("%d trigger functions with SET search_path = pg_catalog, want 3:\n%s", n, guardSQL)
	}
	pool := testenv.Database(t, schema, string(guardSQL), hijack,
		"INSERT INTO plain VALUES (1, 'a', 100); INSERT INTO strict VALUES (1, 'a', 100); INSERT INTO req VALUES (1, 'a', 100);")
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	if _, err := conn.Exec(ctx, "SET search_path = hijack, pg_catalog, public"); err != nil {
		t.Fatal(err)
	}
	// The hijackers bind in this session where an expression is written
	// plainly: without the function's own search_path, they would.
	var lt, has bool
	if err := conn.QueryRow(ctx, "SELECT 5::numeric < 100::numeric, '{\"tok\": 1}'::jsonb ? 'tok'::name").Scan(&lt, &has); err != nil || lt || has {
		t.Fatalf("the hijackers do not bind (%v, %v, %v): the test shows nothing", lt, has, err)
	}
	for _, stmt := range []string{
		"UPDATE plain SET tok = 5 WHERE id = 1",
		"UPDATE strict SET tok = 100 WHERE id = 1",
		"UPDATE req SET tok = 5 WHERE id = 1",
		// The fallback, after a rename: it finds the column by its mark.
		"ALTER TABLE plain RENAME COLUMN tok TO tok2; UPDATE plain SET tok2 = 5 WHERE id = 1",
	} {
		_, err := conn.Exec(ctx, stmt)
		if err == nil || !strings.Contains(err.Error(), "(SQLSTATE FN001)") {
			t.Errorf("%s under a hijacking search_path: %v, want the guard's FN001", stmt, err)
		}
	}
}

// TestGuardTemplate3Outdated: a guard migration of template 3 (its
// functions without SET search_path) is an older fencegen's, and the
// finding says what its trigger lets through.
func TestGuardTemplate3Outdated(t *testing.T) {
	dir := t.TempDir()
	g := guardOf(t, dir, "CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n")
	files, err := g.Migration("goose", "2")
	if err != nil {
		t.Fatal(err)
	}
	up := string(files["2_fencegen_guard.sql"])
	old := strings.Replace(up, guardTemplateLine+"4\n", guardTemplateLine+"3\n", 1)
	old = strings.Replace(old, "-- pg_catalog's operators only: no schema's, whatever a session's search_path.\nSET search_path = pg_catalog\n", "", 1)
	if old == up || strings.Contains(old, "SET search_path") {
		t.Fatalf("no template 3 made of:\n%s", up)
	}
	found := g.compare(replayGuard(parseFiles(t, writeFile(t, dir, "m/2_fencegen_guard.sql", old))), nil)
	if len(found) != 1 || !strings.Contains(found[0].Msg, "(guard template 3, this fencegen writes 4: its comparisons of tokens bind to the operators a session's search_path finds first") {
		t.Errorf("findings %v, want the one of template 3", found)
	}
	if found := g.compare(replayGuard(parseFiles(t, writeFile(t, dir, "m/2_fencegen_guard.sql", up))), nil); len(found) != 0 {
		t.Errorf("this fencegen's migration: %v, want none", found)
	}
}
