package analyze

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestOnConflictArbiterAgainstPostgreSQL checks ON CONFLICT (columns)
// against PostgreSQL: fencegen reports "no unique or exclusion constraint
// matching" at the ON CONFLICT exactly when PostgreSQL's planner refuses
// the statement with 42P10 (EXPLAIN plans it; PREPARE, which does not,
// accepts it, so the error would otherwise come at every execution); ON
// CONFLICT ON CONSTRAINT of no constraint, which PREPARE already refuses
// (42704), likewise. The check is for fenced tables only (the guard
// depends on the arbiter); an unfenced table is accepted as sqlc does.
func TestOnConflictArbiterAgainstPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	const base = "create table t (id bigint primary key, a int, b int, c int, e text);\n"
	for _, tc := range []struct {
		name, schema, query string
		refused             bool
	}{
		{"no index", base, "insert into t (id, a) values (1, 1) on conflict (a) do nothing", true},
		{"non-unique index", base + "create index on t (a);\n", "insert into t (id, a) values (1, 1) on conflict (a) do nothing", true},
		{"primary key", base, "insert into t (id, a) values (1, 1) on conflict (id) do update set a = excluded.a", false},
		{"unique constraint", base + "alter table t add constraint t_a_key unique (a);\n", "insert into t (id, a) values (1, 1) on conflict (a) do nothing", false},
		{"unique index", base + "create unique index t_ab on t (a, b);\n", "insert into t (id, a, b) values (1, 1, 1) on conflict (b, a) do nothing", false},
		{"subset of a composite key", base + "create unique index t_ab on t (a, b);\n", "insert into t (id, a, b) values (1, 1, 1) on conflict (a) do nothing", true},
		{"superset of the key", base, "insert into t (id, a) values (1, 1) on conflict (id, a) do nothing", true},
		{"partial unique index with its predicate", base + "create unique index t_a on t (a) where b > 0;\n", "insert into t (id, a, b) values (1, 1, 1) on conflict (a) where b > 0 do nothing", false},
		{"ADD COLUMN ... UNIQUE", base + "alter table t add column d int unique;\n", "insert into t (id, d) values (1, 1) on conflict (d) do nothing", false},
		{"unique constraint dropped", base + "alter table t add constraint t_a_key unique (a);\nalter table t drop constraint t_a_key;\n", "insert into t (id, a) values (1, 1) on conflict (a) do nothing", true},
		{"unique index dropped", base + "create unique index t_a on t (a);\ndrop index t_a;\n", "insert into t (id, a) values (1, 1) on conflict (a) do nothing", true},
		{"key column renamed", base + "create unique index t_a on t (a);\nalter table t rename column a to aa;\n", "insert into t (id, aa) values (1, 1) on conflict (aa) do nothing", false},
		{"partition of a table with a unique index", "create table p (id bigint, a int) partition by range (id);\ncreate unique index on p (id, a);\ncreate table p1 partition of p for values from (0) to (10);\n", "insert into p1 values (1, 1) on conflict (a, id) do nothing", false},
		{"LIKE including indexes", base + "create unique index t_c on t (c);\ncreate table t2 (like t including indexes);\n", "insert into t2 (id, c) values (1, 1) on conflict (c) do nothing", false},
		{"expression index", base + "create unique index t_le on t (lower(e));\n", "insert into t (id, e) values (1, 'x') on conflict (lower(e)) do nothing", false},
		{"no conflict target", base, "insert into t (id, a) values (1, 1) on conflict do nothing", false},
		{"ON CONSTRAINT of the primary key", base, "insert into t (id, a) values (1, 1) on conflict on constraint t_pkey do nothing", false},
		{"ON CONSTRAINT that does not exist", base, "insert into t (id, a) values (1, 1) on conflict on constraint t_a_key do nothing", true},
		{"ON CONSTRAINT of an exclusion constraint", base + "alter table t add constraint t_ex exclude using btree (c with =);\n", "insert into t (id, c) values (1, 1) on conflict on constraint t_ex do nothing", false},
		{"ON CONSTRAINT naming an index", base + "create unique index t_ai on t (a);\n", "insert into t (id, a) values (1, 1) on conflict on constraint t_ai do nothing", true},
	} {
		// On a table without a fence mark fencegen accepts the statement
		// as sqlc does (a sqlc schema often lacks an index a migration
		// outside it creates); on a fenced table it refuses exactly when
		// PostgreSQL does.
		if _, msgs := analyzeSrc(t, tc.schema, "-- name: Q :exec\n"+tc.query+";\n"); len(msgs) > 0 {
			t.Errorf("%s: unfenced: %q, want no error (sqlc accepts it)", tc.name, msgs)
		}
		fenced := tc.schema + fenceMarks(tc.schema)
		_, msgs := analyzeSrc(t, fenced, "-- name: Q :exec\n"+tc.query+";\n")
		got := false
		for _, m := range msgs {
			if strings.Contains(m, "there is no unique or exclusion constraint matching the ON CONFLICT specification") || strings.Contains(m, "does not exist (fencegen knows PRIMARY KEY") {
				got = true
				if want := "query.sql:2:" + itoa(strings.Index(strings.ToLower(tc.query), "on conflict")+1) + ":"; !strings.HasPrefix(m, want) {
					t.Errorf("%s: %q not located at the ON CONFLICT (%s)", tc.name, m, want)
				}
			} else {
				t.Logf("%s: fenced: other error: %s", tc.name, m)
			}
		}
		if got != tc.refused {
			t.Errorf("%s: fenced: fencegen refused = %v, want %v (%q)", tc.name, got, tc.refused, msgs)
		}
		pgRefused, prepared := pgOnConflict(t, pool, tc.schema, tc.query)
		if pgRefused != tc.refused {
			t.Errorf("%s: PostgreSQL refused = %v, want %v", tc.name, pgRefused, tc.refused)
		}
		if !prepared {
			t.Errorf("%s: PostgreSQL refused it at PREPARE already", tc.name)
		}
	}
}

// pgOnConflict applies schema in a rolled-back transaction of pool and
// reports whether EXPLAIN of query fails with 42P10, and whether PREPARE
// of it succeeds.
func pgOnConflict(t *testing.T, pool *pgxpool.Pool, schema, query string) (refused, prepared bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, schema); err != nil {
		t.Fatalf("schema: %v", err)
	}
	if _, err := tx.Exec(ctx, "SAVEPOINT fg_oc_sp"); err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec(ctx, "PREPARE fg_oc AS "+query); err == nil {
		prepared = true
		tx.Exec(ctx, "DEALLOCATE fg_oc")
	} else {
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "42704" && strings.Contains(query, "on constraint") {
			return true, true // ON CONSTRAINT of no constraint: refused at PREPARE already
		}
		t.Fatalf("PREPARE %s: %v", query, err)
	}
	_, err = tx.Exec(ctx, "EXPLAIN "+query)
	var pe *pgconn.PgError
	if errors.As(err, &pe) && pe.Code == "42P10" {
		return true, true
	}
	if err != nil {
		t.Fatalf("EXPLAIN %s: %v", query, err)
	}
	return false, true
}

// TestVolatileWhereAgainstPostgreSQL checks that a fenced UPDATE or
// DELETE whose WHERE clause calls a function is refused, at the call,
// exactly when PostgreSQL's pg_proc says the function is volatile
// (provolatile 'v'; a user-defined function without IMMUTABLE or STABLE
// is volatile).
func TestVolatileWhereAgainstPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	const schema = "create table jobs (id bigint primary key, k int, at timestamptz, tok bigint not null default 0);\n" +
		"comment on column jobs.tok is 'fencegen:token';\n" +
		"create sequence s;\n" +
		"create function pick() returns bigint language sql as $$ select 1::bigint $$;\n" +
		"create function spick() returns bigint language sql stable as $$ select 1::bigint $$;\n" +
		"create function ipick(x int) returns int immutable language sql as $$ select x $$;\n"
	for _, tc := range []struct{ fn, query string }{
		{"random", "update jobs set k = 1 where id = (random() * 10)::bigint"},
		{"clock_timestamp", "update jobs set k = 1 where at < clock_timestamp()"},
		{"nextval", "delete from jobs where id = nextval('s')"},
		{"gen_random_uuid", "delete from jobs where id::text = gen_random_uuid()::text"},
		{"pick", "update jobs set k = 1 where id = pick()"},
		{"random", "update jobs set k = 1 where id in (select id from jobs where random() < 0.5)"},
		{"random", "update jobs set k = 1 from (select id from jobs order by random() limit 1) x where jobs.id = x.id"},
		{"clock_timestamp", "delete from jobs using (select clock_timestamp() as t) x where jobs.at < x.t"},
		{"spick", "update jobs set k = 1 where id = spick()"},
		{"ipick", "delete from jobs where k = ipick(1)"},
		{"now", "update jobs set k = 1 where at < now()"},
		{"lower", "delete from jobs where lower(k::text) = 'x'"},
	} {
		_, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+tc.query+";\n")
		got := len(msgs) > 0
		for _, m := range msgs {
			col := strings.Index(tc.query, tc.fn+"(") + 1
			if want := "query.sql:2:" + itoa(col) + ":"; !strings.HasPrefix(m, want) || !strings.Contains(m, "calls "+tc.fn+"()") {
				t.Errorf("%s: %q, want it at %s naming %s()", tc.query, m, want, tc.fn)
			}
		}
		var volatile bool
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, schema); err != nil {
			t.Fatal(err)
		}
		if err := tx.QueryRow(ctx, "SELECT bool_or(provolatile = 'v') FROM pg_proc WHERE proname = $1", tc.fn).Scan(&volatile); err != nil {
			t.Fatal(err)
		}
		tx.Rollback(ctx)
		cancel()
		if got != volatile {
			t.Errorf("%s: fencegen refused = %v, PostgreSQL's pg_proc says %s() volatile = %v (%q)", tc.query, got, tc.fn, volatile, msgs)
		}
	}
}

// fenceMarks returns DDL that adds a fencing token column to every table
// created by schema ("create table NAME"), except partitions and LIKE
// copies, which take the column from the table they come from.
func fenceMarks(schema string) string {
	var b strings.Builder
	for _, line := range strings.Split(schema, "\n") {
		if rest, ok := strings.CutPrefix(line, "create table "); ok {
			if strings.Contains(rest, "partition of") || strings.Contains(rest, "(like ") {
				continue // the column comes from the parent or the copied table
			}
			name := strings.Fields(rest)[0]
			b.WriteString("alter table " + name + " add column tok bigint not null default 0;\n")
			b.WriteString("comment on column " + name + ".tok is 'fencegen:token';\n")
		}
	}
	return b.String()
}
