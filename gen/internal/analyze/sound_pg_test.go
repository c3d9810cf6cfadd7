package analyze

import (
	"context"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/internal/testenv"
)

// pgJobs is a fenced table jobs (token tok), its parent table parents and
// a table logs without a mark, seeded by pgSeed.
const (
	pgJobs = "create table parents (id bigint primary key, v int);\ninsert into parents values (1, 1);\n" +
		"create table jobs (id bigint primary key, k int, parent_id bigint, tok bigint not null default 0);\n" +
		"comment on column jobs.tok is 'fencegen:token';\n" +
		"create table logs (id bigint primary key, n int);\n"
	pgSeed = "insert into jobs (id, k, parent_id, tok) values (1, 1, 1, 5); insert into logs values (1, 1);"
	// pgWJ is a PL/pgSQL function that updates fenced table jobs, in the
	// four shapes a trigger, a CHECK, a default and an operator call.
	// pgWV is a volatile writer that the immutable functions of index
	// expressions and generated columns call (PostgreSQL refuses an
	// UPDATE in a non-volatile function's own body, not in a volatile
	// function it calls).
	pgWV = "create function wv(x int) returns int language plpgsql as $$ begin update jobs set k = k + 1; return 1; end $$;\n"
	// pgToSecs is a read-only helper whose regex has a backslash that
	// escapes no quote (hatchet's convert_duration_to_interval, trial x23
	// F2).
	pgToSecs    = "create function to_secs(d text) returns double precision language plpgsql immutable parallel safe as $$ begin return (regexp_match(d, '^([0-9]+(?:\\.[0-9]*)?)s$'))[1]::double precision; end $$;\n"
	pgWJTrigger = "create function wj() returns trigger language plpgsql as $$ begin update jobs set k = k + 1; return new; end $$;\n"
	// pgWLogs is a writer of one argument of composite type logs, which
	// x.wl calls in attribute notation; pgWDom a domain whose CHECK
	// calls a writer.
	pgWLogs = "create function wl(l logs) returns int language plpgsql as $$ begin update jobs set k = k + 1; return 1; end $$;\n"
	// pgCastMood is an assignment cast int -> mood whose function
	// writes jobs, and a table moods of a mood column.
	pgCastMood = "create type mood as enum ('a', 'b');\ncreate table moods (id bigint primary key, m mood);\ncreate function int2mood(i int) returns mood language plpgsql as $$ begin update jobs set k = k + 1; return 'a'; end $$;\ncreate cast (int as mood) with function int2mood(int) as assignment;\n"
	// pgPick is pick(int), harmless, and pick(bigint), which writes jobs.
	pgPick = "create function pick(x int) returns int language sql as $$ select x $$;\ncreate function pick(x bigint) returns bigint language plpgsql as $$ begin update jobs set k = k + 1; return x; end $$;\n"
	// pgOver is ov(a int), which writes jobs, and ov(b text), harmless.
	pgOver = "create function ov(a int) returns int language plpgsql as $$ begin update jobs set k = k + 1; return 1; end $$;\ncreate function ov(b text) returns int language sql as $$ select 2 $$;\n"
	// pgWA is a table w without a mark, of columns a and b, one row.
	pgWA = "create table w (id bigint primary key, a int, b int);\ninsert into w values (1, 1, 1);\n"
	// pgRange is a range type frange whose subtype_diff calls the writer
	// wv (pgWV), and tables slots and dslots of an frange column (dslots:
	// of a domain over it) under a GiST index with inner pages, where an
	// insert of a range wider than every entry calls it (penalty) for
	// each entry of the pages it descends (trial N14).
	pgRange = "create function fdiff(a float8, b float8) returns float8 language plpgsql immutable as $$ begin perform wv(1); return a - b; end $$;\ncreate type frange as range (subtype = float8, subtype_diff = fdiff);\ncreate domain frange_d as frange;\ncreate table slots (id bigint primary key, r frange);\ncreate index slots_r on slots using gist (r);\ninsert into slots select g, frange(g, g + 3) from generate_series(1, 600) g;\ncreate table dslots (id bigint primary key, r frange_d);\ncreate index dslots_r on dslots using gist (r);\ninsert into dslots select g, frange(g, g + 3) from generate_series(1, 600) g;\n"
	pgWDom  = "create function wdom(x int) returns bool language plpgsql as $$ begin update jobs set k = k + 1; return true; end $$;\ncreate domain d as int check (wdom(value));\n"
)

// soundPGCase is a statement under a schema and fencegen's verdict on it.
type soundPGCase struct {
	name, schema, query string
	// want is "refused" or "plain" (accepted without the guard).
	want string
	// conservative, for a refusal, says why fencegen refuses a statement
	// that PostgreSQL, on these rows, runs without writing jobs.
	conservative string
	// asRole runs the query as a role without superuser rights (row-level
	// security does not apply to superusers).
	asRole bool
	// noPG says why PostgreSQL cannot judge the case in the test's
	// transaction; only fencegen's verdict is checked.
	noPG string
	// off runs the query with standard_conforming_strings off (a
	// database's, role's or session's setting fencegen does not see).
	off bool
	// then is a statement a later query of the connection runs, after
	// the query, as a role without superuser rights that does not own
	// the table (a query that switches row-level security on for it).
	then string
}

// soundPGCases are write shapes PostgreSQL runs without a query naming the
// fenced table: a plan (TestExplainSound) does not show them. Each is
// judged by PostgreSQL itself: run as written on seeded rows, in a
// transaction rolled back, it changes fenced table jobs exactly when
// fencegen must refuse it.
var soundPGCases = []soundPGCase{
	// Trial t24 F10: a backslash in an ordinary string constant reads
	// otherwise with standard_conforming_strings off.
	{name: "backslash before a quote, read with standard_conforming_strings off", schema: pgJobs + pgWV, query: "select 'a\\' , ' , wv(1) , ' -- '\n", want: "refused", off: true},
	{name: "backslash before a quote, read with standard_conforming_strings on", schema: pgJobs + pgWV, query: "select 'a\\' , ' , wv(1) , ' -- '\n", want: "refused",
		conservative: "with standard_conforming_strings off (a database or role setting fencegen cannot see) it calls wv(1), which writes"},
	{name: "backslash in an escape string, read with standard_conforming_strings off", schema: pgJobs + pgWV, query: "select E'a\\\\' , ' , wv(1) , ' -- '\n", want: "plain", off: true},
	{name: "function body with a backslash before a quote, run with standard_conforming_strings off", schema: pgJobs + "create function labels() returns void language plpgsql as $f$ begin perform 'a\\' , ' ; update jobs set k = k + 1 ; perform 1 , ' ; -- ' ;\nend $f$;\n", query: "select labels()", want: "refused", off: true},
	// Trial x23 F2: a backslash that escapes no quote changes a
	// constant's value only; the body is read under both settings.
	{name: "SQL function body with a backslash in a constant, run with standard_conforming_strings on", schema: pgJobs + "create function re(x text) returns bool language sql as $f$ select x ~ '\\d' $f$;\n", query: "select re('1')", want: "plain"},
	{name: "SQL function body with a backslash in a constant, run with standard_conforming_strings off", schema: pgJobs + "create function re(x text) returns bool language sql as $f$ select x ~ '\\d' $f$;\n", query: "select re('1')", want: "plain", off: true},
	{name: "immutable PL/pgSQL helper with a regex escape, on", schema: pgJobs + pgToSecs, query: "select id from logs where to_secs('2.5s') > 1", want: "plain"},
	{name: "immutable PL/pgSQL helper with a regex escape, off", schema: pgJobs + pgToSecs, query: "select id from logs where to_secs('2.5s') > 1", want: "plain", off: true},
	{name: "PL/pgSQL function with escapes in a read-only constant EXECUTE, off", schema: pgJobs + "create function ex() returns int language plpgsql as $f$ declare n int; begin execute 'select count(*) from logs where ''a.b'' ~ ''a\\.b\\s*''' into n; return n; end $f$;\n", query: "select ex()", want: "plain", off: true},
	{name: "SQL function body with a backslash before a quote, run with standard_conforming_strings off", schema: pgJobs + "create function sneaky() returns text language sql as $f$ select 'a\\' || '; update jobs set k = k + 1; select ' as z --'\n$f$;\n", query: "select sneaky()", want: "refused", off: true},
	{name: "escape string EXECUTE whose command has a backslash before a quote, off", schema: pgJobs + "create function ee() returns void language plpgsql as $f$ begin execute E'select ''a\\\\'' || ''; update jobs set k = k + 1; select '' as z --'''; end $f$;\n", query: "select ee()", want: "refused", off: true},
	{name: "DO block running an escape string EXECUTE whose command has a backslash before a quote, off", schema: pgJobs, query: "do $f$ begin execute E'select ''a\\\\'' || ''; update jobs set k = k + 1; select '' as z --'''; end $f$", want: "refused", off: true},
	{name: "writing PL/pgSQL function with a backslash in a value, on", schema: pgJobs + "create function wb() returns void language plpgsql as $f$ begin update jobs set k = length('a\\.b'); end $f$;\n", query: "select wb()", want: "refused"},
	{name: "query setting standard_conforming_strings off", schema: pgJobs, query: "set standard_conforming_strings = off", want: "refused",
		conservative: "later statements of the session read otherwise"},
	{name: "query setting standard_conforming_strings on", schema: pgJobs, query: "set standard_conforming_strings = on", want: "plain"},
	// Trial t24 F10d: a client encoding whose trail bytes include a
	// backslash moves where a later statement's constant ends.
	{name: "query setting client_encoding to SJIS", schema: pgJobs, query: "set client_encoding = 'SJIS'", want: "refused",
		conservative: "later statements of the session read otherwise"},
	{name: "query setting client_encoding through set_config", schema: pgJobs, query: "select set_config('client_encoding', 'BIG5', false)", want: "refused",
		conservative: "later statements of the session read otherwise"},
	{name: "query setting client_encoding to UTF8", schema: pgJobs, query: "set client_encoding = 'UTF8'", want: "plain"},
	// Trial r24 N2: the same settings changed in a DO block, or in the
	// body of a function or procedure the query runs.
	{name: "DO block setting client_encoding", schema: pgJobs, query: "do $$ begin set client_encoding = 'SJIS'; end $$", want: "refused",
		conservative: "later statements of the session read otherwise"},
	{name: "DO block setting standard_conforming_strings by set_config", schema: pgJobs, query: "do $$ begin perform set_config('standard_conforming_strings', 'off', false); end $$", want: "refused",
		conservative: "later statements of the session read otherwise"},
	{name: "DO block setting client_encoding by a constant EXECUTE", schema: pgJobs, query: "do $$ begin execute 'set client_encoding = ''GBK'''; end $$", want: "refused",
		conservative: "later statements of the session read otherwise"},
	{name: "function setting client_encoding", schema: pgJobs + "create function enc1() returns void language plpgsql as $$ begin set client_encoding = 'SJIS'; end $$;\n", query: "select enc1()", want: "refused",
		conservative: "later statements of the session read otherwise"},
	{name: "SQL function setting client_encoding by set_config", schema: pgJobs + "create function enc2() returns text language sql as $$ select set_config('client_encoding', 'SJIS', false) $$;\n", query: "select enc2()", want: "refused",
		conservative: "later statements of the session read otherwise"},
	{name: "procedure setting standard_conforming_strings locally", schema: pgJobs + "create procedure scs1() language plpgsql as $$ begin set local standard_conforming_strings = off; end $$;\n", query: "call scs1()", want: "refused",
		conservative: "later statements of the transaction read otherwise"},
	{name: "function setting client_encoding to UTF8", schema: pgJobs + "create function enc3() returns void language plpgsql as $$ begin set client_encoding = 'UTF8'; end $$;\n", query: "select enc3()", want: "plain"},

	{name: "function writing jobs by a Unicode-escaped name", schema: pgJobs + "create function f() returns void language plpgsql as $$ begin update U&\"jo\\0062s\" set k = 3; end $$;\n", query: "select f()", want: "refused"},
	{name: "trigger writing jobs by a Unicode-escaped name", schema: pgJobs + "create function wu() returns trigger language plpgsql as $$ begin update U&\"jo\\0062s\" set k = k + 1; return new; end $$;\ncreate trigger t after insert on logs for each row execute function wu();\n", query: "insert into logs values (2, 1)", want: "refused"},
	{name: "single-quoted body writing jobs by a Unicode-escaped name", schema: pgJobs + "create function f() returns void language plpgsql as E'begin update U&\"\\\\006Aobs\" set k = 5; end';\n", query: "select f()", want: "refused"},
	{name: "DO block", schema: pgJobs, query: "do $$ begin update jobs set k = 2; end $$", want: "refused"},
	{name: "function updating a view over jobs", schema: pgJobs + "create view active_jobs as select * from jobs where k > 0;\ncreate function f() returns void language plpgsql as $$ begin update active_jobs set k = 3; end $$;\n", query: "select f()", want: "refused"},
	{name: "FK by ADD COLUMN REFERENCES ON DELETE CASCADE", schema: strings.Replace(pgJobs, "parent_id bigint, ", "", 1) + "alter table jobs add column parent_id bigint references parents (id) on delete cascade;\n", query: "delete from parents where id = 1", want: "refused"},
	{name: "FK ON UPDATE CASCADE", schema: pgJobs + "alter table jobs add constraint fk foreign key (parent_id) references parents (id) on update cascade;\n", query: "update parents set id = 2 where id = 1", want: "refused"},
	{name: "FK ON DELETE SET NULL", schema: pgJobs + "alter table jobs add constraint fk foreign key (parent_id) references parents (id) on delete set null;\n", query: "delete from parents where id = 1", want: "refused"},
	{name: "FK ON UPDATE SET DEFAULT", schema: pgJobs + "insert into parents values (0, 0);\nalter table jobs alter column parent_id set default 0;\nalter table jobs add constraint fk foreign key (parent_id) references parents (id) on update set default;\n", query: "update parents set id = 7 where id = 1", want: "refused"},
	{name: "FK ON UPDATE CASCADE then SET NULL chain", schema: pgJobs + "create table mid (id bigint primary key, pid bigint references parents on update cascade);\ninsert into mid values (1, 1);\nalter table jobs add constraint fk foreign key (parent_id) references mid (id) on update cascade;\nalter table mid add constraint mid_u unique (pid);\n", query: "update parents set id = 9 where id = 1", want: "plain"},
	{name: "FK chain through ON UPDATE CASCADE of a referenced key", schema: pgJobs + "create table mid (id bigint primary key, pid bigint unique references parents on update cascade);\ninsert into mid values (1, 1);\nalter table jobs add constraint fk foreign key (parent_id) references mid (pid) on update cascade;\n", query: "update parents set id = 9 where id = 1", want: "refused"},
	{name: "MERGE deleting a parent", schema: pgJobs + "alter table jobs add constraint fk foreign key (parent_id) references parents (id) on delete cascade;\n", query: "merge into parents p using (select 1 as id) s on p.id = s.id when matched then delete", want: "refused"},
	{name: "trigger on a table an FK action writes", schema: pgJobs + "alter table logs add constraint fk foreign key (n) references parents (id) on delete cascade;\n" + pgWJTrigger + "create trigger t after delete on logs for each row execute function wj();\n", query: "delete from parents where id = 1", want: "refused"},
	{name: "trigger on a partition", schema: pgJobs + "create table pl (id int, n int) partition by range (id);\ncreate table pl1 partition of pl for values from (0) to (10);\n" + pgWJTrigger + "create trigger t after insert on pl1 for each row execute function wj();\n", query: "insert into pl values (1, 1)", want: "refused"},
	{name: "trigger on an inheritance child", schema: pgJobs + "create table pl (id int, n int);\ncreate table pl1 () inherits (pl);\ninsert into pl1 values (1, 1);\n" + pgWJTrigger + "create trigger t after update on pl1 for each row execute function wj();\n", query: "update pl set n = 2", want: "refused"},
	{name: "function writing a table whose trigger writes jobs", schema: pgJobs + pgWJTrigger + "create trigger t after insert on logs for each row execute function wj();\ncreate function f() returns int language sql as $$ insert into logs values (2, 1) returning 1 $$;\n", query: "select f()", want: "refused"},
	{name: "trigger function writing a table whose trigger writes jobs", schema: pgJobs + pgWJTrigger + "create trigger t after insert on logs for each row execute function wj();\ncreate function wl() returns trigger language plpgsql as $$ begin insert into logs values (new.id + 10, 1); return new; end $$;\ncreate trigger t2 after insert on parents for each row execute function wl();\n", query: "insert into parents values (2, 1)", want: "refused"},
	{name: "column DEFAULT calls a writer", schema: pgJobs + "create function wd() returns int language plpgsql as $$ begin update jobs set k = k + 1; return 1; end $$;\nalter table logs alter column n set default wd();\n", query: "insert into logs (id) values (2)", want: "refused"},
	{name: "CHECK calls a writer", schema: pgJobs + "create function wc(x int) returns bool language plpgsql as $$ begin update jobs set k = k + 1; return true; end $$;\nalter table logs add constraint c check (wc(n));\n", query: "insert into logs values (2, 1)", want: "refused"},
	{name: "generated column calls a writer", schema: pgJobs + pgWV + "create function wg(x int) returns int language plpgsql immutable as $$ begin return wv(x); end $$;\nalter table logs add column g int generated always as (wg(n)) stored;\n", query: "insert into logs (id, n) values (2, 1)", want: "refused"},
	{name: "index expression calls a writer", schema: pgJobs + pgWV + "create function wi(x int) returns int language plpgsql immutable as $$ begin return wv(x); end $$;\ncreate index on logs (wi(n));\n", query: "insert into logs values (2, 1)", want: "refused"},
	{name: "partial index predicate calls a writer", schema: pgJobs + pgWV + "create function wi(x int) returns bool language plpgsql immutable as $$ begin return wv(x) > 0; end $$;\ncreate index on logs (n) where wi(n);\n", query: "insert into logs values (2, 1)", want: "refused"},
	{name: "CREATE TABLE LIKE copies a writing default", schema: pgJobs + "create function wd() returns int language plpgsql as $$ begin update jobs set k = k + 1; return 1; end $$;\nalter table logs alter column n set default wd();\ncreate table logs2 (like logs including defaults);\n", query: "insert into logs2 (id) values (2)", want: "refused"},
	{name: "view whose query calls a writer", schema: pgJobs + "create function wv() returns setof bigint language sql as $$ update jobs set k = k + 1 returning id $$;\ncreate view v as select * from wv();\n", query: "select * from v", want: "refused"},
	{name: "view over a view whose query calls a writer", schema: pgJobs + "create function wv() returns int language plpgsql as $$ begin update jobs set k = k + 1; return 1; end $$;\ncreate view v as select wv() as x;\ncreate view vv as select * from v;\n", query: "select * from vv", want: "refused"},
	{name: "operator whose function writes", schema: pgJobs + "create function wo(a int, b int) returns bool language plpgsql as $$ begin update jobs set k = k + 1; return true; end $$;\ncreate operator === (leftarg = int, rightarg = int, function = wo);\n", query: "select * from logs where n === 1", want: "refused"},
	{name: "cast whose function writes", schema: pgJobs + "create type tt as (a int);\ncreate function wcast(int) returns tt language plpgsql as $$ begin update jobs set k = k + 1; return row(1); end $$;\ncreate cast (int as tt) with function wcast(int);\n", query: "select 1::tt", want: "refused"},
	{name: "domain CHECK calls a writer", schema: pgJobs + "create function wdom(x int) returns bool language plpgsql as $$ begin update jobs set k = k + 1; return true; end $$;\ncreate domain d as int check (wdom(value));\nalter table logs add column dd d;\n", query: "insert into logs (id, dd) values (2, 1)", want: "refused"},
	{name: "ALTER DOMAIN ADD CHECK calls a writer", schema: pgJobs + "create function wdom(x int) returns bool language plpgsql as $$ begin update jobs set k = k + 1; return true; end $$;\ncreate domain d as int;\nalter domain d add constraint c check (wdom(value));\n", query: "select 1::d", want: "refused"},
	{name: "aggregate whose SFUNC writes", schema: pgJobs + "create function sf(s int, x int) returns int language plpgsql as $$ begin update jobs set k = k + 1; return s; end $$;\ncreate aggregate agg(int) (sfunc = sf, stype = int, initcond = '0');\n", query: "select agg(n) from logs", want: "refused"},
	{name: "SELECT FOR UPDATE calling a writer", schema: pgJobs + "create function wf(x bigint) returns bool language plpgsql as $$ begin update jobs set k = k + 1; return true; end $$;\n", query: "select * from logs where wf(id) for update", want: "refused"},
	{name: "rule on a view writing jobs", schema: pgJobs + "create view lv as select * from logs;\ncreate rule r as on insert to lv do instead update jobs set k = k + new.n;\n", query: "insert into lv values (1, 1)", want: "refused"},
	{name: "rule action's target has a writing trigger", schema: pgJobs + "create rule r as on insert to parents do also insert into logs values (new.id + 10, 1);\n" + pgWJTrigger + "create trigger t after insert on logs for each row execute function wj();\n", query: "insert into parents values (2, 1)", want: "refused"},
	{name: "rule action's target has a writing default", schema: pgJobs + "create function wd() returns int language plpgsql as $$ begin update jobs set k = k + 1; return 1; end $$;\nalter table logs alter column n set default wd();\ncreate rule r as on insert to parents do also insert into logs (id) values (new.id + 10);\n", query: "insert into parents values (2, 1)", want: "refused"},
	{name: "statement trigger on TRUNCATE", schema: pgJobs + "create function wt() returns trigger language plpgsql as $$ begin update jobs set k = k + 1; return null; end $$;\ncreate trigger t after truncate on logs execute function wt();\n", query: "truncate logs", want: "refused"},
	{name: "upsert's UPDATE trigger", schema: pgJobs + pgWJTrigger + "create trigger t after update on logs for each row execute function wj();\n", query: "insert into logs values (1, 1) on conflict (id) do update set n = 2", want: "refused"},
	{name: "TRUNCATE CASCADE", schema: pgJobs + "alter table jobs add constraint fk foreign key (parent_id) references parents (id);\n", query: "truncate parents cascade", want: "refused"},
	{name: "row-level security policy USING calls a writer", schema: pgJobs + "create function wp(x int) returns bool language plpgsql as $$ begin update jobs set k = k + 1; return true; end $$;\nalter table logs enable row level security;\ncreate policy p on logs using (wp(n));\n", query: "select * from logs", want: "refused", asRole: true},
	{name: "row-level security policy WITH CHECK calls a writer", schema: pgJobs + "create function wp(x int) returns bool language plpgsql as $$ begin update jobs set k = k + 1; return true; end $$;\nalter table logs enable row level security;\ncreate policy p on public.logs for insert with check (wp(n));\n", query: "insert into logs values (2, 1)", want: "refused", asRole: true},
	// Trial pg4 F8: a domain whose CHECK writes, reached through the types
	// a function declares rather than through the query's own text.
	{name: "function returning a domain whose CHECK writes", schema: pgJobs + pgWDom + "create function mk(x int) returns d language plpgsql as $$ begin return x; end $$;\n", query: "select mk(1)::int as x", want: "refused"},
	{name: "SQL function returning a domain whose CHECK writes", schema: pgJobs + pgWDom + "create function mk(x int) returns d language sql as 'select x';\n", query: "select mk(1)::int as x", want: "refused"},
	{name: "OUT parameter of a domain whose CHECK writes", schema: pgJobs + pgWDom + "create function mko(x int, out a d, out b int) language plpgsql as $$ begin a := x; b := x; end $$;\n", query: "select b from mko(1)", want: "refused"},
	{name: "RETURNS TABLE column of a domain whose CHECK writes", schema: pgJobs + pgWDom + "create function mkt(x int) returns table (a d) language sql as 'select x';\n", query: "select 1 from mkt(1)", want: "refused"},
	{name: "PL/pgSQL variable of a domain whose CHECK writes", schema: pgJobs + pgWDom + "create function pv() returns int language plpgsql as $$ declare v d; begin v := 3; return 1; end $$;\n", query: "select pv()", want: "refused"},
	{name: "PL/pgSQL %TYPE of a column of a domain whose CHECK writes", schema: pgJobs + pgWDom + "create table o2 (x d);\ncreate function pv() returns int language plpgsql as $$ declare v o2.x%type; begin v := 3; return 1; end $$;\n", query: "select pv()", want: "refused"},
	{name: "parameter of a domain whose CHECK writes", schema: pgJobs + pgWDom + "create function takes(a d) returns int language plpgsql as $$ begin return 1; end $$;\n", query: "select takes(1)", want: "refused"},
	{name: "aggregate STYPE a domain whose CHECK writes", schema: pgJobs + pgWDom + "create function sfd(s d, v int) returns d language sql as 'select s';\ncreate aggregate agd(int) (sfunc = sfd, stype = d, initcond = '1');\n", query: "select agd(x)::int from generate_series(1, 2) x", want: "refused"},
	{name: "trigger function with a variable of a domain whose CHECK writes", schema: pgJobs + pgWDom + "create function tv() returns trigger language plpgsql as $$ declare v d; begin v := 1; return new; end $$;\ncreate trigger t after insert on logs for each row execute function tv();\n", query: "insert into logs values (2, 1)", want: "refused"},
	{name: "CREATE TABLE AS column of a domain whose CHECK writes", schema: pgJobs + pgWDom + "create table o1 (id int, x d);\ncreate table o2 as select * from o1 with no data;\n", query: "insert into o2 values (1, 1)", want: "refused"},
	{name: "CREATE TABLE AS through a view, column of a domain whose CHECK writes", schema: pgJobs + pgWDom + "create table o1 (id int, x d);\ncreate view v1 as select * from o1;\ncreate table o2 as select * from v1 with no data;\n", query: "insert into o2 values (1, 1)", want: "refused"},
	{name: "CREATE TABLE AS column of a domain, UPDATE of it", schema: pgJobs + pgWDom + "create table o1 (id int, x d);\ncreate table o2 as select * from o1 with no data;\ninsert into o2 values (1, 1);\n", query: "update o2 set x = 2", want: "refused"},
	{name: "DO block with a variable of a domain whose CHECK writes", schema: pgJobs + pgWDom, query: "do $$ declare v d; begin v := 1; end $$", want: "refused"},
	{name: "DO block with a variable of a harmless domain", schema: pgJobs + pgWDom + "create domain hd as int check (value > 0);\n", query: "do $$ declare v hd; begin v := 1; end $$", want: "plain"},
	{name: "procedure INOUT parameter of a domain whose CHECK writes", schema: pgJobs + pgWDom + "create procedure p(inout a d) language plpgsql as $$ begin a := 2; end $$;\n", query: "call p(1)", want: "refused"},
	// Trial pg4 F14: a conditional rule's WHERE runs for the command's rows.
	{name: "rule WHERE calls a writer", schema: pgJobs + pgWV + "create table t3 (x int);\ncreate rule r as on insert to logs where wv(new.n) > 0 do also insert into t3 values (1);\n", query: "insert into logs values (2, 1)", want: "refused"},
	{name: "DO INSTEAD NOTHING rule whose WHERE calls a writer", schema: pgJobs + pgWV + "create rule r as on update to logs where wv(old.n) > 0 do instead nothing;\n", query: "update logs set n = 2 where id = 1", want: "refused"},
	{name: "DO ALSO NOTHING rule whose WHERE calls a writer", schema: pgJobs + pgWV + "create rule r as on update to logs where wv(old.n) > 0 do also nothing;\n", query: "update logs set n = 2 where id = 1", want: "plain"},
	// Trial pg4 F13: PostgreSQL binds a view's (or materialized view's)
	// query, a rule's actions and a column's type to the relation or type
	// itself when they are created: renamed, with a new one under the old
	// name, the old one is still read, written or coerced to.
	{name: "view over a view renamed and replaced by a writer, a harmless one under its name", schema: pgJobs + pgWV + "create view v1 as select 1 as x;\ncreate view v2 as select x from v1;\nalter view v1 rename to v1_old;\ncreate view v1 as select 1 as x;\ncreate or replace view v1_old as select wv(1) as x;\n", query: "select x from v2", want: "refused"},
	{name: "the harmless view created under a renamed view's name", schema: pgJobs + pgWV + "create view v1 as select 1 as x;\ncreate view v2 as select x from v1;\nalter view v1 rename to v1_old;\ncreate view v1 as select 1 as x;\ncreate or replace view v1_old as select wv(1) as x;\n", query: "select x from v1", want: "plain"},
	{name: "view over a view over a renamed view", schema: pgJobs + pgWV + "create view v1 as select 1 as x;\ncreate view v2 as select x from v1;\ncreate view v3 as select x from v2;\nalter view v1 rename to v1_old;\ncreate view v1 as select 1 as x;\ncreate or replace view v1_old as select wv(1) as x;\n", query: "select x from v3", want: "refused"},
	{name: "view over a table renamed and turned into a writing view", schema: pgJobs + pgWV + "create table tt (x int);\ncreate view v2 as select x from tt;\nalter table tt rename to tt_old;\ncreate table tt (x int);\ncreate rule \"_RETURN\" as on select to tt_old do instead select wv(1) as x;\n", query: "select x from v2", want: "refused",
		noPG: "PostgreSQL 16 and later refuse the ON SELECT rule that converts a table to a view; fencegen's verdict holds for 15 and earlier"},
	{name: "materialized view over a renamed view refreshed", schema: pgJobs + pgWV + "create view v1 as select 1 as x;\ncreate materialized view mv as select x from v1 with no data;\nalter view v1 rename to v1_old;\ncreate view v1 as select 1 as x;\ncreate or replace view v1_old as select wv(1) as x;\n", query: "refresh materialized view mv", want: "refused"},
	{name: "rule action's table renamed, its trigger writes, a harmless one under its name", schema: pgJobs + pgWJTrigger + "create table t2 (x int);\ncreate rule r as on insert to logs do also insert into t2 values (1);\nalter table t2 rename to t2_old;\ncreate table t2 (x int);\ncreate trigger t after insert on t2_old for each row execute function wj();\n", query: "insert into logs values (2, 1)", want: "refused"},
	{name: "view's DO INSTEAD rule action's table renamed, its trigger writes", schema: pgJobs + pgWJTrigger + "create table t2 (id int, x int);\ninsert into t2 values (1, 1);\ncreate view vx as select id, x from t2;\ncreate rule r as on update to vx do instead update t2 set x = new.x where id = old.id;\nalter table t2 rename to t2_old;\ncreate table t2 (id int, x int);\ncreate trigger t after update on t2_old for each row execute function wj();\n", query: "update vx set x = 2", want: "refused"},
	{name: "column's domain renamed and given a writing CHECK, a harmless one under its name", schema: pgJobs + "create function wdom(x int) returns bool language plpgsql as $$ begin update jobs set k = k + 1; return true; end $$;\ncreate domain dd as int;\ncreate table o2 (id int, x dd);\nalter domain dd rename to dd_old;\ncreate domain dd as int;\nalter domain dd_old add constraint c check (wdom(value));\n", query: "insert into o2 values (1, 1)", want: "refused"},
	// Trial pg4 F11: SELECT INTO and REFRESH MATERIALIZED VIEW fire event
	// triggers, as schema statements do.
	{name: "SELECT INTO fires an event trigger that writes", schema: pgJobs + "create function ef() returns event_trigger language plpgsql as $$ begin update public.jobs set k = k + 1; end $$;\ncreate event trigger et on ddl_command_end execute function ef();\n", query: "select id into temp table tt from logs", want: "refused"},
	{name: "REFRESH MATERIALIZED VIEW fires an event trigger that writes", schema: pgJobs + "create function ef() returns event_trigger language plpgsql as $$ begin update public.jobs set k = k + 1; end $$;\ncreate materialized view mv as select 1 as x;\ncreate event trigger et on ddl_command_start execute function ef();\n", query: "refresh materialized view mv", want: "refused"},
	{name: "event trigger for another tag only, under SELECT INTO", schema: pgJobs + "create function ef() returns event_trigger language plpgsql as $$ begin update public.jobs set k = k + 1; end $$;\ncreate event trigger et on ddl_command_end when tag in ('CREATE TABLE') execute function ef();\n", query: "select id into temp table tt from logs", want: "plain"},
	{name: "read of a foreign table (postgres_fdw loopback to a view that writes)", schema: pgJobs + "create function w() returns int language plpgsql as $$ begin update jobs set k = k + 1; return 1; end $$;\ncreate view wv as select w() as x;\ncreate extension if not exists postgres_fdw;\ncreate server loop foreign data wrapper postgres_fdw options (dbname 'x');\ncreate foreign table fwv (x int) server loop options (table_name 'wv');\n", query: "select x from fwv", want: "refused",
		noPG: "postgres_fdw reads through a connection of its own, which does not see the test's uncommitted schema"},
	{name: "read of a foreign table (file_fdw program)", schema: pgJobs + "create extension if not exists file_fdw;\ncreate server fs foreign data wrapper file_fdw;\ncreate foreign table ft (x text) server fs options (program 'psql -c \"update jobs set k = 2\"');\n", query: "select x from ft", want: "refused",
		noPG: "the program runs in a session of its own, which does not see the test's uncommitted schema"},
	{name: "write of a foreign table", schema: pgJobs + "create extension if not exists postgres_fdw;\ncreate server loop foreign data wrapper postgres_fdw options (dbname 'x');\ncreate foreign table fjobs (id bigint, k int) server loop options (table_name 'jobs');\n", query: "update fjobs set k = 2 where id = 1", want: "refused",
		noPG: "postgres_fdw writes through a connection of its own, which does not see the test's uncommitted rows"},
	{name: "dblink_exec", schema: pgJobs + "create extension if not exists dblink;\n", query: "select dblink_exec('dbname=x', 'update jobs set k = 2')", want: "refused",
		noPG: "dblink runs on a connection of its own, which does not see the test's uncommitted rows"},
	{name: "trigger WHEN condition calls a writer", schema: pgJobs + "create function ww(x int) returns bool language plpgsql as $$ begin update jobs set k = k + 1; return false; end $$;\ncreate function tl() returns trigger language plpgsql as $$ begin return new; end $$;\ncreate trigger t after insert on logs for each row when (ww(new.n)) execute function tl();\n", query: "insert into logs values (2, 1)", want: "refused"},
	// Schema statements in a query file.
	// Issue 24 §1 precision: an event trigger's WHEN TAG filter, a column
	// DEFAULT a write gives a value (or, in an UPDATE, does not ask for),
	// an EXISTS target list, a referenced key assigned its own value.
	{name: "DDL of another tag than an event trigger's filter", schema: pgJobs + "create function ev() returns event_trigger language plpgsql as $$ begin update jobs set k = k + 1; end $$;\ncreate event trigger fg_sound_ev on ddl_command_end when tag in ('CREATE VIEW') execute function ev();\n", query: "create table y (id int)", want: "plain"},
	{name: "CREATE TABLE AS beside an event trigger's filter", schema: pgJobs + "create function ev() returns event_trigger language plpgsql as $$ begin update jobs set k = k + 1; end $$;\ncreate event trigger fg_sound_ev on ddl_command_end when tag in ('create view', 'CREATE INDEX') execute function ev();\n", query: "create temp table y as select 1 as id", want: "plain"},
	{name: "DDL of an event trigger's filter tag", schema: pgJobs + "create function ev() returns event_trigger language plpgsql as $$ begin update jobs set k = k + 1; end $$;\ncreate event trigger fg_sound_ev on ddl_command_end when tag in ('CREATE VIEW') execute function ev();\n", query: "create view y as select 1 as id", want: "refused"},
	{name: "UPDATE of a table whose default writes, no DEFAULT", schema: pgJobs + pgWV + "create table s (id int primary key, v int default wv(1), w int);\ninsert into s values (1, 1, 1);\n", query: "update s set w = 2, v = 3 where id = 1", want: "plain"},
	{name: "UPDATE ... SET DEFAULT of a column whose default writes", schema: pgJobs + pgWV + "create table s (id int primary key, v int default wv(1), w int);\ninsert into s values (1, 1, 1);\n", query: "update s set v = default where id = 1", want: "refused"},
	{name: "INSERT giving the column whose default writes", schema: pgJobs + pgWV + "create table s (id int primary key, v int default wv(1), w int);\n", query: "insert into s (id, v) values (2, 2)", want: "plain"},
	{name: "INSERT leaving out the column whose default writes", schema: pgJobs + pgWV + "create table s (id int primary key, v int default wv(1), w int);\n", query: "insert into s (id) values (2)", want: "refused"},
	{name: "UPDATE of a table whose CHECK writes", schema: pgJobs + pgWV + "create table s (id int primary key, v int check (wv(v) = 1), w int);\ninsert into s values (1, 1, 1);\n", query: "update s set w = 2 where id = 1", want: "refused"},
	{name: "writer in an EXISTS target list", schema: pgJobs + pgWV, query: "select 1 where exists (select wv(1) from logs where id = 1)", want: "plain"},
	{name: "writer in an EXISTS target list beside an aggregate", schema: pgJobs + pgWV, query: "select 1 where exists (select wv(1), count(*))", want: "refused"},
	// PostgreSQL throws away an EXISTS subquery's DISTINCT, ORDER BY and
	// GROUP BY with its target list (simplify_EXISTS_query), and keeps
	// them under OFFSET, grouping sets or an aggregate of the list's level
	// (issue 24).
	{name: "writer in an EXISTS target list with ORDER BY", schema: pgJobs + pgWV, query: "select 1 where exists (select wv(1) from logs order by wv(2))", want: "plain"},
	{name: "writer in an EXISTS target list with DISTINCT", schema: pgJobs + pgWV, query: "select 1 where exists (select distinct wv(1) from logs)", want: "plain"},
	{name: "writer in an EXISTS DISTINCT ON", schema: pgJobs + pgWV, query: "select 1 where exists (select distinct on (wv(2)) id from logs)", want: "plain"},
	{name: "writer in an EXISTS target list with GROUP BY", schema: pgJobs + pgWV, query: "select 1 where exists (select wv(1) from logs group by id)", want: "plain"},
	{name: "writer in an EXISTS target list with LIMIT 1", schema: pgJobs + pgWV, query: "select exists (select wv(1) from logs limit 1)", want: "plain"},
	{name: "writer in an EXISTS target list with a WITH list", schema: pgJobs + pgWV, query: "select 1 where exists (with x as (select 1 as v) select wv(1) from x)", want: "plain"},
	{name: "writer in ROW in an EXISTS target list", schema: pgJobs + pgWV, query: "select 1 where exists (select row(wv(1), 2))", want: "plain"},
	{name: "writer in a scalar subquery in an EXISTS target list", schema: pgJobs + pgWV, query: "select 1 where exists (select (select wv(1)) from logs)", want: "plain"},
	{name: "writer in an EXISTS target list with OFFSET", schema: pgJobs + pgWV, query: "select 1 where exists (select wv(1) from logs offset 0)", want: "refused"},
	{name: "writer in an EXISTS target list with ROLLUP", schema: pgJobs + pgWV, query: "select 1 where exists (select wv(1) from logs group by rollup (id))", want: "refused"},
	{name: "writer in an EXISTS target list with HAVING", schema: pgJobs + pgWV, query: "select 1 where exists (select wv(1) from logs having true)", want: "refused"},
	{name: "writer in an EXISTS target list with FOR UPDATE", schema: pgJobs + pgWV, query: "select 1 where exists (select wv(1) from logs for update)", want: "refused"},
	{name: "writer beside the list's own aggregate in a scalar subquery", schema: pgJobs + pgWV, query: "select 1 where exists (select (select wv(1) + count(l.id)) from logs l)", want: "refused"},
	{name: "writer in an EXISTS target list with ORDER BY an aggregate", schema: pgJobs + pgWV, query: "select 1 where exists (select wv(1) from logs order by count(*))", want: "refused"},
	{name: "writer in an EXISTS target list with LIMIT 0", schema: pgJobs + pgWV, query: "select 1 where exists (select wv(1) from logs limit 0)", want: "plain"},
	{name: "referenced key assigned its own value", schema: pgJobs + "alter table jobs add foreign key (parent_id) references parents (id) on update cascade;\n", query: "update parents set id = id, v = 2 where id = 1", want: "plain"},
	{name: "referenced key assigned its own value cast to its own type", schema: pgJobs + "alter table jobs add foreign key (parent_id) references parents (id) on update cascade;\n", query: "update parents set id = id::bigint, v = 2 where id = 1", want: "plain"},
	{name: "referenced key assigned its own value cast to another type", schema: pgJobs + "alter table jobs add foreign key (parent_id) references parents (id) on update cascade;\n", query: "update parents set id = (id::int + 1)::bigint, v = 2 where id = 1", want: "refused"},
	{name: "referenced key assigned its own value plus 0", schema: pgJobs + "alter table jobs add foreign key (parent_id) references parents (id) on update cascade;\n", query: "update parents set id = id + 0, v = 2 where id = 1", want: "plain"},
	{name: "referenced key assigned 1 times its own value", schema: pgJobs + "alter table jobs add foreign key (parent_id) references parents (id) on update cascade;\n", query: "update parents set id = 1 * id, v = 2 where id = 1", want: "plain"},
	{name: "referenced key assigned its own value plus 1", schema: pgJobs + "alter table jobs add foreign key (parent_id) references parents (id) on update cascade;\n", query: "update parents set id = id + 1, v = 2 where id = 1", want: "refused"},
	{name: "referenced key assigned its own value times 0", schema: pgJobs + "alter table jobs add foreign key (parent_id) references parents (id) on update cascade;\n", query: "update parents set id = id * 0, v = 2 where id = 1", want: "refused"},
	{name: "referenced key changed by a BEFORE UPDATE trigger", schema: pgJobs + "alter table jobs add foreign key (parent_id) references parents (id) on update cascade;\ncreate function bump() returns trigger language plpgsql as $$ begin new.id := new.id + 10; return new; end $$;\ncreate trigger bump before update on parents for each row execute function bump();\n", query: "update parents set v = 2 where id = 1", want: "refused"},
	{name: "referenced key assigned its own value, BEFORE UPDATE trigger", schema: pgJobs + "alter table jobs add foreign key (parent_id) references parents (id) on update cascade;\ncreate function bump() returns trigger language plpgsql as $$ begin new.id := new.id + 10; return new; end $$;\ncreate trigger bump before update on parents for each row execute function bump();\n", query: "update parents set id = id where id = 1", want: "refused"},
	{name: "referenced key kept by a BEFORE UPDATE trigger that sets another column", schema: pgJobs + "alter table jobs add foreign key (parent_id) references parents (id) on update cascade;\ncreate function bumpv() returns trigger language plpgsql as $$ begin new.v := new.v + 10; return new; end $$;\ncreate trigger bumpv before update on parents for each row execute function bumpv();\n", query: "update parents set v = 2 where id = 1", want: "plain"},
	{name: "UPDATE moving a row to a partition whose INSERT trigger writes", schema: pgJobs + pgWJTrigger + "create table pp (id int not null, v int) partition by range (id);\ncreate table pp1 partition of pp for values from (0) to (10);\ncreate table pp2 partition of pp for values from (10) to (20);\ninsert into pp values (1, 1);\ncreate trigger wj after insert on pp2 for each row execute function wj();\n", query: "update pp set id = 15 where id = 1", want: "refused"},
	{name: "UPDATE moving a row out of a partition whose DELETE trigger writes", schema: pgJobs + pgWJTrigger + "create table pp (id int not null, v int) partition by range (id);\ncreate table pp1 partition of pp for values from (0) to (10);\ncreate table pp2 partition of pp for values from (10) to (20);\ninsert into pp values (1, 1);\ncreate trigger wj before delete on pp1 for each row execute function wj();\n", query: "update pp set id = 15 where id = 1", want: "refused"},
	{name: "UPDATE moving a row, the partitioned table's INSERT trigger writes", schema: pgJobs + pgWJTrigger + "create table pp (id int not null, v int) partition by range (id);\ncreate table pp1 partition of pp for values from (0) to (10);\ncreate table pp2 partition of pp for values from (10) to (20);\ninsert into pp values (1, 1);\ncreate trigger wj after insert on pp for each row execute function wj();\n", query: "update pp set id = 15 where id = 1", want: "refused"},
	{name: "referenced key changed", schema: pgJobs + "alter table jobs add foreign key (parent_id) references parents (id) on update cascade;\n", query: "update parents set id = 2 where id = 1", want: "refused"},
	{name: "query DDL fires an event trigger that writes", schema: pgJobs + "create function ev() returns event_trigger language plpgsql as $$ begin update jobs set k = k + 1; end $$;\ncreate event trigger fg_sound_ev on ddl_command_end execute function ev();\n", query: "create table y (id int)", want: "refused"},
	{name: "query ALTER COLUMN TYPE USING rewrites the tokens", schema: pgJobs, query: "alter table jobs alter column tok type bigint using 0", want: "refused"},
	{name: "query ADD COLUMN with a writing volatile default", schema: pgJobs + "create function wd() returns int language plpgsql as $$ begin update jobs set k = k + 1; return 1; end $$;\n", query: "alter table logs add column x int default wd()", want: "refused"},
	{name: "query ALTER COLUMN TYPE USING a writer", schema: pgJobs + "create function wu(x int) returns int language plpgsql as $$ begin update jobs set k = k + 1; return x; end $$;\n", query: "alter table logs alter column n type bigint using wu(n)", want: "refused"},
	{name: "query CREATE INDEX on an expression calling a writer", schema: pgJobs + pgWV + "create function wi(x int) returns int language plpgsql immutable as $$ begin return wv(x); end $$;\n", query: "create index on logs ((n + wi(n)))", want: "refused"},
	{name: "query COMMENT removing the mark", schema: pgJobs, query: "comment on column jobs.tok is null", want: "refused",
		conservative: "it writes no row, but every later write of jobs then runs without the guard that fencegen generated for it"},
	{name: "query CREATE TABLE on its own", schema: pgJobs, query: "create table y (id int)", want: "plain"},
	// Migration order: later statements undo or redo the path.
	{name: "trigger dropped later", schema: pgJobs + pgWJTrigger + "create trigger t after insert on logs for each row execute function wj();\ndrop trigger t on logs;\n", query: "insert into logs values (2, 1)", want: "plain"},
	{name: "rule dropped later", schema: pgJobs + "create rule r as on insert to logs do also update jobs set k = k + 1;\ndrop rule if exists r on public.logs;\n", query: "insert into logs values (2, 1)", want: "plain"},
	{name: "trigger function dropped with CASCADE", schema: pgJobs + pgWJTrigger + "create trigger t after insert on logs for each row execute function wj();\ndrop function wj() cascade;\n", query: "insert into logs values (2, 1)", want: "plain"},
	{name: "trigger created later", schema: pgJobs + "create trigger t0 after insert on logs for each row execute function suppress_redundant_updates_trigger();\ndrop trigger t0 on logs;\n" + pgWJTrigger + "create trigger t after insert on logs for each row execute function wj();\n", query: "insert into logs values (2, 1)", want: "refused"},
	{name: "trigger function replaced by a harmless one", schema: pgJobs + pgWJTrigger + "create trigger t after insert on logs for each row execute function wj();\ncreate or replace function wj() returns trigger language plpgsql as $$ begin return new; end $$;\n", query: "insert into logs values (2, 1)", want: "plain"},
	{name: "trigger function replaced by a writer", schema: pgJobs + "create function wj() returns trigger language plpgsql as $$ begin return new; end $$;\ncreate trigger t after insert on logs for each row execute function wj();\ncreate or replace function wj() returns trigger language plpgsql as $$ begin update jobs set k = k + 9; return new; end $$;\n", query: "insert into logs values (2, 1)", want: "refused"},
	{name: "FK dropped and re-added as RESTRICT", schema: pgJobs + "alter table jobs add constraint fk foreign key (parent_id) references parents on delete cascade;\nalter table jobs drop constraint fk;\nalter table jobs add constraint fk foreign key (parent_id) references parents on delete restrict;\ninsert into parents values (2, 2);\n", query: "delete from parents where id = 2", want: "plain"},
	{name: "disabled trigger", schema: pgJobs + pgWJTrigger + "create trigger t after insert on logs for each row execute function wj();\nalter table logs disable trigger t;\n", query: "insert into logs values (2, 1)", want: "plain"},
	// Harmless shapes stay plain.
	{name: "harmless trigger", schema: pgJobs + "create function tl() returns trigger language plpgsql as $$ begin new.n = 7; return new; end $$;\ncreate trigger t before insert on logs for each row execute function tl();\n", query: "insert into logs values (2, 1)", want: "plain"},
	{name: "DELETE of a table whose default calls a writer", schema: pgJobs + "create function wd() returns int language plpgsql as $$ begin update jobs set k = k + 1; return 1; end $$;\nalter table logs alter column n set default wd();\n", query: "delete from logs where id = 1", want: "plain"},
	{name: "built-in trigger function", schema: pgJobs + "alter table logs add column tsv tsvector, add column body text;\ncreate trigger t before insert or update on logs for each row execute function tsvector_update_trigger(tsv, 'pg_catalog.english', body);\ncreate trigger t2 before update on jobs for each row execute function suppress_redundant_updates_trigger();\n", query: "insert into logs (id, n) values (2, 1)", want: "plain"},
	{name: "harmless default", schema: pgJobs + "create function hd() returns int language sql as $$ select 1 $$;\nalter table logs alter column n set default hd();\n", query: "insert into logs (id) values (2)", want: "plain"},
	{name: "view reading jobs", schema: pgJobs + "create view v as select * from jobs;\n", query: "select * from v", want: "plain"},
	// Second adversarial pass (issue 10): shapes the first pass let through.
	{name: "call in attribute notation (x).f", schema: pgJobs + pgWLogs, query: "select (l).wl from logs l", want: "refused"},
	{name: "call in attribute notation x.f", schema: pgJobs + pgWLogs, query: "select l.wl from logs l", want: "refused"},
	{name: "function body calling in attribute notation", schema: pgJobs + pgWLogs + "create function via() returns int language plpgsql as $$ begin return (select l.wl from logs l limit 1); end $$;\ncreate function vias() returns int language sql as $$ select (l).wl from logs l limit 1 $$;\n", query: "select via(), vias()", want: "refused"},
	{name: "VARIADIC overload picked over a fixed-arity one", schema: pgJobs + "create function vf(variadic xs int[]) returns int language plpgsql as $$ begin update jobs set k = k + 1; return 1; end $$;\ncreate function vf(a int, b int, c int, d int) returns int language sql as $$ select 1 $$;\n", query: "select vf(1, 2, 3)", want: "refused"},
	{name: "parameter DEFAULT calls a writer", schema: pgJobs + pgWV + "create function da(x int default wv(1)) returns int language sql as $$ select x $$;\n", query: "select da()", want: "refused"},
	{name: "function SET search_path writes a fenced table of another schema", schema: pgJobs + "create schema oth;\ncreate table oth.jobs (id bigint primary key, k int, parent_id bigint, tok bigint not null default 0);\ncomment on column oth.jobs.tok is 'fencegen:token';\ncomment on column public.jobs.tok is null;\ninsert into oth.jobs values (1, 1, 1, 5);\ncreate function sp() returns void language plpgsql set search_path = oth as $$ begin update jobs set k = k + 1; end $$;\n", query: "select sp()", want: "refused"},
	{name: "unqualified write of a name a fenced table of another schema shares", schema: pgJobs + "create schema oth;\ncreate table oth.jobs (id bigint primary key, k int, parent_id bigint, tok bigint not null default 0);\ncomment on column oth.jobs.tok is 'fencegen:token';\ncomment on column public.jobs.tok is null;\n", query: "update jobs set k = 2", want: "refused",
		conservative: "under the default search_path it writes public.jobs, which is not fenced; under search_path oth it writes fenced oth.jobs, unguarded"},
	{name: "qualified write beside a fenced table of the same name", schema: pgJobs + "create schema oth;\ncreate table oth.jobs (id bigint primary key, k int, parent_id bigint, tok bigint not null default 0);\ncomment on column oth.jobs.tok is 'fencegen:token';\ncomment on column public.jobs.tok is null;\n", query: "update public.jobs set k = 2", want: "plain"},
	{name: "domain CHECK reached through a composite type", schema: pgJobs + pgWDom + "create type ct as (x d);\nalter table logs add column c ct;\n", query: "insert into logs (id, c) values (2, row(1))", want: "refused"},
	{name: "domain CHECK reached through a domain over the domain", schema: pgJobs + pgWDom + "create domain d2 as d;\nalter table logs add column dd d2;\n", query: "insert into logs (id, dd) values (2, 1)", want: "refused"},
	{name: "function renamed by ALTER FUNCTION", schema: pgJobs + "create function wf() returns int language plpgsql as $$ begin update jobs set k = k + 1; return 1; end $$;\nalter function wf() rename to hf;\n", query: "select hf()", want: "refused"},
	{name: "function moved by ALTER FUNCTION SET SCHEMA", schema: pgJobs + "create schema oth;\ncreate function wf() returns int language plpgsql as $$ begin update public.jobs set k = k + 1; return 1; end $$;\nalter function wf() set schema oth;\n", query: "select oth.wf()", want: "refused"},
	// PostgreSQL binds a trigger, a DEFAULT, a CHECK, ... to the function
	// itself: renamed, and another function created under its old name,
	// the old one still runs (issue 24).
	{name: "trigger function renamed, a harmless one created under its name", schema: pgJobs + pgWJTrigger + "create trigger t after insert on logs for each row execute function wj();\nalter function wj() rename to wj_old;\ncreate function wj() returns trigger language plpgsql as $$ begin return new; end $$;\n", query: "insert into logs values (2, 1)", want: "refused"},
	{name: "trigger function moved by SET SCHEMA, a harmless one created under its name", schema: pgJobs + pgWJTrigger + "create schema oth;\ncreate trigger t after insert on logs for each row execute function wj();\nalter function wj() set schema oth;\ncreate function public.wj() returns trigger language plpgsql as $$ begin return new; end $$;\n", query: "insert into logs values (2, 1)", want: "refused"},
	{name: "renamed trigger function replaced by CREATE OR REPLACE under its new name", schema: pgJobs + "create function wj() returns trigger language plpgsql as $$ begin return new; end $$;\ncreate trigger t after insert on logs for each row execute function wj();\nalter function wj() rename to wj_old;\ncreate or replace function wj_old() returns trigger language plpgsql as $$ begin update jobs set k = k + 1; return new; end $$;\n", query: "insert into logs values (2, 1)", want: "refused"},
	{name: "DEFAULT function renamed, a harmless one created under its name", schema: pgJobs + pgWV + "alter table logs add column d int default wv(1);\nalter function wv(int) rename to wv_old;\ncreate function wv(x int) returns int language sql as $$ select 1 $$;\n", query: "insert into logs (id) values (2)", want: "refused"},
	{name: "CHECK function renamed, a harmless one created under its name", schema: pgJobs + "create function wc(x int) returns bool language plpgsql as $$ begin update jobs set k = k + 1; return true; end $$;\nalter table logs add constraint c check (wc(n));\nalter function wc(int) rename to wc_old;\ncreate function wc(x int) returns bool language sql as $$ select true $$;\n", query: "insert into logs values (2, 1)", want: "refused"},
	{name: "harmless trigger function renamed, a writing one created under its name", schema: pgJobs + "create function h() returns trigger language plpgsql as $$ begin return new; end $$;\ncreate trigger t after insert on logs for each row execute function h();\nalter function h() rename to h_old;\ncreate function h() returns trigger language plpgsql as $$ begin update jobs set k = k + 1; return new; end $$;\n", query: "insert into logs values (2, 1)", want: "refused",
		conservative: "the trigger runs h_old(); its text still names h, and the functions a trigger's WHEN condition or arguments name are followed by name"},
	// A SQL-standard body is bound to its tables when the function is
	// created (issue 24).
	{name: "BEGIN ATOMIC body whose fenced table was renamed, a table without a mark created under its name", schema: pgJobs + "create function fin(i bigint) returns void language sql begin atomic update jobs set k = 9 where id = i; end;\nalter table jobs rename to jobs_archive;\ninsert into jobs_archive values (1, 1, 1, 5);\ncreate table jobs (id bigint primary key, k int, parent_id bigint, tok bigint not null default 0);\n", query: "select fin(1)", want: "refused"},
	{name: "BEGIN ATOMIC body whose fenced table was moved by SET SCHEMA, a table without a mark created under its name", schema: pgJobs + "create schema oth;\ncreate function fin(i bigint) returns void language sql begin atomic update jobs set k = 9 where id = i; end;\nalter table jobs set schema oth;\ninsert into oth.jobs values (1, 1, 1, 5);\ncreate table public.jobs (id bigint primary key, k int, parent_id bigint, tok bigint not null default 0);\n", query: "select fin(1)", want: "refused"},
	{name: "BEGIN ATOMIC body whose table was renamed away, the fenced table renamed to its name", schema: pgJobs + "create table scratch (id bigint primary key, k int);\ninsert into scratch values (1, 1);\ncreate function fin(i bigint) returns void language sql begin atomic update scratch set k = 9 where id = i; end;\nalter table scratch rename to scratch_old;\nalter table jobs rename to scratch;\ninsert into scratch values (1, 1, 1, 5);\ncreate table jobs (id bigint primary key, k int, parent_id bigint, tok bigint not null default 0);\n", query: "select fin(1)", want: "plain"},
	{name: "writing assignment cast applied by an INSERT", schema: pgJobs + pgCastMood, query: "insert into moods (id, m) values (1, 5)", want: "refused"},
	// Overloads: PostgreSQL takes the one whose parameter types are
	// exactly the arguments' (issue 24).
	{name: "overload of the constant's exact type is harmless, another writes", schema: pgJobs + pgPick, query: "select pick(1)", want: "plain"},
	{name: "overload of the cast's exact type is harmless, another writes", schema: pgJobs + pgPick, query: "select pick(1::int)", want: "plain"},
	{name: "overload of the cast's exact type writes", schema: pgJobs + pgPick, query: "select pick(1::bigint)", want: "refused"},
	{name: "overload of an untyped literal", schema: pgJobs + pgPick, query: "select pick('1')", want: "refused",
		noPG: "PostgreSQL refuses the call as ambiguous (42725: pick(unknown) is not unique); fencegen keeps both overloads"},
	{name: "exact overloads in two schemas", schema: pgJobs + pgPick + "create schema oth;\ncreate function oth.pick(x int) returns int language plpgsql as $$ begin update public.jobs set k = k + 1; return x; end $$;\n", query: "select pick(1)", want: "refused",
		conservative: "under the default search_path public.pick(int) runs; under search_path oth, oth.pick(int), which writes"},
	// Trial N14: a range type's subtype_diff runs where a value of it is
	// indexed, not in every statement.
	{name: "range type whose subtype_diff writes, an insert into its GiST index", schema: pgJobs + pgWV + pgRange, query: "insert into slots values (1000, frange(-10, 1000))", want: "refused"},
	{name: "range type whose subtype_diff writes, an insert into the GiST index of a domain over it", schema: pgJobs + pgWV + pgRange, query: "insert into dslots values (1000, '[-10,1000)')", want: "refused"},
	// PostgreSQL takes only an IMMUTABLE subtype_diff: one that calls a
	// writer is an error at its CREATE FUNCTION (nonVolatileWriters),
	// whatever the statement.
	{name: "range type whose subtype_diff writes, an insert into a table without it", schema: pgJobs + pgWV + pgRange, query: "insert into logs values (2, 1)", want: "refused",
		conservative: "the schema declares a writer IMMUTABLE, which PostgreSQL may evaluate in any statement's planning"},
	{name: "range type whose subtype_diff writes, a read of another table", schema: pgJobs + pgWV + pgRange, query: "select id from logs where n = 1", want: "refused",
		conservative: "the schema declares a writer IMMUTABLE, which PostgreSQL may evaluate in any statement's planning"},
	{name: "btree operator class whose support function writes, run by an index of another table", schema: pgJobs + "create function my_cmp(a text, b text) returns int language plpgsql as $$ begin update jobs set k = k + 1; return bttextcmp(a, b); end $$;\ncreate operator class weird_ops for type text using btree as operator 1 ~<~, operator 2 ~<=~, operator 3 =, operator 4 ~>=~, operator 5 ~>~, function 1 my_cmp(text, text);\ncreate table notes (id bigint primary key, body text);\ncreate index notes_body on notes (body weird_ops);\ninsert into notes values (1, 'a');\n", query: "insert into notes values (2, 'b')", want: "refused"},
	{name: "rule action's function renamed, a harmless one created under its name", schema: pgJobs + pgWV + "create rule r as on insert to logs do also select wv(1);\nalter function wv(int) rename to wv_old;\ncreate function wv(x int) returns int language sql as $$ select 1 $$;\n", query: "insert into logs values (2, 1)", want: "refused"},
	{name: "BEGIN ATOMIC body's function renamed, a harmless one created under its name", schema: pgJobs + pgWV + "create function outer_f() returns int language sql begin atomic select wv(1); end;\nalter function wv(int) rename to wv_old;\ncreate function wv(x int) returns int language sql as $$ select 1 $$;\n", query: "select outer_f()", want: "refused"},
	{name: "BEGIN ATOMIC body's view renamed, a harmless one created under its name", schema: pgJobs + pgWV + "create view v as select wv(1) as x;\ncreate function rf() returns int language sql begin atomic select x from v; end;\nalter view v rename to v_old;\ncreate view v as select 1 as x;\n", query: "select rf()", want: "refused"},
	{name: "trigger function of a name two schemas hold, the other one renamed", schema: pgJobs + pgWJTrigger + "create schema oth;\ncreate function oth.wj() returns trigger language plpgsql as $$ begin return new; end $$;\ncreate trigger t after insert on logs for each row execute function wj();\nalter function oth.wj() rename to wj2;\n", query: "insert into logs values (2, 1)", want: "refused"},
	{name: "BEFORE trigger on the fenced table renamed, a harmless one created under its name: it still assigns the token", schema: pgJobs + "create function tk() returns trigger language plpgsql as $$ begin new.tok := 0; return new; end $$;\ncreate trigger t before update on jobs for each row execute function tk();\nalter function tk() rename to tk_old;\ncreate function tk() returns trigger language plpgsql as $$ begin return new; end $$;\n", query: "update jobs set k = 2 where id = 1", want: "refused",
		noPG: "the trigger changes the token the guard stores, not another fenced table; TestSoundTokenAgainstPostgreSQL's shapes"},
	{name: "BEFORE trigger on the fenced table of a name two schemas hold, the other one renamed: it still assigns the token", schema: pgJobs + "create function tk() returns trigger language plpgsql as $$ begin new.tok := 0; return new; end $$;\ncreate schema oth;\ncreate function oth.tk() returns trigger language plpgsql as $$ begin return new; end $$;\ncreate trigger t before update on jobs for each row execute function tk();\nalter function oth.tk() rename to tk2;\n", query: "update jobs set k = 2 where id = 1", want: "refused",
		noPG: "the trigger changes the token the guard stores, not another fenced table; TestSoundTokenAgainstPostgreSQL's shapes"},
	{name: "function the schema does not define", schema: pgJobs, query: "select defined_elsewhere(1)", want: "refused",
		noPG: "the function exists only outside the schema fencegen reads, by construction"},
	{name: "LANGUAGE sql body calling a function the schema does not define", schema: pgJobs + "create function su() returns int language sql as $$ select 1 $$;\ncreate or replace function su() returns int language sql as $$ select defined_elsewhere() $$;\n", query: "select su()", want: "refused",
		noPG: "PostgreSQL checks a LANGUAGE sql body's calls at CREATE FUNCTION; the function exists only outside the schema fencegen reads"},
	{name: "table turned into a view by an ON SELECT rule", schema: pgJobs + pgWV + "create table vt (x int);\ncreate rule \"_RETURN\" as on select to vt do instead select wv(1) as x;\n", query: "select * from vt", want: "refused",
		noPG: "PostgreSQL 16 and later refuse the ON SELECT rule that converts a table to a view; fencegen's verdict holds for 15 and earlier"},
	// Issue 24 F3: a trigger declared UPDATE OF a fires for an UPDATE only
	// when a is a target of its SET list (an upsert's DO UPDATE SET, a
	// MERGE's UPDATE actions); a column it lists followed through a
	// rename. Uncertain shapes count as firing: a SET of several columns
	// at once, an UPDATE through a view or a rule's action.
	{name: "AFTER UPDATE OF a, UPDATE sets b", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each row execute function wj();\n", query: "update w set b = 2 where id = 1", want: "plain"},
	{name: "AFTER UPDATE OF a, UPDATE sets a", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each row execute function wj();\n", query: "update w set b = 2, a = 3 where id = 1", want: "refused"},
	{name: "AFTER UPDATE OF a, UPDATE sets a to itself", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each row execute function wj();\n", query: "update w set a = a where id = 1", want: "refused"},
	{name: "AFTER UPDATE OF a, b, UPDATE sets an element of b", schema: pgJobs + pgWJTrigger + "create table w (id bigint primary key, a int, b int[]);\ninsert into w values (1, 1, '{1}');\ncreate trigger t after update of a, b on w for each row execute function wj();\n", query: "update w set b[1] = 2 where id = 1", want: "refused"},
	{name: "BEFORE UPDATE OF a, UPDATE sets b", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t before update of a on w for each row execute function wj();\n", query: "update w set b = 2 where id = 1", want: "plain"},
	{name: "statement-level AFTER UPDATE OF a, UPDATE sets b", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each statement execute function wj();\n", query: "update w set b = 2 where id = 1", want: "plain"},
	{name: "statement-level AFTER UPDATE OF a, UPDATE sets a, no row", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each statement execute function wj();\n", query: "update w set a = 2 where id = 7", want: "refused"},
	{name: "AFTER INSERT OR UPDATE OF a, INSERT", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after insert or update of a on w for each row execute function wj();\n", query: "insert into w values (2, 1, 1)", want: "refused"},
	{name: "AFTER UPDATE OF a, WHEN calls a writer, UPDATE sets b", schema: pgJobs + pgWV + pgWA + "create function tl() returns trigger language plpgsql as $$ begin return new; end $$;\ncreate trigger t after update of a on w for each row when (wv(new.b) > 0) execute function tl();\n", query: "update w set b = 2 where id = 1", want: "plain"},
	{name: "AFTER UPDATE OF a, WHEN calls a writer, UPDATE sets a", schema: pgJobs + pgWV + pgWA + "create function tl() returns trigger language plpgsql as $$ begin return new; end $$;\ncreate trigger t after update of a on w for each row when (wv(new.b) > 0) execute function tl();\n", query: "update w set a = 2 where id = 1", want: "refused"},
	{name: "AFTER UPDATE OF a, WITH entry sets b", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each row execute function wj();\n", query: "with u as (update w set b = 2 where id = 1 returning id) select id from u", want: "plain"},
	{name: "AFTER UPDATE OF a, WITH entry sets a", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each row execute function wj();\n", query: "with u as (update w set a = 2 where id = 1 returning id) select id from u", want: "refused"},
	{name: "AFTER UPDATE OF a, upsert's DO UPDATE sets b", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each row execute function wj();\n", query: "insert into w values (1, 5, 5) on conflict (id) do update set b = excluded.b", want: "plain"},
	{name: "AFTER UPDATE OF a, upsert's DO UPDATE sets a", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each row execute function wj();\n", query: "insert into w values (1, 5, 5) on conflict (id) do update set a = excluded.a", want: "refused"},
	{name: "AFTER UPDATE OF a, MERGE's UPDATE sets b", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each row execute function wj();\n", query: "merge into w using (select 1 as id) s on w.id = s.id when matched then update set b = 2 when not matched then insert values (s.id, 1, 1)", want: "plain"},
	{name: "AFTER UPDATE OF a, MERGE's second UPDATE sets a", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each row execute function wj();\n", query: "merge into w using (select 1 as id) s on w.id = s.id when matched and w.b > 5 then update set b = 2 when matched then update set a = 2", want: "refused"},
	{name: "AFTER UPDATE OF a, SET (a, b) = ROW(...)", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each row execute function wj();\n", query: "update w set (b, a) = row(2, 3) where id = 1", want: "refused"},
	{name: "AFTER UPDATE OF a, SET (b, id) = (SELECT ...)", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each row execute function wj();\n", query: "update w set (b, id) = (select 2, 1) where id = 1", want: "plain"},
	{name: "AFTER UPDATE OF a, a renamed to c and b to a, UPDATE sets c", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each row execute function wj();\nalter table w rename column a to c;\nalter table w rename column b to a;\n", query: "update w set c = 2 where id = 1", want: "refused"},
	{name: "AFTER UPDATE OF a, a renamed to c and b to a, UPDATE sets the new a", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each row execute function wj();\nalter table w rename column a to c;\nalter table w rename column b to a;\n", query: "update w set a = 2 where id = 1", want: "plain"},
	{name: "AFTER UPDATE OF a generated column, UPDATE sets the column it is computed from", schema: pgJobs + pgWJTrigger + "create table w (id bigint primary key, a int, b int, g int generated always as (a + 1) stored);\ninsert into w (id, a, b) values (1, 1, 1);\ncreate trigger t after update of g on w for each row execute function wj();\n", query: "update w set a = 2 where id = 1", want: "refused"},
	{name: "AFTER UPDATE OF a on a partitioned table, UPDATE sets b", schema: pgJobs + pgWJTrigger + "create table pw (id int not null, a int, b int) partition by range (id);\ncreate table pw1 partition of pw for values from (0) to (10);\ninsert into pw values (1, 1, 1);\ncreate trigger t after update of a on pw for each row execute function wj();\n", query: "update pw set b = 2 where id = 1", want: "plain"},
	{name: "AFTER UPDATE OF a on a partition, UPDATE of the parent sets a", schema: pgJobs + pgWJTrigger + "create table pw (id int not null, a int, b int) partition by range (id);\ncreate table pw1 partition of pw for values from (0) to (10);\ninsert into pw values (1, 1, 1);\ncreate trigger t after update of a on pw1 for each row execute function wj();\n", query: "update pw set a = 2 where id = 1", want: "refused"},
	{name: "AFTER UPDATE OF a on an inheritance child, UPDATE of the parent sets a", schema: pgJobs + pgWJTrigger + "create table pw (id int, a int, b int);\ncreate table pw1 () inherits (pw);\ninsert into pw1 values (1, 1, 1);\ncreate trigger t after update of a on pw1 for each row execute function wj();\n", query: "update pw set a = 2 where id = 1", want: "refused"},
	{name: "AFTER UPDATE OF a, UPDATE through a view sets b", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each row execute function wj();\ncreate view wv as select * from w;\n", query: "update wv set b = 2 where id = 1", want: "refused",
		conservative: "an UPDATE through a view counts as setting any column of its base table"},
	{name: "AFTER UPDATE OF a, UPDATE through a view sets a", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each row execute function wj();\ncreate view wv as select * from w;\n", query: "update wv set a = 2 where id = 1", want: "refused"},
	{name: "AFTER UPDATE OF a, a rule's action sets b", schema: pgJobs + pgWJTrigger + pgWA + "create trigger t after update of a on w for each row execute function wj();\ncreate rule r as on insert to logs do also update w set b = new.n where id = 1;\n", query: "insert into logs values (2, 1)", want: "refused",
		conservative: "a rule's action is bound to its columns when created, and counts as setting any column"},
	{name: "AFTER UPDATE OF a, a rule's action sets b, renamed to a since", schema: pgJobs + pgWJTrigger + pgWA + "create rule r as on insert to logs do also update w set b = new.n where id = 1;\nalter table w rename column a to c;\nalter table w rename column b to a;\ncreate trigger t after update of a on w for each row execute function wj();\n", query: "insert into logs values (2, 1)", want: "refused"},
	{name: "harmless attribute-notation field of the same name as no function", schema: pgJobs + pgWLogs, query: "select l.n from logs l", want: "plain"},
	{name: "harmless built-in call", schema: pgJobs, query: "select lower('X'), now(), gen_random_uuid()", want: "plain"},
	// Trial F1/F5: statements PostgreSQL runs without writing jobs, as
	// PostgreSQL resolves them, and their writing counterparts.
	{name: "named argument picks the read-only overload", schema: pgJobs + pgOver, query: "select ov(b => 'x')", want: "plain"},
	{name: "named argument picks the writing overload", schema: pgJobs + pgOver, query: "select ov(a => 1)", want: "refused"},
	{name: "untyped literal picks the text overload", schema: pgJobs + pgOver, query: "select ov('x')", want: "plain"},
	{name: "NULL picks the text overload", schema: pgJobs + pgOver, query: "select ov(null)", want: "plain"},
	{name: "integer literal beyond int4 is bigint", schema: pgJobs + pgPick, query: "select pick(3000000000)", want: "refused"},
	{name: "integer literal beyond int4 is bigint, the harmless overload", schema: pgJobs + "create function pick(x int) returns int language plpgsql as $$ begin update jobs set k = k + 1; return x; end $$;\ncreate function pick(x bigint) returns bigint language sql as $$ select x $$;\n", query: "select pick(3000000000)", want: "plain"},
	{name: "column named as a view that writes", schema: pgJobs + pgWV + "alter table logs add column wvv int;\ncreate view wvv as select id, wv(1) as z from logs;\n", query: "select wvv from logs", want: "plain"},
	{name: "column named as a view that writes, on UPDATE", schema: pgJobs + pgWV + "alter table logs add column wvv int;\ncreate view wvv as select id, wv(1) as z from logs;\n", query: "update logs set n = 2 where id = 1", want: "plain"},
	{name: "view that writes, read", schema: pgJobs + pgWV + "alter table logs add column wvv int;\ncreate view wvv as select id, wv(1) as z from logs;\n", query: "select z from wvv", want: "refused"},
	{name: "trigger WHEN (false)", schema: pgJobs + pgWJTrigger + "create trigger t after update on logs for each row when (false) execute function wj();\n", query: "update logs set n = 2 where id = 1", want: "plain"},
	{name: "trigger WHEN of constants never true", schema: pgJobs + pgWJTrigger + "create trigger t after update on logs for each row when (1 = 2 and true or not 't'::boolean) execute function wj();\n", query: "update logs set n = 2 where id = 1", want: "plain"},
	{name: "trigger WHEN (NULL)", schema: pgJobs + pgWJTrigger + "create trigger t before update on logs for each row when (null) execute function wj();\n", query: "update logs set n = 2 where id = 1", want: "plain"},
	{name: "trigger WHEN true for the row", schema: pgJobs + pgWJTrigger + "create trigger t after update on logs for each row when (new.n = 2) execute function wj();\n", query: "update logs set n = 2 where id = 1", want: "refused"},
	{name: "policy on a table without ROW LEVEL SECURITY", schema: pgJobs + pgWV + "create policy p on logs using (wv(n) = 1);\n", query: "select * from logs", want: "plain", asRole: true},
	{name: "policy on a table whose ROW LEVEL SECURITY was disabled", schema: pgJobs + pgWV + "alter table logs enable row level security;\ncreate policy p on logs using (wv(n) = 1);\nalter table logs disable row level security;\n", query: "select * from logs", want: "plain", asRole: true},
	// ANALYZE and VACUUM (trial): no row changes, no trigger; the
	// expressions of the indexes they evaluate may write.
	{name: "ANALYZE of every table", schema: pgJobs, query: "analyze", want: "plain"},
	{name: "ANALYZE of the fenced table", schema: pgJobs, query: "analyze jobs", want: "plain"},
	{name: "ANALYZE of a table whose index expression calls a writer", schema: pgJobs + pgWV + "create function wi(x int) returns int language plpgsql immutable as $$ begin return wv(x); end $$;\ncreate index on logs (wi(n));\n", query: "analyze logs", want: "refused"},
	{name: "ANALYZE of another table than the one whose index expression calls a writer", schema: pgJobs + pgWV + "create function wi(x int) returns int language plpgsql immutable as $$ begin return wv(x); end $$;\ncreate index on logs (wi(n));\n", query: "analyze jobs", want: "refused",
		conservative: "the schema declares a writer IMMUTABLE (an index expression takes only such a function), which PostgreSQL may evaluate in any statement's planning: an error at its CREATE FUNCTION (nonVolatileWriters)"},
	{name: "VACUUM of the fenced table", schema: pgJobs, query: "vacuum (analyze) jobs", want: "plain", noPG: "VACUUM cannot run inside a transaction block"},
	{name: "VACUUM FULL of every table, an index expression calling a writer", schema: pgJobs + pgWV + "create function wi(x int) returns int language plpgsql immutable as $$ begin return wv(x); end $$;\ncreate index on logs (wi(n));\n", query: "vacuum full", want: "refused", noPG: "VACUUM cannot run inside a transaction block"},
	{name: "ANALYZE with extended statistics fencegen does not read", schema: pgJobs + "create statistics st on id, k from jobs;\n", query: "analyze", want: "refused", conservative: "CREATE STATISTICS is not read"},
	{name: "policy on a table with ROW LEVEL SECURITY", schema: pgJobs + pgWV + "create policy p on logs using (wv(n) = 1);\nalter table logs enable row level security;\n", query: "select * from logs", want: "refused", asRole: true},
}

// TestSoundAgainstPostgreSQL runs soundPGCases: fencegen's verdict must be
// want, and PostgreSQL must agree that the statement writes fenced table
// jobs exactly when it is refused (a refusal marked conservative is one
// PostgreSQL does not need).
func TestSoundAgainstPostgreSQL(t *testing.T) {
	runSoundPGCases(t, soundPGCases)
}

// runSoundPGCases judges cases as TestSoundAgainstPostgreSQL does.
func runSoundPGCases(t *testing.T, cases []soundPGCase) {
	pool := testenv.Database(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, tc := range cases {
		got, cat := soundVerdict(t, tc.schema, tc.query)
		if got != tc.want {
			t.Errorf("%s: fencegen: %s, want %s", tc.name, got, tc.want)
		}
		if tc.noPG != "" {
			continue
		}
		schema := tc.schema
		if tc.off {
			schema = "set local standard_conforming_strings = off;\n" + schema
		}
		wrote, err := pgWritesFenced(ctx, conn.Conn(), cat, schema, tc.query, tc.asRole, tc.then)
		switch {
		case err != nil:
			t.Errorf("%s: PostgreSQL: %v", tc.name, err)
		case wrote && got != "refused":
			t.Errorf("%s: PostgreSQL wrote fenced table jobs without the guard, and fencegen generated it %s", tc.name, got)
		case !wrote && got == "refused" && tc.conservative == "":
			t.Errorf("%s: fencegen refused it, but PostgreSQL ran it without writing jobs", tc.name)
		case wrote && tc.conservative != "":
			t.Errorf("%s: marked conservative, but PostgreSQL wrote jobs", tc.name)
		}
	}
}

// soundVerdict is fencegen's verdict on query under schema: "refused",
// "guarded" or "plain".
func soundVerdict(t *testing.T, schema, query string) (string, *catalog.Catalog) {
	t.Helper()
	cat, errs := schemaCatalog(t, schema)
	if len(errs) > 0 {
		return "schema error: " + errs.Error(), cat
	}
	files, msgs := analyzeCat(t, cat, "-- name: Q :exec\n"+query+";\n")
	switch {
	case len(msgs) > 0:
		// A trigger that replaces the token (TokenRewriteTriggers) and a
		// writer declared IMMUTABLE or STABLE (nonVolatileWriters) are
		// the cause at their own statements, not at the query.
		if !strings.HasPrefix(msgs[0], "query.sql:2:") && !(strings.HasPrefix(msgs[0], "schema.sql:") && (strings.Contains(msgs[0], ": trigger ") || strings.Contains(msgs[0], "declare it VOLATILE"))) {
			t.Errorf("%s: refusal not located at the statement: %q", query, msgs)
		}
		return "refused", cat
	case files[0].Queries[0].Fence != nil:
		return "guarded", cat
	}
	return "plain", cat
}

// pgWritesFenced applies schema and pgSeed in a transaction, runs query
// (as a role without superuser rights when asRole), then then (always as
// that role) when not empty, and reports whether the rows of any of
// cat's fenced tables changed; the transaction is rolled back.
func pgWritesFenced(ctx context.Context, conn *pgx.Conn, cat *catalog.Catalog, schema, query string, asRole bool, then string) (bool, error) {
	tx, err := conn.Begin(ctx)
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
	before, err := fencedRows(ctx, tx, cat)
	if err != nil {
		return false, err
	}
	// A role of the transaction's own, gone with its rollback.
	const role = "CREATE ROLE fg_sound_rls; GRANT ALL ON ALL TABLES IN SCHEMA public TO fg_sound_rls; GRANT USAGE ON SCHEMA public TO fg_sound_rls; SET LOCAL ROLE fg_sound_rls"
	if asRole {
		if _, err := tx.Exec(ctx, role); err != nil {
			return false, err
		}
	}
	if q := strings.ToLower(query); strings.HasPrefix(q, "copy") && strings.HasSuffix(q, "to stdout") {
		// COPY ... TO STDOUT sends its rows in the copy protocol, which
		// Exec does not read.
		if _, err := tx.Conn().PgConn().CopyTo(ctx, io.Discard, query); err != nil {
			return false, err
		}
	} else if _, err := tx.Exec(ctx, query); err != nil {
		return false, err
	}
	if then != "" {
		set := role
		if asRole {
			set = "SET LOCAL ROLE fg_sound_rls"
		}
		if _, err := tx.Exec(ctx, set); err != nil {
			return false, err
		}
		if _, err := tx.Exec(ctx, then); err != nil {
			return false, err
		}
	}
	if asRole || then != "" {
		if _, err := tx.Exec(ctx, "RESET ROLE"); err != nil {
			return false, err
		}
	}
	after, err := fencedRows(ctx, tx, cat)
	return before != after, err
}

// fencedRows is the text of every row of cat's fenced tables, as q (a
// connection or a transaction) reads them, for comparing before and after
// a statement.
func fencedRows(ctx context.Context, q interface {
	QueryRow(context.Context, string, ...any) pgx.Row
}, cat *catalog.Catalog) (string, error) {
	var all strings.Builder
	for _, ft := range cat.FencedTables() {
		var s string
		id := pgx.Identifier{ft.Schema, ft.Name}.Sanitize()
		if err := q.QueryRow(ctx, "SELECT coalesce(string_agg(x::text, ',' ORDER BY x::text), '') FROM "+id+" x").Scan(&s); err != nil {
			return "", err
		}
		all.WriteString(id + ":" + s + ";")
	}
	return all.String(), nil
}

// TestCopyFromRulesAgainstPostgreSQL: a :copyfrom query is sent with COPY
// FROM, which runs no rules (trial pg4 F9), but fires triggers: a rule
// that writes fenced table jobs does not refuse it, a trigger does, and
// PostgreSQL, loading a row with COPY, writes jobs exactly then.
func TestCopyFromRulesAgainstPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	for _, tc := range []struct {
		name, schema, want string
	}{
		{"rule on INSERT that writes jobs", pgJobs + "create rule r as on insert to logs do also update jobs set k = k + 1;\n", "plain"},
		{"trigger on INSERT that writes jobs", pgJobs + pgWJTrigger + "create trigger t after insert on logs for each row execute function wj();\n", "refused"},
	} {
		cat, errs := schemaCatalog(t, tc.schema)
		if len(errs) > 0 {
			t.Fatal(errs)
		}
		got := "plain"
		if _, msgs := analyzeCat(t, cat, "-- name: Q :copyfrom\ninsert into logs (id, n) values ($1, $2);\n"); len(msgs) > 0 {
			got = "refused"
		}
		if got != tc.want {
			t.Errorf("%s: fencegen: %s, want %s", tc.name, got, tc.want)
		}
		wrote, err := pgWritesFenced(ctx, conn.Conn(), cat, tc.schema, "copy logs (id, n) from program 'echo 2,1' with (format csv)", false, "")
		switch {
		case err != nil:
			t.Errorf("%s: PostgreSQL: %v", tc.name, err)
		case wrote != (got == "refused"):
			t.Errorf("%s: PostgreSQL wrote jobs: %v; fencegen: %s", tc.name, wrote, got)
		}
	}
}
