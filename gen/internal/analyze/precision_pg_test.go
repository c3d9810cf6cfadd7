package analyze

import "testing"

const (
	// pgWeird is a btree operator class weird_ops for text, not its
	// type's default, whose support function my_cmp writes fenced table
	// jobs, and a table notes of two rows whose index notes_body is of
	// the class.
	pgWeird = "create function my_cmp(a text, b text) returns int language plpgsql as $$ begin update jobs set k = k + 1; return bttextcmp(a, b); end $$;\n" +
		"create operator class weird_ops for type text using btree as operator 1 ~<~, operator 2 ~<=~, operator 3 =, operator 4 ~>=~, operator 5 ~>~, function 1 my_cmp(text, text);\n" +
		"create table notes (id bigint primary key, body text);\ncreate index notes_body on notes (body weird_ops);\ninsert into notes values (1, 'a'), (2, 'b');\n"
	// pgInherit is a table pl with an inheritance child pl1 whose
	// UPDATE, DELETE and INSERT triggers write jobs (pgWJTrigger), and a
	// partitioned table pp whose partition pp1 has the same triggers.
	pgInherit = pgWJTrigger + "create table pl (id int, n int);\ncreate table pl1 () inherits (pl);\ninsert into pl values (1, 1);\ninsert into pl1 values (2, 1);\ncreate trigger t after insert or update or delete on pl1 for each row execute function wj();\n" +
		"create table pp (id int not null, n int) partition by range (id);\ncreate table pp1 partition of pp for values from (0) to (10);\ninsert into pp values (1, 1);\ncreate trigger t after insert or update or delete on pp1 for each row execute function wj();\n"
	// pgLogsTrigger is a trigger on logs that writes jobs on INSERT.
	pgLogsTrigger = pgWJTrigger + "create trigger t after insert on logs for each row execute function wj();\n"
)

// precisionPGCases are statements PostgreSQL runs without writing a fenced
// table that fencegen refused (issue 24, precision trial), beside their
// writing counterparts, judged as soundPGCases are.
var precisionPGCases = []soundPGCase{
	// 1. A btree operator class that is not its type's default runs its
	// support functions only where an index (or a statement) of the
	// class, or an operator only it holds, is used: a merge or hash
	// join on text's = takes the built-in family, whose OID is lower
	// (the schema's SET LOCAL forces the join).
	{name: "unused btree operator class, a read of another table", schema: pgJobs + pgWeird, query: "select id from logs where n = 1", want: "plain"},
	{name: "unused btree operator class, an insert into another table", schema: pgJobs + pgWeird, query: "insert into logs values (2, 1)", want: "plain"},
	{name: "unused btree operator class, a merge join on text values", schema: pgJobs + pgWeird + "set local enable_hashjoin = off;\nset local enable_nestloop = off;\n", query: "select a.x from (values ('b'), ('a'), ('c')) a (x) join (values ('c'), ('a')) b (x) on a.x = b.x order by a.x", want: "plain"},
	{name: "unused hash operator class, a hash join and a DISTINCT on text values", schema: pgJobs + pgWeird + "create function my_hash(a text) returns int language plpgsql as $$ begin update jobs set k = k + 1; return hashtext(a); end $$;\ncreate operator class weird_hash for type text using hash as operator 1 =, function 1 my_hash(text);\nset local enable_mergejoin = off;\nset local enable_nestloop = off;\nset local enable_sort = off;\n", query: "select distinct a.x from (values ('b'), ('a'), ('c')) a (x) join (values ('c'), ('a')) b (x) on a.x = b.x", want: "plain"},
	{name: "unused btree operator class, a sort by an operator it shares with a built-in class", schema: pgJobs + pgWeird, query: "select x from (values ('b'), ('a'), ('c')) v (x) order by x using ~<~", want: "plain"},
	{name: "btree operator class, an insert into its index", schema: pgJobs + pgWeird, query: "insert into notes values (3, 'c')", want: "refused"},
	{name: "btree operator class, an index of it created", schema: pgJobs + pgWeird, query: "create index on notes (body weird_ops)", want: "refused"},
	{name: "btree operator class, a read of its index's table", schema: pgJobs + pgWeird, query: "select id from notes where body ~<~ 'b'", want: "refused",
		conservative: "an index scan of notes_body (which the planner may choose once notes has more rows) compares with my_cmp"},
	{name: "btree operator class, a read of a view over its index's table", schema: pgJobs + pgWeird + "create view nv as select id, body from notes;\n", query: "select id from nv where body ~<~ 'b'", want: "refused",
		conservative: "an index scan of notes_body through the view compares with my_cmp"},
	{name: "btree operator class, an insert into a table whose foreign key checks through a unique index of it", schema: pgJobs + pgWeird + "create unique index notes_body_u on notes (body weird_ops);\ncreate table refs (id int, b text references notes (body));\n", query: "insert into refs values (1, 'a')", want: "refused",
		conservative: "the foreign key's check may scan notes_body_u (the planner's choice once notes holds more rows), comparing with my_cmp"},
	{name: "btree operator class, a sort by an operator only it holds", schema: pgJobs + pgWeird + "create operator ==< (leftarg = text, rightarg = text, function = text_pattern_lt);\ncreate operator class weird2_ops for type text using btree as operator 1 ==<, operator 3 =, function 1 my_cmp(text, text);\n", query: "select x from (values ('b'), ('a'), ('c')) v (x) order by x using ==<", want: "refused"},
	{name: "btree operator class, a partition key of it", schema: pgJobs + pgWeird + "create table pk (body text) partition by range (body weird_ops);\ncreate table pk1 partition of pk for values from ('a') to ('m');\n", query: "insert into pk values ('b')", want: "refused"},
	{name: "btree operator class, the subtype class of a range type", schema: pgJobs + pgWeird + "create type trange as range (subtype = text, subtype_opclass = weird_ops);\n", query: "select trange('a', 'b')", want: "refused"},
	// 2. ONLY: the children's triggers do not fire.
	{name: "UPDATE ONLY of a parent whose inheritance child's trigger writes", schema: pgJobs + pgInherit, query: "update only pl set n = 2", want: "plain"},
	{name: "DELETE ONLY of a parent whose inheritance child's trigger writes", schema: pgJobs + pgInherit, query: "delete from only pl", want: "plain"},
	{name: "UPDATE ONLY of a partitioned table whose partition's trigger writes", schema: pgJobs + pgInherit, query: "update only pp set n = 2", want: "plain"},
	{name: "DELETE ONLY of a partitioned table whose partition's trigger writes", schema: pgJobs + pgInherit, query: "delete from only pp", want: "plain"},
	{name: "MERGE INTO ONLY a parent whose inheritance child's trigger writes", schema: pgJobs + pgInherit, query: "merge into only pl using (select 2 as id) s on pl.id = s.id when matched then update set n = 5", want: "plain"},
	{name: "MERGE INTO a parent whose inheritance child's trigger writes", schema: pgJobs + pgInherit, query: "merge into pl using (select 2 as id) s on pl.id = s.id when matched then update set n = 5", want: "refused"},
	{name: "UPDATE of a parent whose inheritance child's trigger writes", schema: pgJobs + pgInherit, query: "update pl set n = 2", want: "refused"},
	{name: "DELETE of a parent whose inheritance child's trigger writes", schema: pgJobs + pgInherit, query: "delete from pl", want: "refused"},
	{name: "INSERT into a partitioned table whose partition's trigger writes", schema: pgJobs + pgInherit, query: "insert into pp values (2, 1)", want: "refused"},
	// 3. Creating a temporary view or table runs nothing its definition
	// names.
	{name: "CREATE TEMP VIEW over a writer", schema: pgJobs + pgWV, query: "create temp view tv as select wv(1) as x", want: "plain"},
	{name: "CREATE TEMP TABLE of a column whose DEFAULT calls a writer", schema: pgJobs + pgWV, query: "create temp table tt (id int, n int default wv(1))", want: "plain"},
	{name: "CREATE TEMP TABLE of a column whose CHECK calls a writer", schema: pgJobs + pgWV, query: "create temp table tt (id int, n int check (wv(n) = 1))", want: "plain"},
	{name: "CREATE VIEW over a writer", schema: pgJobs + pgWV, query: "create view tv as select wv(1) as x", want: "plain"},
	{name: "CREATE TEMP VIEW over a writer, named as a table of the schema", schema: pgJobs + pgWV, query: "create temp view logs as select 1::bigint as id, wv(1) as n", want: "refused",
		conservative: "a later query that reads logs on the connection reads the view, which calls wv"},
	{name: "CREATE TEMP VIEW over a writer, named in a function body", schema: pgJobs + pgWV + "create function rt() returns int language plpgsql as $$ begin return (select x from tv); end $$;\n", query: "create temp view tv as select wv(1) as x", want: "refused",
		conservative: "a later call of rt() on the connection reads the view, which calls wv"},
	{name: "CREATE TEMP TABLE of a column whose DEFAULT calls a writer, named as a table of the schema", schema: pgJobs + pgWV, query: "create temp table logs (id bigint, n int default wv(1))", want: "refused",
		conservative: "a later INSERT into logs on the connection writes the temporary table, whose DEFAULT calls wv"},
	{name: "CREATE TABLE of a partition whose bound calls a writer", schema: pgJobs + pgWV + "create table pq (id int) partition by list (id);\n", query: "create table pq1 partition of pq for values in (wv(1))", want: "refused"},
	{name: "CREATE TEMP TABLE AS calling a writer", schema: pgJobs + pgWV, query: "create temp table tt as select wv(1) as x", want: "refused"},
	// 4. CLUSTER rebuilds the table and its indexes.
	{name: "CLUSTER of a table", schema: pgJobs, query: "cluster logs using logs_pkey", want: "plain"},
	{name: "CLUSTER of the fenced table", schema: pgJobs, query: "cluster jobs using jobs_pkey", want: "plain"},
	{name: "CLUSTER of a table whose index expression calls a writer", schema: pgJobs + pgWV + "create function wi(x int) returns int language plpgsql immutable as $$ begin return wv(x); end $$;\ncreate index li on logs (wi(n));\n", query: "cluster logs using logs_pkey", want: "refused"},
	{name: "CLUSTER of every clustered table", schema: pgJobs, query: "cluster", want: "plain", noPG: "CLUSTER without a table cannot run inside a transaction block"},
	{name: "CLUSTER of a table the schema does not define", schema: pgJobs, query: "cluster elsewhere using elsewhere_pkey", want: "refused", noPG: "the table exists only outside the schema fencegen reads, by construction"},
	{name: "CLUSTER of a table whose index is of a btree operator class that writes", schema: pgJobs + pgWeird, query: "cluster notes using notes_pkey", want: "refused"},
	{name: "CLUSTER of another table than the one of a btree operator class that writes", schema: pgJobs + pgWeird, query: "cluster logs using logs_pkey", want: "plain"},
	// 5. Functions that run SQL text: a constant is the statement it
	// is.
	{name: "query_to_xml of a constant read", schema: pgJobs + pgWV, query: "select query_to_xml('select id from logs', true, false, '')", want: "plain"},
	{name: "query_to_xml_and_xmlschema of a constant read", schema: pgJobs + pgWV, query: "select query_to_xml_and_xmlschema('select id from logs where n = 1', true, false, '')", want: "plain"},
	{name: "query_to_xmlschema of a constant calling a writer", schema: pgJobs + pgWV, query: "select query_to_xmlschema('select wv(1) as x', true, false, '')", want: "plain"},
	{name: "query_to_xml of a constant calling a writer", schema: pgJobs + pgWV, query: "select query_to_xml('select wv(1) as x', true, false, '')", want: "refused"},
	{name: "query_to_xml of a constant reading a view over a writer", schema: pgJobs + pgWV + "create view wvv as select wv(1) as x;\n", query: "select query_to_xml('select x from wvv', true, false, '')", want: "refused"},
	{name: "query_to_xml of a constant writing a table whose trigger writes", schema: pgJobs + pgLogsTrigger, query: "select query_to_xml('with i as (insert into logs values (2, 1) returning id) select id from i', true, false, '')", want: "refused",
		noPG: "PostgreSQL runs the text read-only (query_to_xml is STABLE) and refuses a data-modifying WITH entry (0A000); fencegen refuses it as a write inside query_to_xml"},
	{name: "query_to_xml of a text built at run time", schema: pgJobs + pgWV, query: "select query_to_xml('select ' || 'id from logs', true, false, '')", want: "refused",
		conservative: "fencegen does not read text built at run time; any function or view of the schema may run there"},
	{name: "query_to_xml of two statements", schema: pgJobs + pgWV, query: "select query_to_xml('select 1; select 2', true, false, '')", want: "refused", noPG: "PostgreSQL refuses more than one statement there"},
	{name: "table_to_xml of a table", schema: pgJobs + pgWV, query: "select table_to_xml('logs', true, false, '')", want: "plain"},
	{name: "table_to_xml of a view over a writer", schema: pgJobs + pgWV + "create view wvv as select wv(1) as x;\n", query: "select table_to_xml('wvv', true, false, '')", want: "refused"},
	{name: "table_to_xml of a name that is not one relation", schema: pgJobs + pgWV, query: "select table_to_xml('logs where wv(1) = 1', true, false, '')", want: "refused", noPG: "PostgreSQL refuses the text as a relation's name"},
	{name: "cursor_to_xml", schema: pgJobs + pgWV, query: "select cursor_to_xml('c', 1, true, false, '')", want: "refused", noPG: "the cursor is declared outside the statement: fencegen cannot see its query"},
	// 6. LIMIT 0: no row is fetched.
	{name: "writer in a subquery under LIMIT 0", schema: pgJobs + pgWV, query: "select * from (select wv(1) from logs limit 0) s", want: "plain"},
	{name: "writer in a scalar subquery under LIMIT 0", schema: pgJobs + pgWV, query: "select (select wv(1) limit 0)", want: "plain"},
	{name: "writer in a WHERE without columns under LIMIT 0", schema: pgJobs + pgWV, query: "select id from logs where wv(1) = 1 limit 0", want: "plain"},
	{name: "writer in ORDER BY and GROUP BY under LIMIT 0", schema: pgJobs + pgWV, query: "select n, count(*) from logs group by n, wv(n) order by wv(2) limit 0", want: "plain"},
	{name: "writer in a scalar subquery of a target list under LIMIT 0", schema: pgJobs + pgWV, query: "select (select wv(1)) from logs limit 0", want: "plain"},
	{name: "writer in a set operation under FETCH FIRST 0 ROWS ONLY", schema: pgJobs + pgWV, query: "select wv(1) union all select n from logs fetch first 0 rows only", want: "plain"},
	{name: "writer in a FROM function under LIMIT 0", schema: pgJobs + pgWV, query: "select * from logs, wv(1) limit 0", want: "plain"},
	{name: "writer in a WITH entry read under LIMIT 0", schema: pgJobs + pgWV, query: "with x as materialized (select wv(1) as v) select v from x limit 0", want: "refused",
		conservative: "the WITH list of a statement under LIMIT 0 is read as run: a data-modifying entry runs to completion, and the SELECT entries it reads with it"},
	{name: "writer in OFFSET beside LIMIT 0", schema: pgJobs + pgWV, query: "select id from logs limit 0 offset wv(1)", want: "refused"},
	{name: "writer under LIMIT 0 WITH TIES", schema: pgJobs + pgWV, query: "select wv(1) from logs order by id fetch first 0 rows with ties", want: "refused",
		conservative: "fencegen reads only LIMIT 0 without WITH TIES"},
	{name: "writer in a subquery under LIMIT 1", schema: pgJobs + pgWV, query: "select * from (select wv(1) from logs limit 1) s", want: "refused"},
	{name: "data-modifying WITH entry under LIMIT 0", schema: pgJobs + pgLogsTrigger, query: "with u as (insert into logs values (2, 1) returning id) select id from u limit 0", want: "refused"},
	// 7. A SELECT WITH entry that nothing references is not run; a
	// data-modifying one is.
	{name: "unreferenced WITH entry calling a writer", schema: pgJobs + pgWV, query: "with x as (select wv(1) as v) select 1", want: "plain"},
	{name: "WITH entry calling a writer, shadowed by an inner one", schema: pgJobs + pgWV, query: "with x as (select wv(1) as v) select * from (with x as (select 2 as v) select v from x) s", want: "plain"},
	{name: "WITH entry calling a writer, referenced", schema: pgJobs + pgWV, query: "with x as (select wv(1) as v) select * from (select v from x) s", want: "refused"},
	{name: "WITH entry calling a writer, shadowed, referenced by the inner entry of its name", schema: pgJobs + pgWV, query: "with x as (select wv(1) as v) select * from (with x as (select v from x) select v from x) s", want: "refused"},
	{name: "WITH entry calling a writer, shadowed, referenced by a later inner entry", schema: pgJobs + pgWV, query: "with x as (select wv(1) as v) select * from (with y as (select v from x), x as (select 2 as v) select y.v from x, y) s", want: "refused"},
	{name: "WITH entry calling a writer, shadowed in one subquery, referenced in another", schema: pgJobs + pgWV, query: "with x as (select wv(1) as v) select (with x as (select 2 as v) select v from x), (select v from x)", want: "refused"},
	{name: "unreferenced data-modifying WITH entry", schema: pgJobs + pgLogsTrigger, query: "with x as (insert into logs values (2, 1) returning id) select 1", want: "refused"},
	// 8. A trigger whose WHEN condition holds only when a column
	// changes does not fire for an UPDATE that leaves the column alone.
	{name: "UPDATE of another column than the one a trigger's WHEN IS DISTINCT FROM compares", schema: pgJobs + pgOrders("old.status is distinct from new.status"), query: "update orders set note = 'y' where id = 1", want: "plain"},
	{name: "UPDATE of the column a trigger's WHEN IS DISTINCT FROM compares", schema: pgJobs + pgOrders("old.status is distinct from new.status"), query: "update orders set status = 'b' where id = 1", want: "refused"},
	{name: "UPDATE of the column a trigger's WHEN compares, to its own value", schema: pgJobs + pgOrders("new.status is distinct from old.status"), query: "update orders set status = status where id = 1", want: "refused",
		conservative: "fencegen does not compare the values a SET list assigns: a column it names counts as changed"},
	{name: "UPDATE of another column, WHEN <> OR NOT IS NOT DISTINCT FROM", schema: pgJobs + pgOrders("old.status <> new.status or not (old.id is not distinct from new.id)"), query: "update orders set note = 'y'", want: "plain"},
	{name: "UPDATE of a column of an OR in the WHEN", schema: pgJobs + pgOrders("old.status <> new.status or not (old.id is not distinct from new.id)"), query: "update orders set id = 2", want: "refused"},
	{name: "UPDATE of another column, WHEN of two rows", schema: pgJobs + pgOrders("(old.status, old.id) is distinct from (new.status, new.id)"), query: "update orders set note = 'y'", want: "plain"},
	{name: "UPDATE of another column, WHEN IS DISTINCT FROM AND a comparison with a constant", schema: pgJobs + pgOrders("old.status is distinct from new.status and new.status = 'a' and new.note is not null"), query: "update orders set note = 'y'", want: "plain"},
	{name: "UPDATE of the column, WHEN IS DISTINCT FROM AND a comparison with a constant", schema: pgJobs + pgOrders("old.status is distinct from new.status and new.status = 'b'"), query: "update orders set status = 'b'", want: "refused"},
	{name: "UPDATE of another column, WHEN IS DISTINCT FROM AND a function call", schema: pgJobs + pgWV + pgOrders("old.status is distinct from new.status and wv(1) = 1"), query: "update orders set note = 'y'", want: "refused",
		conservative: "a conjunct that calls a function may run before the comparison: fencegen reads the whole condition as run"},
	{name: "UPDATE of another column, a BEFORE trigger that changes the compared column", schema: pgJobs + pgOrders("old.status is distinct from new.status") + "create function bump() returns trigger language plpgsql as $$ begin new.status := 'z'; return new; end $$;\ncreate trigger b before update on orders for each row execute function bump();\n", query: "update orders set note = 'y'", want: "refused"},
	{name: "UPDATE of another column, WHEN IS DISTINCT FROM a column of the other row", schema: pgJobs + pgOrders("old.status is distinct from new.note"), query: "update orders set id = 2", want: "refused"},
	{name: "UPDATE of another column of a partition, WHEN IS DISTINCT FROM", schema: pgJobs + pgWJTrigger + "create table po (id int not null, status text, note text) partition by list (id);\ncreate table po1 partition of po for values in (1);\ninsert into po values (1, 'a', 'x');\ncreate trigger t after update on po1 for each row when (old.status is distinct from new.status) execute function wj();\n", query: "update po set note = 'y'", want: "refused",
		conservative: "a partition's rows run its parent's BEFORE triggers too, which fencegen does not follow for WHEN conditions"},
	// 9. A MERGE whose every WHEN clause is DO NOTHING changes no row of
	// its target and fires none of its triggers.
	{name: "MERGE into the fenced table, DO NOTHING", schema: pgJobs, query: "merge into jobs j using logs l on l.id = j.id when matched then do nothing when not matched then do nothing", want: "plain"},
	{name: "MERGE into a table whose trigger writes, DO NOTHING", schema: pgJobs + pgWJTrigger + "create trigger t after insert or update or delete on logs for each row execute function wj();\ncreate trigger s after insert or update or delete on logs for each statement execute function wj();\n", query: "merge into logs l using (select 1 as id) s on s.id = l.id when matched then do nothing", want: "plain"},
	{name: "MERGE into a table whose trigger writes, DO NOTHING and an UPDATE", schema: pgJobs + pgWJTrigger + "create trigger t after insert or update or delete on logs for each row execute function wj();\n", query: "merge into logs l using (select 1 as id) s on s.id = l.id when matched and l.n = 5 then do nothing when matched then update set n = 2", want: "refused"},
	{name: "MERGE into the fenced table, DO NOTHING, a source calling a writer", schema: pgJobs + pgWV, query: "merge into jobs j using (select wv(1) as id) s on s.id = j.id when matched then do nothing", want: "refused"},
	// 10. A disabled trigger fires in no session.
	{name: "UPDATE of a table whose writing trigger is disabled", schema: pgJobs + pgWJTrigger + "create trigger t after update on logs for each row execute function wj();\nalter table logs disable trigger t;\n", query: "update logs set n = 2", want: "plain"},
	{name: "UPDATE of a table whose writing triggers are all disabled", schema: pgJobs + pgWJTrigger + "create trigger t after update on logs for each row execute function wj();\ncreate trigger s after update on logs for each statement execute function wj();\nalter table logs disable trigger all;\n", query: "update logs set n = 2", want: "plain"},
	{name: "UPDATE of a table whose writing trigger is disabled and enabled again", schema: pgJobs + pgWJTrigger + "create trigger t after update on logs for each row execute function wj();\nalter table logs disable trigger user;\nalter table logs enable always trigger t;\n", query: "update logs set n = 2", want: "refused"},
	{name: "UPDATE of a table whose writing trigger is enabled for replica sessions", schema: pgJobs + pgWJTrigger + "create trigger t after update on logs for each row execute function wj();\nalter table logs disable trigger t;\nalter table logs enable replica trigger t;\n", query: "update logs set n = 2", want: "refused",
		conservative: "a session whose session_replication_role is replica fires it; fencegen does not know the sessions' role"},
	{name: "UPDATE of a table whose other trigger is disabled", schema: pgJobs + pgWJTrigger + "create trigger t after update on logs for each row execute function wj();\ncreate trigger s after update on logs for each row execute function wj();\nalter table logs disable trigger s;\n", query: "update logs set n = 2", want: "refused"},
	{name: "UPDATE of a partitioned table whose writing trigger is disabled", schema: pgJobs + pgWJTrigger + "create table pd (id int not null, n int) partition by list (id);\ncreate table pd1 partition of pd for values in (1);\ninsert into pd values (1, 1);\ncreate trigger t after update on pd for each row execute function wj();\nalter table pd disable trigger t;\n", query: "update pd set n = 2", want: "refused",
		conservative: "PostgreSQL versions differ in whether DISABLE TRIGGER of a partitioned table reaches its partitions' clones"},
	// 11. A rule whose condition is never true, or that is disabled,
	// is not applied.
	{name: "UPDATE of a table whose DO ALSO rule's condition is false", schema: pgJobs + "create rule r as on update to logs where false do also update jobs set k = k + 1;\n", query: "update logs set n = 2", want: "plain"},
	{name: "UPDATE of a table whose DO INSTEAD rule's condition is 1 = 2", schema: pgJobs + "create rule r as on update to logs where 1 = 2 do instead update jobs set k = k + 1;\n", query: "update logs set n = 2", want: "plain"},
	{name: "UPDATE of a table whose DO ALSO rule's condition is NULL", schema: pgJobs + "create rule r as on update to logs where null do also update jobs set k = k + 1;\n", query: "update logs set n = 2", want: "plain"},
	{name: "UPDATE of a table whose DO ALSO rule's condition is 1 = 1", schema: pgJobs + "create rule r as on update to logs where 1 = 1 do also update jobs set k = k + 1;\n", query: "update logs set n = 2", want: "refused"},
	{name: "UPDATE of a table whose DO ALSO rule is disabled", schema: pgJobs + "create rule r as on update to logs do also update jobs set k = k + 1;\nalter table logs disable rule r;\n", query: "update logs set n = 2", want: "plain"},
	{name: "UPDATE of a table whose DO ALSO rule is disabled and enabled again", schema: pgJobs + "create rule r as on update to logs do also update jobs set k = k + 1;\nalter table logs disable rule r;\nalter table logs enable always rule r;\n", query: "update logs set n = 2", want: "refused"},
	{name: "UPDATE of a table whose DO ALSO rule calling a writer is disabled", schema: pgJobs + "create function wjr() returns int language plpgsql as $$ begin update jobs set k = k + 1; return 1; end $$;\n" + "create rule r as on update to logs do also select wjr();\nalter table logs disable rule r;\n", query: "update logs set n = 2", want: "plain"},
	// 12. A view's statement-level trigger fires only for a write an
	// INSTEAD OF trigger of the view handles.
	{name: "UPDATE of an automatically updatable view whose statement trigger writes", schema: pgJobs + pgWJTrigger + "create view lv as select id, n from logs;\ncreate trigger s after update on lv for each statement execute function wj();\n", query: "update lv set n = 2", want: "plain"},
	{name: "UPDATE of a view whose statement trigger writes, with an INSTEAD OF trigger", schema: pgJobs + pgWJTrigger + "create view lv as select id, n from logs;\ncreate trigger s after update on lv for each statement execute function wj();\ncreate function ins() returns trigger language plpgsql as $$ begin update logs set n = new.n where id = old.id; return new; end $$;\ncreate trigger i instead of update on lv for each row execute function ins();\n", query: "update lv set n = 2", want: "refused"},
	{name: "INSERT into an automatically updatable view whose statement trigger of UPDATE writes, with an INSTEAD OF trigger of UPDATE", schema: pgJobs + pgWJTrigger + "create view lv as select id, n from logs;\ncreate trigger s before insert or update on lv for each statement execute function wj();\ncreate function ins() returns trigger language plpgsql as $$ begin return new; end $$;\ncreate trigger i instead of update on lv for each row execute function ins();\n", query: "insert into lv values (7, 1)", want: "plain"},
}

// pgOrders is an unfenced table orders of one row and a trigger t after
// UPDATE on it, WHEN (when), that writes fenced table jobs.
func pgOrders(when string) string {
	return pgWJTrigger + "create table orders (id int primary key, status text, note text);\ninsert into orders values (1, 'a', 'x');\n" +
		"create trigger t after update on orders for each row when (" + when + ") execute function wj();\n"
}

// TestPrecisionAgainstPostgreSQL runs precisionPGCases.
func TestPrecisionAgainstPostgreSQL(t *testing.T) {
	runSoundPGCases(t, precisionPGCases)
}
