package analyze

import (
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/guard"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestTokenRewriteTriggerFromSchemaAgainstPostgreSQL (trial r24 F7): a
// BEFORE row trigger of a fenced table that rewrites NEW.<token> (to OLD's,
// to a constant) is an error at its CREATE TRIGGER from the schema alone,
// whether or not a query writes the table. PostgreSQL decides that no
// name makes the guard immune: with the database-side guard installed
// (fencegen_guard.sql), holder 7's write and then stale holder 6's, each
// in the guarded form fencegen generates, let the stale write land whether
// the trigger's name sorts before fencegen_guard (it fires first) or after
// it (it fires last), since the token stored stays the old one either way;
// without the trigger the stale write does not land. A trigger of the
// same table that leaves the token alone, or one declared UPDATE OF
// another column (refused at the queries that set it, issue 24 F3), is no
// schema error.
func TestTokenRewriteTriggerFromSchemaAgainstPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	const keep = "create function keep_tok() returns trigger language plpgsql as $$ begin new.tok := old.tok; return new; end $$;\n"
	const zero = "create function zero_tok() returns trigger language plpgsql as $$ begin new.tok := 0; return new; end $$;\n"
	// Queries that do not write jobs: the trigger is found all the same.
	const noWrite = "-- name: Q :exec\nupdate logs set n = n + 1 where id = 1;\n"
	const update = "update jobs set k = k + 1 where id = 1"
	files, msgs := analyzeSrc(t, pgJobs, "-- name: Q :exec\n"+update+";\n")
	if len(msgs) > 0 || files[0].Queries[0].Fence == nil {
		t.Fatalf("without a trigger: %q, want a guarded write", msgs)
	}
	guarded := files[0].Queries[0].SQL
	dbGuard := databaseGuardSQL(t, pgJobs)
	for _, tc := range []struct{ name, trigger, want string }{
		{"keeps OLD's token, fires before fencegen_guard", keep + "create trigger a_keep before update on jobs for each row execute function keep_tok();\n",
			"schema.sql:7:40: trigger a_keep on jobs is a BEFORE UPDATE row trigger that runs keep_tok(), which assigns NEW.tok"},
		{"keeps OLD's token, fires after fencegen_guard", keep + "create trigger zz_keep before update on jobs for each row execute function keep_tok();\n",
			"schema.sql:7:41: trigger zz_keep on jobs is a BEFORE UPDATE row trigger that runs keep_tok(), which assigns NEW.tok"},
		{"sets a constant, on INSERT and UPDATE", zero + "create trigger zz_zero before insert or update on jobs for each row execute function zero_tok();\n",
			"schema.sql:7:51: trigger zz_zero on jobs is a BEFORE INSERT OR UPDATE row trigger that runs zero_tok(), which assigns NEW.tok"},
	} {
		cat, errs := schemaCatalog(t, pgJobs+tc.trigger)
		if len(errs) > 0 {
			t.Fatalf("%s: catalog: %v", tc.name, errs)
		}
		_, msgs := analyzeCat(t, cat, noWrite)
		if len(msgs) != 1 || !strings.HasPrefix(msgs[0], tc.want) {
			t.Errorf("%s: got %q, want one error starting %q", tc.name, msgs, tc.want)
		}
		// The queries that write jobs say nothing more: the cause is said
		// once, at the trigger.
		if _, msgs := analyzeCat(t, cat, "-- name: Q :exec\n"+update+";\n"); len(msgs) != 1 || !strings.HasPrefix(msgs[0], "schema.sql:") {
			t.Errorf("%s: with a write of jobs: %q, want the trigger's error alone", tc.name, msgs)
		}
		staleLandsWithTrigger(t, pool, tc.name, pgJobs+dbGuard, tc.trigger, guarded)
	}
	for _, ok := range []string{
		zero + "create trigger t after update on jobs for each row execute function zero_tok();\n",
		zero + "create trigger t before update of parent_id on jobs for each row execute function zero_tok();\n",
		"create function k_abs() returns trigger language plpgsql as $$ begin new.k := abs(new.k); return new; end $$;\ncreate trigger t before update on jobs for each row execute function k_abs();\n",
	} {
		if _, msgs := analyzeSrc(t, pgJobs+ok, noWrite); len(msgs) > 0 {
			t.Errorf("%s: %q, want no error", ok, msgs)
		}
	}
}

// databaseGuardSQL is fencegen_guard.sql for schema's fenced tables.
func databaseGuardSQL(t *testing.T, schema string) string {
	t.Helper()
	sf, err := sqlparse.Parse("schema.sql", []byte(schema))
	if err != nil {
		t.Fatal(err)
	}
	cat := catalog.New()
	for _, st := range sf.Stmts {
		cat.Update(sf, st)
	}
	if errs := cat.Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	g, err := guard.NewDatabaseGuard(cat, nil, "out", []*sqlparse.File{sf}, nil)
	if err != nil || g == nil {
		t.Fatalf("NewDatabaseGuard: %v, %v", g, err)
	}
	sql, err := g.SQL()
	if err != nil {
		t.Fatal(err)
	}
	return string(sql)
}
