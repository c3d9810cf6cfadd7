package analyze

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/internal/testenv"
)

// pgPartJobs is pgJobs with jobs partitioned (the mark on the parent) and
// one partition, jobs_1.
const pgPartJobs = "create table parents (id bigint primary key, v int);\ninsert into parents values (1, 1);\n" +
	"create table jobs (id bigint, k int, parent_id bigint, tok bigint not null default 0, primary key (id)) partition by range (id);\n" +
	"comment on column jobs.tok is 'fencegen:token';\ncreate table jobs_1 partition of jobs for values from (0) to (100);\n" +
	"create table logs (id bigint primary key, n int);\n"

// TestSoundTokenReplacedAgainstPostgreSQL: a trigger that replaces the
// row a guarded write stores, and with it the fencing token, lets a later
// stale holder pass the guard. Each trigger must be refused; PostgreSQL
// shows why: the guarded SQL fencegen generates without the trigger,
// run with the trigger in place by holder 7 and then by stale holder 6,
// lets the stale write land (and without the trigger it does not).
func TestSoundTokenReplacedAgainstPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	const tz = "create function tz() returns trigger language plpgsql as $$ "
	for _, tc := range []struct {
		name, base, trigger, query string
	}{
		{"SELECT ... INTO NEW.tok", pgJobs, tz + "begin select 0 into new.tok; return new; end $$;\ncreate trigger t before update on jobs for each row execute function tz();\n", "update jobs set k = k + 1 where id = 1"},
		{"EXECUTE ... INTO NEW.tok", pgJobs, tz + "begin execute 'select 0' into new.tok; return new; end $$;\ncreate trigger t before update on jobs for each row execute function tz();\n", "update jobs set k = k + 1 where id = 1"},
		{"INTO a list of targets", pgJobs, tz + "begin select new.k, 0 into new.k, new.tok; return new; end $$;\ncreate trigger t before update on jobs for each row execute function tz();\n", "update jobs set k = k + 1 where id = 1"},
		// Trial t24 F1: RETURN OLD from a BEFORE UPDATE trigger writes the
		// old row, its stored token with it.
		{"RETURN OLD", pgJobs, tz + "begin old.k := new.k; return old; end $$;\ncreate trigger t before update on jobs for each row execute function tz();\n", "update jobs set k = k + 1 where id = 1"},
		// Trial r24 N7: RETURN OLD reachable on UPDATE past a TG_OP test
		// that does not exclude it ('update' never matches; <> 'UPDATE'
		// leaves the ELSE to UPDATE).
		{"RETURN OLD past a lower-case TG_OP test", pgJobs, tz + "begin if tg_op = 'update' then return new; end if; old.k := new.k; return old; end $$;\ncreate trigger t before update or delete on jobs for each row execute function tz();\n", "update jobs set k = k + 1 where id = 1"},
		{"RETURN OLD in the ELSE of TG_OP <> 'UPDATE'", pgJobs, tz + "begin if tg_op <> 'UPDATE' then return old; else old.k := new.k; return old; end if; end $$;\ncreate trigger t before update or delete on jobs for each row execute function tz();\n", "update jobs set k = k + 1 where id = 1"},
		{"RETURN OLD, quoted, from a trigger of INSERT and UPDATE", pgJobs, tz + "begin if tg_op = 'INSERT' then return new; end if; old.k := new.k; return (\"old\"); end $$;\ncreate trigger t before insert or update on jobs for each row execute function tz();\n", "update jobs set k = k + 1 where id = 1"},
		{"RETURN of another row", pgJobs, tz + "declare r jobs; begin r := new; r.tok := 0; return r; end $$;\ncreate trigger t before update on jobs for each row execute function tz();\n", "update jobs set k = k + 1 where id = 1"},
		{"trigger on the partition a write of the parent lands in", pgPartJobs, tz + "begin new.tok := 0; return new; end $$;\ncreate trigger t before update on jobs_1 for each row execute function tz();\n", "update jobs set k = k + 1 where id = 1"},
		{"parent's trigger, cloned to the partition written", pgPartJobs, tz + "begin new.tok := 0; return new; end $$;\ncreate trigger t before update on jobs for each row execute function tz();\n", "update jobs_1 set k = k + 1 where id = 1"},
		// Issue 24 F3: a trigger declared UPDATE OF fires when the guarded
		// UPDATE sets one of its columns, the token the guard sets among
		// them.
		{"BEFORE UPDATE OF a column the UPDATE sets", pgJobs, tz + "begin new.tok := 0; return new; end $$;\ncreate trigger t before update of parent_id on jobs for each row execute function tz();\n", "update jobs set k = k + 1, parent_id = 1 where id = 1"},
		{"BEFORE UPDATE OF the token column, which the guard sets", pgJobs, tz + "begin new.tok := 0; return new; end $$;\ncreate trigger t before update of tok on jobs for each row execute function tz();\n", "update jobs set k = k + 1 where id = 1"},
		{"BEFORE UPDATE OF a column an upsert's DO UPDATE sets", pgJobs, tz + "begin new.tok := 0; return new; end $$;\ncreate trigger t before update of k on jobs for each row execute function tz();\n", "insert into jobs (id, k, parent_id) values (1, 1, 1) on conflict (id) do update set k = jobs.k + 1"},
	} {
		got, _ := soundVerdict(t, tc.base+tc.trigger, tc.query)
		if got != "refused" {
			t.Errorf("%s: fencegen: %s, want refused", tc.name, got)
		}
		files, msgs := analyzeSrc(t, tc.base, "-- name: Q :exec\n"+tc.query+";\n")
		if len(msgs) > 0 || files[0].Queries[0].Fence == nil {
			t.Fatalf("%s: without the trigger: %q, want a guarded write", tc.name, msgs)
		}
		guarded := files[0].Queries[0].SQL
		staleLandsWithTrigger(t, pool, tc.name, tc.base, tc.trigger, guarded)
	}
}

// staleLandsWithTrigger checks with staleWriteLands that guarded, run
// under base, lets the stale write land with trigger (the statements that
// create it) added to base, and not without it.
func staleLandsWithTrigger(t *testing.T, pool *pgxpool.Pool, name, base, trigger, guarded string) {
	t.Helper()
	for _, withTrigger := range []bool{false, true} {
		schema := base
		if withTrigger {
			schema += trigger
		}
		landed, err := staleWriteLands(pool, schema, guarded)
		switch {
		case err != nil:
			t.Errorf("%s (trigger %v): PostgreSQL: %v", name, withTrigger, err)
		case landed != withTrigger:
			t.Errorf("%s (trigger %v): stale write landed: %v, want %v", name, withTrigger, landed, withTrigger)
		}
	}
}

// staleWriteLands applies schema and pgSeed (jobs row 1, token 5) in a
// rolled-back transaction, runs guarded (whose only parameter is the
// fencing token) with token 7 and then with stale token 6, and reports
// whether the second write changed row 1 (an error when the first did
// not).
func staleWriteLands(pool *pgxpool.Pool, schema, guarded string) (bool, error) {
	return staleWriteLandsSeed(pool, schema, pgSeed, guarded)
}

// staleWriteLandsSeed is staleWriteLands with the rows of seed, which
// must give jobs row 1 token 5.
func staleWriteLandsSeed(pool *pgxpool.Pool, schema, seed, guarded string) (bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tx, err := pool.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, schema); err != nil {
		return false, err
	}
	if _, err := tx.Exec(ctx, seed); err != nil {
		return false, err
	}
	var seeded, before, after int
	if err := tx.QueryRow(ctx, "select k from jobs where id = 1").Scan(&seeded); err != nil {
		return false, err
	}
	if _, err := tx.Exec(ctx, guarded, 7); err != nil {
		return false, err
	}
	if err := tx.QueryRow(ctx, "select k from jobs where id = 1").Scan(&before); err != nil {
		return false, err
	}
	if before == seeded {
		return false, fmt.Errorf("holder 7's write (token above the stored 5) did not land")
	}
	if _, err := tx.Exec(ctx, guarded, 6); err != nil {
		return false, err
	}
	if err := tx.QueryRow(ctx, "select k from jobs where id = 1").Scan(&after); err != nil {
		return false, err
	}
	return after != before, nil
}

// TestSoundGuardedShapesAgainstPostgreSQL: writes fencegen guards in
// shapes beyond a plain table (a partition written directly, a table
// whose token column was renamed, a copy by LIKE ... INCLUDING ALL, whose
// mark PostgreSQL copies with the comments) hold against a stale token:
// holder 7's write lands, stale holder 6's does not.
func TestSoundGuardedShapesAgainstPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	for _, tc := range []struct{ name, schema, query, seed string }{
		{"partition written directly", pgPartJobs, "update jobs_1 set k = k + 1 where id = 1", pgSeed},
		{"token column renamed", pgJobs + "alter table jobs rename column tok to tok2;\n", "update jobs set k = k + 1 where id = 1", "insert into jobs (id, k, parent_id, tok2) values (1, 1, 1, 5); insert into logs values (1, 1);"},
		{"harmless BEFORE trigger returning NEW", pgJobs + "create function tz() returns trigger language plpgsql as $$ begin new.k := new.k + 10; if new.tok < 0 then raise exception 'negative'; end if; return new; end $$;\ncreate trigger t before update on jobs for each row execute function tz();\n", "update jobs set k = k + 1 where id = 1", pgSeed},
		{"BEFORE UPDATE OF a column the UPDATE does not set (issue 24 F3)", pgJobs + "create function tz() returns trigger language plpgsql as $$ begin new.tok := 0; return new; end $$;\ncreate trigger t before update of parent_id on jobs for each row execute function tz();\n", "update jobs set k = k + 1 where id = 1", pgSeed},
		{"BEFORE UPDATE OF a column the upsert's DO UPDATE does not set (issue 24 F3)", pgJobs + "create function tz() returns trigger language plpgsql as $$ begin new.tok := 0; return new; end $$;\ncreate trigger t before update of parent_id on jobs for each row execute function tz();\n", "insert into jobs (id, k, parent_id) values (1, 1, 1) on conflict (id) do update set k = jobs.k + 1", pgSeed},
		// Trial r24 N7: RETURN OLD only when TG_OP is DELETE.
		{"BEFORE UPDATE OR DELETE returning OLD only on DELETE", pgJobs + "create function tz() returns trigger language plpgsql as $$ begin if TG_OP = 'DELETE' then return old; end if; return new; end $$;\ncreate trigger t before update or delete on jobs for each row execute function tz();\n", "update jobs set k = k + 1 where id = 1", pgSeed},
		{"BEFORE UPDATE OR DELETE returning OLD in the branch of TG_OP <> 'UPDATE'", pgJobs + "create function tz() returns trigger language plpgsql as $$ begin if TG_OP <> 'UPDATE' then return old; else return new; end if; end $$;\ncreate trigger t before update or delete on jobs for each row execute function tz();\n", "update jobs set k = k + 1 where id = 1", pgSeed},
		{"AFTER trigger whose result PostgreSQL ignores", pgJobs + "create function tz() returns trigger language plpgsql as $$ begin return old; end $$;\ncreate trigger t after update on jobs for each row execute function tz();\n", "update jobs set k = k + 1 where id = 1", pgSeed},
	} {
		files, msgs := analyzeSrc(t, tc.schema, "-- name: Q :exec\n"+tc.query+";\n")
		if len(msgs) > 0 || files[0].Queries[0].Fence == nil {
			t.Errorf("%s: %q, want a guarded write", tc.name, msgs)
			continue
		}
		landed, err := staleWriteLandsSeed(pool, tc.schema, tc.seed, files[0].Queries[0].SQL)
		switch {
		case err != nil:
			t.Errorf("%s: PostgreSQL: %v", tc.name, err)
		case landed:
			t.Errorf("%s: the stale holder's write landed", tc.name)
		}
	}
}
