package catalog_test

import (
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/catalog"
)

// Where PostgreSQL would refuse a schema but sqlc goes on, the catalog
// goes on too and notes what it could not model.

func notes(c *catalog.Catalog) string {
	var out []string
	for _, n := range c.Notes() {
		out = append(out, n.Error())
	}
	return strings.Join(out, "\n")
}

func TestForeignKeyToLaterTableBindsWhenCreated(t *testing.T) {
	// Files applied in an order PostgreSQL would refuse: the child refers
	// to its parent before the parent exists (as with schema/10_x sorted
	// before schema/9_y).
	c := mustBuild(t, `
CREATE TABLE child (id int PRIMARY KEY, parent_id text REFERENCES parent ON DELETE CASCADE, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN child.tok IS 'fencegen:token';
CREATE TABLE parent (id text PRIMARY KEY);
`)
	if n := notes(c); n != "" {
		t.Errorf("notes = %q, want none: the parent came", n)
	}
	got := table(t, c, "", "child").ConstraintLines()
	want := "child_parent_id_fkey f (parent_id) -> public.parent (id) del=c upd=a"
	if !strings.Contains(strings.Join(got, "\n"), want) {
		t.Errorf("constraints = %q, want %q", got, want)
	}
	cs := c.Cascades(table(t, c, "", "parent"), "delete", nil)
	if len(cs) != 1 || cs[0].Table.Name != "child" {
		t.Errorf("cascades of a delete from parent = %v, want child", cs)
	}
}

func TestForeignKeyToMissingTableIsANote(t *testing.T) {
	c := mustBuild(t, `CREATE TABLE map_worlds (id text PRIMARY KEY, map_id uuid NOT NULL REFERENCES maps (id) ON DELETE CASCADE);
ALTER TABLE map_worlds ADD CONSTRAINT w_fk FOREIGN KEY (id) REFERENCES anchor.tasks (id);`)
	n := notes(c)
	for _, want := range []string{
		`schema.sql:1:79: note: foreign key map_worlds_map_id_fkey of map_worlds refers to relation "maps", which the schema does not create`,
		`schema.sql:2:72: note: foreign key w_fk of map_worlds refers to relation "anchor.tasks"`,
	} {
		if !strings.Contains(n, want) {
			t.Errorf("notes = %q, want %q", n, want)
		}
	}
}

func TestUnknownTypeIsANote(t *testing.T) {
	c := mustBuild(t, `CREATE TABLE invoices (id BIGINT PRIMARY KEY, hash BLOB NOT NULL, tags blob[], x myschema.thing);
ALTER TABLE invoices ADD COLUMN y blob;
ALTER TABLE invoices ALTER COLUMN id TYPE nope;
CREATE DOMAIN d AS nope2;`)
	inv := table(t, c, "", "invoices")
	if got := columns(inv); got != "id nope not null, hash blob not null, tags blob[], x myschema.thing, y blob" {
		t.Errorf("columns = %q", got)
	}
	if typ := inv.Column("hash").Type; typ != (catalog.Type{Name: "blob"}) {
		t.Errorf("hash type = %#v, want Name blob and no schema", typ)
	}
	n := notes(c)
	for _, want := range []string{
		`schema.sql:1:52: note: type "blob" does not exist; its values are typed interface{}`,
		`schema.sql:1:82: note: type "myschema.thing" does not exist`,
		`schema.sql:3:`, `type "nope" does not exist`, `type "nope2" does not exist`,
	} {
		if !strings.Contains(n, want) {
			t.Errorf("notes = %q, want %q", n, want)
		}
	}
}

// sqlc matches a db_type override with the type as the parser spells it:
// TIMESTAMP WITH TIME ZONE is pg_catalog.timestamptz, timestamptz is not
// qualified.
func TestColumnDBTypeIsTheParsersSpelling(t *testing.T) {
	c := mustBuild(t, `CREATE TYPE mood AS ENUM ('a');
CREATE TABLE t (a timestamptz, b timestamp with time zone, c integer, d int4, e varchar(3), f text[], g bigserial, h mood, i public.mood);
ALTER TABLE t ADD COLUMN j timestamp with time zone; ALTER TABLE t ALTER COLUMN a TYPE character varying;`)
	var got []string
	for _, col := range table(t, c, "", "t").Columns {
		got = append(got, col.Name+"="+col.DBType)
	}
	want := "a=pg_catalog.varchar b=pg_catalog.timestamptz c=pg_catalog.int4 d=int4 e=pg_catalog.varchar f=text g=bigserial h=mood i=public.mood j=pg_catalog.timestamptz"
	if strings.Join(got, " ") != want {
		t.Errorf("DBType:\n got %s\nwant %s", strings.Join(got, " "), want)
	}
}

func TestForeignTableIsARelation(t *testing.T) {
	c := mustBuild(t, `CREATE FOREIGN TABLE remote (id bigint NOT NULL, name text) SERVER elsewhere;
ALTER FOREIGN TABLE remote ADD COLUMN note text;`)
	if got := columns(table(t, c, "", "remote")); got != "id int8 not null, name text, note text" {
		t.Errorf("columns = %q", got)
	}
}

func TestRefusedConstraintIsANote(t *testing.T) {
	c := mustBuild(t, `CREATE TABLE admin_fields (admin_field_id text PRIMARY KEY);
CREATE TABLE cfg (field_id text PRIMARY KEY REFERENCES admin_fields (field_id) ON DELETE CASCADE);
ALTER TABLE cfg ADD PRIMARY KEY (field_id);`)
	n := notes(c)
	for _, want := range []string{
		`schema.sql:2:56: note: column "field_id" referenced in foreign key constraint does not exist: PostgreSQL refuses this statement; its change is left out`,
		`schema.sql:3:13: note: multiple primary keys for table "cfg" are not allowed`,
	} {
		if !strings.Contains(n, want) {
			t.Errorf("notes = %q, want %q", n, want)
		}
	}
	if got := table(t, c, "", "cfg").ConstraintLines(); len(got) != 1 || got[0] != "cfg_pkey p (field_id)" {
		t.Errorf("constraints = %q, want the primary key only", got)
	}
}

// A temporary table dropped at commit is gone when the migration's
// transaction ends; one kept is in pg_temp.
func TestTemporaryTables(t *testing.T) {
	c := mustBuild(t, `CREATE TEMP TABLE gone (x int) ON COMMIT DROP;
CREATE TEMP TABLE cut ON COMMIT DROP AS SELECT 1 AS x;
CREATE TEMP TABLE kept (id serial);`)
	if c.Table("", "gone") != nil || c.Table("", "cut") != nil {
		t.Error("ON COMMIT DROP tables are in the catalog")
	}
	if k := c.Table("", "kept"); k == nil || k.Schema != "pg_temp" {
		t.Errorf("kept = %+v, want a table in pg_temp", k)
	}
}

// A schema statement that sets session_replication_role for later
// sessions (ALTER ROLE, ALTER DATABASE, ALTER SYSTEM) is a note while a
// table is fenced: set to replica it stops the guard trigger in all of
// them. A SET of the migration's own session, or a RESET, is not.
func TestReplicationRoleForLaterSessionsIsANote(t *testing.T) {
	const sets = `
ALTER ROLE worker SET session_replication_role = replica;
ALTER DATABASE app SET session_replication_role TO 'replica';
ALTER SYSTEM SET session_replication_role = replica;
SET session_replication_role = replica;
ALTER ROLE worker RESET session_replication_role;
ALTER ROLE worker SET work_mem = '64MB';
`
	c := mustBuild(t, "CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 0);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';"+sets)
	n := notes(c)
	for _, want := range []string{
		"schema.sql:3:1: note: sets session_replication_role for every later session of the role",
		"schema.sql:4:1: note: sets session_replication_role for every later session of the database",
		"schema.sql:5:1: note: sets session_replication_role for every session of the server",
	} {
		if !strings.Contains(n, want) {
			t.Errorf("notes = %q, want %q", n, want)
		}
	}
	if got := strings.Count(n, "session_replication_role"); got != 3 {
		t.Errorf("notes = %q, want 3 of session_replication_role", n)
	}
	if n := notes(mustBuild(t, "CREATE TABLE jobs (id bigint PRIMARY KEY);"+sets)); n != "" {
		t.Errorf("without a fenced table: %q, want none", n)
	}
}
