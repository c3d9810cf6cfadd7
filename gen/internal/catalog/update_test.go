package catalog_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// build applies the schema to a new catalog, as Generate does, and returns
// it with the problems Validate reports.
func build(t *testing.T, schema string) (*catalog.Catalog, []string) {
	t.Helper()
	f, err := sqlparse.Parse("schema.sql", []byte(schema))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	// The analyzer types view columns for the catalog, as in Generate.
	c := catalog.New(catalog.WithColumnGenerator(analyze.ColumnGenerator{}))
	for _, s := range f.Stmts {
		c.Update(f, s)
	}
	var msgs []string
	for _, e := range c.Validate().Sort() {
		msgs = append(msgs, e.Error())
	}
	return c, msgs
}

// mustBuild is build for schemas that must apply cleanly.
func mustBuild(t *testing.T, schema string) *catalog.Catalog {
	t.Helper()
	c, errs := build(t, schema)
	if len(errs) > 0 {
		t.Fatalf("unexpected problems:\n%s", strings.Join(errs, "\n"))
	}
	return c
}

func columns(t *catalog.Table) string {
	var out []string
	for _, c := range t.Columns {
		s := c.Name + " " + c.Type.String()
		if c.NotNull {
			s += " not null"
		}
		out = append(out, s)
	}
	return strings.Join(out, ", ")
}

func table(t *testing.T, c *catalog.Catalog, schema, name string) *catalog.Table {
	t.Helper()
	tb := c.Table(schema, name)
	if tb == nil {
		t.Fatalf("table %s.%s not in catalog", schema, name)
	}
	return tb
}

func wantProblem(t *testing.T, errs []string, substr string) {
	t.Helper()
	for _, e := range errs {
		if strings.Contains(e, substr) {
			return
		}
	}
	t.Errorf("no problem contains %q; got:\n%s", substr, strings.Join(errs, "\n"))
}

func TestAlterTableColumns(t *testing.T) {
	c := mustBuild(t, `
CREATE TABLE t (id bigint PRIMARY KEY, a text, b integer NOT NULL);
ALTER TABLE t ADD COLUMN c timestamptz NOT NULL DEFAULT now();
ALTER TABLE t ADD COLUMN IF NOT EXISTS c text;
ALTER TABLE t DROP COLUMN a;
ALTER TABLE t DROP COLUMN IF EXISTS nothing;
ALTER TABLE t RENAME COLUMN b TO bee;
ALTER TABLE t ALTER COLUMN bee TYPE bigint;
ALTER TABLE t ALTER COLUMN bee DROP NOT NULL;
ALTER TABLE t ALTER COLUMN c SET NOT NULL;
`)
	got := columns(table(t, c, "", "t"))
	want := "id int8 not null, bee int8, c timestamptz not null"
	if got != want {
		t.Errorf("columns = %s\nwant      %s", got, want)
	}
}

func TestAlterTableErrors(t *testing.T) {
	_, errs := build(t, `
CREATE TABLE t (id bigint);
ALTER TABLE t ADD COLUMN id text;
ALTER TABLE t DROP COLUMN nope;
ALTER TABLE nope ADD COLUMN x int;
ALTER TABLE IF EXISTS nope ADD COLUMN x int;
ALTER TABLE t RENAME COLUMN nope TO x;
`)
	wantProblem(t, errs, `schema.sql:3:26: column "id" of relation "t" already exists`)
	wantProblem(t, errs, `column "nope" of relation "t" does not exist`)
	wantProblem(t, errs, `schema.sql:5:13: relation "nope" does not exist`)
	if len(errs) != 4 {
		t.Errorf("got %d problems, want 4 (IF EXISTS is silent):\n%s", len(errs), strings.Join(errs, "\n"))
	}
}

func TestRenameTableKeepsFence(t *testing.T) {
	c := mustBuild(t, `
CREATE TABLE old_name (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN old_name.tok IS 'fencegen:token';
ALTER TABLE old_name RENAME TO new_name;
ALTER TABLE new_name RENAME COLUMN tok TO fence_token;
`)
	if c.Table("", "old_name") != nil {
		t.Errorf("old_name still in catalog")
	}
	tb := table(t, c, "", "new_name")
	if tb.Fence == nil || tb.Fence.Column != "fence_token" {
		t.Fatalf("fence = %+v, want column fence_token", tb.Fence)
	}
	if tb.FenceColumn() == nil {
		t.Errorf("FenceColumn() = nil after renames")
	}
}

func TestDropTable(t *testing.T) {
	c, errs := build(t, `
CREATE TABLE a (id bigint);
CREATE TABLE b (id bigint, tok bigint NOT NULL);
COMMENT ON COLUMN b.tok IS 'fencegen:token';
DROP TABLE a, b;
DROP TABLE IF EXISTS a;
DROP TABLE a;
CREATE TABLE a (x text);
`)
	if len(errs) != 1 || !strings.Contains(errs[0], `schema.sql:7:1: table "a" does not exist`) {
		t.Errorf("problems = %q, want one for the second DROP TABLE a", errs)
	}
	if c.Table("", "b") != nil {
		t.Errorf("b still in catalog")
	}
	if got := c.FencedTables(); len(got) != 0 {
		t.Errorf("FencedTables() = %v after DROP TABLE, want none", got)
	}
	if got := columns(table(t, c, "", "a")); got != "x text" {
		t.Errorf("recreated a has columns %s, want x text", got)
	}
}

func TestEnums(t *testing.T) {
	c := mustBuild(t, `
CREATE TYPE mood AS ENUM ('sad', 'happy');
ALTER TYPE mood ADD VALUE 'ecstatic';
ALTER TYPE mood ADD VALUE 'ok' BEFORE 'happy';
ALTER TYPE mood ADD VALUE 'meh' AFTER 'sad';
ALTER TYPE mood ADD VALUE 'first' BEFORE 'sad';
ALTER TYPE mood ADD VALUE IF NOT EXISTS 'sad';
ALTER TYPE mood RENAME VALUE 'ecstatic' TO 'joyful';
CREATE TABLE p (m mood NOT NULL, ms mood[]);
ALTER TYPE mood RENAME TO feeling;
`)
	e := c.Enum("", "feeling")
	if e == nil {
		t.Fatal("enum feeling not found after RENAME TO")
	}
	want := []string{"first", "sad", "meh", "ok", "happy", "joyful"}
	if !slices.Equal(e.Values, want) {
		t.Errorf("values = %q, want %q", e.Values, want)
	}
	if got := columns(table(t, c, "", "p")); got != "m public.feeling not null, ms public.feeling[]" {
		t.Errorf("columns after enum rename = %s", got)
	}
}

func TestEnumErrors(t *testing.T) {
	_, errs := build(t, `
CREATE TYPE mood AS ENUM ('sad', 'happy');
ALTER TYPE mood ADD VALUE 'sad';
ALTER TYPE mood RENAME VALUE 'nope' TO 'x';
ALTER TYPE nope ADD VALUE 'x';
CREATE TYPE mood AS ENUM ('a');
`)
	wantProblem(t, errs, `enum label "sad" already exists`)
	wantProblem(t, errs, `"nope" is not an existing enum label`)
	wantProblem(t, errs, `type "nope" does not exist`)
	wantProblem(t, errs, `type "mood" already exists`)
}

// PostgreSQL refuses ADD VALUE ... BEFORE/AFTER a label the enum does not
// have ("ERROR: "nope" is not an existing enum label"); the catalog must
// not quietly insert the value at the front.
func TestEnumNeighbourMustExist(t *testing.T) {
	c, errs := build(t, `
CREATE TYPE mood AS ENUM ('sad', 'happy');
ALTER TYPE mood ADD VALUE 'x' BEFORE 'nope';
ALTER TYPE mood ADD VALUE 'y' AFTER 'nope';
`)
	if len(errs) != 2 {
		t.Errorf("BUG: ADD VALUE BEFORE/AFTER a missing label: got problems %q, want two \"is not an existing enum label\" errors; enum is now %q",
			errs, c.Enum("", "mood").Values)
	}
}

func TestCommentMarksAndUnmarksFence(t *testing.T) {
	c := mustBuild(t, `
CREATE TABLE t (id bigint PRIMARY KEY, tok bigint NOT NULL, other bigint NOT NULL);
COMMENT ON COLUMN t.tok IS 'The writer''s token. fencegen:token strict';
`)
	tb := table(t, c, "", "t")
	if tb.Fence == nil || tb.Fence.Column != "tok" || !tb.Fence.Strict || tb.Fence.Source != "comment" {
		t.Fatalf("fence = %+v, want strict mark on tok from a comment", tb.Fence)
	}
	if tb.Fence.File != "schema.sql" || tb.Fence.Line != 3 || tb.Fence.Col != 1 {
		t.Errorf("mark located at %s:%d:%d, want schema.sql:3:1", tb.Fence.File, tb.Fence.Line, tb.Fence.Col)
	}

	for _, tc := range []struct {
		name, stmt string
		fenced     bool
	}{
		{"is null", "COMMENT ON COLUMN t.tok IS NULL;", false},
		{"empty", "COMMENT ON COLUMN t.tok IS '';", false},
		{"other text", "COMMENT ON COLUMN t.tok IS 'just a number';", false},
		{"other column", "COMMENT ON COLUMN t.other IS NULL;", true},
		{"re-mark", "COMMENT ON COLUMN t.tok IS 'fencegen:token';", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := mustBuild(t, `
CREATE TABLE t (id bigint PRIMARY KEY, tok bigint NOT NULL, other bigint NOT NULL);
COMMENT ON COLUMN t.tok IS 'fencegen:token strict';
`+tc.stmt)
			tb := table(t, c, "", "t")
			if (tb.Fence != nil) != tc.fenced {
				t.Errorf("fenced = %v, want %v", tb.Fence != nil, tc.fenced)
			}
			if tc.name == "re-mark" && tb.Fence.Strict {
				t.Errorf("re-marking without strict kept the strict mode")
			}
		})
	}
}

func TestSecondTokenColumnRefused(t *testing.T) {
	_, errs := build(t, `
CREATE TABLE t (id bigint PRIMARY KEY, a bigint NOT NULL, b bigint NOT NULL);
COMMENT ON COLUMN t.a IS 'fencegen:token';
COMMENT ON COLUMN t.b IS 'fencegen:token';
`)
	wantProblem(t, errs, `schema.sql:4:1: table t already has fencing token column "a" (marked at schema.sql:3)`)
}

func TestFenceCommentParsing(t *testing.T) {
	for _, tc := range []struct {
		comment        string
		marked, strict bool
	}{
		{"fencegen:token", true, false},
		{"fencegen:token strict", true, true},
		{"fencegen:token non-strict", true, false},
		{"fencegen:token\tstrict", true, true},
		{"Fencing token (fencegen:token).", true, false},
		{"fencegen:tokens", false, false}, // an error: see TestFenceCommentTypos
		{"fencegen:tok", false, false},
		{"", false, false},
		{"token", false, false},
	} {
		marked, strict, _ := catalog.ParseFenceComment(tc.comment)
		if marked != tc.marked || strict != tc.strict {
			t.Errorf("ParseFenceComment(%q) = %v, %v; want %v, %v", tc.comment, marked, strict, tc.marked, tc.strict)
		}
	}
}

// A word right after the mark is its mode: "strictly" or "stricter" is not
// the word "strict", and must not silently mean non-strict either. Comment
// text set off from the mark (after '.', ';', '-' or a parenthesis) is
// ordinary text.
func TestFenceCommentWordAfterMark(t *testing.T) {
	for _, c := range []string{"fencegen:token strictly increasing", "fencegen:token stricter", "fencegen:token exclusive", "fencegen:token 2"} {
		if marked, _, err := catalog.ParseFenceComment(c); err == nil || marked {
			t.Errorf("ParseFenceComment(%q) = marked %v, %v; want an error", c, marked, err)
		} else if !strings.Contains(err.Error(), "'fencegen:token strict'") {
			t.Errorf("ParseFenceComment(%q): %v; want the accepted forms named", c, err)
		}
	}
	for _, c := range []string{"fencegen:token. Strictly increasing per account.", "fencegen:token; set by the worker", "fencegen:token - highest token that wrote the row", "fencegen:token (see docs/guard.md)"} {
		if marked, strict, err := catalog.ParseFenceComment(c); err != nil || !marked || strict {
			t.Errorf("ParseFenceComment(%q) = marked %v, strict %v, %v; want marked non-strict", c, marked, strict, err)
		}
	}
}

// A misspelt mark or mode is an error, never a table silently unfenced or
// silently non-strict.
func TestFenceCommentTypos(t *testing.T) {
	for _, c := range []string{
		"fencegen:tokne", "Fencegen:token", "fencegen: token", "fencegen:fence", "fencegen:tokens",
		"fencegen:tok", "fencegen:token strcit", "fencegen:token STRICT", "fencegen:token, strict",
		"fence-gen:token", "fencegen:token nonstirct",
	} {
		if marked, _, err := catalog.ParseFenceComment(c); err == nil {
			t.Errorf("ParseFenceComment(%q) = marked %v, no error; want an error", c, marked)
		}
	}
	for _, c := range []string{"fencegen:token", "fencegen:token strict", "fencegen:token non-strict", "Highest token. fencegen:token", "fencegen:token (see ADR 12)"} {
		if marked, _, err := catalog.ParseFenceComment(c); !marked || err != nil {
			t.Errorf("ParseFenceComment(%q) = marked %v, %v; want marked", c, marked, err)
		}
	}
}

// A fencing token mark in a table's comment fences nothing: an error at the
// COMMENT that says where the mark goes and which columns can hold it
// (a fresh reader wrote it on the table and got "0 fenced" and exit 0).
func TestFenceMarkOnTableRefused(t *testing.T) {
	c, errs := build(t, `
CREATE TABLE payouts (id bigint PRIMARY KEY, status text, token bigint NOT NULL DEFAULT 0);
COMMENT ON TABLE payouts IS 'fencegen:token';
CREATE TABLE notes (id text PRIMARY KEY);
COMMENT ON TABLE notes IS 'Fencegen token';
CREATE TABLE plain (id bigint PRIMARY KEY);
COMMENT ON TABLE plain IS 'an ordinary comment about tokens';
`)
	wantProblem(t, errs, "schema.sql:3:1: the fencing token mark is in the comment of table payouts, where it fences nothing: it goes on the token column, as in COMMENT ON COLUMN payouts.<column> IS 'fencegen:token'; columns that can hold it: id, token")
	wantProblem(t, errs, "schema.sql:5:1: the fencing token mark is in the comment of table notes, where it fences nothing")
	wantProblem(t, errs, "the table has no column that can hold it: add one, BIGINT NOT NULL DEFAULT 0")
	if len(errs) != 2 {
		t.Errorf("got %d problems, want 2 (the ordinary comment is no mark):\n%s", len(errs), strings.Join(errs, "\n"))
	}
	if tb := table(t, c, "", "payouts"); tb.Fence != nil {
		t.Errorf("payouts fenced by a table comment: %+v", tb.Fence)
	}
}

func TestSchemasAndQualifiedNames(t *testing.T) {
	c := mustBuild(t, `
CREATE SCHEMA app;
CREATE SCHEMA IF NOT EXISTS app;
CREATE TYPE app.kind AS ENUM ('a', 'b');
CREATE TABLE app.jobs (id bigint PRIMARY KEY, k app.kind NOT NULL, tok bigint NOT NULL);
COMMENT ON COLUMN app.jobs.tok IS 'fencegen:token';
CREATE TABLE jobs (id int);
`)
	if got := c.Table("", "jobs"); got == nil || got.Schema != "public" {
		t.Errorf("unqualified jobs resolves to %+v, want public.jobs", got)
	}
	tb := table(t, c, "app", "jobs")
	if tb.QualifiedName() != "app.jobs" || tb.Fence == nil {
		t.Errorf("app.jobs: name %s, fence %+v", tb.QualifiedName(), tb.Fence)
	}
	if got := columns(tb); got != "id int8 not null, k app.kind not null, tok int8 not null" {
		t.Errorf("columns = %s", got)
	}
	_, errs := build(t, `CREATE SCHEMA app; CREATE SCHEMA app; CREATE TABLE nope.t (id int);`)
	wantProblem(t, errs, `schema "app" already exists`)
	wantProblem(t, errs, `schema "nope" does not exist`)
}

// ALTER SCHEMA s RENAME TO s2 renames schema s: its tables and enums move
// to s2, columns of its enum types follow, and public is untouched.
func TestRenameSchema(t *testing.T) {
	c := mustBuild(t, `
CREATE SCHEMA s;
CREATE TYPE s.kind AS ENUM ('a', 'b');
CREATE TABLE s.t (k s.kind NOT NULL);
CREATE TABLE p (id int);
ALTER SCHEMA s RENAME TO s2;
`)
	if c.Schema("s") != nil || c.Schema("s2") == nil {
		t.Errorf("BUG: after ALTER SCHEMA s RENAME TO s2: schema s exists = %v, s2 exists = %v", c.Schema("s") != nil, c.Schema("s2") != nil)
	}
	if pub := c.Schema("public"); pub == nil || c.Table("public", "p") == nil {
		t.Errorf("BUG: ALTER SCHEMA s RENAME TO s2 renamed schema public (public exists = %v)", pub != nil)
	}
	tb := c.Table("s2", "t")
	if tb == nil {
		t.Fatalf("BUG: table s2.t not in catalog after ALTER SCHEMA s RENAME TO s2")
	}
	if col := tb.Column("k"); c.Enum(col.Type.Schema, col.Type.Name) == nil {
		t.Errorf("BUG: after the rename, column k has type %s, which is no enum of the catalog", col.Type)
	}
}

func TestViewsGetTypedColumns(t *testing.T) {
	c := mustBuild(t, `
CREATE TABLE a (id bigint PRIMARY KEY, name text NOT NULL, note text);
CREATE TABLE b (a_id bigint NOT NULL, n integer NOT NULL);
CREATE VIEW v AS
    SELECT a.id, a.name AS label, a.note, b.n, count(*) OVER () AS total
    FROM a LEFT JOIN b ON b.a_id = a.id;
CREATE VIEW w (x, y) AS SELECT id, name FROM a;
CREATE OR REPLACE VIEW w (x, y, z) AS SELECT id, name, note FROM a;
CREATE MATERIALIZED VIEW m AS SELECT id FROM a;
`)
	v := table(t, c, "", "v")
	if !v.IsView {
		t.Errorf("v.IsView = false")
	}
	if got, want := columns(v), "id int8 not null, label text not null, note text, n int4, total int8 not null"; got != want {
		t.Errorf("view v columns = %s\nwant             %s", got, want)
	}
	if got, want := columns(table(t, c, "", "w")), "x int8 not null, y text not null, z text"; got != want {
		t.Errorf("view w columns = %s, want %s", got, want)
	}
	if got := columns(table(t, c, "", "m")); got != "id int8 not null" {
		t.Errorf("materialized view m columns = %s", got)
	}
	_, errs := build(t, `CREATE TABLE a (id int); CREATE VIEW v AS SELECT id FROM a; CREATE VIEW v AS SELECT id FROM a;`)
	wantProblem(t, errs, `relation "v" already exists`)
}

func TestViewCannotBeFenced(t *testing.T) {
	_, errs := build(t, `
CREATE TABLE a (id bigint PRIMARY KEY, tok bigint NOT NULL);
CREATE VIEW v AS SELECT id, tok FROM a;
COMMENT ON COLUMN v.tok IS 'fencegen:token';
`)
	wantProblem(t, errs, "v is a view; only tables can be fenced")
}

func TestCreateTableVariants(t *testing.T) {
	c := mustBuild(t, `
CREATE TABLE base (id bigserial, tok bigint NOT NULL, PRIMARY KEY (id));
COMMENT ON COLUMN base.tok IS 'fencegen:token';
CREATE TABLE child (extra text) INHERITS (base);
CREATE TABLE copy (LIKE base, more int);
CREATE TABLE IF NOT EXISTS base (other int);
CREATE TABLE g (a int NOT NULL, b int GENERATED ALWAYS AS (a * 2) STORED, c int GENERATED ALWAYS AS IDENTITY);
`)
	if got := columns(table(t, c, "", "base")); got != "id int8 not null, tok int8 not null" {
		t.Errorf("base columns = %s", got)
	}
	child := table(t, c, "", "child")
	if got := columns(child); got != "id int8 not null, tok int8 not null, extra text" {
		t.Errorf("child columns = %s", got)
	}
	if child.Fence == nil || child.Fence.Column != "tok" {
		t.Errorf("child of a fenced table is not fenced: %+v", child.Fence)
	}
	if got := columns(table(t, c, "", "copy")); got != "id int8 not null, tok int8 not null, more int4" {
		t.Errorf("copy columns = %s", got)
	}
	g := table(t, c, "", "g")
	if !g.Column("b").Generated || !g.Column("c").Identity {
		t.Errorf("generated/identity flags lost: b %+v, c %+v", g.Column("b"), g.Column("c"))
	}
}

func TestInheritsMergesRedeclaredColumn(t *testing.T) {
	c := mustBuild(t, `
CREATE TABLE party (id uuid PRIMARY KEY, name text NOT NULL);
CREATE TABLE org (legal_name text) INHERITS (party);
CREATE TABLE llc (since timestamp, legal_name text NOT NULL, id uuid) INHERITS (org);
`)
	if got, want := columns(table(t, c, "", "llc")), "id uuid not null, name text not null, legal_name text not null, since timestamp"; got != want {
		t.Errorf("llc columns = %s\nwant %s", got, want)
	}
	if got, want := columns(table(t, c, "", "org")), "id uuid not null, name text not null, legal_name text"; got != want {
		t.Errorf("org columns changed: %s", got)
	}
	_, errs := build(t, `
CREATE TABLE p (a int);
CREATE TABLE q (a text) INHERITS (p);
CREATE TABLE r (b int, b int);
`)
	wantProblem(t, errs, `column "a" has a type conflict`)
	wantProblem(t, errs, `column "b" specified more than once`)
}

func TestSystemTablesAndSchemas(t *testing.T) {
	c := mustBuild(t, `
CREATE TABLE pg_temp.migrate (val int);
ALTER TABLE IF EXISTS missing ADD COLUMN x int;
ALTER TABLE IF EXISTS missing RENAME COLUMN x TO y;
ALTER TABLE IF EXISTS missing RENAME TO other;
ALTER TABLE IF EXISTS missing SET SCHEMA public;
`)
	table(t, c, "pg_temp", "migrate")
	for _, n := range [][2]string{{"pg_catalog", "pg_class"}, {"", "pg_namespace"}, {"pg_catalog", "pg_attribute"},
		{"", "pg_type"}, {"", "pg_index"}, {"", "pg_stat_activity"}, {"", "pg_locks"}, {"", "pg_tables"},
		{"information_schema", "columns"}, {"information_schema", "tables"}} {
		tb := c.Table(n[0], n[1])
		if tb == nil || !tb.IsSystem() || len(tb.Columns) == 0 {
			t.Errorf("system table %s.%s missing", n[0], n[1])
		}
	}
	if col := c.Table("", "pg_class").Column("relname"); col == nil || col.Type.Name != "name" || !col.NotNull {
		t.Errorf("pg_class.relname = %+v", col)
	}
	if col := c.Table("", "pg_locks").Column("granted"); col == nil || col.Type.Name != "bool" || col.NotNull {
		t.Errorf("pg_locks.granted = %+v", col)
	}
	// System tables are not models.
	for _, s := range c.Schemas {
		for _, tb := range s.Tables {
			if tb.IsSystem() {
				t.Errorf("system table %s in schema list", tb.Name)
			}
		}
	}
}

func TestSetSchema(t *testing.T) {
	c := mustBuild(t, `
CREATE SCHEMA foo;
CREATE SCHEMA old;
CREATE SCHEMA new;
CREATE TABLE bar (name text);
ALTER TABLE bar SET SCHEMA foo;
CREATE TYPE event AS ENUM ('a');
CREATE TYPE old.level AS ENUM ('b');
CREATE TABLE logs (status event NOT NULL, level old.level);
ALTER TYPE event SET SCHEMA new;
ALTER TYPE old.level SET SCHEMA public;
`)
	if c.Table("public", "bar") != nil || c.Table("foo", "bar") == nil {
		t.Errorf("bar did not move to foo")
	}
	if e := c.Enum("new", "event"); e == nil || c.Enum("public", "event") != nil {
		t.Errorf("event did not move to new")
	}
	if got, want := columns(table(t, c, "", "logs")), "status new.event not null, level public.level"; got != want {
		t.Errorf("logs columns = %s, want %s", got, want)
	}
}

func TestUserTypes(t *testing.T) {
	c := mustBuild(t, `
CREATE SCHEMA foo;
CREATE TYPE point_type AS (x integer, y integer);
CREATE TYPE foo.point_type AS (x integer, y integer);
CREATE TYPE floatrange AS RANGE (subtype = float8);
CREATE DOMAIN email AS text NOT NULL CHECK (value LIKE '%@%');
CREATE DOMAIN posint AS integer;
CREATE TABLE foo.paths (a point_type, b foo.point_type, r floatrange, e email, p posint, ps posint[], q lquery, t ltxtquery);
`)
	want := "a public.point_type, b foo.point_type, r public.floatrange, e text not null, p int4, ps int4[], q lquery, t ltxtquery"
	if got := columns(table(t, c, "foo", "paths")); got != want {
		t.Errorf("columns = %s\nwant      %s", got, want)
	}
}

func TestSerialIsNullableLikeSqlc(t *testing.T) {
	c := mustBuild(t, `CREATE TABLE s (id serial PRIMARY KEY, v serial, w bigserial NOT NULL);`)
	if got, want := columns(table(t, c, "", "s")), "id int4 not null, v int4, w int8 not null"; got != want {
		t.Errorf("columns = %s, want %s", got, want)
	}
}

func TestViewLeavesOutUnnamedColumns(t *testing.T) {
	c := mustBuild(t, `
CREATE MATERIALIZED VIEW v AS (SELECT 1, 2 AS two);
CREATE VIEW w (one, two) AS SELECT 1, 2;
`)
	if got := columns(table(t, c, "", "v")); got != "two int4 not null" {
		t.Errorf("v columns = %s", got)
	}
	if u := table(t, c, "", "v").Unnamed; len(u) != 1 || u[0].At != 0 || u[0].Column.Type.Name != "int4" {
		t.Errorf("v unnamed = %+v, want the int4 at 0", u)
	}
	if got := columns(table(t, c, "", "w")); got != "one int4 not null, two int4 not null" {
		t.Errorf("w columns = %s", got)
	}
}

func TestAlterTablePropagatesToChildren(t *testing.T) {
	c := mustBuild(t, `
CREATE TABLE parent (id int, at timestamp);
CREATE TABLE child (extra text) INHERITS (parent);
ALTER TABLE parent ALTER COLUMN at TYPE timestamptz, ADD COLUMN note text, ALTER COLUMN id SET NOT NULL;
`)
	if got, want := columns(table(t, c, "", "child")), "id int4 not null, at timestamptz, extra text, note text"; got != want {
		t.Errorf("child columns = %s, want %s", got, want)
	}
}

// A sequence is a relation with PostgreSQL's three sequence columns; ALTER
// SEQUENCE renames and moves it like a table, and dropping the column or
// table that owns it (OWNED BY, as pg_dump writes) drops it.
func TestSequences(t *testing.T) {
	c := mustBuild(t, `
CREATE SCHEMA other;
CREATE SEQUENCE public.my_sequence START WITH 1 INCREMENT BY 1 NO MINVALUE NO MAXVALUE CACHE 1;
CREATE SEQUENCE IF NOT EXISTS my_sequence;
CREATE TABLE users (id integer NOT NULL, n integer);
CREATE SEQUENCE public.users_id_seq AS integer START WITH 1;
ALTER SEQUENCE public.users_id_seq OWNED BY public.users.id;
CREATE SEQUENCE n_seq OWNED BY users.n;
CREATE SEQUENCE moved;
ALTER SEQUENCE moved SET SCHEMA other;
CREATE SEQUENCE old_name;
ALTER SEQUENCE old_name RENAME TO new_name;
CREATE SEQUENCE gone;
DROP SEQUENCE IF EXISTS gone, never;
`)
	seq := table(t, c, "", "my_sequence")
	if !seq.IsSequence || columns(seq) != "last_value int8 not null, log_cnt int8 not null, is_called bool not null" {
		t.Errorf("my_sequence: sequence %v, columns %s", seq.IsSequence, columns(seq))
	}
	table(t, c, "other", "moved")
	table(t, c, "", "new_name")
	if c.Table("", "gone") != nil || c.Table("", "old_name") != nil {
		t.Error("dropped or renamed sequence still in catalog")
	}
	if s := table(t, c, "", "users_id_seq"); s.OwnedBy == nil || s.OwnedBy.Name != "id" {
		t.Errorf("users_id_seq owned by %v", s.OwnedBy)
	}
	if _, ok := c.ResolveType(&sqlparse.TypeName{Name: "my_sequence"}); ok {
		t.Error("a sequence resolved as a type")
	}

	c = mustBuild(t, `
CREATE TABLE users (id integer NOT NULL, n integer);
CREATE SEQUENCE users_id_seq OWNED BY users.id;
CREATE SEQUENCE users_n_seq OWNED BY users.n;
CREATE SEQUENCE free_seq;
ALTER TABLE users DROP COLUMN n;
`)
	if c.Table("", "users_n_seq") != nil || c.Table("", "users_id_seq") == nil {
		t.Error("DROP COLUMN: want users_n_seq dropped and users_id_seq kept")
	}
	c = mustBuild(t, `
CREATE TABLE users (id integer NOT NULL);
CREATE SEQUENCE users_id_seq OWNED BY users.id;
CREATE SEQUENCE free_seq;
DROP TABLE users;
`)
	if c.Table("", "users_id_seq") != nil || c.Table("", "free_seq") == nil {
		t.Error("DROP TABLE: want users_id_seq dropped and free_seq kept")
	}

	c, errs := build(t, `
CREATE TABLE t (id int);
CREATE SEQUENCE t;
ALTER SEQUENCE t OWNED BY NONE;
ALTER SEQUENCE missing OWNED BY NONE;
ALTER SEQUENCE IF EXISTS missing OWNED BY NONE;
CREATE SEQUENCE s OWNED BY t.nope;
`)
	want := []string{
		`schema.sql:3:17: relation "t" already exists`,
		`schema.sql:4:16: "t" is not a sequence`,
		`schema.sql:7:17: column "nope" of relation "t" does not exist`,
	}
	if !slices.Equal(errs, want) {
		t.Errorf("problems:\n%s\nwant:\n%s", strings.Join(errs, "\n"), strings.Join(want, "\n"))
	}
	// ALTER SEQUENCE of one that does not exist is a note: sqlc keeps no
	// sequences and passes over it.
	if notes := c.Notes(); len(notes) != 1 || !strings.Contains(notes[0].Error(), `schema.sql:5:16: note: relation "missing" does not exist`) {
		t.Errorf("notes %v, want one at 5:16", notes)
	}
}

// A serial token column is refused for what it is, not as nullable.
func TestSerialTokenColumn(t *testing.T) {
	_, errs := build(t, `CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigserial);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';`)
	if len(errs) != 1 || !strings.Contains(errs[0], "is a serial column") {
		t.Fatalf("errors = %v, want one serial-column error", errs)
	}
}

// A fenced table's partitions and inheritance children are fenced the same
// way, whether they were created before or after the mark, by PARTITION
// OF, ATTACH PARTITION, INHERITS or ALTER TABLE ... INHERIT; partitions
// carry the partitioned table's primary key, inheritance children do not.
func TestFenceReachesPartitionsAndChildren(t *testing.T) {
	c := mustBuild(t, `
CREATE TABLE events (id bigint, region text, tok bigint NOT NULL DEFAULT 0, PRIMARY KEY (id, region)) PARTITION BY LIST (region);
CREATE TABLE events_eu PARTITION OF events FOR VALUES IN ('eu');
CREATE TABLE events_us (id bigint NOT NULL, region text NOT NULL, tok bigint NOT NULL DEFAULT 0);
ALTER TABLE events ATTACH PARTITION events_us FOR VALUES IN ('us');
CREATE TABLE events_old (id bigint NOT NULL, region text NOT NULL, tok bigint NOT NULL DEFAULT 0);
ALTER TABLE events ATTACH PARTITION events_old FOR VALUES IN ('old');
ALTER TABLE events DETACH PARTITION events_old;
COMMENT ON COLUMN events.tok IS 'fencegen:token strict';
CREATE TABLE base (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN base.tok IS 'fencegen:token';
CREATE TABLE child (extra text) INHERITS (base);
CREATE TABLE grandchild () INHERITS (child);
CREATE TABLE adopted (id bigint, tok bigint NOT NULL DEFAULT 0);
ALTER TABLE adopted INHERIT base;
`)
	for _, tc := range []struct {
		table, from string
		strict      bool
		key         string
	}{
		{"events_eu", "events", true, "id,region"},
		{"events_us", "events", true, "id,region"},
		{"child", "base", false, ""},
		{"grandchild", "base", false, ""},
		{"adopted", "base", false, ""},
	} {
		tb := c.Table("", tc.table)
		if tb.Fence == nil || tb.Fence.From == nil || tb.Fence.From.Name != tc.from || tb.Fence.Strict != tc.strict || tb.Fence.Column != "tok" {
			t.Errorf("%s: fence %+v, want tok from %s (strict %v)", tc.table, tb.Fence, tc.from, tc.strict)
		}
		if got := strings.Join(tb.PrimaryKey, ","); got != tc.key {
			t.Errorf("%s: primary key %q, want %q", tc.table, got, tc.key)
		}
	}
	if f := c.Table("", "events_old").Fence; f != nil {
		t.Errorf("a detached partition is still fenced: %+v", f)
	}
	if p := c.Table("", "events_eu").PartitionOf(); p == nil || p.Name != "events" {
		t.Errorf("events_eu.PartitionOf() = %v", p)
	}
	var names []string
	for _, ch := range c.Children(c.Table("", "base")) {
		names = append(names, ch.Name)
	}
	if got := strings.Join(names, ","); got != "child,adopted" {
		t.Errorf("Children(base) = %s, want child,adopted (not grandchild's, nor partitions)", got)
	}
	if n := len(c.Children(c.Table("", "events"))); n != 0 {
		t.Errorf("Children(events) lists %d partitions", n)
	}

	_, errs := build(t, `
CREATE TABLE base (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 0, other bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN base.tok IS 'fencegen:token';
CREATE TABLE child () INHERITS (base);
COMMENT ON COLUMN child.other IS 'fencegen:token';
`)
	if len(errs) != 1 || !strings.Contains(errs[0], `schema.sql:5:1: table child inherits fencing token column "tok" from base`) {
		t.Errorf("a child marked with another column: %q", errs)
	}
}

// PRIMARY KEY and UNIQUE constraints are known by name (for ON CONFLICT
// ON CONSTRAINT), named ones as written and the others as PostgreSQL names
// them (checked against PostgreSQL 15), shortened to 63 bytes.
func TestKeyConstraintNames(t *testing.T) {
	long := strings.Repeat("t", 40)
	c := mustBuild(t, `
CREATE TABLE jobs (id bigint PRIMARY KEY, code text UNIQUE, a int, b int, UNIQUE (a, b), CONSTRAINT named_uq UNIQUE (b));
CREATE TABLE k (x int, y int, CONSTRAINT k_named_pk PRIMARY KEY (x));
ALTER TABLE k ADD UNIQUE (y);
ALTER TABLE k ADD CONSTRAINT k_y_x UNIQUE (y, x);
CREATE TABLE `+long+` (`+strings.Repeat("c", 40)+` int UNIQUE);
`)
	for _, tc := range []struct{ table, name, cols string }{
		{"jobs", "jobs_pkey", "id"},
		{"jobs", "jobs_code_key", "code"},
		{"jobs", "jobs_a_b_key", "a,b"},
		{"jobs", "named_uq", "b"},
		{"k", "k_named_pk", "x"},
		{"k", "k_y_key", "y"},
		{"k", "k_y_x", "y,x"},
		{long, strings.Repeat("t", 29) + "_" + strings.Repeat("c", 29) + "_key", strings.Repeat("c", 40)},
	} {
		if got := strings.Join(c.Table("", tc.table).ConstraintColumns(tc.name), ","); got != tc.cols {
			t.Errorf("%s: constraint %s has columns %q, want %q", tc.table, tc.name, got, tc.cols)
		}
	}
}

// Constraint names as PostgreSQL 15 gives them (checked with psql): a taken
// default name gets a number after its label; partitions get keys of
// their own; RENAME CONSTRAINT and ALTER INDEX ... RENAME rename them.
func TestKeyConstraintNamesTakenPartitionsRenames(t *testing.T) {
	long := "customer_subscription_billing_events_archive_for_region_eu"
	c := mustBuild(t, `
CREATE TABLE `+long+`_2024 (id bigint PRIMARY KEY);
CREATE TABLE `+long+`_2025 (id bigint PRIMARY KEY);
CREATE TABLE acct (id bigint PRIMARY KEY, email text UNIQUE, UNIQUE (email), CONSTRAINT named_u UNIQUE (id));
ALTER TABLE acct ADD UNIQUE (email);
CREATE TABLE ev (id bigint, r text, PRIMARY KEY (id, r), UNIQUE (r, id)) PARTITION BY LIST (r);
CREATE TABLE ev_a PARTITION OF ev FOR VALUES IN ('a');
CREATE TABLE ev_b (id bigint NOT NULL, r text NOT NULL);
ALTER TABLE ev ATTACH PARTITION ev_b FOR VALUES IN ('b');
CREATE TABLE w (id bigint PRIMARY KEY, code text CONSTRAINT w_code_uq UNIQUE);
ALTER TABLE w RENAME CONSTRAINT w_code_uq TO w_code_unique;
ALTER INDEX w_pkey RENAME TO w_primary;
`)
	for _, tc := range []struct{ table, name, cols string }{
		{long + "_2024", "customer_subscription_billing_events_archive_for_region_eu_pkey", "id"},
		{long + "_2025", "customer_subscription_billing_events_archive_for_region_e_pkey1", "id"},
		{long + "_2025", "customer_subscription_billing_events_archive_for_region_eu_pkey", ""},
		{"acct", "acct_email_key", "email"},
		{"acct", "acct_email_key1", "email"},
		{"acct", "named_u", "id"},
		{"acct", "acct_pkey", ""},
		{"ev_a", "ev_a_pkey", "id,r"},
		{"ev_a", "ev_a_r_id_key", "r,id"},
		{"ev_b", "ev_b_pkey", "id,r"},
		{"w", "w_code_unique", "code"},
		{"w", "w_code_uq", ""},
		{"w", "w_primary", "id"},
		{"w", "w_pkey", ""},
	} {
		if got := strings.Join(c.Table("", tc.table).ConstraintColumns(tc.name), ","); got != tc.cols {
			t.Errorf("%s: constraint %s has columns %q, want %q", tc.table, tc.name, got, tc.cols)
		}
	}
}

// TestCreateSchemaPublic: pg_dump's CREATE SCHEMA public is taken while
// public is the empty schema the catalog starts with (a database restored
// without one); a second one, or one after objects were created in
// public, is refused as PostgreSQL refuses it.
func TestCreateSchemaPublic(t *testing.T) {
	c := mustBuild(t, "CREATE SCHEMA public;\nCOMMENT ON SCHEMA public IS 'standard public schema';\nCREATE TABLE public.authors (id bigint PRIMARY KEY);\n")
	table(t, c, "public", "authors")
	_, errs := build(t, "CREATE SCHEMA public;\nCREATE SCHEMA public;\n")
	wantProblem(t, errs, `schema.sql:2:1: schema "public" already exists`)
	_, errs = build(t, "CREATE TABLE t (id int);\nCREATE SCHEMA public;\n")
	wantProblem(t, errs, `schema.sql:2:1: schema "public" already exists`)
	mustBuild(t, "CREATE TABLE t (id int);\nCREATE SCHEMA IF NOT EXISTS public;\nCREATE SCHEMA other;\nCREATE SCHEMA IF NOT EXISTS other;\n")
	_, errs = build(t, "CREATE SCHEMA other;\nCREATE SCHEMA other;\n")
	wantProblem(t, errs, `schema.sql:2:1: schema "other" already exists`)
}

// A token column's DEFAULT must be an integer constant at or below 1 (the
// first token a lease mints; 0 by convention): a
// row created without a token stores it, and a positive or changing one
// makes every holder's guarded write of that row stale (trial t24 F8).
func TestTokenColumnDefault(t *testing.T) {
	for def, bad := range map[string]bool{
		"DEFAULT 0": false, "DEFAULT -1": false, "DEFAULT 0::bigint": false, "DEFAULT '0'": false, "": false, "DEFAULT 1": false,
		"DEFAULT 100": true, "DEFAULT (extract(epoch from now()) * 1000)::bigint": true, "DEFAULT 2::bigint": true, "DEFAULT '2'": true,
	} {
		_, errs := build(t, `CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL `+def+`);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';`)
		if got := len(errs) == 1 && strings.Contains(errs[0], "has a DEFAULT that is not an integer constant at or below 1"); got != bad || !bad && len(errs) > 0 {
			t.Errorf("%s: errors %v, want the DEFAULT error: %v", def, errs, bad)
		}
		if def == "" {
			continue
		}
		_, errs = build(t, `CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';
ALTER TABLE jobs ALTER COLUMN tok SET `+def+`;`)
		if got := len(errs) == 1 && strings.HasPrefix(errs[0], "schema.sql:3:") && strings.Contains(errs[0], "has a DEFAULT that is not"); got != bad || !bad && len(errs) > 0 {
			t.Errorf("ALTER ... SET %s: errors %v, want the DEFAULT error at the ALTER: %v", def, errs, bad)
		}
	}
}

// A CHECK that names the token column is noted, unless every token
// passes it (tok >= 0): one that refuses valid tokens makes every guarded
// write fail (trial t24 F2).
func TestTokenColumnCheckNoted(t *testing.T) {
	for check, noted := range map[string]bool{
		"CHECK (tok = 0)": true, "CHECK (tok < 1000)": true, "CONSTRAINT c CHECK (tok >= 0)": false, "CHECK (0 <= tok)": false, "CHECK (id > 0)": false,
	} {
		c, errs := build(t, `CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 0, `+check+`);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';`)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", check, errs)
		}
		got := false
		for _, n := range c.Notes() {
			got = got || strings.HasPrefix(n.Error(), "schema.sql:1:1: note: a CHECK constraint of fenced table jobs names its fencing token column tok")
		}
		if got != noted {
			t.Errorf("%s: noted %v, want %v: %v", check, got, noted, c.Notes())
		}
	}
}

// A token column of a domain without a DEFAULT of its own takes the
// domain's, which PostgreSQL copies from a base domain at CREATE DOMAIN
// and ALTER DOMAIN ... SET/DROP DEFAULT changes (checked against
// PostgreSQL by hand: an INSERT leaving the columns out stored 7 for a
// domain altered to DEFAULT 7, 5 for a domain over it created before, 0
// for a column DEFAULT 0 of it): the same rule as the column's own
// (trial r24 N5).
func TestTokenColumnDomainDefault(t *testing.T) {
	for schema, bad := range map[string]bool{
		"CREATE DOMAIN tok AS bigint DEFAULT 5;\n":                                                      true,
		"CREATE DOMAIN tok AS bigint DEFAULT 0;\n":                                                      false,
		"CREATE DOMAIN tok AS bigint;\n":                                                                false,
		"CREATE DOMAIN tok AS bigint DEFAULT (extract(epoch from now()))::bigint;\n":                    true,
		"CREATE DOMAIN base AS bigint DEFAULT 5;\nCREATE DOMAIN tok AS base;\n":                         true,
		"CREATE DOMAIN base AS bigint DEFAULT 5;\nCREATE DOMAIN tok AS base DEFAULT 0;\n":               false,
		"CREATE DOMAIN base AS bigint;\nCREATE DOMAIN tok AS base;\nALTER DOMAIN base SET DEFAULT 5;\n": false,
	} {
		for _, after := range []string{"", "ALTER DOMAIN tok SET DEFAULT 9;\n", "ALTER DOMAIN tok DROP DEFAULT;\n", "ALTER DOMAIN tok SET DEFAULT 0;\n", "ALTER DOMAIN tok SET DEFAULT NULL;\n"} {
			want := bad
			switch after {
			case "ALTER DOMAIN tok SET DEFAULT 9;\n":
				want = true
			case "":
			default:
				want = false
			}
			_, errs := build(t, schema+`CREATE TABLE jobs (id bigint PRIMARY KEY, tok tok NOT NULL);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';
`+after)
			if got := len(errs) == 1 && strings.Contains(errs[0], "has a DEFAULT that is not an integer constant at or below 1"); got != want || !want && len(errs) > 0 {
				t.Errorf("%s%s: errors %v, want the DEFAULT error: %v", schema, after, errs, want)
			}
		}
		// The column's own DEFAULT wins over the domain's.
		if _, errs := build(t, schema+`CREATE TABLE jobs (id bigint PRIMARY KEY, tok tok NOT NULL DEFAULT 0);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';
`); len(errs) > 0 {
			t.Errorf("%s with the column's DEFAULT 0: %v", schema, errs)
		}
	}
}
