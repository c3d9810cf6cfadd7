package analyze

import (
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"
)

// TestAlterTableKindsClassified fails on a value of pg_query's
// AlterTableType that alterTableKinds does not classify (a new
// pg_query's), as TestPLpgSQLNodesComplete does for PL/pgSQL.
func TestAlterTableKindsClassified(t *testing.T) {
	n := 0
	for v, name := range pg.AlterTableType_name {
		if v == 0 {
			continue // ALTER_TABLE_TYPE_UNDEFINED: no subcommand
		}
		n++
		if _, ok := alterTableKinds[pg.AlterTableType(v)]; !ok {
			t.Errorf("AlterTableType %s is not classified in alterTableKinds", name)
		}
	}
	if n < 60 {
		t.Fatalf("read %d AlterTableType values; pg_query v5 has 66", n)
	}
}

// alterPGCases are ALTER TABLE (or other statements) in a query file,
// some with a statement a later query of the connection runs as a role
// that is neither the table's owner nor a superuser (then: row-level
// security applies to it), and fencegen's verdict on the first.
var alterPGCases = []soundPGCase{
	{name: "VALIDATE CONSTRAINT of a NOT VALID CHECK calling a writer", schema: pgJobs + pgWV + "alter table logs add constraint c check (wv(n) = 1) not valid;\n",
		query: "alter table logs validate constraint c", want: "refused"},
	{name: "ALTER COLUMN TYPE re-checks a CHECK calling a writer", schema: pgJobs + pgWV + "alter table logs add constraint c check (wv(n) = 1);\n",
		query: "alter table logs alter column n type smallint", want: "refused"},
	{name: "ALTER COLUMN TYPE rebuilds an index whose expression calls a writer", schema: pgJobs + pgWV + "create function wi(x int) returns int language plpgsql immutable as $$ begin return wv(x); end $$;\ncreate index on logs (wi(n));\n",
		query: "alter table logs alter column n type smallint", want: "refused"},
	{name: "ALTER COLUMN SET STATISTICS on a table whose CHECK calls a writer", schema: pgJobs + pgWV + "alter table logs add constraint c check (wv(n) = 1);\n",
		query: "alter table logs alter column n set statistics 100", want: "plain"},
	{name: "ENABLE ROW LEVEL SECURITY switches on a policy calling a writer", schema: pgJobs + pgWV + "create policy p on logs using (wv(n) = 1);\n",
		query: "alter table logs enable row level security", then: "select * from logs", want: "refused"},
	{name: "ENABLE ROW LEVEL SECURITY of a table without a writing object", schema: pgJobs + pgWV + "create policy p on logs using (n = 1);\n",
		query: "alter table logs enable row level security", then: "select * from logs", want: "plain"},
	{name: "ALTER COLUMN TYPE of a table without a writing object", schema: pgJobs + pgWV + "alter table logs add constraint c check (n > 0);\n",
		query: "alter table logs alter column n type smallint", want: "plain"},
	// Trial t24c E4: the key referenced is a generated column computed
	// from the column the UPDATE sets.
	{name: "UPDATE of a column a referenced generated key is computed from", schema: pgJobs + "create table par (id bigint primary key, n int, g bigint generated always as (id * 2) stored unique);\ninsert into par (id) values (1);\nalter table jobs add column pk bigint default 2 references par (g) on update cascade;\n",
		query: "update par set id = 5 where id = 1", want: "refused"},
	{name: "UPDATE of another column of a table with a referenced generated key", schema: pgJobs + "create table par (id bigint primary key, n int, g bigint generated always as (id * 2) stored unique);\ninsert into par (id) values (1);\nalter table jobs add column pk bigint default 2 references par (g) on update cascade;\n",
		query: "update par set n = 5 where id = 1", want: "refused", conservative: "a referenced generated column counts as changed by any UPDATE of its table"},
}

// TestAlterTableAgainstPostgreSQL runs alterPGCases: fencegen's verdict
// must be want, and PostgreSQL, running the statement and then the
// later one, must change a row of fenced table jobs exactly when
// fencegen refuses it (unless the refusal is marked conservative).
func TestAlterTableAgainstPostgreSQL(t *testing.T) {
	runSoundPGCases(t, alterPGCases)
}

// TestAtWords: a subcommand is named in messages as SQL spells it.
func TestAtWords(t *testing.T) {
	for v, want := range map[pg.AlterTableType]string{
		pg.AlterTableType_AT_ValidateConstraint: "VALIDATE CONSTRAINT", pg.AlterTableType_AT_EnableRowSecurity: "ENABLE ROW LEVEL SECURITY",
		pg.AlterTableType_AT_DisableTrig: "DISABLE TRIGGER", pg.AlterTableType_AT_EnableTrigAll: "ENABLE TRIGGER ALL",
		pg.AlterTableType_AT_ChangeOwner: "OWNER TO", pg.AlterTableType_AT_SetUnLogged: "SET UNLOGGED",
	} {
		if got := atWords(v); got != want {
			t.Errorf("atWords(%s) = %q, want %q", v, got, want)
		}
	}
}
