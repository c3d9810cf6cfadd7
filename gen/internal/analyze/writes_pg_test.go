package analyze

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/fencegen/fencegen/internal/testenv"
)

// Issue 24's write shapes, judged by PostgreSQL as soundPGCases are: run
// on seeded rows in a rolled-back transaction, each changes a fenced
// table exactly when fencegen refuses it.
const (
	pgPartitioned = "create table ev (id bigint not null, k int not null, tok bigint not null default 0) partition by list (k);\n" +
		"create table ev1 partition of ev for values in (1);\ncomment on column ev1.tok is 'fencegen:token';\ninsert into ev values (1, 1, 0);\n"
	pgInherits = "create table base (id bigint primary key, tok bigint not null default 0);\ncreate table kid () inherits (base);\n" +
		"comment on column kid.tok is 'fencegen:token';\ninsert into kid values (1, 0);\n"
	pgOverloads = "create function pick(x int) returns int language sql as $$ select x $$;\n" +
		"create function pick(x text) returns int language sql as $$ update jobs set k = length(x) returning 1 $$;\n"
	pgSays = "create function says() returns void language plpgsql as $$\nbegin\n  -- UPDATE jobs SET k = 0\n  raise notice 'UPDATE jobs SET k = %', 0;\n  perform 'delete from jobs';\nend $$;\n"
)

var writesPGCases = []struct {
	name, schema, query, want, noPG string
}{
	{name: "MERGE whose WITH updates jobs", schema: pgJobs, query: "with u as (update jobs set k = 2 where id = 1 returning id) merge into logs l using u on l.id = u.id when matched then update set n = 2", want: "refused"},
	{name: "MERGE whose WITH deletes from jobs", schema: pgJobs, query: "with u as (delete from jobs where id = 1 returning id) merge into logs l using u on l.id = u.id when matched then delete", want: "refused"},
	{name: "MERGE into a parent with a fenced partition", schema: pgJobs + pgPartitioned, query: "merge into ev using (select 1 as id) s on ev.id = s.id when matched then delete", want: "refused"},
	{name: "TRUNCATE of a parent with a fenced partition", schema: pgJobs + pgPartitioned, query: "truncate ev", want: "refused"},
	{name: "TRUNCATE of a parent with a fenced child", schema: pgJobs + pgInherits, query: "truncate base", want: "refused"},
	{name: "MERGE into a parent with a fenced child", schema: pgJobs + pgInherits, query: "merge into base using (select 1 as id) s on base.id = s.id when matched then update set id = 2", want: "refused"},
	{name: "CREATE TABLE AS EXECUTE of a writer", schema: pgJobs + pgWV + "prepare fg_writes_p as select wv(1);\n", query: "create temp table t as execute fg_writes_p", want: "refused"},
	{name: "CREATE TEMP TABLE AS with a WITH updating jobs", schema: pgJobs, query: "create temp table t as with u as (update jobs set k = 2 returning id) select * from u", want: "refused"},
	{name: "SELECT INTO with a WITH updating jobs", schema: pgJobs, query: "with u as (update jobs set k = 2 returning id) select * into temp table t from u", want: "refused"},
	{name: "EXPLAIN ANALYZE of an UPDATE", schema: pgJobs, query: "explain analyze update jobs set k = 2", want: "refused"},
	{name: "COPY of an UPDATE ... RETURNING", schema: pgJobs, query: "copy (update jobs set k = 2 returning id) to stdout", want: "refused"},
	{name: "overload taking text, which writes", schema: pgJobs + pgOverloads, query: "select pick('abc')", want: "refused"},
	{name: "refreshing a materialized view whose query writes", schema: pgJobs + pgWV + "create materialized view mv_w as select wv(1) as b;\n", query: "refresh materialized view mv_w", want: "refused"},
	// Precision: PostgreSQL runs these without writing a fenced table.
	{name: "CREATE TABLE AS ... WITH NO DATA over a WITH updating jobs", schema: pgJobs, query: "create temp table t as with u as (update jobs set k = 2 returning id) select * from u with no data", want: "plain"},
	{name: "EXPLAIN without ANALYZE", schema: pgJobs, query: "explain update jobs set k = 2", want: "plain"},
	{name: "EXPLAIN (ANALYZE false)", schema: pgJobs, query: "explain (analyze false) delete from jobs", want: "plain"},
	{name: "COPY of a SELECT to STDOUT", schema: pgJobs, query: "copy (select * from jobs) to stdout", want: "plain"},
	{name: "COPY of a WITH updating jobs to STDOUT", schema: pgJobs, query: "copy (with u as (update jobs set k = 2 returning id) select * from u) to stdout", want: "refused"},
	{name: "DECLARE CURSOR over a plain SELECT", schema: pgJobs, query: "declare c cursor for select * from jobs", want: "plain"},
	{name: "an integer constant beyond int4 (int8) picks the writing overload", schema: pgJobs + "create function big(x int8) returns int language sql as $$ update jobs set k = 9 returning 1 $$;\ncreate function big(x numeric) returns int language sql as $$ select 1 $$;\n", query: "select big(10000000000)", want: "refused"},
	{name: "the read-only overload", schema: pgJobs + pgOverloads, query: "select pick(1)", want: "plain"},
	{name: "the read-only overload through an implicit cast", schema: pgJobs + pgOverloads, query: "select pick(2::smallint)", want: "plain"},
	{name: "function that spells UPDATE in a string and a comment", schema: pgJobs + pgSays, query: "select says()", want: "plain"},
	{name: "refreshing a materialized view that only reads", schema: pgJobs + "create materialized view mv as select id, k from jobs;\n", query: "refresh materialized view mv", want: "plain"},
	{name: "UPDATE ONLY of a parent with a fenced child", schema: pgJobs + pgInherits + "insert into base values (2, 0);\n", query: "update only base set tok = 7", want: "plain"},
	{name: "DELETE FROM ONLY a parent with a fenced partition", schema: pgJobs + pgPartitioned, query: "delete from only ev", want: "plain"},
	{name: "INSERT into a parent with a fenced INHERITS child", schema: pgJobs + pgInherits, query: "insert into base values (3, 0)", want: "plain"},
	{name: "INSERT into a parent with a fenced partition", schema: pgJobs + pgPartitioned, query: "insert into ev values (3, 1, 0)", want: "refused"},
	{name: "UPDATE of a parent with a fenced child", schema: pgJobs + pgInherits, query: "update base set tok = 7", want: "refused"},
	{name: "DO block writing an unfenced table", schema: pgJobs, query: "do $$ begin update logs set n = 2; end $$", want: "plain"},
	{name: "DO block writing jobs", schema: pgJobs, query: "do $$ begin update jobs set k = 2; end $$", want: "refused"},
	{name: "DO block calling a writer", schema: pgJobs + pgWV, query: "do $$ begin perform wv(1); end $$", want: "refused"},
	{name: "DO block writing jobs by a constant EXECUTE", schema: pgJobs, query: "do $$ begin execute 'update jobs set k = 3'; end $$", want: "refused"},
	{name: "DO block altering jobs (E5)", schema: pgJobs, query: "do $$ begin alter table jobs alter column tok type bigint using 0; end $$", want: "refused"},
	{name: "DO block dropping jobs", schema: pgJobs, query: "do $$ begin drop table jobs cascade; end $$", want: "refused",
		noPG: "the test's snapshot reads jobs, which the statement drops"},
	{name: "function altering jobs", schema: pgJobs + "create function alt() returns void language plpgsql as $$ begin alter table jobs alter column tok type bigint using 0; end $$;\n", query: "select alt()", want: "refused"},
	{name: "MERGE updating a column no foreign key references", schema: pgJobs + "alter table jobs add constraint fk foreign key (parent_id) references parents (id) on delete cascade on update cascade;\n", query: "merge into parents p using (select 1 as id) s on p.id = s.id when matched then update set v = 9", want: "plain"},
	{name: "MERGE updating the referenced column", schema: pgJobs + "alter table jobs add constraint fk foreign key (parent_id) references parents (id) on delete cascade on update cascade;\n", query: "merge into parents p using (select 1 as id) s on p.id = s.id when matched then update set id = 9", want: "refused"},
	{name: "MERGE into an unfenced table", schema: pgJobs, query: "merge into logs l using (select 1 as id) s on l.id = s.id when matched then update set n = 2", want: "plain"},
}

// TestWritesAgainstPostgreSQL runs writesPGCases.
func TestWritesAgainstPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, tc := range writesPGCases {
		got, cat := soundVerdict(t, tc.schema, tc.query)
		if got != tc.want {
			t.Errorf("%s: fencegen: %s, want %s", tc.name, got, tc.want)
		}
		if tc.noPG != "" {
			continue
		}
		wrote, err := pgWritesFenced(ctx, conn.Conn(), cat, tc.schema, tc.query, false, "")
		switch {
		case err != nil:
			t.Errorf("%s: PostgreSQL: %v", tc.name, err)
		case wrote && got != "refused":
			t.Errorf("%s: PostgreSQL wrote a fenced table without the guard, and fencegen generated it %s", tc.name, got)
		case !wrote && got == "refused":
			t.Errorf("%s: fencegen refused it, but PostgreSQL ran it without writing a fenced table", tc.name)
		}
	}
}

// TestSearchPathAgainstPostgreSQL checks that SET search_path in a schema
// file is honoured as PostgreSQL honours it: the unqualified CREATE TABLE
// and COMMENT after it are app's, so app.jobs is the fenced table, and the
// writes of it, qualified or not, are guarded; PostgreSQL agrees that the
// table is app.jobs.
func TestSearchPathAgainstPostgreSQL(t *testing.T) {
	const schema = "create schema app;\nset search_path = app, public;\n" +
		"create table jobs (id bigint primary key, k int, parent_id bigint, tok bigint not null default 0);\n" +
		"comment on column jobs.tok is 'fencegen:token';\nreset search_path;\ncreate table logs (id bigint primary key, n int);\n"
	cat, errs := schemaCatalog(t, schema)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	fenced := cat.FencedTables()
	if len(fenced) != 1 || fenced[0].QualifiedName() != "app.jobs" {
		t.Fatalf("fenced tables %v, want app.jobs", fenced)
	}
	if cat.Table("public", "logs") == nil {
		t.Errorf("logs, created after RESET search_path, is not public's")
	}
	for _, q := range []string{"update app.jobs set k = 2 where id = 1", "update jobs set k = 2 where id = 1"} {
		if got, _ := soundVerdict(t, schema, q); got != "guarded" {
			t.Errorf("%s: %s, want guarded", q, got)
		}
	}
	pool := testenv.Database(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	tx, err := pool.Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, schema); err != nil {
		t.Fatal(err)
	}
	var where, comment string
	if err := tx.QueryRow(ctx, "select n.nspname, col_description(c.oid, 4) from pg_class c join pg_namespace n on n.oid = c.relnamespace where c.relname = 'jobs'").Scan(&where, &comment); err != nil {
		t.Fatal(err)
	}
	if where != "app" || comment != "fencegen:token" {
		t.Errorf("PostgreSQL put jobs in %s with comment %q", where, comment)
	}
}

// TestImplicitCastsAgainstPostgreSQL checks implicitCasts, which decides
// the overloads a call may run, against PostgreSQL's pg_cast: every
// implicit cast between the types it knows must be in it, or an overload
// PostgreSQL picks would be left out of the calls checked.
func TestImplicitCastsAgainstPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var known []string
	for k := range implicitCasts {
		known = append(known, k)
	}
	rows, err := pool.Query(ctx, `select s.typname, t.typname from pg_cast c
		join pg_type s on s.oid = c.castsource join pg_type t on t.oid = c.casttarget
		where c.castcontext = 'i' and s.typname = any($1) and t.typname = any($1) and s.oid <> t.oid`, known)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var from, to string
		if err := rows.Scan(&from, &to); err != nil {
			t.Fatal(err)
		}
		n++
		if !slices.Contains(implicitCasts[from], to) {
			t.Errorf("PostgreSQL casts %s to %s implicitly; implicitCasts does not", from, to)
		}
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 20 {
		t.Errorf("only %d implicit casts read from pg_cast", n)
	}
}
