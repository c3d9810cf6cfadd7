package analyze

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestRulesWithGuardFormsAgainstPostgreSQL: a DO ALSO rule on a fenced
// table (an audit log, a NOTIFY), conditional or not, makes PostgreSQL
// refuse the write as a data-modifying WITH entry, and any INSERT or
// UPDATE rule refuses an upsert (issue 24). Every guarded form that would
// always fail is refused at the statement, naming the rule; PostgreSQL
// shows it would fail: the guarded SQL fencegen writes without the rule,
// run with the rule in place, gets the error. Every form fencegen still
// generates runs with the rule in place: a stale token changes nothing
// and a fresh one writes.
func TestRulesWithGuardFormsAgainstPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	const (
		alsoUpd  = "create rule r_audit as on update to jobs do also insert into logs values (new.id + 100, new.k);\n"
		condUpd  = "create rule r_audit as on update to jobs where new.k > 100 do also insert into logs values (new.id + 100, new.k);\n"
		notifDel = "create rule r_audit as on delete to jobs do also notify jobs_changed;\n"
		alsoIns  = "create rule r_audit as on insert to jobs do also insert into logs values (new.id + 100, new.k);\n"
		inWith   = "DO ALSO rules are not supported for data-modifying statements in WITH"
		onConfl  = "INSERT with ON CONFLICT clause cannot be used with table that has INSERT or UPDATE rules"
	)
	for _, tc := range []struct {
		name, rule, cmd, query string
		// pgErr is PostgreSQL's error for the guarded SQL written without
		// the rule, run with it; "" for a write fencegen must guard.
		pgErr string
	}{
		{"UPDATE by key, DO ALSO", alsoUpd, ":exec", "update jobs set k = k + 1 where id = 1", ""},
		{"UPDATE of many rows, DO ALSO", alsoUpd, ":execrows", "update jobs set k = k + 1 where k > 0", inWith},
		{"UPDATE of many rows, conditional DO ALSO", condUpd, ":execrows", "update jobs set k = k + 1 where k > 0", inWith},
		{"UPDATE by key as a batch item", alsoUpd, ":batchexec", "update jobs set k = k + 1 where id = 1", inWith},
		{"UPDATE by key with a WITH clause of its own", alsoUpd, ":exec", "with x as (select 1 as v) update jobs set k = k + 1 where id = 1", inWith},
		{"UPDATE in a WITH entry", alsoUpd, ":many", "with u as (update jobs set k = k + 1 where id = 1 returning id) select id from u", inWith},
		{"DELETE by key, DO ALSO NOTIFY", notifDel, ":exec", "delete from jobs where id = 1", ""},
		{"DELETE of many rows, DO ALSO NOTIFY", notifDel, ":execrows", "delete from jobs where k > 0", inWith},
		{"UPDATE of many rows, rule on INSERT only", alsoIns, ":execrows", "update jobs set k = k + 1 where k > 0", ""},
		{"INSERT, DO ALSO", alsoIns, ":exec", "insert into jobs (id, k, parent_id) values (2, 1, 1)", ""},
		{"upsert, rule on INSERT", alsoIns, ":exec", "insert into jobs (id, k) values (1, 2) on conflict (id) do update set k = excluded.k", onConfl},
		{"upsert, rule on UPDATE", alsoUpd, ":exec", "insert into jobs (id, k) values (1, 2) on conflict (id) do update set k = excluded.k", onConfl},
	} {
		src := "-- name: Q " + tc.cmd + "\n" + tc.query + ";\n"
		files, msgs := analyzeSrc(t, pgJobs+tc.rule, src)
		if tc.pgErr == "" {
			if len(msgs) > 0 || files[0].Queries[0].Fence == nil {
				t.Errorf("%s: %q, want a guarded write", tc.name, msgs)
				continue
			}
			if err := staleThenFresh(pool, pgJobs+tc.rule, files[0].Queries[0].SQL, !strings.HasPrefix(tc.query, "insert")); err != nil {
				t.Errorf("%s: guarded %s: %v", tc.name, files[0].Queries[0].Fence.Form, err)
			}
			continue
		}
		if len(msgs) != 1 || !strings.HasPrefix(msgs[0], "query.sql:2:1: ") || !strings.Contains(msgs[0], "rule r_audit (schema.sql:") {
			t.Errorf("%s: %q, want one refusal at the statement naming rule r_audit", tc.name, msgs)
		}
		files, msgs = analyzeSrc(t, pgJobs, src)
		if len(msgs) > 0 || files[0].Queries[0].Fence == nil {
			t.Fatalf("%s: without the rule: %q, want a guarded write", tc.name, msgs)
		}
		err := staleThenFresh(pool, pgJobs+tc.rule, files[0].Queries[0].SQL, true)
		if err == nil || !strings.Contains(err.Error(), tc.pgErr) {
			t.Errorf("%s: the guarded %s with the rule in place: PostgreSQL: %v, want %q", tc.name, files[0].Queries[0].Fence.Form, err, tc.pgErr)
		}
	}
}

// staleThenFresh applies schema and pgSeed (jobs row 1, token 5) in a
// rolled-back transaction and runs guarded, whose only parameter is the
// fencing token, with stale token 4 (when stale: not for an INSERT, which
// checks no stored token) and then with token 7: an error when PostgreSQL
// refuses either, when the stale one changed table jobs or the fresh one
// did not.
func staleThenFresh(pool *pgxpool.Pool, schema, guarded string, stale bool) error {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, schema+pgSeed); err != nil {
		return err
	}
	jobs := func() (string, error) {
		var s string
		err := tx.QueryRow(ctx, "select coalesce(string_agg(j::text, ',' order by id), '') from jobs j").Scan(&s)
		return s, err
	}
	run := func(token int64) error {
		rows, err := tx.Query(ctx, guarded, token)
		if err != nil {
			return err
		}
		rows.Close()
		return rows.Err()
	}
	seeded, err := jobs()
	if err != nil {
		return err
	}
	if stale {
		if err := run(4); err != nil {
			return err
		}
		if after, err := jobs(); err != nil || after != seeded {
			return fmt.Errorf("stale token 4 changed jobs: %s -> %s (%v)", seeded, after, err)
		}
	}
	if err := run(7); err != nil {
		return err
	}
	if after, err := jobs(); err != nil || after == seeded {
		return fmt.Errorf("token 7 did not change jobs (%v)", err)
	}
	return nil
}
