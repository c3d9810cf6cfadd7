package analyze

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/internal/testenv"
)

// ddlPrelude is every ddlHookCases schema's start: fenced table jobs and
// writers of it in the shapes a trigger (trg, and vtrg for an INSTEAD OF
// trigger), a DEFAULT (w) and a CHECK (wb) call, and a trigger function
// that writes nothing (nop).
const ddlPrelude = `CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT 'new', tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';
CREATE FUNCTION w() RETURNS int LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET status = 'w'; RETURN 1; END $$;
CREATE FUNCTION wb(int) RETURNS boolean LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET status = 'wb'; RETURN true; END $$;
CREATE FUNCTION trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET status = TG_TABLE_NAME; RETURN NULL; END $$;
CREATE FUNCTION vtrg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET status = 'v'; RETURN NEW; END $$;
CREATE FUNCTION nop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;
`

// ddlHookCase is a DDL sequence (after ddlPrelude) and a query. want is
// fencegen's verdict: "refused" (the query is refused), "error" (the
// schema is), "plain" (generated without the guard) or "guarded".
// conservative, for a refusal or an error, says why fencegen refuses
// what PostgreSQL runs without writing jobs.
type ddlHookCase struct {
	name, ddl, query, want, conservative string
}

// ddlHookCases are DDL sequences under which fencegen's reading of the
// schema might differ from PostgreSQL's (issue 24, trial t24f): a hook
// that writes fenced table jobs (a trigger, a rule, a column DEFAULT, a
// CHECK, a domain's CHECK, a view's query) must be kept unless
// PostgreSQL drops it too.
var ddlHookCases = []ddlHookCase{
	// DROP FUNCTION drops the function of that signature and schema, and
	// with CASCADE what depends on that one alone.
	{name: "trigger function, other overload dropped",
		ddl:   "CREATE FUNCTION trg(int) RETURNS int LANGUAGE sql AS 'SELECT 1';\nCREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nDROP FUNCTION trg(int);\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "trigger function, other overload dropped CASCADE",
		ddl:   "CREATE FUNCTION trg(int) RETURNS int LANGUAGE sql AS 'SELECT 1';\nCREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nDROP FUNCTION trg(int) CASCADE;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "trigger function, procedure of its name dropped",
		ddl:   "CREATE PROCEDURE trg(int) LANGUAGE sql AS 'SELECT 1';\nCREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nDROP PROCEDURE trg(int);\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "trigger function, namesake in another schema dropped CASCADE",
		ddl:   "CREATE SCHEMA s;\nCREATE FUNCTION s.trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;\nCREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nDROP FUNCTION s.trg() CASCADE;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "qualified trigger function, namesake in another schema dropped CASCADE",
		ddl:   "CREATE SCHEMA s;\nCREATE FUNCTION s.trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;\nCREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION public.trg();\nDROP FUNCTION s.trg() CASCADE;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "trigger function dropped CASCADE",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nDROP FUNCTION trg() CASCADE;\n",
		query: "INSERT INTO a VALUES (1)", want: "plain"},
	{name: "trigger function dropped CASCADE, OUT parameter written",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nDROP FUNCTION IF EXISTS trg(OUT x int) CASCADE;\n",
		query: "INSERT INTO a VALUES (1)", want: "plain"},
	{name: "DEFAULT, other overload dropped CASCADE",
		ddl:   "CREATE FUNCTION w(int) RETURNS int LANGUAGE sql AS 'SELECT 1';\nCREATE TABLE a (id int, n int DEFAULT w());\nDROP FUNCTION w(int) CASCADE;\n",
		query: "INSERT INTO a (id) VALUES (1)", want: "refused"},
	{name: "DEFAULT, other overload dropped with DROP ROUTINE",
		ddl:   "CREATE FUNCTION w(int) RETURNS int LANGUAGE sql AS 'SELECT 1';\nCREATE TABLE a (id int, n int DEFAULT w());\nDROP ROUTINE w(int) CASCADE;\n",
		query: "INSERT INTO a (id) VALUES (1)", want: "refused"},
	{name: "DEFAULT, missing overload dropped IF EXISTS",
		ddl:   "CREATE TABLE a (id int, n int DEFAULT w());\nDROP FUNCTION IF EXISTS w(text);\n",
		query: "INSERT INTO a (id) VALUES (1)", want: "refused"},
	{name: "DEFAULT, overload of a domain argument dropped",
		ddl:   "CREATE DOMAIN dint AS int;\nCREATE FUNCTION wx(int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET status = 'wx'; RETURN 1; END $$;\nCREATE FUNCTION wx(dint) RETURNS int LANGUAGE sql AS 'SELECT 2';\nCREATE TABLE a (id int, n int DEFAULT wx(1));\nDROP FUNCTION wx(dint);\n",
		query: "INSERT INTO a (id) VALUES (1)", want: "refused"},
	{name: "DEFAULT, overload of a domain argument replaced",
		ddl:   "CREATE DOMAIN dint AS int;\nCREATE FUNCTION wx(int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET status = 'wx'; RETURN 1; END $$;\nCREATE OR REPLACE FUNCTION wx(dint) RETURNS int LANGUAGE sql AS 'SELECT 2';\nCREATE TABLE a (id int, n int DEFAULT wx(1));\n",
		query: "INSERT INTO a (id) VALUES (1)", want: "refused"},
	{name: "function dropped by another spelling of its argument types, created again",
		ddl:   "CREATE FUNCTION f(integer, character varying) RETURNS int LANGUAGE sql AS 'SELECT 1';\nDROP FUNCTION f(int4, varchar);\nCREATE FUNCTION f(int, text) RETURNS int LANGUAGE sql AS 'SELECT 2';\nCREATE FUNCTION f(int, varchar) RETURNS int LANGUAGE sql AS 'SELECT 3';\n",
		query: "SELECT f(1, 'a'::varchar)", want: "plain"},
	{name: "procedure of an OUT argument dropped by its signature, created again",
		ddl:   "CREATE PROCEDURE p(OUT x int) LANGUAGE plpgsql AS $$ BEGIN x := 1; END $$;\nDROP PROCEDURE p(OUT int);\nCREATE PROCEDURE p(OUT x int) LANGUAGE plpgsql AS $$ BEGIN x := 2; END $$;\n",
		query: "SELECT 1", want: "plain"},
	{name: "function of an OUT argument dropped by its input arguments, created again",
		ddl:   "CREATE FUNCTION g(a int, OUT x int) LANGUAGE sql AS 'SELECT 1';\nDROP FUNCTION g(int);\nCREATE FUNCTION g(a int, OUT x int) LANGUAGE sql AS 'SELECT 2';\n",
		query: "SELECT g(1)", want: "plain"},
	{name: "DEFAULT, its function dropped CASCADE",
		ddl:   "CREATE TABLE a (id int, n int DEFAULT w());\nDROP FUNCTION w() CASCADE;\n",
		query: "INSERT INTO a (id) VALUES (1)", want: "plain"},
	{name: "DEFAULT, its function dropped CASCADE and a harmless one created",
		ddl:   "CREATE TABLE a (id int, n int DEFAULT w());\nDROP FUNCTION w() CASCADE;\nCREATE FUNCTION w() RETURNS int LANGUAGE sql AS 'SELECT 1';\n",
		query: "INSERT INTO a (id) VALUES (1)", want: "plain"},
	{name: "rule action, other overload dropped CASCADE",
		ddl:   "CREATE FUNCTION w(text) RETURNS int LANGUAGE sql AS 'SELECT 1';\nCREATE TABLE a (id int);\nCREATE TABLE alog (n int);\nCREATE RULE r AS ON INSERT TO a DO ALSO INSERT INTO alog VALUES (w());\nDROP FUNCTION w(text) CASCADE;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "view, other overload dropped CASCADE",
		ddl:   "CREATE FUNCTION w(int) RETURNS int LANGUAGE sql AS 'SELECT 1';\nCREATE VIEW v AS SELECT w() AS n;\nDROP FUNCTION w(int) CASCADE;\n",
		query: "SELECT n FROM v", want: "refused"},
	{name: "CHECK, other overload dropped CASCADE",
		ddl:   "CREATE FUNCTION wb(text) RETURNS boolean LANGUAGE sql AS 'SELECT true';\nCREATE TABLE a (id int, n int CHECK (wb(n)));\nDROP FUNCTION wb(text) CASCADE;\n",
		query: "INSERT INTO a VALUES (1, 1)", want: "refused"},
	{name: "domain CHECK, other overload dropped CASCADE",
		ddl:   "CREATE FUNCTION wb(text) RETURNS boolean LANGUAGE sql AS 'SELECT true';\nCREATE DOMAIN d AS int CHECK (wb(VALUE));\nCREATE TABLE a (id int, n d);\nDROP FUNCTION wb(text) CASCADE;\n",
		query: "INSERT INTO a VALUES (1, 1)", want: "refused"},
	{name: "DEFAULT, namesake schema dropped CASCADE",
		ddl:   "CREATE SCHEMA s;\nCREATE FUNCTION s.w() RETURNS int LANGUAGE sql AS 'SELECT 1';\nCREATE TABLE a (id int, n int DEFAULT w());\nDROP SCHEMA s CASCADE;\n",
		query: "INSERT INTO a (id) VALUES (1)", want: "refused"},
	{name: "domain CHECK, namesake domain in another schema dropped CASCADE",
		ddl:   "CREATE SCHEMA s;\nCREATE DOMAIN d AS int CHECK (wb(VALUE));\nCREATE DOMAIN s.d AS int;\nDROP DOMAIN s.d CASCADE;\nCREATE TABLE a (id int, n d);\n",
		query: "INSERT INTO a VALUES (1, 1)", want: "refused"},
	{name: "domain CHECK, domain dropped CASCADE",
		ddl:   "CREATE DOMAIN d AS int CHECK (wb(VALUE));\nCREATE TABLE a (id int, n d);\nDROP DOMAIN d CASCADE;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused",
		conservative: "table a's CREATE TABLE still names domain d, whose CHECK fencegen keeps"},
	{name: "composite type's domain CHECK, namesake type dropped CASCADE",
		ddl:   "CREATE SCHEMA s;\nCREATE DOMAIN d AS int CHECK (wb(VALUE));\nCREATE TYPE s.d AS (x int);\nDROP TYPE s.d CASCADE;\nCREATE TABLE a (id int, n d);\n",
		query: "INSERT INTO a VALUES (1, 1)", want: "refused"},
	{name: "DEFAULT, its function dropped through the search_path",
		ddl:   "CREATE SCHEMA s;\nCREATE TABLE a (id int, n int DEFAULT w());\nSET search_path = s, public;\nDROP FUNCTION w() CASCADE;\nSET search_path = DEFAULT;\n",
		query: "INSERT INTO a (id) VALUES (1)", want: "plain"},
	{name: "trigger function found through the search_path, namesake dropped CASCADE",
		ddl:   "CREATE SCHEMA s;\nCREATE FUNCTION s.trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE public.jobs SET status = 's'; RETURN NULL; END $$;\nCREATE TABLE a (id int);\nSET search_path = s, public;\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nSET search_path = DEFAULT;\nDROP FUNCTION public.trg() CASCADE;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "trigger function's schema dropped CASCADE",
		ddl:   "CREATE SCHEMA s;\nCREATE FUNCTION s.trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE public.jobs SET status = 's'; RETURN NULL; END $$;\nCREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION s.trg();\nDROP SCHEMA s CASCADE;\n",
		query: "INSERT INTO a VALUES (1)", want: "plain"},
	{name: "trigger function's schema renamed",
		ddl:   "CREATE SCHEMA s;\nCREATE FUNCTION s.trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE public.jobs SET status = 's'; RETURN NULL; END $$;\nCREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION s.trg();\nALTER SCHEMA s RENAME TO s2;\nCREATE SCHEMA s;\nCREATE FUNCTION s.trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "trigger function replaced, then renamed and dropped by its old name",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION nop();\nCREATE OR REPLACE FUNCTION nop() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET status = 'n'; RETURN NULL; END $$;\nALTER FUNCTION nop() RENAME TO nop2;\nDROP FUNCTION IF EXISTS nop() CASCADE;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "composite type of a writing domain dropped CASCADE",
		ddl:   "CREATE DOMAIN d AS int CHECK (wb(VALUE));\nCREATE TYPE ct AS (x d);\nCREATE TABLE a (id int, c ct);\nDROP TYPE ct CASCADE;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused",
		conservative: "table a's CREATE TABLE still names type ct, whose field's domain fencegen keeps"},
	{name: "view, namesake view in another schema dropped",
		ddl:   "CREATE SCHEMA s;\nCREATE VIEW v AS SELECT w() AS n;\nCREATE VIEW s.v AS SELECT 1 AS n;\nDROP VIEW s.v RESTRICT;\n",
		query: "SELECT n FROM v", want: "refused"},

	// Triggers and rules renamed, replaced, or dropped by a name that
	// is no longer theirs.
	{name: "trigger renamed, old name dropped IF EXISTS",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nALTER TRIGGER t ON a RENAME TO t2;\nDROP TRIGGER IF EXISTS t ON a;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "trigger renamed, new name dropped",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nALTER TRIGGER t ON a RENAME TO t2;\nDROP TRIGGER t2 ON a;\n",
		query: "INSERT INTO a VALUES (1)", want: "plain"},
	{name: "trigger renamed, old name replaced",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nALTER TRIGGER t ON a RENAME TO t2;\nCREATE OR REPLACE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION nop();\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "trigger replaced by a harmless one",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nCREATE OR REPLACE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION nop();\n",
		query: "INSERT INTO a VALUES (1)", want: "plain"},
	{name: "quoted trigger name, unquoted drop",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER \"T\" AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nDROP TRIGGER IF EXISTS t ON a;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "INSTEAD OF trigger on a view renamed, old name dropped",
		ddl:   "CREATE VIEW v AS SELECT 1::int AS id;\nCREATE TRIGGER t INSTEAD OF INSERT ON v FOR EACH ROW EXECUTE FUNCTION vtrg();\nALTER TRIGGER t ON v RENAME TO t2;\nDROP TRIGGER IF EXISTS t ON v;\n",
		query: "INSERT INTO v VALUES (1)", want: "refused"},
	{name: "INSTEAD OF trigger kept by CREATE OR REPLACE VIEW",
		ddl:   "CREATE VIEW v AS SELECT 1::int AS id;\nCREATE TRIGGER t INSTEAD OF INSERT ON v FOR EACH ROW EXECUTE FUNCTION vtrg();\nCREATE OR REPLACE VIEW v AS SELECT 2::int AS id;\n",
		query: "INSERT INTO v VALUES (1)", want: "refused"},
	{name: "view renamed, new view of its name, trigger dropped there",
		ddl:   "CREATE VIEW v AS SELECT 1::int AS id;\nCREATE TRIGGER t INSTEAD OF INSERT ON v FOR EACH ROW EXECUTE FUNCTION vtrg();\nALTER VIEW v RENAME TO v2;\nCREATE VIEW v AS SELECT 1::int AS id;\nDROP TRIGGER IF EXISTS t ON v;\n",
		query: "INSERT INTO v2 VALUES (1)", want: "refused"},
	{name: "view's query replaced by a harmless one",
		ddl:   "CREATE VIEW v AS SELECT w() AS n;\nCREATE OR REPLACE VIEW v AS SELECT 1 AS n;\n",
		query: "SELECT n FROM v", want: "plain"},
	{name: "view column DEFAULT kept by CREATE OR REPLACE VIEW",
		ddl:   "CREATE TABLE a (id int, n int);\nCREATE VIEW v AS SELECT id, n FROM a;\nALTER VIEW v ALTER COLUMN n SET DEFAULT w();\nCREATE OR REPLACE VIEW v AS SELECT id, n FROM a WHERE true;\n",
		query: "INSERT INTO v (id) VALUES (1)", want: "refused"},
	{name: "rule renamed, old name dropped IF EXISTS",
		ddl:   "CREATE TABLE a (id int);\nCREATE RULE r AS ON INSERT TO a DO ALSO UPDATE jobs SET status = 'r';\nALTER RULE r ON a RENAME TO r2;\nDROP RULE IF EXISTS r ON a;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "rule renamed, old name replaced",
		ddl:   "CREATE TABLE a (id int);\nCREATE RULE r AS ON INSERT TO a DO ALSO UPDATE jobs SET status = 'r';\nALTER RULE r ON a RENAME TO r2;\nCREATE OR REPLACE RULE r AS ON INSERT TO a DO ALSO SELECT 1;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "rule replaced by a harmless one",
		ddl:   "CREATE TABLE a (id int);\nCREATE RULE r AS ON INSERT TO a DO ALSO UPDATE jobs SET status = 'r';\nCREATE OR REPLACE RULE r AS ON INSERT TO a DO ALSO SELECT 1;\n",
		query: "INSERT INTO a VALUES (1)", want: "plain"},
	{name: "table renamed, trigger dropped by the old name",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nALTER TABLE a RENAME TO b;\nDROP TRIGGER IF EXISTS t ON a;\n",
		query: "INSERT INTO b VALUES (1)", want: "refused"},
	{name: "table renamed, new table of its name, trigger dropped there",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nALTER TABLE a RENAME TO b;\nCREATE TABLE a (id int);\nDROP TRIGGER IF EXISTS t ON a;\n",
		query: "INSERT INTO b VALUES (1)", want: "refused"},
	{name: "table renamed, trigger dropped by the new name",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nALTER TABLE a RENAME TO b;\nDROP TRIGGER t ON b;\n",
		query: "INSERT INTO b VALUES (1)", want: "plain"},
	{name: "table moved to another schema, trigger dropped by the old name",
		ddl:   "CREATE SCHEMA s;\nCREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nALTER TABLE a SET SCHEMA s;\nCREATE TABLE a (id int);\nDROP TRIGGER IF EXISTS t ON a;\n",
		query: "INSERT INTO s.a VALUES (1)", want: "refused"},
	{name: "trigger dropped on a table of another schema, unqualified",
		ddl:   "CREATE SCHEMA s;\nCREATE TABLE s.a (id int);\nCREATE TRIGGER t AFTER INSERT ON s.a FOR EACH ROW EXECUTE FUNCTION trg();\nDROP TRIGGER IF EXISTS t ON a;\n",
		query: "INSERT INTO s.a VALUES (1)", want: "refused"},
	{name: "schema renamed, new schema of its name, trigger dropped there",
		ddl:   "CREATE SCHEMA s;\nCREATE TABLE s.a (id int);\nCREATE TRIGGER t AFTER INSERT ON s.a FOR EACH ROW EXECUTE FUNCTION trg();\nALTER SCHEMA s RENAME TO s2;\nCREATE SCHEMA s;\nCREATE TABLE s.a (id int);\nDROP TRIGGER IF EXISTS t ON s.a;\n",
		query: "INSERT INTO s2.a VALUES (1)", want: "refused"},
	{name: "trigger function renamed, old name dropped CASCADE",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nALTER FUNCTION trg() RENAME TO trg2;\nDROP FUNCTION IF EXISTS trg() CASCADE;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "trigger function moved, old name dropped CASCADE",
		ddl:   "CREATE SCHEMA s;\nCREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nALTER FUNCTION trg() SET SCHEMA s;\nDROP FUNCTION IF EXISTS public.trg() CASCADE;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "DEFAULT's function renamed, harmless one of the old name",
		ddl:   "CREATE TABLE a (id int, n int DEFAULT w());\nALTER FUNCTION w() RENAME TO w2;\nCREATE FUNCTION w() RETURNS int LANGUAGE sql AS 'SELECT 1';\n",
		query: "INSERT INTO a (id) VALUES (1)", want: "refused"},
	{name: "qualified DEFAULT's function moved to another schema",
		ddl:   "CREATE SCHEMA s;\nCREATE TABLE a (id int, n int DEFAULT public.w());\nALTER FUNCTION w() SET SCHEMA s;\n",
		query: "INSERT INTO a (id) VALUES (1)", want: "refused"},
	{name: "DEFAULT's function renamed, old name dropped CASCADE",
		ddl:   "CREATE TABLE a (id int, n int DEFAULT w());\nALTER FUNCTION w() RENAME TO w2;\nDROP FUNCTION IF EXISTS w() CASCADE;\n",
		query: "INSERT INTO a (id) VALUES (1)", want: "refused"},

	// A column's DEFAULT goes with the column through RENAME COLUMN.
	{name: "column renamed, new column of its name written",
		ddl:   "CREATE TABLE a (id int, n int DEFAULT w());\nALTER TABLE a RENAME COLUMN n TO m;\nALTER TABLE a ADD COLUMN n int;\n",
		query: "INSERT INTO a (id, n) VALUES (1, 1)", want: "refused"},
	{name: "column renamed, new column of its name, its DEFAULT dropped",
		ddl:   "CREATE TABLE a (id int, n int DEFAULT w());\nALTER TABLE a RENAME COLUMN n TO m;\nALTER TABLE a ADD COLUMN IF NOT EXISTS n int;\nALTER TABLE a ALTER COLUMN n DROP DEFAULT;\n",
		query: "INSERT INTO a (id, n) VALUES (1, 1)", want: "refused"},
	{name: "column renamed, left out",
		ddl:   "CREATE TABLE a (id int, n int DEFAULT w());\nALTER TABLE a RENAME COLUMN n TO m;\n",
		query: "INSERT INTO a (id) VALUES (1)", want: "refused"},
	{name: "column renamed, written",
		ddl:   "CREATE TABLE a (id int, n int DEFAULT w());\nALTER TABLE a RENAME COLUMN n TO m;\n",
		query: "INSERT INTO a (id, m) VALUES (1, 1)", want: "plain"},
	{name: "columns swapped",
		ddl:   "CREATE TABLE a (id int, x int DEFAULT w(), y int);\nALTER TABLE a RENAME COLUMN x TO tmp;\nALTER TABLE a RENAME COLUMN y TO x;\nALTER TABLE a RENAME COLUMN tmp TO y;\n",
		query: "INSERT INTO a (id, x) VALUES (1, 1)", want: "refused"},
	{name: "parent's column renamed, child written",
		ddl:   "CREATE TABLE p (id int, n int DEFAULT w());\nCREATE TABLE c () INHERITS (p);\nALTER TABLE p RENAME COLUMN n TO m;\nALTER TABLE c ADD COLUMN n int;\n",
		query: "INSERT INTO c (id, n) VALUES (1, 1)", want: "refused"},

	// A partition or an inheritance child keeps the defaults and
	// CHECKs copied from its parent when it leaves it.
	{name: "partition detached, parent dropped: DEFAULT",
		ddl:   "CREATE TABLE pp (id bigint, n int DEFAULT w(), m int CHECK (wb(m))) PARTITION BY RANGE (id);\nCREATE TABLE p1 PARTITION OF pp FOR VALUES FROM (0) TO (100);\nALTER TABLE pp DETACH PARTITION p1;\nDROP TABLE pp;\n",
		query: "INSERT INTO p1 (id) VALUES (1)", want: "refused"},
	{name: "partition detached, parent dropped: CHECK",
		ddl:   "CREATE TABLE pp (id bigint, n int DEFAULT w(), m int CHECK (wb(m))) PARTITION BY RANGE (id);\nCREATE TABLE p1 PARTITION OF pp FOR VALUES FROM (0) TO (100);\nALTER TABLE pp DETACH PARTITION p1;\nDROP TABLE pp;\n",
		query: "INSERT INTO p1 (id, n, m) VALUES (1, 1, 1)", want: "refused"},
	{name: "partition detached: the parent's trigger goes",
		ddl:   "CREATE TABLE pp (id bigint, n int) PARTITION BY RANGE (id);\nCREATE TABLE p1 PARTITION OF pp FOR VALUES FROM (0) TO (100);\nCREATE TRIGGER t AFTER INSERT ON pp FOR EACH ROW EXECUTE FUNCTION trg();\nALTER TABLE pp DETACH PARTITION p1;\n",
		query: "INSERT INTO p1 VALUES (1, 1)", want: "plain"},
	{name: "NO INHERIT, parent's CHECK dropped",
		ddl:   "CREATE TABLE p (id int, n int CONSTRAINT ck CHECK (wb(n)));\nCREATE TABLE c () INHERITS (p);\nALTER TABLE c NO INHERIT p;\nALTER TABLE p DROP CONSTRAINT ck;\n",
		query: "INSERT INTO c VALUES (1, 1)", want: "refused"},
	{name: "NO INHERIT, parent dropped",
		ddl:   "CREATE TABLE p (id int, n int DEFAULT w());\nCREATE TABLE c () INHERITS (p);\nALTER TABLE c NO INHERIT p;\nDROP TABLE p;\n",
		query: "INSERT INTO c (id) VALUES (1)", want: "refused"},
	{name: "NO INHERIT, parent's DEFAULT dropped",
		ddl:   "CREATE TABLE p (id int, n int DEFAULT w());\nCREATE TABLE c () INHERITS (p);\nALTER TABLE c NO INHERIT p;\nALTER TABLE p ALTER COLUMN n DROP DEFAULT;\n",
		query: "INSERT INTO c (id) VALUES (1)", want: "refused"},
	{name: "LIKE of an inheritance child copies its inherited DEFAULT",
		ddl:   "CREATE TABLE p (id int, n int DEFAULT w());\nCREATE TABLE c () INHERITS (p);\nCREATE TABLE l (LIKE c INCLUDING DEFAULTS);\n",
		query: "INSERT INTO l (id) VALUES (1)", want: "refused"},

	// CREATE ... IF NOT EXISTS of an existing relation does nothing.
	{name: "CREATE TABLE IF NOT EXISTS: DEFAULT",
		ddl:   "CREATE TABLE a (id int, n int DEFAULT w());\nCREATE TABLE IF NOT EXISTS a (id int, n int DEFAULT 5);\n",
		query: "INSERT INTO a (id) VALUES (1)", want: "refused"},
	{name: "CREATE TABLE IF NOT EXISTS: CHECK",
		ddl:   "CREATE TABLE a (id int, n int CHECK (wb(n)));\nCREATE TABLE IF NOT EXISTS a (id int, n int);\n",
		query: "INSERT INTO a VALUES (1, 1)", want: "refused"},
	{name: "CREATE TABLE ... AS IF NOT EXISTS: DEFAULT",
		ddl:   "CREATE TABLE a (id int, n int DEFAULT w());\nCREATE TABLE IF NOT EXISTS a AS SELECT 1 AS id, 2 AS n;\n",
		query: "INSERT INTO a (id) VALUES (1)", want: "refused"},
	{name: "CREATE TABLE IF NOT EXISTS: trigger",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nCREATE TABLE IF NOT EXISTS a (id int);\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},

	// A transaction rolled back undoes its statements.
	{name: "trigger dropped in a transaction rolled back",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nBEGIN;\nDROP TRIGGER t ON a;\nROLLBACK;\n",
		query: "INSERT INTO a VALUES (1)", want: "error"},
	{name: "trigger dropped in a transaction begun after a COMMIT, rolled back",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nCOMMIT;\nBEGIN;\nDROP TRIGGER t ON a;\nROLLBACK;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "trigger created in a transaction begun after a COMMIT, rolled back",
		ddl:   "CREATE TABLE a (id int);\nCOMMIT;\nSTART TRANSACTION;\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nABORT;\n",
		query: "INSERT INTO a VALUES (1)", want: "plain"},
	{name: "trigger dropped in a transaction rolled back and chained",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nCOMMIT;\nBEGIN;\nDROP TRIGGER t ON a;\nROLLBACK AND CHAIN;\nDROP RULE IF EXISTS r ON a;\nCOMMIT;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "trigger dropped in a savepoint rolled back",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nBEGIN;\nSAVEPOINT s;\nDROP TRIGGER t ON a;\nROLLBACK TO SAVEPOINT s;\nCOMMIT;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "rule dropped in a savepoint rolled back, then released",
		ddl:   "CREATE TABLE a (id int);\nCREATE RULE r AS ON INSERT TO a DO ALSO UPDATE jobs SET status = 'r';\nBEGIN;\nSAVEPOINT s;\nDROP RULE r ON a;\nROLLBACK TO s;\nRELEASE s;\nCOMMIT;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "trigger dropped in a savepoint released",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nBEGIN;\nSAVEPOINT s;\nDROP TRIGGER t ON a;\nRELEASE SAVEPOINT s;\nCOMMIT;\n",
		query: "INSERT INTO a VALUES (1)", want: "plain"},
	{name: "trigger dropped in a transaction committed",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nBEGIN;\nDROP TRIGGER t ON a;\nCOMMIT;\n",
		query: "INSERT INTO a VALUES (1)", want: "plain"},
	{name: "trigger renamed in a savepoint rolled back, then dropped",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nBEGIN;\nSAVEPOINT s;\nALTER TRIGGER t ON a RENAME TO t2;\nROLLBACK TO SAVEPOINT s;\nCOMMIT;\nDROP TRIGGER t ON a;\n",
		query: "INSERT INTO a VALUES (1)", want: "plain"},
	{name: "trigger created in a savepoint rolled back",
		ddl:   "CREATE TABLE a (id int);\nBEGIN;\nSAVEPOINT s;\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nROLLBACK TO SAVEPOINT s;\nCOMMIT;\n",
		query: "INSERT INTO a VALUES (1)", want: "plain"},
	{name: "trigger dropped in a savepoint rolled back twice",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nBEGIN;\nSAVEPOINT s;\nDROP TRIGGER t ON a;\nROLLBACK TO SAVEPOINT s;\nDROP TRIGGER t ON a;\nROLLBACK TO SAVEPOINT s;\nCOMMIT;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "trigger dropped in a nested savepoint, outer rolled back",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nBEGIN;\nSAVEPOINT s1;\nSAVEPOINT s2;\nDROP TRIGGER t ON a;\nRELEASE s2;\nROLLBACK TO s1;\nCOMMIT;\n",
		query: "INSERT INTO a VALUES (1)", want: "refused"},
	{name: "table and trigger replaced in a savepoint rolled back",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nBEGIN;\nSAVEPOINT s;\nDROP TABLE a;\nCREATE TABLE a (id int);\nROLLBACK TO s;\nCOMMIT;\n",
		query: "INSERT INTO a VALUES (1)", want: "error"},
	{name: "ROLLBACK of a transaction fencegen did not see begin",
		ddl:   "CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nDROP TRIGGER t ON a;\nROLLBACK;\n",
		query: "INSERT INTO a VALUES (1)", want: "error",
		conservative: "a migration tool that runs the file in a transaction would undo the DROP TRIGGER"},
}

// TestDDLHooksAgainstPostgreSQL applies each of ddlHookCases to
// PostgreSQL, statement by statement as psql runs a file, puts an audit
// trigger on every fenced table, runs the query in a transaction rolled
// back, and checks that fencegen refuses (or guards) every query that
// PostgreSQL shows writing a fenced table, and gives each case its want.
func TestDDLHooksAgainstPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pc, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Release()
	conn := pc.Conn()
	for _, tc := range ddlHookCases {
		schema := ddlPrelude + tc.ddl
		got := ddlVerdict(t, schema, tc.query)
		wrote, err := ddlWritesFenced(ctx, conn, schema, tc.query)
		if err != nil {
			t.Errorf("%s: PostgreSQL: %v", tc.name, err)
			continue
		}
		verdict := strings.SplitN(got, ":", 2)[0]
		switch {
		case wrote && verdict == "plain":
			t.Errorf("%s: PostgreSQL wrote fenced table jobs, and fencegen generated the query without the guard", tc.name)
		case verdict != tc.want:
			t.Errorf("%s: fencegen: %s, want %s", tc.name, got, tc.want)
		case !wrote && (verdict == "refused" || verdict == "error") && tc.conservative == "":
			t.Errorf("%s: fencegen: %s, but PostgreSQL ran the query without writing jobs", tc.name, got)
		case wrote && tc.conservative != "":
			t.Errorf("%s: marked conservative, but PostgreSQL wrote jobs", tc.name)
		case !wrote && tc.want == "refused" && tc.conservative == "":
			t.Errorf("%s: want refused, but PostgreSQL ran the query without writing jobs", tc.name)
		}
	}
}

// ddlVerdict is fencegen's verdict on query under schema: "error: ..."
// (the schema's), "refused", "guarded" or "plain".
func ddlVerdict(t *testing.T, schema, query string) string {
	t.Helper()
	cat, errs := schemaCatalog(t, schema)
	if len(errs) > 0 {
		return "error: " + errs.Error()
	}
	files, msgs := analyzeCat(t, cat, "-- name: Q :exec\n"+query+";\n")
	switch {
	case len(msgs) > 0:
		return "refused"
	case files[0].Queries[0].Fence != nil:
		return "guarded"
	}
	return "plain"
}

// ddlWritesFenced empties the database, applies schema one statement at
// a time outside any transaction (as psql runs a file, so that the
// schema's own BEGIN, SAVEPOINT and ROLLBACK act as written), seeds jobs,
// puts an audit trigger on every table a column comment fences, and
// reports whether query, run in a transaction rolled back, wrote one.
func ddlWritesFenced(ctx context.Context, conn *pgx.Conn, schema, query string) (bool, error) {
	var schemas []string
	rows, err := conn.Query(ctx, "SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' AND nspname <> 'information_schema'")
	if err != nil {
		return false, err
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return false, err
		}
		schemas = append(schemas, s)
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	reset := "ROLLBACK;\nRESET search_path;\n"
	for _, s := range schemas {
		reset += "DROP SCHEMA " + pgx.Identifier{s}.Sanitize() + " CASCADE;\n"
	}
	reset += "CREATE SCHEMA public;\n"
	if _, err := conn.Exec(ctx, reset); err != nil {
		return false, fmt.Errorf("reset: %w", err)
	}
	stmts, err := pg.SplitWithParser(schema, true)
	if err != nil {
		return false, err
	}
	for _, s := range stmts {
		if _, err := conn.Exec(ctx, s); err != nil {
			return false, fmt.Errorf("%s: %w", s, err)
		}
	}
	const audit = `ROLLBACK;
CREATE SCHEMA fg_audit;
CREATE TABLE fg_audit.log (tbl text);
CREATE FUNCTION fg_audit.rec() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO fg_audit.log VALUES (TG_TABLE_NAME); RETURN NULL; END $$;
INSERT INTO jobs VALUES (1, 'a', 5);`
	if _, err := conn.Exec(ctx, audit); err != nil {
		return false, fmt.Errorf("audit: %w", err)
	}
	rows, err = conn.Query(ctx, `SELECT c.oid::regclass::text FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
		WHERE col_description(a.attrelid, a.attnum) LIKE 'fencegen:token%' AND c.relkind IN ('r', 'p')`)
	if err != nil {
		return false, err
	}
	var fenced []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return false, err
		}
		fenced = append(fenced, s)
	}
	if err := rows.Err(); err != nil {
		return false, err
	}
	for _, f := range fenced {
		if _, err := conn.Exec(ctx, "CREATE TRIGGER zz_audit AFTER INSERT OR UPDATE OR DELETE ON "+f+" FOR EACH ROW EXECUTE FUNCTION fg_audit.rec();\n"+
			"CREATE TRIGGER zz_audit_t AFTER TRUNCATE ON "+f+" FOR EACH STATEMENT EXECUTE FUNCTION fg_audit.rec();\n"+
			"ALTER TABLE "+f+" ENABLE ALWAYS TRIGGER zz_audit, ENABLE ALWAYS TRIGGER zz_audit_t"); err != nil {
			return false, fmt.Errorf("audit %s: %w", f, err)
		}
	}
	// Queries run under the default search_path, as fencegen reads them.
	if _, err := conn.Exec(ctx, "RESET search_path"); err != nil {
		return false, err
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return false, err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, query); err != nil {
		return false, fmt.Errorf("%s: %w", query, err)
	}
	var n int
	err = tx.QueryRow(ctx, "SELECT count(*) FROM fg_audit.log").Scan(&n)
	return n > 0, err
}
