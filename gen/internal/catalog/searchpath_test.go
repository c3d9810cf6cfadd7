package catalog

import (
	"testing"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// TestSearchPath checks that SET search_path and pg_dump's set_config in a
// schema file decide where unqualified objects are created and which
// table an unqualified name is, to the end of the file, as PostgreSQL
// (run file by file) does; Validate ends the schema.
func TestSearchPath(t *testing.T) {
	c := New()
	apply := func(name, src string) {
		f, err := sqlparse.Parse(name, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range f.Stmts {
			c.Update(f, s)
		}
	}
	apply("1.sql", `create schema app; create schema ops; create table jobs (id int);
set search_path = app, public;
create table jobs (id int primary key, tok bigint not null default 0);
comment on column jobs.tok is 'fencegen:token';
select pg_catalog.set_config('search_path', 'OPS, "Q"', false);
create table runs (id int);
reset search_path;
create table logs (id int);
set local search_path to ops;
create table tail (id int);`)
	apply("2.sql", `create table later (id int);`)
	if errs := c.Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	for _, tc := range []struct{ schema, name string }{
		{"public", "jobs"}, {"app", "jobs"}, {"ops", "runs"}, {"public", "logs"}, {"ops", "tail"}, {"public", "later"},
	} {
		if c.Schema(tc.schema).table(tc.name) == nil {
			t.Errorf("%s.%s was not created", tc.schema, tc.name)
		}
	}
	if f := c.FencedTables(); len(f) != 1 || f[0].Schema != "app" {
		t.Errorf("fenced tables %v, want app.jobs (the COMMENT's unqualified jobs under search_path app)", f)
	}
	if !c.Table("app", "jobs").SqlcPublic || c.Table("public", "jobs").SqlcPublic || !c.Table("ops", "runs").SqlcPublic {
		t.Errorf("SqlcPublic marks the relations created unqualified under a SET search_path, and only them")
	}
	if got := c.Table("", "jobs"); got == nil || got.Schema != "public" {
		t.Errorf("after the schema, unqualified jobs is %v, want public's (the default search_path)", got)
	}
}
