package catalog_test

import (
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/catalog"
)

const codeFenced = "CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 0);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n"

// codeCatalog is build, its messages joined by line breaks.
func codeCatalog(t *testing.T, schema string) (*catalog.Catalog, string) {
	t.Helper()
	c, msgs := build(t, schema)
	return c, strings.Join(msgs, "\n")
}

// The statements a DO block runs and the elements of CREATE SCHEMA are
// read as the schema's own (issue 24, trial x24 F11, F12): the triggers
// and rules they create, in either branch of an IF, are in the catalog.
func TestSchemaCodeRead(t *testing.T) {
	c, msgs := codeCatalog(t, codeFenced+`CREATE TABLE ev (id bigint);
CREATE FUNCTION w() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET tok = 1; RETURN NULL; END $$;
DO $$ BEGIN IF NOT EXISTS (SELECT 1 FROM pg_trigger WHERE tgname = 'ev_w') THEN CREATE TRIGGER ev_w AFTER INSERT ON ev FOR EACH ROW EXECUTE FUNCTION w(); END IF; END $$;
DO $$ BEGIN IF false THEN NULL; ELSE EXECUTE 'CREATE RULE ev_r AS ON DELETE TO ev DO ALSO DELETE FROM jobs'; END IF; END $$;
DO $$ BEGIN CREATE TYPE mood AS ENUM ('a'); EXCEPTION WHEN duplicate_object THEN NULL; END $$;
DO $$ BEGIN ALTER TABLE ev ADD COLUMN slug text; END $$;
CREATE SCHEMA side CREATE TABLE s (id bigint) CREATE VIEW sv AS SELECT id FROM s CREATE TRIGGER s_w AFTER INSERT ON s FOR EACH ROW EXECUTE FUNCTION public.w();
CREATE SCHEMA AUTHORIZATION app_owner CREATE TABLE owned (id bigint);
ALTER TABLE ev ADD COLUMN slug text;
`)
	if msgs != "" {
		t.Fatalf("errors: %s", msgs)
	}
	ev := c.Table("public", "ev")
	if len(ev.Triggers) != 1 || ev.Triggers[0].Name != "ev_w" || len(ev.Rules) != 1 || ev.Rules[0].Name != "ev_r" {
		t.Errorf("ev: triggers %v, rules %v; want ev_w and ev_r from the DO blocks", ev.Triggers, ev.Rules)
	}
	// The enum and the column a DO block adds are left to the schema's
	// own statements, as sqlc reads them.
	if c.Enum("", "mood") != nil {
		t.Errorf("enum mood of a DO block modelled: sqlc does not read it")
	}
	s := c.Table("side", "s")
	if s == nil || len(s.Triggers) != 1 || c.Table("side", "sv") == nil || !c.Table("side", "sv").IsView {
		t.Errorf("CREATE SCHEMA side's elements: table %v, view %v", s, c.Table("side", "sv"))
	}
	if c.Table("app_owner", "owned") == nil {
		t.Errorf("CREATE SCHEMA AUTHORIZATION app_owner: no table app_owner.owned")
	}
}

// Code a schema runs that fencegen cannot read is an error at its
// statement while a table is fenced, and nothing without one.
func TestSchemaCodeRefused(t *testing.T) {
	for _, tc := range []struct{ schema, want string }{
		{"DO $$ BEGIN EXECUTE format('CREATE TRIGGER x AFTER INSERT ON %I FOR EACH ROW EXECUTE FUNCTION f()', 'ev'); END $$;", "schema.sql:3:1: runs a DO block that runs dynamic SQL (EXECUTE)"},
		{"DO LANGUAGE plperl $$ 1 $$;", "schema.sql:3:1: runs a DO block in LANGUAGE plperl, which fencegen does not read"},
		{"CREATE FUNCTION setup() RETURNS void LANGUAGE plpgsql AS $$ BEGIN CREATE TRIGGER x AFTER INSERT ON jobs FOR EACH ROW EXECUTE FUNCTION f(); END $$;\nSELECT setup();", "schema.sql:4:1: calls function setup, which runs a schema statement (PostgreSQL's CreateTrigStmt) in its body"},
		{"CREATE PROCEDURE p() LANGUAGE sql AS $$ CREATE RULE r AS ON INSERT TO jobs DO ALSO NOTHING $$;\nCALL p();", "schema.sql:4:1: calls procedure p, which runs a schema statement (PostgreSQL's RuleStmt)"},
		{"CREATE FUNCTION inner_f() RETURNS void LANGUAGE plpgsql AS $$ BEGIN EXECUTE 'x' || 'y'; END $$;\nCREATE FUNCTION outer_f() RETURNS void LANGUAGE sql AS 'SELECT inner_f()';\nSELECT outer_f();", "schema.sql:5:1: calls function outer_f, which calls inner_f, which in its body runs dynamic SQL"},
		{"CREATE FUNCTION cf() RETURNS void LANGUAGE c AS 'lib', 'cf';\nSELECT cf();", "calls function cf, which is in LANGUAGE c, which fencegen does not read"},
		{"DO $$ BEGIN CREATE VIEW jobs_v AS SELECT id FROM jobs; END $$;", "schema.sql:3:1: runs a DO block that creates view jobs_v, which neither sqlc nor fencegen's schema model reads there"},
		{"DO $$ BEGIN ALTER TABLE jobs RENAME TO jobs2; END $$;", "runs a DO block that renames jobs"},
		{"CREATE SCHEMA AUTHORIZATION CURRENT_USER;", "creates a schema named after the role that runs it"},
	} {
		_, msgs := codeCatalog(t, codeFenced+tc.schema)
		if !strings.Contains(msgs, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.schema, msgs, tc.want)
		}
		// Without a fenced table, no error.
		if _, msgs := codeCatalog(t, "CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 0);\n\n"+tc.schema); msgs != "" {
			t.Errorf("%s, nothing fenced: %q", tc.schema, msgs)
		}
	}
	// Functions that run no schema statement, called by the schema.
	if _, msgs := codeCatalog(t, codeFenced+"CREATE FUNCTION seed() RETURNS void LANGUAGE sql AS 'INSERT INTO jobs (id) VALUES (1)';\nSELECT seed();\nSELECT pg_catalog.set_config('search_path', '', false);\nDO $$ BEGIN UPDATE jobs SET tok = 0; END $$;"); msgs != "" {
		t.Errorf("harmless calls refused: %s", msgs)
	}
}
