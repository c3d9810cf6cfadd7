package analyze

import (
	"strings"
	"testing"
)

// soundSchema has fenced table accounts, a table without a mark, a view
// over each,
// and functions whose bodies fencegen cannot read in full.
const soundSchema = `
create table accounts (id bigint primary key, tok bigint not null default 0);
comment on column accounts.tok is 'fencegen:token';
create table audit (id bigint primary key);
create view audit_v as select id from audit; create view accounts_v as select id, tok from accounts;
create function dyn(t text) returns void language plpgsql as $$ begin execute format('delete from %I', t); end $$;
create function calc(x int) returns int language plpgsql as $$ begin return x + 1; end $$;
create function cfun(x int) returns int language c as 'lib', 'cfun';
create function py(x int) returns int language plpython3u as $$ return x $$;
create function via_dyn() returns void language sql as $$ select dyn('accounts') $$;
create procedure p_dyn() language plpgsql as $$ begin execute 'truncate accounts'; end $$;
`

// TestSoundStatementKinds checks that, while the schema has a fenced table,
// every statement kind that may write one is refused at the statement with
// the reason, and the statements that cannot write pass.
func TestSoundStatementKinds(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  string // "" when accepted
	}{
		{"DO $$ begin update accounts set tok = 0; end $$", "runs UPDATE on fenced table accounts inside a DO block"},
		{"DO $$ begin execute 'update ' || 'accounts set tok = 0'; end $$", "runs a DO block where runs dynamic SQL"},
		{"DO LANGUAGE plpython3u $$ plpy.execute('select 1') $$", "runs a DO block"},
		{"EXECUTE some_plan(1)", "EXECUTEs a prepared statement"},
		{"COPY (update accounts set id = id returning id) TO STDOUT", "runs UPDATE on fenced table accounts inside COPY (query) TO"},
		{"EXPLAIN ANALYZE delete from accounts", "runs DELETE on fenced table accounts inside EXPLAIN ANALYZE"},
		{"CREATE TEMP TABLE x AS SELECT dyn('accounts')", "dynamic SQL"},
		{"CLUSTER nosuch", "statement (CLUSTER, PostgreSQL's ClusterStmt)"},
		// VACUUM and ANALYZE change no row (TestSoundAgainstPostgreSQL
		// has those whose index expressions write); of a relation the
		// schema lacks, unanalysed.
		{"VACUUM accounts", ""},
		{"CLUSTER accounts", ""},
		{"VACUUM nosuch", "statement (VACUUM, PostgreSQL's VacuumStmt)"},
		{"REFRESH MATERIALIZED VIEW mv", "refreshes materialized view mv, which the schema does not define"},
		{"SELECT dyn('accounts')", "dynamic SQL (EXECUTE)"},
		{"SELECT via_dyn()", "through dyn()"},
		{"CALL p_dyn()", "CALLs procedure p_dyn()"},
		{"SELECT cfun(1)", "LANGUAGE c"},
		{"SELECT py(1)", "LANGUAGE plpython3u"},
		{"MERGE INTO audit a USING (select 1 as id) s ON a.id = s.id WHEN NOT MATCHED THEN INSERT VALUES (s.id + dyn('x')::text::int)", "dynamic SQL"},
		{"MERGE INTO accounts_v a USING (select 1 as id) s ON a.id = s.id WHEN MATCHED THEN DELETE", "runs MERGE on view accounts_v, which PostgreSQL turns into MERGE on fenced table accounts"},
		{"TRUNCATE accounts", "TRUNCATE of fenced table accounts"},
		{"UPDATE accounts_v SET id = 1", "runs UPDATE on view accounts_v, which PostgreSQL turns into UPDATE on fenced table accounts"},
		{"WITH w AS (DELETE FROM accounts_v RETURNING id) SELECT id FROM w", "runs DELETE on view accounts_v in WITH entry w, which PostgreSQL turns into DELETE on fenced table accounts"},
		{"SELECT dblink_exec('dbname=x', 'delete from accounts')", `query.sql:2:8: query Q calls dblink_exec(), which runs SQL on another connection`},
		// Cannot write.
		{"SET search_path TO public", ""},
		{"SHOW search_path", ""},
		{"NOTIFY chan, 'x'", ""},
		{"LOCK TABLE audit", ""},
		{"SELECT calc(1)", ""},
		{"COPY (select 1) TO STDOUT", ""},
		{"EXPLAIN delete from accounts", ""},
		{"MERGE INTO audit a USING (select 1 as id) s ON a.id = s.id WHEN MATCHED THEN DELETE", ""},
		// A view's writes are those of its base table (automatically
		// updatable): audit is not fenced. COPY FROM never writes a
		// view's base table (PostgreSQL runs only an INSTEAD OF INSERT
		// trigger).
		{"MERGE INTO audit_v a USING (select 1 as id) s ON a.id = s.id WHEN MATCHED THEN DELETE", ""},
		{"UPDATE audit_v SET id = 1", ""},
		{"COPY audit_v FROM STDIN", ""},
		{"COPY accounts_v FROM STDIN", ""},
		// Names are read from the parse tree, which decodes Unicode
		// escapes: this is the plain view audit_v.
		{`SELECT id FROM U&"audit\005Fv"`, ""},
	} {
		_, msgs := analyzeSrc(t, soundSchema, "-- name: Q :exec\n"+tc.query+";\n")
		switch {
		case tc.want == "" && len(msgs) > 0:
			t.Errorf("%s: refused: %q", tc.query, msgs)
		case tc.want != "" && (len(msgs) == 0 || !strings.Contains(msgs[0], tc.want) || !strings.HasPrefix(msgs[0], "query.sql:2:")):
			t.Errorf("%s: got %q, want a refusal at query.sql:2 saying %q", tc.query, msgs, tc.want)
		}
		if tc.want != "" {
			// The opt-out lets it pass, listing every fenced table.
			files, msgs := analyzeSrc(t, soundSchema, "-- name: Q :exec\n-- @fence off: test\n"+tc.query+";\n")
			if len(msgs) > 0 {
				t.Errorf("%s with @fence off: %q", tc.query, msgs)
			} else if q := files[0].Queries[0]; q.OptOut == nil || len(q.OptOut.Tables) == 0 {
				t.Errorf("%s with @fence off: no opt-out recorded", tc.query)
			}
		}
	}
}

// TestSoundNoFencedTable checks sqlc parity: without a fenced table none
// of these statements is refused.
func TestSoundNoFencedTable(t *testing.T) {
	schema := strings.Replace(soundSchema, "comment on column accounts.tok is 'fencegen:token';", "", 1)
	for _, q := range []string{
		"DO $$ begin update accounts set tok = 0; end $$",
		"EXECUTE some_plan(1)",
		"SELECT dyn('accounts')",
		"CALL p_dyn()",
		"SELECT cfun(1)",
		"REFRESH MATERIALIZED VIEW mv",
		"MERGE INTO audit_v a USING (select 1 as id) s ON a.id = s.id WHEN MATCHED THEN DELETE",
	} {
		if _, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+q+";\n"); len(msgs) > 0 {
			t.Errorf("%s: refused without a fenced table: %q", q, msgs)
		}
	}
}

// TestSoundTriggersAndRules checks that a write whose table's triggers or
// rules may write a fenced table is refused at the write, and that
// harmless triggers and rules pass.
func TestSoundTriggersAndRules(t *testing.T) {
	const schema = soundSchema + `
create table orders (id bigint primary key, n int);
create table notes (id bigint primary key);
create table logs (id bigint primary key);
create function touch() returns trigger language plpgsql as $$ begin new.n = 1; return new; end $$;
create function bump() returns trigger language plpgsql as $$ begin update accounts set id = id where id = new.id; return new; end $$;
create function anydyn() returns trigger language plpgsql as $$ begin execute format('select %s', 1); return new; end $$;
create function logit() returns trigger language plpgsql as $$ begin insert into logs values (new.id); return new; end $$;
create trigger orders_touch before insert or update on orders for each row execute function touch();
create trigger orders_bump after update on orders for each row execute function bump();
create trigger orders_dyn after delete on orders for each row execute function anydyn();
create trigger notes_log after insert on notes for each row execute function logit();
create rule notes_del as on delete to notes do also delete from accounts where id = old.id;
create rule logs_upd as on update to logs do also update audit set id = old.id;
create rule audit_ins as on insert to audit do instead delete from notes where id = new.id;
`
	for _, tc := range []struct{ query, want string }{
		{"update orders set n = 2 where id = 1", "fires trigger orders_bump (schema.sql:"},
		{"delete from orders where id = 1", "whose function anydyn() may write a fenced table: its body runs dynamic SQL"},
		{"delete from notes where id = 1", "whose rule notes_del (schema.sql:"},
		// audit's rule deletes from notes, whose rule deletes from accounts.
		{"insert into audit values (1)", "whose rule audit_ins (schema.sql:26), through DELETE on notes → rule notes_del on notes (schema.sql:24), also runs DELETE on fenced table accounts"},
		// Harmless: touch() writes no table; logit() writes logs, which is
		// not fenced; logs_upd writes audit, which has no UPDATE rule.
		{"insert into orders values (1, 1)", ""},
		{"insert into notes values (1)", ""},
		{"update logs set id = 2 where id = 1", ""},
	} {
		_, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+tc.query+";\n")
		switch {
		case tc.want == "" && len(msgs) > 0:
			t.Errorf("%s: refused: %q", tc.query, msgs)
		case tc.want != "" && (len(msgs) == 0 || !strings.Contains(msgs[0], tc.want) || !strings.HasPrefix(msgs[0], "query.sql:2:")):
			t.Errorf("%s: got %q, want a refusal at query.sql:2 saying %q", tc.query, msgs, tc.want)
		}
	}
}

// A query that names session_replication_role, which set to replica stops
// the guard trigger for the rest of the session, gets a note at the name
// while the schema has a fenced table, and none without one.
func TestSoundNotesReplicationRole(t *testing.T) {
	const queries = "-- name: Off :exec\nSET session_replication_role = replica;\n\n-- name: Cfg :exec\nSELECT set_config('session_replication_role', 'replica', false);\n\n-- name: Read :one\nSELECT current_setting('session_replication_role');\n"
	files, errs := analyzeSrc(t, soundSchema, queries)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for i, want := range []string{"query.sql:2:1: note: query Off sets session_replication_role", "query.sql:5:8: note: query Cfg sets session_replication_role"} {
		if n := files[0].Queries[i].Notes; len(n) != 1 || !strings.HasPrefix(n[0], want) {
			t.Errorf("notes = %q, want one starting %q", n, want)
		}
	}
	if n := files[0].Queries[2].Notes; len(n) != 0 {
		t.Errorf("reading the setting: %q, want no note", n)
	}
	unfenced := strings.Replace(soundSchema, "comment on column accounts.tok is 'fencegen:token';", "", 1)
	files, _ = analyzeSrc(t, unfenced, queries)
	for _, q := range files[0].Queries {
		if len(q.Notes) > 0 {
			t.Errorf("without a fenced table: %q", q.Notes)
		}
	}
}

// The note reads the parse tree: a function that sets
// session_replication_role in its body (through another function too) and
// a DO block that sets it get it, at the call or the statement; a string
// that spells the statement does not.
func TestSoundNotesReplicationRoleInBodies(t *testing.T) {
	schema := soundSchema + `
create function off_inner() returns void language plpgsql as $$ begin perform set_config('session_replication_role', 'replica', true); end $$;
create function off_outer() returns void language sql as $$ select off_inner() $$;
create function says() returns text language sql as $$ select 'set session_replication_role = replica' $$;
`
	const queries = "-- name: Outer :exec\nSELECT off_outer();\n\n-- name: Do :exec\nDO $$ BEGIN SET LOCAL session_replication_role = replica; END $$;\n\n-- name: Says :one\nSELECT says();\n\n-- name: Str :one\nSELECT 'SET session_replication_role = replica'::text;\n"
	files, errs := analyzeSrc(t, schema, queries)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	for i, want := range []string{"query.sql:2:8: note: query Outer sets session_replication_role (in the body of off_outer())", "query.sql:5:1: note: query Do sets session_replication_role"} {
		if n := files[0].Queries[i].Notes; len(n) != 1 || !strings.HasPrefix(n[0], want) {
			t.Errorf("notes = %q, want one starting %q", n, want)
		}
	}
	for _, q := range files[0].Queries[2:] {
		if len(q.Notes) != 0 {
			t.Errorf("%s: %q, want no note", q.Name, q.Notes)
		}
	}
}

// SQL-standard bodies (BEGIN ATOMIC ... END, RETURN expr) in a schema are
// parsed as PostgreSQL parses them, whatever they hold (CASE ... END, a
// string 'end;', several statements, none, a WITH), and read for writes as
// their statements: a write of a fenced table in one is refused at the
// call, the others pass (a trial found them a syntax error).
func TestSoundAtomicBodies(t *testing.T) {
	const schema = soundSchema + `
create table logs (a int);
CREATE FUNCTION f1(a int) RETURNS int
    LANGUAGE sql
    IMMUTABLE
    BEGIN ATOMIC
        SELECT CASE WHEN a > 0 THEN a ELSE 0 END;
    END;
CREATE OR REPLACE FUNCTION f2(a int) RETURNS TABLE (x int)
LANGUAGE sql
BEGIN ATOMIC
  SELECT 1 WHERE a = 1;
  SELECT ('a;b'::text = 'end;')::int;
  INSERT INTO logs VALUES (a);
END;
CREATE FUNCTION f3() RETURNS int LANGUAGE sql BEGIN ATOMIC; END;
CREATE FUNCTION f4() RETURNS int LANGUAGE sql
BEGIN ATOMIC
  WITH x AS (SELECT 1 AS y) SELECT y FROM x;
END
;
CREATE FUNCTION f5(a int) RETURNS int LANGUAGE sql RETURN a + 1;
CREATE PROCEDURE p_fenced(a bigint)
LANGUAGE sql
BEGIN ATOMIC
  SELECT 'update accounts';
  UPDATE accounts SET tok = tok WHERE id = a;
END;
`
	for _, tc := range []struct{ query, want string }{
		{"select f1(1)", ""},
		{"select * from f2(1)", ""},
		{"select f3()", ""},
		{"select f4()", ""},
		{"select f5(1)", ""},
		{"call p_fenced(1)", "CALLs procedure p_fenced() (schema.sql:"},
	} {
		_, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+tc.query+";\n")
		switch {
		case tc.want == "" && len(msgs) > 0:
			t.Errorf("%s: refused: %q", tc.query, msgs)
		case tc.want != "" && (len(msgs) == 0 || !strings.Contains(msgs[0], tc.want) || !strings.Contains(msgs[0], "runs UPDATE on fenced table accounts")):
			t.Errorf("%s: got %q, want a refusal saying %q", tc.query, msgs, tc.want)
		}
	}
}

// What a query sets off through the views, domains and operators it
// names is found from the names of its parse tree (writes.Names), not its
// text: a view whose query calls a writing function is refused however
// its name is written (quoted, Unicode-escaped), and a comment or a
// string that spells the name is none.
func TestSoundHooksReadFromTheTree(t *testing.T) {
	const schema = soundSchema + `
create view wv as select id, dyn('accounts') as d from audit;
create function bump_dom(x int) returns boolean language plpgsql as $$ begin update accounts set tok = tok; return true; end $$;
create domain bumped as int check (bump_dom(value));
`
	for _, tc := range []struct{ query, want string }{
		{"select id from wv", "uses view wv (schema.sql:"},
		{`select id from "wv"`, "uses view wv (schema.sql:"},
		{`select id from U&"w\0076"`, "uses view wv (schema.sql:"},
		{"select 1::bumped", "domain bumped (schema.sql:"},
		{"select 1 /* from wv */", ""},
		{"select 'wv'::text", ""},
		{"select 'select 1::bumped'::text", ""},
	} {
		_, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+tc.query+";\n")
		switch {
		case tc.want == "" && len(msgs) > 0:
			t.Errorf("%s: refused: %q", tc.query, msgs)
		case tc.want != "" && (len(msgs) == 0 || !strings.Contains(msgs[0], tc.want)):
			t.Errorf("%s: got %q, want a refusal saying %q", tc.query, msgs, tc.want)
		}
	}
}

// A rule's actions are read as their whole parse trees (catalog.Rule.Raw,
// writes.OfTree): a view read in an action, whose query calls a writing
// function, is followed, as are the action's writes and calls, and a
// NOTIFY, which writes nothing, passes (it was refused as a command not
// analysed).
func TestSoundRuleActionsReadFromTheTree(t *testing.T) {
	const schema = soundSchema + `
create table notes (id bigint primary key);
create table logs (id bigint primary key);
create view wv as select id, dyn('accounts') as d from audit;
create rule notes_copy as on insert to notes do also insert into logs select id from wv;
create rule logs_del as on delete to logs do also delete from accounts where id = old.id;
create rule logs_ok as on update to logs do also notify logs_changed;
`
	for _, tc := range []struct{ query, want string }{
		{"insert into notes values (1)", "whose rule notes_copy (schema.sql:16), through view wv (schema.sql:15) → dyn(), may write a fenced table"},
		{"delete from logs where id = 1", "whose rule logs_del (schema.sql:17) also runs DELETE on fenced table accounts"},
		{"update logs set id = 2 where id = 1", ""},
	} {
		_, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+tc.query+";\n")
		switch {
		case tc.want == "" && len(msgs) > 0:
			t.Errorf("%s: refused: %q", tc.query, msgs)
		case tc.want != "" && (len(msgs) == 0 || !strings.Contains(msgs[0], tc.want)):
			t.Errorf("%s: got %q, want a refusal saying %q", tc.query, msgs, tc.want)
		}
	}
}

// A call in a statement PostgreSQL plans but does not run (EXPLAIN
// without ANALYZE) is not refused when the function is VOLATILE, which
// the planner never evaluates; a STABLE or IMMUTABLE one may be
// evaluated while planning and call a writer, so it is refused as if run,
// and so is every call under EXPLAIN ANALYZE, and under PREPARE, whose
// statement runs whenever the session executes its name (a driver's
// cached statement of that name included, trial t24f).
func TestSoundPlannedCallsOfVolatileFunctions(t *testing.T) {
	const schema = soundSchema + `
create function st() returns int stable language sql as $$ select 1 from (select dyn('accounts')) x $$;
create function dflt(x int default st()) returns int language sql as $$ select x $$;
`
	for _, tc := range []struct{ query, want string }{
		{"EXPLAIN SELECT dyn('accounts')", ""},
		{"PREPARE p1 AS SELECT dyn('accounts')", "dynamic SQL"},
		{"EXPLAIN ANALYZE SELECT dyn('accounts')", "dynamic SQL"},
		{"EXPLAIN SELECT st()", "through dyn()"},
		{"EXPLAIN SELECT dflt()", "a parameter DEFAULT of dflt()"},
		{"SELECT dyn('accounts')", "dynamic SQL"},
	} {
		_, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+tc.query+";\n")
		switch {
		case tc.want == "" && len(msgs) > 0:
			t.Errorf("%s: refused: %q", tc.query, msgs)
		case tc.want != "" && (len(msgs) == 0 || !strings.Contains(msgs[0], tc.want)):
			t.Errorf("%s: got %q, want a refusal saying %q", tc.query, msgs, tc.want)
		}
	}
}

// A SELECT entry of a WITH list that no part of the statement refers to
// is not run by PostgreSQL: a call there of a VOLATILE function is not
// refused; a referenced one, or one referenced from another entry, is.
func TestSoundUnreferencedWithEntry(t *testing.T) {
	for _, tc := range []struct{ query, want string }{
		{"WITH x AS (SELECT dyn('accounts')) SELECT 1", ""},
		{"WITH x AS MATERIALIZED (SELECT dyn('accounts')) SELECT 1", ""},
		{"WITH x AS (SELECT dyn('accounts')) SELECT * FROM x", "dynamic SQL"},
		{"WITH x AS (SELECT dyn('accounts')), y AS (SELECT * FROM x) SELECT * FROM y", "dynamic SQL"},
		{"WITH x AS (SELECT dyn('accounts')) SELECT (SELECT count(*) FROM x)", "dynamic SQL"},
	} {
		_, msgs := analyzeSrc(t, soundSchema, "-- name: Q :exec\n"+tc.query+";\n")
		switch {
		case tc.want == "" && len(msgs) > 0:
			t.Errorf("%s: refused: %q", tc.query, msgs)
		case tc.want != "" && (len(msgs) == 0 || !strings.Contains(msgs[0], tc.want)):
			t.Errorf("%s: got %q, want a refusal saying %q", tc.query, msgs, tc.want)
		}
	}
}

// A column DEFAULT runs only for a column a write gives no value (an
// INSERT's columns not listed, or DEFAULT written): an UPDATE without
// DEFAULT, or an INSERT that lists the column, does not run it, while
// CHECKs and generated columns still run on every INSERT and UPDATE; a
// view's default (ALTER VIEW ... SET DEFAULT) the same. An UPDATE that
// assigns a referenced column its own value (SET id = id) does not set
// off the ON UPDATE action of a foreign key to it (issue 24 §1 precision).
func TestSoundDefaultsAndUnchangedKeys(t *testing.T) {
	const schema = soundSchema + `
create function wr() returns int language plpgsql as $$ begin update accounts set tok = 0; return 1; end $$;
create table stamps (id bigint primary key, v int default wr(), w int);
create table checked (id bigint primary key, v int check (v < wr()));
create table genned (id bigint primary key, v int, g int generated always as (v + wr()) stored);
create table later (id bigint primary key, v int, w int);
alter table later alter column v set default wr();
create view stamps_v as select id, w from stamps;
alter view stamps_v alter column w set default wr();
create table parents (id bigint primary key, n int);
create table kids (id bigint primary key, parent_id bigint references parents (id) on update cascade, tok bigint not null default 0);
comment on column kids.tok is 'fencegen:token';
`
	for _, tc := range []struct{ query, want string }{
		{"update stamps set w = 1 where id = 1", ""},
		{"update stamps set v = 1 where id = 1", ""},
		{"update stamps set v = default where id = 1", "defaults, CHECKs or generated columns of stamps"},
		{"update stamps set (w, v) = (1, default) where id = 1", "defaults, CHECKs or generated columns of stamps"},
		{"insert into stamps (id, v) values (1, 2)", ""},
		{"insert into stamps (id, v) values (1, default)", "defaults, CHECKs or generated columns of stamps"},
		{"insert into stamps (id, w) values (1, 2)", "defaults, CHECKs or generated columns of stamps"},
		{"insert into stamps values (1, 2, 3)", "defaults, CHECKs or generated columns of stamps"},
		{"insert into stamps (id, v) select 1, 2 on conflict (id) do update set w = 3", ""},
		{"insert into stamps (id, v) values (1, 2) on conflict (id) do update set w = default", "defaults, CHECKs or generated columns of stamps"},
		{"with x as (update stamps set w = 1 returning id) select * from x", ""},
		{"merge into stamps s using (select 1 as id) x on s.id = x.id when matched then update set w = 1", ""},
		{"merge into stamps s using (select 1 as id) x on s.id = x.id when not matched then insert (id, v) values (x.id, 1)", "defaults, CHECKs or generated columns of stamps"},
		{"update checked set v = 1 where id = 1", "defaults, CHECKs or generated columns of checked"},
		{"update genned set v = 1 where id = 1", "defaults, CHECKs or generated columns of genned"},
		{"update later set w = 1 where id = 1", ""},
		{"insert into later (id, w) values (1, 2)", "defaults, CHECKs or generated columns of later"},
		{"update stamps_v set w = 1 where id = 1", ""},
		{"update stamps_v set w = default where id = 1", "defaults, CHECKs or generated columns of stamps_v"},
		{"insert into stamps_v (id) values (1)", "defaults, CHECKs or generated columns of stamps"},
		{"update parents set id = id where id = 1", ""},
		{"update parents p set id = p.id, n = 2 where id = 1", ""},
		{"with x as (update parents set id = id returning id) select * from x", ""},
		{"update parents set id = id + 0 where id = 1", ""},
		{"update parents set id = id - 0 where id = 1", ""},
		{"update parents set id = id + 1 where id = 1", "reaches fenced table kids through foreign keys"},
		{"update parents set id = id - 1 where id = 1", "reaches fenced table kids through foreign keys"},
		{"update parents set id = id + 0.0 where id = 1", "reaches fenced table kids through foreign keys"},
		{"update parents set id = n where id = 1", "reaches fenced table kids through foreign keys"},
		{"merge into parents p using (select 1 as id) x on p.id = x.id when matched then update set id = p.id", ""},
		{"merge into parents p using (select 1 as id) x on p.id = x.id when matched then update set id = x.id", "reaches fenced table kids through foreign keys"},
	} {
		_, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+tc.query+";\n")
		switch {
		case tc.want == "" && len(msgs) > 0:
			t.Errorf("%s: refused: %q", tc.query, msgs)
		case tc.want != "" && (len(msgs) == 0 || !strings.Contains(strings.Join(msgs, "\n"), tc.want)):
			t.Errorf("%s: got %q, want a refusal saying %q", tc.query, msgs, tc.want)
		}
	}
}

// The target list of an EXISTS subquery is thrown away by PostgreSQL's
// planner (simplify_EXISTS_query) unless an aggregate or a set-returning
// function keeps it: a VOLATILE call there is not refused; an aggregate,
// a SETOF function or a builtin of any kind beside it, a clause that
// keeps the list (HAVING, OFFSET, a LIMIT but a positive constant, a set
// operation, grouping sets, a window, a locking clause) or a call
// elsewhere in the subquery is. DISTINCT, ORDER BY, GROUP BY, a
// non-modifying WITH and a subquery in the list do not keep it (issue 24).
func TestSoundExistsTargetList(t *testing.T) {
	const schema = soundSchema + `
create function wr() returns int language plpgsql as $$ begin update accounts set tok = 0; return 1; end $$;
create function wrs() returns setof int language sql as $$ update accounts set tok = 0 returning 1 $$;
create aggregate wagg(int) (sfunc = int4pl, stype = int);
`
	for _, tc := range []struct{ query, want string }{
		{"SELECT 1 WHERE EXISTS (SELECT wr())", ""},
		{"SELECT EXISTS (SELECT wr(), $1::int FROM audit WHERE id = 1)", ""},
		{"SELECT 1 WHERE NOT EXISTS (SELECT wr() FROM audit a WHERE a.id > 0)", ""},
		{"SELECT 1 WHERE EXISTS (SELECT wr() FROM audit WHERE id = wr())", "calls function wr()"},
		{"SELECT 1 WHERE EXISTS (SELECT wrs())", "calls function wrs()"},
		{"SELECT 1 WHERE EXISTS (SELECT wr(), wrs())", "calls function wr()"},
		{"SELECT 1 WHERE EXISTS (SELECT wr(), count(*))", "calls function wr()"},
		{"SELECT 1 WHERE EXISTS (SELECT wr(), wagg(1))", "calls function wr()"},
		{"SELECT 1 WHERE EXISTS (SELECT wr(), generate_series(1, 2))", "calls function wr()"},
		{"SELECT 1 WHERE EXISTS (SELECT wr() + 1)", "calls function wr()"},
		{"SELECT 1 WHERE EXISTS (SELECT (SELECT wr()))", ""},
		{"SELECT 1 WHERE EXISTS (SELECT (SELECT wr() + count(a.id)) FROM audit a)", "calls function wr()"},
		{"SELECT 1 WHERE EXISTS (SELECT ROW(wr(), 1))", ""},
		{"SELECT 1 WHERE EXISTS (SELECT wr() ORDER BY 1)", ""},
		{"SELECT 1 WHERE EXISTS (SELECT 1 FROM audit ORDER BY wr())", ""},
		{"SELECT 1 WHERE EXISTS (SELECT 1 FROM audit ORDER BY count(*))", ""},
		{"SELECT 1 WHERE EXISTS (SELECT wr() FROM audit ORDER BY count(*))", "calls function wr()"},
		{"SELECT 1 WHERE EXISTS (SELECT DISTINCT wr())", ""},
		{"SELECT 1 WHERE EXISTS (SELECT DISTINCT ON (wr()) id FROM audit)", ""},
		{"SELECT 1 WHERE EXISTS (WITH x AS (SELECT 1 AS v) SELECT wr() FROM x)", ""},
		{"SELECT 1 WHERE EXISTS (WITH x AS (SELECT wr() AS v) SELECT 1 FROM x)", "calls function wr()"},
		{"SELECT 1 WHERE EXISTS (SELECT wr() LIMIT 1)", ""},
		{"SELECT 1 WHERE EXISTS (SELECT wr() LIMIT ALL)", ""},
		// LIMIT 0: nothing under it runs (TestPrecisionAgainstPostgreSQL).
		{"SELECT 1 WHERE EXISTS (SELECT wr() LIMIT 0)", ""},
		{"SELECT 1 WHERE EXISTS (SELECT wr() LIMIT $1)", "calls function wr()"},
		{"SELECT 1 WHERE EXISTS (SELECT wr() OFFSET 0)", "calls function wr()"},
		{"SELECT 1 WHERE EXISTS (SELECT wr() FROM audit GROUP BY id)", ""},
		{"SELECT 1 WHERE EXISTS (SELECT wr() FROM audit GROUP BY ROLLUP (id))", "calls function wr()"},
		{"SELECT 1 WHERE EXISTS (SELECT wr() FROM audit HAVING true)", "calls function wr()"},
		{"SELECT 1 WHERE EXISTS (SELECT wr() FROM audit FOR UPDATE)", "calls function wr()"},
		{"SELECT 1 WHERE EXISTS (SELECT a.id, id, wr() FROM audit a)", "calls function wr()"},
		{"SELECT 1 WHERE EXISTS (SELECT wr() UNION SELECT 1)", "calls function wr()"},
		{"SELECT 1 WHERE EXISTS (SELECT wr(), a.id FROM audit a)", "calls function wr()"},
		{"SELECT 1 WHERE EXISTS (SELECT wr(), id FROM audit)", ""},
		{"SELECT 1 WHERE 1 IN (SELECT wr())", "calls function wr()"},
		{"SELECT (SELECT wr())", "calls function wr()"},
	} {
		_, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+tc.query+";\n")
		switch {
		case tc.want == "" && len(msgs) > 0:
			t.Errorf("%s: refused: %q", tc.query, msgs)
		case tc.want != "" && (len(msgs) == 0 || !strings.Contains(strings.Join(msgs, "\n"), tc.want)):
			t.Errorf("%s: got %q, want a refusal saying %q", tc.query, msgs, tc.want)
		}
	}
}
