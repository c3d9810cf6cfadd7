package analyze

import (
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/writes"
)

// Every schema statement kind of pg_query's tree is classified for what a
// query file's DDL can do to name resolution (ddlKinds): a kind added to
// writes.Classes as Schema without a class here fails.
func TestQueryDDLKindsClassified(t *testing.T) {
	for k, c := range writes.Classes {
		if c == writes.Schema {
			if _, ok := ddlKinds[k]; !ok {
				t.Errorf("schema statement %s: not in ddlKinds", k)
			}
		}
	}
	for k := range ddlKinds {
		if writes.Classes[k] != writes.Schema {
			t.Errorf("ddlKinds has %s, which writes.Classes does not class as Schema", k)
		}
	}
}

const ddlSchema = `
CREATE TABLE jobs (id bigint PRIMARY KEY, v text, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';
CREATE TABLE notes (id bigint PRIMARY KEY, v text, tok bigint NOT NULL DEFAULT 0);
CREATE TABLE other (id bigint PRIMARY KEY, v text);
CREATE VIEW jobs_v AS SELECT id, v FROM jobs;
CREATE VIEW other_v AS SELECT id, v FROM other;
CREATE SCHEMA app;
CREATE VIEW app.jv AS SELECT id, v FROM jobs;
CREATE TABLE app.plain (id bigint PRIMARY KEY);
`

const ddlParts = `CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'SELECT 1';
CREATE TABLE pt (id bigint, v text) PARTITION BY RANGE (id);
CREATE TABLE pt_1 PARTITION OF pt FOR VALUES FROM (0) TO (10);
CREATE FUNCTION pt_w() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET v = 'p'; RETURN NEW; END $$;
CREATE TRIGGER pt_w AFTER INSERT ON pt FOR EACH ROW EXECUTE FUNCTION pt_w();
CREATE TABLE loose (id bigint, v text);
CREATE TABLE other_p (id bigint, v text, tok bigint NOT NULL DEFAULT 0) PARTITION BY RANGE (id);
CREATE TABLE quiet_p (id bigint, v text) PARTITION BY RANGE (id);
CREATE FUNCTION next_v() RETURNS text LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET v = 'd'; RETURN 'x'; END $$;
CREATE TABLE defaulted (id bigint, v text DEFAULT next_v());
`

// Schema statements in a query file that give a name a relation through
// which a fenced table is written, or make a fenced table reachable, are
// refused (issue 24, the trial's cases tmpv and ren); those that cannot
// are accepted.
func TestQueryDDLResolution(t *testing.T) {
	for _, tc := range []struct{ stmt, want string }{
		{"CREATE TEMP VIEW notes AS SELECT id, v FROM jobs", "creates view notes over fenced table public.jobs: a write through it writes public.jobs without the guard"},
		{"CREATE VIEW notes2 AS SELECT id, v FROM jobs", "creates view notes2 over fenced table public.jobs"},
		{"CREATE OR REPLACE TEMP VIEW notes AS SELECT id, v FROM jobs_v", "creates view notes over view public.jobs_v, through which a write runs"},
		{"ALTER VIEW jobs_v RENAME TO notes", "renames to notes view public.jobs_v"},
		{"ALTER TABLE jobs_v RENAME TO notes", "renames to notes view public.jobs_v"},
		{"ALTER VIEW app.jv SET SCHEMA public", "moves to schema public view app.jv"},
		{"ALTER SCHEMA app RENAME TO app2", "renames schema app to app2, which holds view app.jv"},
		{"ALTER TABLE notes INHERIT jobs", "makes notes an INHERITS child of fenced table public.jobs"},
		{"CREATE TABLE kid (id bigint, v text, tok bigint NOT NULL DEFAULT 0) INHERITS (jobs)", "creates table kid as an INHERITS child of fenced table public.jobs"},
		{"CREATE TEMP TABLE kid () INHERITS (jobs)", "creates table kid as an INHERITS child of fenced table public.jobs"},
		{"CREATE SCHEMA s2 CREATE VIEW notes AS SELECT id, v FROM jobs", "creates schema s2 with objects in it"},
		{"ALTER FUNCTION f() RENAME TO g", "renames a function"},
		// An INHERITS child gets its parent's defaults and CHECKs, which
		// a later INSERT on the connection runs (trial x24 F14).
		{"CREATE TEMP TABLE other () INHERITS (defaulted)", "creates table other as an INHERITS child of public.defaulted, whose defaults, CHECKs or index expressions it may copy, through which a write runs UPDATE on fenced table jobs"},
		{"CREATE TEMP TABLE kid3 (x int) INHERITS (other, defaulted)", "creates table kid3 as an INHERITS child of public.defaulted"},
		// A relation named as a fenced table takes that name's later
		// writes on the connection, guarded ones too (trial x24 F15).
		{"CREATE TEMP TABLE jobs AS SELECT * FROM public.jobs", "creates relation jobs, named as fenced table public.jobs"},
		{"CREATE TEMP TABLE jobs (LIKE public.jobs INCLUDING ALL)", "creates relation jobs, named as fenced table public.jobs"},
		{"SELECT * INTO TEMP jobs FROM public.jobs", "creates relation jobs, named as fenced table public.jobs"},
		{"CREATE TABLE app.jobs (id bigint, v text)", "creates relation jobs, named as fenced table public.jobs"},
		{"CREATE TEMP VIEW jobs AS SELECT 1 AS id", "creates relation jobs, named as fenced table public.jobs"},
		// A partition gets its parent's row triggers, which write jobs.
		{"CREATE TABLE pt_2 PARTITION OF pt FOR VALUES FROM (10) TO (20)", "creates table pt_2 as a partition of table public.pt, through which a write"},
		{"ALTER TABLE pt ATTACH PARTITION loose FOR VALUES FROM (10) TO (20)", "attaches loose as a partition of table public.pt, through which a write"},
		{"CREATE TEMP TABLE copy (LIKE defaulted INCLUDING ALL)", "creates table copy LIKE public.defaulted, whose defaults, CHECKs or index expressions it may copy, through which a write runs UPDATE on fenced table jobs"},
		{"ALTER TABLE other_p ATTACH PARTITION jobs FOR VALUES FROM (10) TO (20)", "attaches to other_p, as a partition, fenced table public.jobs"},
	} {
		_, msgs := analyzeSrc(t, ddlSchema+ddlParts, "-- name: Q :exec\n"+tc.stmt+";")
		if len(msgs) == 0 || !strings.Contains(strings.Join(msgs, "\n"), tc.want) {
			t.Errorf("%s: got %q, want a refusal with %q", tc.stmt, msgs, tc.want)
		} else if !strings.HasPrefix(msgs[0], "query.sql:2:1: ") {
			t.Errorf("%s: refusal not at the statement: %q", tc.stmt, msgs[0])
		}
	}
	for _, stmt := range []string{
		"CREATE TEMP TABLE staging (id bigint, v text)",
		"CREATE TEMP VIEW notes AS SELECT id, v FROM other",
		"CREATE TEMP VIEW job_ids AS SELECT DISTINCT id FROM jobs",
		"ALTER TABLE notes RENAME TO notes_old",
		"ALTER VIEW other_v RENAME TO notes",
		"ALTER TABLE notes ADD COLUMN w text",
		"ALTER TABLE notes INHERIT other",
		"CREATE TABLE kid () INHERITS (other)",
		"ALTER TABLE app.plain SET SCHEMA public",
		"CREATE SCHEMA s3",
		"CREATE INDEX ON notes (v)",
		"CREATE TEMP TABLE staging2 (LIKE jobs INCLUDING ALL)",
		"CREATE TEMP TABLE staging3 AS SELECT * FROM jobs",
		"CREATE TEMP TABLE kid4 () INHERITS (other)",
		"CREATE TABLE quiet_2 PARTITION OF quiet_p FOR VALUES FROM (10) TO (20)",
		"ALTER TABLE quiet_p ATTACH PARTITION loose FOR VALUES FROM (10) TO (20)",
	} {
		if _, msgs := analyzeSrc(t, ddlSchema+ddlParts, "-- name: Q :exec\n"+stmt+";"); len(msgs) > 0 {
			t.Errorf("%s: refused: %q", stmt, msgs)
		}
	}
}

// A write named without a schema is refused when a relation of that name
// in another schema, through which a fenced table is written, may be the
// one PostgreSQL picks (a view over a fenced table, not only a fenced
// table), and the hint names both relations schema-qualified (issue 24,
// the trial's case sp).
func TestShadowedByViewOverFenced(t *testing.T) {
	schema := `
CREATE SCHEMA app;
CREATE TABLE app.widgets (id bigint PRIMARY KEY, v text, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN app.widgets.tok IS 'fencegen:token';
CREATE TABLE public.gadgets (id bigint PRIMARY KEY, v text);
CREATE VIEW app.gadgets AS SELECT id, v FROM app.widgets;
CREATE TABLE public.widgets (id bigint PRIMARY KEY, v text);
CREATE TABLE public.plain (id bigint PRIMARY KEY, v text);
CREATE TABLE app.plain (id bigint PRIMARY KEY, v text);
`
	for _, tc := range []struct{ query, want string }{
		{"UPDATE gadgets SET v = @v WHERE id = @id", "query.sql:2:8: query Q writes gadgets, unqualified: fencegen takes it for table public.gadgets, but view app.gadgets has the same name and a write through it writes fenced table app.widgets"},
		{"DELETE FROM gadgets WHERE id = @id", "qualify the name (public.gadgets or app.gadgets)"},
		{"INSERT INTO gadgets (id, v) VALUES (@id, @v)", "view app.gadgets has the same name"},
		{"WITH x AS (DELETE FROM gadgets WHERE id = @id RETURNING id) SELECT id FROM x", "view app.gadgets has the same name"},
		{"UPDATE widgets SET v = @v WHERE id = @id", "fencegen takes it for table public.widgets, but fenced table app.widgets has the same name, and PostgreSQL picks the relation by the search_path the statement runs under (a SET search_path, the role's or database's setting, the connection's options); qualify the name (public.widgets or app.widgets)"},
	} {
		_, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+tc.query+";")
		if len(msgs) == 0 || !strings.Contains(strings.Join(msgs, "\n"), tc.want) {
			t.Errorf("%s: got %q, want %q", tc.query, msgs, tc.want)
		}
	}
	for _, q := range []string{"UPDATE public.gadgets SET v = @v WHERE id = @id", "UPDATE plain SET v = @v WHERE id = @id"} {
		if _, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+q+";"); len(msgs) > 0 {
			t.Errorf("%s: refused: %q", q, msgs)
		}
	}
}

// A query that sets search_path to a path under which an unqualified
// name picks a relation through which a fenced table is written gets a
// note at the setting (issue 24); one that picks nothing new gets none.
func TestSearchPathNote(t *testing.T) {
	schema := `
CREATE SCHEMA app;
CREATE TABLE app.widgets (id bigint PRIMARY KEY, v text, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN app.widgets.tok IS 'fencegen:token';
CREATE TABLE public.gadgets (id bigint PRIMARY KEY, v text);
CREATE VIEW app.gadgets AS SELECT id, v FROM app.widgets;
CREATE SCHEMA quiet;
CREATE TABLE quiet.gadgets (id bigint PRIMARY KEY, v text);
`
	for _, tc := range []struct{ query, want string }{
		{"SET search_path = app, public", "query.sql:2:1: note: query Q sets search_path to app, public: for the rest of the session (SET LOCAL: of the transaction), on a pooled connection for later queries too, an unqualified gadgets may name view app.gadgets, through which a write runs INSERT on fenced table app.widgets"},
		{"SET LOCAL search_path TO app", "sets search_path to app:"},
		{"SELECT set_config('search_path', 'app,public', false)", "query.sql:2:8: note: query Q sets search_path to app, public:"},
		{"SELECT set_config('search_path', @p, false)", "sets search_path to a value fencegen cannot read:"},
		{"SET search_path = quiet, public", ""},
		{"RESET search_path", ""},
	} {
		files, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+tc.query+";")
		if len(msgs) > 0 {
			t.Errorf("%s: refused: %q", tc.query, msgs)
			continue
		}
		notes := strings.Join(files[0].Queries[0].Notes, "\n")
		if tc.want == "" && notes != "" || !strings.Contains(notes, tc.want) {
			t.Errorf("%s: notes %q, want %q", tc.query, notes, tc.want)
		}
	}
}

// DROP ... CASCADE in a query file that may drop a column, default or
// trigger of a fenced table or its guard's function is refused, and so
// are the DROP kinds that drop functions and those fencegen does not
// classify; ALTER TYPE ... RENAME VALUE of a fenced column's enum is
// refused. Drops whose dependents cannot include them are accepted
// (issue 24, trial-pg3 findings 15 and 16).
func TestQueryDDLDropCascade(t *testing.T) {
	schema := `
CREATE TYPE mood AS ENUM ('sad', 'ok');
CREATE DOMAIN label AS text;
CREATE DOMAIN label2 AS label;
CREATE TYPE other_t AS ENUM ('x');
CREATE DOMAIN other_d AS text;
CREATE TABLE jobs (id bigint PRIMARY KEY, m mood, l label2[], status text NOT NULL DEFAULT 'new', tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';
CREATE TABLE other (id bigint PRIMARY KEY, o other_t, d other_d);
CREATE INDEX other_o ON other (o);
CREATE FUNCTION guardfn() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$;
CREATE TRIGGER g BEFORE UPDATE ON jobs FOR EACH ROW EXECUTE FUNCTION guardfn();
CREATE SCHEMA kinds;
CREATE TYPE kinds.k AS ENUM ('a');
CREATE SCHEMA empty;
CREATE TABLE empty.t (id bigint);
`
	for _, tc := range []struct{ stmt, want string }{
		{"DROP ROUTINE IF EXISTS guardfn() CASCADE", "query Q runs DROP ROUTINE, which changes what the triggers (the guard trigger among them)"},
		{"DROP PROCEDURE IF EXISTS p()", "runs DROP PROCEDURE"},
		{"DROP EXTENSION IF EXISTS plpgsql CASCADE", "runs DROP EXTENSION"},
		{"DROP LANGUAGE IF EXISTS plpgsql CASCADE", "runs DROP LANGUAGE"},
		{"DROP AGGREGATE IF EXISTS agg(int)", "runs DROP AGGREGATE"},
		{"DROP OPERATOR IF EXISTS === (int, int)", "runs DROP OPERATOR"},
		{"DROP CAST IF EXISTS (text AS int)", "runs DROP CAST"},
		{"DROP TYPE mood CASCADE", "query Q runs DROP TYPE mood CASCADE, which drops column m of fenced table jobs"},
		{"DROP DOMAIN label CASCADE", "runs DROP DOMAIN label CASCADE, which drops column l of fenced table jobs"},
		{"DROP DOMAIN label2 CASCADE", "drops column l of fenced table jobs"},
		{"DROP COLLATION IF EXISTS mycoll CASCADE", "runs DROP COLLATION ... CASCADE, which drops what depends on it"},
		{"DROP SEQUENCE IF EXISTS s CASCADE", "runs DROP SEQUENCE ... CASCADE"},
		{"DROP TEXT SEARCH CONFIGURATION IF EXISTS cfg CASCADE", "runs DROP TSCONFIGURATION, a schema statement fencegen does not classify"},
		{"DROP SCHEMA kinds CASCADE", "runs DROP SCHEMA ... CASCADE"},
		{"ALTER TYPE mood RENAME VALUE 'ok' TO 'fine'", "query Q runs ALTER TYPE mood RENAME VALUE, which changes the value stored in column m of fenced table jobs"},
	} {
		_, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+tc.stmt+";")
		if len(msgs) == 0 || !strings.Contains(strings.Join(msgs, "\n"), tc.want) {
			t.Errorf("%s: got %q, want a refusal with %q", tc.stmt, msgs, tc.want)
		} else if !strings.HasPrefix(msgs[0], "query.sql:2:1: ") {
			t.Errorf("%s: refusal not at the statement: %q", tc.stmt, msgs[0])
		}
	}
	for _, stmt := range []string{
		"DROP TYPE other_t CASCADE",
		"DROP DOMAIN other_d CASCADE",
		"DROP TYPE mood",
		"DROP TABLE other CASCADE",
		"DROP INDEX other_o CASCADE",
		"DROP SCHEMA empty CASCADE",
		"ALTER TYPE mood ADD VALUE 'fine'",
		"ALTER TYPE other_t RENAME VALUE 'x' TO 'y'",
	} {
		if _, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+stmt+";"); len(msgs) > 0 {
			t.Errorf("%s: refused: %q", stmt, msgs)
		}
	}
}
