package analyze

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestSkippingTriggerAgainstPostgreSQL: a BEFORE row trigger on a fenced
// table that may skip the row (RETURN NULL; RETURN NEW in a BEFORE DELETE
// trigger, where NEW is NULL; suppress_redundant_updates_trigger) makes a
// guarded write that passed the guard write nothing, which the generated
// method could only report as a concurrent change (issue 24, the trial's
// acct5). Each is refused with what to do; PostgreSQL shows why: the
// guarded SQL fencegen generates without the trigger, run with the
// trigger by holder 7 (stored token 5, so the guard passes), leaves the
// row as it was, and without the trigger it writes it. A trigger that
// always returns NEW (OLD on DELETE) is accepted.
func TestSkippingTriggerAgainstPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	const fn = "create function sk() returns trigger language plpgsql as $$ "
	for _, tc := range []struct {
		name, trigger, query, want string
	}{
		{"RETURN NULL on UPDATE", fn + "begin if new.k < 0 then return null; end if; return new; end $$;\ncreate trigger t before update on jobs for each row execute function sk();\n",
			"update jobs set k = -1 where id = 1", "runs a guarded update of fenced table jobs, whose BEFORE UPDATE trigger t (schema.sql:7) runs sk(), which may RETURN NULL: PostgreSQL then skips the row"},
		{"RETURN NULL on UPDATE, many rows", fn + "begin if new.k < 0 then return null; end if; return new; end $$;\ncreate trigger t before update on jobs for each row execute function sk();\n",
			"update jobs set k = -1 where id >= 1", "which may RETURN NULL"},
		{"RETURN NEW on DELETE", fn + "begin return new; end $$;\ncreate trigger t before delete on jobs for each row execute function sk();\n",
			"delete from jobs where id = 1", "which may RETURN NEW, and NEW is NULL in a BEFORE DELETE trigger"},
		{"suppress_redundant_updates_trigger", "create trigger t before update on jobs for each row execute function suppress_redundant_updates_trigger();\n",
			"update jobs set k = k where id = 1", "suppress_redundant_updates_trigger(), which skips an UPDATE that changes nothing"},
	} {
		_, msgs := analyzeSrc(t, pgJobs+tc.trigger, "-- name: Q :exec\n"+tc.query+";\n")
		if len(msgs) != 1 || !strings.Contains(msgs[0], tc.want) || !strings.HasPrefix(msgs[0], "query.sql:2:") {
			t.Errorf("%s: got %q, want one refusal with %q", tc.name, msgs, tc.want)
		}
		files, msgs := analyzeSrc(t, pgJobs, "-- name: Q :exec\n"+tc.query+";\n")
		if len(msgs) > 0 || files[0].Queries[0].Fence == nil {
			t.Fatalf("%s: without the trigger: %q, want a guarded write", tc.name, msgs)
		}
		guarded := files[0].Queries[0].SQL
		for _, withTrigger := range []bool{false, true} {
			schema := pgJobs
			if withTrigger {
				schema += tc.trigger
			}
			// Holder 7 beats the stored 5; suppress_redundant_updates_trigger
			// skips the holder of 5 writing again what is stored.
			token := 7
			if strings.Contains(tc.trigger, "suppress_redundant") {
				token = 5
			}
			written, err := guardedWrites(pool, schema, guarded, token)
			switch {
			case err != nil:
				t.Errorf("%s (trigger %v): PostgreSQL: %v", tc.name, withTrigger, err)
			case written == withTrigger:
				t.Errorf("%s (trigger %v): holder 7's guarded write wrote the row: %v, want %v", tc.name, withTrigger, written, !withTrigger)
			}
		}
	}
	for _, ok := range []string{
		fn + "begin new.k := abs(new.k); return new; end $$;\ncreate trigger t before update on jobs for each row execute function sk();\n",
		fn + "begin return old; end $$;\ncreate trigger t before delete on jobs for each row execute function sk();\n",
		fn + "begin return null; end $$;\ncreate trigger t after update on jobs for each row execute function sk();\n",
		// Trial r24 N7: one function for UPDATE and DELETE, RETURN OLD
		// only on DELETE (where PostgreSQL needs it to go ahead).
		fn + "begin if TG_OP = 'DELETE' then return old; end if; return new; end $$;\ncreate trigger t before update or delete on jobs for each row execute function sk();\n",
		fn + "begin if TG_OP = 'DELETE' then return old; else return new; end if; end $$;\ncreate trigger t before update or delete on jobs for each row execute function sk();\n",
	} {
		for _, q := range []string{"update jobs set k = -1 where id = 1", "delete from jobs where id = 1"} {
			files, msgs := analyzeSrc(t, pgJobs+ok, "-- name: Q :exec\n"+q+";\n")
			if len(msgs) > 0 {
				t.Errorf("%s with %s: refused: %q", q, ok, msgs)
				continue
			}
			// PostgreSQL: holder 7's guarded write writes the row.
			if written, err := guardedWrites(pool, pgJobs+ok, files[0].Queries[0].SQL, 7); err != nil || !written {
				t.Errorf("%s with %s: PostgreSQL: written %v, %v", q, ok, written, err)
			}
		}
	}
	// A RETURN NEW reachable on DELETE (the test is not TG_OP's own
	// spelling) still refuses the DELETE.
	if _, msgs := analyzeSrc(t, pgJobs+fn+"begin if TG_OP = 'delete' then return old; end if; return new; end $$;\ncreate trigger t before update or delete on jobs for each row execute function sk();\n", "-- name: Q :exec\ndelete from jobs where id = 1;\n"); len(msgs) == 0 {
		t.Errorf("RETURN NEW reachable on DELETE: not refused")
	}
}

// guardedWrites applies schema and pgSeed (jobs row 1, token 5) in a
// transaction that is rolled back, runs the guarded statement with token
// (its one parameter) and reports whether jobs row 1 was written (a new
// row version) or deleted.
func guardedWrites(pool *pgxpool.Pool, schema, guarded string, token int) (bool, error) {
	return guardedWritesAs(pool, schema, guarded, token, "")
}

// guardedWritesAs is guardedWrites with the guarded statement run as role
// (created in the transaction, with rights on the public schema's tables)
// unless role is empty.
func guardedWritesAs(pool *pgxpool.Pool, schema, guarded string, token int, role string) (bool, error) {
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
	if _, err := tx.Exec(ctx, pgSeed); err != nil {
		return false, err
	}
	// ctid: an UPDATE writes a new row version even when it changes no
	// value (a holder writing again with its own token).
	const row = "select coalesce((select format('%s %s %s', ctid, k, tok) from jobs where id = 1), 'gone')"
	var before, after string
	if err := tx.QueryRow(ctx, row).Scan(&before); err != nil {
		return false, err
	}
	if role != "" {
		if _, err := tx.Exec(ctx, "CREATE ROLE "+role+"; GRANT ALL ON ALL TABLES IN SCHEMA public TO "+role+"; GRANT USAGE ON SCHEMA public TO "+role+"; SET LOCAL ROLE "+role); err != nil {
			return false, err
		}
	}
	if _, err := tx.Exec(ctx, guarded, token); err != nil {
		return false, err
	}
	if role != "" {
		if _, err := tx.Exec(ctx, "RESET ROLE"); err != nil {
			return false, err
		}
	}
	if err := tx.QueryRow(ctx, row).Scan(&after); err != nil {
		return false, err
	}
	return after != before, nil
}
