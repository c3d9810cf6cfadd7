package guard

import (
	"context"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/sqlparse/mysqlparse"
	"github.com/fencegen/fencegen/internal/testenv"
)

// mysqlMigration is one file of a MySQL replay scenario: a guard
// migration (guard: the tables it fences, written by mysqlSQL in goose
// format) or a team migration's up statements.
type mysqlMigration struct {
	name  string
	guard []mysqlGuardTable
	sql   string
	// unfence are the tables of the guard migration's -unfence.
	unfence []string
	// raw, when not "", is the file's whole text.
	raw string
}

// mysqlGuardBeforeNullRefusal is the goose guard migration for table
// accounts (column tok, non-strict) as fencegen wrote it before its
// BEFORE UPDATE trigger refused a NULL new token.
func mysqlGuardBeforeNullRefusal() string {
	s := string(mysqlSQL([]mysqlGuardTable{{Table: "accounts", Column: "tok"}}, mysqlRemoval{}, "goose", false))
	return strings.NewReplacer("NEW.`tok` IS NULL AND OLD.`tok` IS NOT NULL OR ", "", "IFNULL(NEW.`tok`, 0)", "NEW.`tok`").Replace(s)
}

func (m mysqlMigration) text() string {
	if m.raw != "" {
		return m.raw
	}
	if m.guard != nil {
		return string(mysqlSQL(m.guard, mysqlRemoval{unfenced: m.unfence}, "goose", false))
	}
	return "-- +goose Up\n" + m.sql + "\n-- +goose Down\n"
}

// mysqlReplayScenarios are migration sequences, each with the tables the
// schema fences at its end and the findings the replay gives (substrings,
// in order; none: the guard matches).
var mysqlReplayScenarios = []struct {
	name   string
	files  []mysqlMigration
	fenced []mysqlGuardTable
	want   []string
	// n, when not 0, is the number of findings.
	n int
}{
	{
		name: "current",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}}},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok"}},
	},
	{
		name: "current, required and strict",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);\nCREATE TABLE jobs (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok", Required: true}, {Table: "jobs", Column: "tok", Strict: true}}},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok", Required: true}, {Table: "jobs", Column: "tok", Strict: true}},
	},
	{
		name: "current, with a key",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, code VARCHAR(10) UNIQUE, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok", Keys: [][]string{{"id"}, {"code"}}}}},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok", Keys: [][]string{{"id"}, {"code"}}}},
	},
	{
		name: "written before the BEFORE INSERT trigger",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}}},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok", Keys: [][]string{{"id"}}}},
		want:   []string{"2_fencegen_guard.sql:1:1: fenced table accounts has no guard trigger fencegen_bi_accounts in the guard migrations: the database does not refuse a stale token's INSERT"},
	},
	{
		name: "written before the NULL token refusal",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", raw: mysqlGuardBeforeNullRefusal()},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok"}},
		want:   []string{"2_fencegen_guard.sql:20:1: the guard trigger fencegen_bu_accounts of table accounts differs from the one this fencegen writes"},
	},
	{
		name: "made required",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}}},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok", Required: true}},
		want:   []string{"2_fencegen_guard.sql:20:1: the guard of table accounts checks column tok non-strict; the schema now fences column tok required"},
		n:      1,
	},
	{
		name: "fenced after the guard migration",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);\nCREATE TABLE jobs (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}}},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok"}, {Table: "jobs", Column: "tok"}},
		want: []string{
			"2_fencegen_guard.sql:1:1: fenced table jobs has no guard trigger fencegen_bu_jobs in the guard migrations",
			"2_fencegen_guard.sql:1:1: fenced table jobs has no guard trigger fencegen_bd_jobs",
		},
	},
	{
		name: "made strict",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}}},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok", Strict: true}},
		want:   []string{"2_fencegen_guard.sql:20:1: the guard of table accounts checks column tok non-strict; the schema now fences column tok strict"},
		n:      1,
	},
	// A migration that changes the mark is the cause, named once for
	// the table, as on PostgreSQL (trial tnew F10).
	{
		name: "made strict by a migration",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok", Keys: [][]string{{"id"}}}}},
			{name: "3_strict.sql", sql: "ALTER TABLE accounts MODIFY tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token strict';"},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok", Strict: true, Keys: [][]string{{"id"}}}},
		want:   []string{"3_strict.sql:2:1: marks column tok of table accounts for fencing again: the guard trigger that 2_fencegen_guard.sql installs checks column tok non-strict; the mark now asks for strict, which a new guard migration installs"},
		n:      1,
	},
	{
		name: "made required by a migration, CHANGE COLUMN",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}}},
			{name: "3_required.sql", sql: "SELECT 1;\nALTER TABLE accounts CHANGE COLUMN tok tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token required';"},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok", Required: true}},
		want:   []string{"3_required.sql:3:1: marks column tok of table accounts for fencing again: the guard trigger that 2_fencegen_guard.sql installs checks column tok non-strict; the mark now asks for required"},
		n:      1,
	},
	{
		name: "mark moved to another column",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}}},
			{name: "3_move.sql", sql: "ALTER TABLE accounts ADD COLUMN tok2 BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token', MODIFY tok BIGINT NOT NULL DEFAULT 0 COMMENT '';"},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok2"}},
		want:   []string{"3_move.sql:2:1: marks column tok2 of table accounts for fencing: the guard triggers that 2_fencegen_guard.sql installs read column tok while a column of that name exists, so once this is applied they keep checking tok"},
		n:      1,
	},
	{
		name: "mark removed",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}}},
			{name: "3_unmark.sql", sql: "ALTER TABLE accounts MODIFY tok BIGINT NOT NULL DEFAULT 0 COMMENT 'the version';"},
		},
		want: []string{"3_unmark.sql:2:1: removes the fencing mark of column tok of table accounts, but the guard triggers that 2_fencegen_guard.sql installs stay: they refuse every write of accounts whose token does not beat the stored tok until a new guard migration removes them"},
		n:    1,
	},
	{
		name: "table dropped and created again",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}}},
			{name: "3_rebuild.sql", sql: "DROP TABLE accounts;\nCREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok"}},
		// One finding for the table, not one per trigger (trial t27h).
		want: []string{
			"3_rebuild.sql:2:1: DROP TABLE accounts drops table accounts and its guard triggers with it; table accounts is fenced, and 3_rebuild.sql:3:1 CREATE TABLE accounts creates table accounts again: it has no guard triggers, so their guard belongs in that migration, 3_rebuild.sql, for no applied state to leave it unguarded: without it, the database lets a stale token's UPDATE or DELETE of accounts from any writer through",
		},
		n: 1,
	},
	{
		name: "token column renamed",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}}},
			{name: "3_rename.sql", sql: "ALTER TABLE accounts RENAME COLUMN tok TO fence_token;"},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "fence_token"}},
		want: []string{
			"3_rename.sql:2:1: ALTER TABLE renames column tok of accounts to fence_token, which the guard triggers fencegen_bu_accounts and fencegen_bd_accounts that 2_fencegen_guard.sql installs read: once this is applied, every UPDATE and DELETE of accounts fails (Unknown column) until the triggers are replaced",
		},
		n: 1,
	},
	{
		// x27 F2: dropping the token column unfences the table and
		// breaks its triggers at the DROP: the finding is there, with
		// -into, as for a rename.
		name: "token column dropped",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}}},
			{name: "3_drop.sql", sql: "ALTER TABLE accounts DROP COLUMN tok;"},
		},
		want: []string{
			"3_drop.sql:2:1: ALTER TABLE drops column tok of accounts, which the guard triggers fencegen_bd_accounts and fencegen_bu_accounts that 2_fencegen_guard.sql installs read: once this is applied, every write of accounts that fires them fails (Unknown column) until the triggers are dropped; table accounts is no longer fenced, so the drop of its guard belongs in this migration",
		},
		n: 1,
	},
	{
		name: "triggers dropped by hand",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}}},
			{name: "3_drop.sql", sql: "-- DROP TRIGGER fencegen_bd_accounts; (a mention)\nDROP TRIGGER IF EXISTS fencegen_bu_accounts;"},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok"}},
		want:   []string{"3_drop.sql:3:1: DROP TRIGGER drops guard trigger fencegen_bu_accounts of table accounts, which fenced table accounts needs: until a new guard migration installs it again"},
	},
	{
		// Issue 27: the DROP TRIGGER is read as the server reads it,
		// comments dropped and version comments run (or not).
		name: "triggers dropped with comments inside",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);\nCREATE TABLE jobs (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}, {Table: "jobs", Column: "tok"}}},
			{name: "3_drop.sql", sql: "DROP TRIGGER /* note */ fencegen_bu_accounts;\nDROP TRIGGER /*!40000 IF EXISTS */ fencegen_bd_accounts;\nDROP /*!40000 TRIGGER */ `fencegen_bu_jobs`;\n/*!40000 DROP TRIGGER IF EXISTS fencegen_bd_jobs */;"},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok"}, {Table: "jobs", Column: "tok"}},
		want: []string{
			"3_drop.sql:2:1: DROP TRIGGER drops guard trigger fencegen_bu_accounts of table accounts",
			"3_drop.sql:3:1: DROP TRIGGER drops guard trigger fencegen_bd_accounts of table accounts",
			"3_drop.sql:4:1: DROP TRIGGER drops guard trigger fencegen_bu_jobs of table jobs",
			"3_drop.sql:5:10: DROP TRIGGER drops guard trigger fencegen_bd_jobs of table jobs",
		},
	},
	{
		// Issue 27, trial-my3 F3: MariaDB's CREATE OR REPLACE TRIGGER of
		// a guard trigger's name replaces its body (here with none).
		name: "trigger replaced",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}}},
			{name: "3_replace.sql", sql: "CREATE OR REPLACE TRIGGER fencegen_bu_accounts BEFORE UPDATE ON accounts FOR EACH ROW BEGIN END;\nCREATE OR REPLACE DEFINER = CURRENT_USER TRIGGER `fencegen_bd_accounts` BEFORE DELETE ON accounts FOR EACH ROW SET @x = 1;"},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok"}},
		want: []string{
			"3_replace.sql:2:1: CREATE OR REPLACE TRIGGER replaces guard trigger fencegen_bu_accounts of table accounts with a body of its own, which fenced table accounts needs",
			"3_replace.sql:3:1: CREATE OR REPLACE TRIGGER replaces guard trigger fencegen_bd_accounts of table accounts",
		},
	},
	{
		// Issue 27, trial-my3 F9: the column is there after the one
		// statement (the triggers keep working), every token reset to
		// the default: a finding at the statement, whatever the guard.
		name: "token column dropped and added in one statement",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}}},
			{name: "3_reset.sql", sql: "ALTER TABLE accounts DROP COLUMN tok, ADD COLUMN tok BIGINT NOT NULL DEFAULT 0;"},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok"}},
		want:   []string{"3_reset.sql:2:1: ALTER TABLE drops column tok of accounts and adds it again in the same statement: tok is the token column of accounts (fenced), so once this is applied every row's token is the new column's default"},
	},
	{
		name: "trigger dropped by a procedure",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}}},
			{name: "3_drop.sql", sql: "CREATE PROCEDURE dropper() DROP TRIGGER fencegen_bd_accounts;\nCALL dropper();"},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok"}},
		want:   []string{"3_drop.sql:2:1: fencegen cannot read this statement: it holds a DROP ... TRIGGER that is not a statement of its own"},
	},
	{
		name: "no longer fenced",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);\nCREATE TABLE jobs (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}, {Table: "jobs", Column: "tok"}}},
			{name: "3_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}}},
		},
		fenced: []mysqlGuardTable{{Table: "accounts", Column: "tok"}},
		want: []string{
			"2_fencegen_guard.sql:", ":1: table jobs is no longer fenced, but the guard migrations still install its guard trigger fencegen_bu_jobs",
			"2_fencegen_guard.sql:", ":1: table jobs is no longer fenced, but the guard migrations still install its guard trigger fencegen_bd_jobs",
		},
	},
	{
		// A copy swapped in under the fenced table's name without the
		// mark (issue 24 §2): a re-created table, at the rename.
		name: "swap by rename, unmarked",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE jobs (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "jobs", Column: "tok"}}},
			{name: "3_swap.sql", sql: "CREATE TABLE jobs_new (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);\nINSERT INTO jobs_new SELECT * FROM jobs;\nDROP TABLE jobs;\nRENAME TABLE jobs_new TO jobs;"},
		},
		want: []string{"3_swap.sql:5:1: RENAME TABLE renames table jobs_new to jobs, which takes the place of fenced table jobs, without the fencing mark of its token column, after 3_swap.sql:4:1 DROP TABLE jobs drops table jobs and its guard triggers with it: table jobs is no longer fenced"},
	},
	{
		name: "swap by renames, unmarked",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE jobs (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "jobs", Column: "tok"}}},
			{name: "3_swap.sql", sql: "CREATE TABLE jobs_new (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);\nRENAME TABLE jobs TO jobs_old, jobs_new TO jobs;\nDROP TABLE jobs_old;"},
		},
		want: []string{"3_swap.sql:3:1: RENAME TABLE renames table jobs_new to jobs, which takes the place of fenced table jobs, without the fencing mark of its token column, after 3_swap.sql:3:1 RENAME TABLE renames table jobs to jobs_old: table jobs is no longer fenced"},
	},
	{
		name: "created again by CREATE TABLE ... AS, unmarked, then unfenced",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE jobs (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "jobs", Column: "tok"}}},
			{name: "3_swap.sql", sql: "CREATE TABLE jobs_new AS SELECT * FROM jobs;\nDROP TABLE jobs;\nCREATE TABLE jobs AS SELECT * FROM jobs_new;"},
			{name: "4_fencegen_guard.sql", guard: []mysqlGuardTable{}, unfence: []string{"jobs"}},
		},
	},
	{
		name: "swap by ALTER TABLE ... RENAME, marked",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE jobs (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "jobs", Column: "tok"}}},
			{name: "3_swap.sql", sql: "CREATE TABLE jobs_new (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\nALTER TABLE jobs RENAME TO jobs_old;\nALTER TABLE jobs_new RENAME TO jobs;\nDROP TABLE jobs_old;"},
		},
		fenced: []mysqlGuardTable{{Table: "jobs", Column: "tok"}},
		want: []string{
			"3_swap.sql:3:1: ALTER TABLE renames table jobs to jobs_old; table jobs is fenced, and 3_swap.sql:4:1 ALTER TABLE renames table jobs_new to jobs, which takes the place of fenced table jobs: it has no guard triggers",
		},
	},
	{
		name: "table renamed",
		files: []mysqlMigration{
			{name: "1_init.sql", sql: "CREATE TABLE accounts (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0);"},
			{name: "2_fencegen_guard.sql", guard: []mysqlGuardTable{{Table: "accounts", Column: "tok"}}},
			{name: "3_rename.sql", sql: "RENAME TABLE accounts TO ledgers;"},
		},
		fenced: []mysqlGuardTable{{Table: "ledgers", Column: "tok"}},
		want: []string{
			"3_rename.sql:2:1: RENAME TABLE renames table accounts to ledgers: the guard trigger that 2_fencegen_guard.sql installs moves with the table",
			"3_rename.sql:2:1: RENAME TABLE renames table accounts to ledgers",
		},
	},
}

func (m mysqlMigration) parse(t *testing.T) *sqlparse.File {
	t.Helper()
	f, err := mysqlparse.ParseSchema(m.name, []byte(m.text()))
	if err != nil {
		t.Fatalf("%s: %v", m.name, err)
	}
	return f
}

// TestMySQLGuardReplay: fencegen check (GuardMigrations) replays an
// engine mysql entry's guard migrations with the team's migrations
// between them and reports, located, how the triggers they leave differ
// from the guard this fencegen writes for the schema: a fenced table
// without its triggers, a trigger of another column or mode, a DROP
// TABLE, RENAME TABLE or column rename that took the triggers or broke
// them (at that statement), a trigger of a table no longer fenced.
func TestMySQLGuardReplay(t *testing.T) {
	for _, sc := range mysqlReplayScenarios {
		t.Run(sc.name, func(t *testing.T) {
			var files []*sqlparse.File
			for _, m := range sc.files {
				files = append(files, m.parse(t))
			}
			g := (&DatabaseGuard{data: &guardData{}, mysql: sc.fenced}).WithMySQLSchema(files)
			var got []string
			for _, f := range g.GuardMigrations(nil) {
				got = append(got, f.String())
			}
			all := strings.Join(got, "\n")
			if len(sc.want) == 0 && len(got) > 0 {
				t.Fatalf("findings for a current guard:\n%s", all)
			}
			if sc.n > 0 && len(got) != sc.n {
				t.Fatalf("%d findings, want %d:\n%s", len(got), sc.n, all)
			}
			rest := all
			for _, w := range sc.want {
				i := strings.Index(rest, w)
				if i < 0 {
					t.Fatalf("findings lack %q (in order):\n%s", w, all)
				}
				rest = rest[i+len(w):]
			}
		})
	}
}

// TestMySQLGuardReplayOnMariaDB checks the replay against MariaDB: each
// scenario's migrations are applied as goose sends them, and the guard
// triggers the server then holds on the fenced tables
// (information_schema.TRIGGERS) are those this fencegen writes exactly
// when the replay finds nothing for them; a trigger left on a table no
// longer fenced is there exactly when the replay reports it.
func TestMySQLGuardReplayOnMariaDB(t *testing.T) {
	ctx := context.Background()
	for _, sc := range mysqlReplayScenarios {
		t.Run(sc.name, func(t *testing.T) {
			db := testenv.MySQL(t, "multiStatements=true")
			var files []*sqlparse.File
			for _, m := range sc.files {
				for _, s := range mysqlStatements(t, "goose", m.text(), true) {
					if _, err := db.ExecContext(ctx, s); err != nil {
						t.Fatalf("%s: %s: %v", m.name, s, err)
					}
				}
				files = append(files, m.parse(t))
			}
			g := (&DatabaseGuard{data: &guardData{}, mysql: sc.fenced}).WithMySQLSchema(files)
			findings := g.GuardMigrations(nil)
			rows, err := db.QueryContext(ctx, "SELECT TRIGGER_NAME, EVENT_OBJECT_TABLE, ACTION_STATEMENT FROM information_schema.TRIGGERS WHERE TRIGGER_SCHEMA = DATABASE()")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			server := map[string]string{} // trigger name -> table + body
			for rows.Next() {
				var name, table, body string
				if err := rows.Scan(&name, &table, &body); err != nil {
					t.Fatal(err)
				}
				server[name] = table + "\n" + body
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			// unsure: a statement the replay cannot read that may have
			// dropped the trigger; it is reported whether or not it did.
			unsure := func(name string) bool {
				for _, f := range findings {
					if strings.HasPrefix(f.Msg, "fencegen cannot read this statement") && strings.Contains(f.Msg, name) {
						return true
					}
				}
				return false
			}
			// A finding that names no trigger reports every trigger of
			// its table: a cause, or a change of the column or mode the
			// triggers check (said once for the table).
			reported := func(name string) bool {
				table := "table " + name[len("fencegen_bu_"):]
				for _, f := range findings {
					named := strings.Contains(f.Msg, "guard trigger fencegen_b")
					whole := f.Cause || strings.HasPrefix(f.Msg, "the guard of "+table+" checks")
					if strings.Contains(f.Msg, name) || !named && whole && strings.Contains(f.Msg, table) {
						return true
					}
				}
				return false
			}
			for _, tb := range sc.fenced {
				_, creates := tb.statements()
				for _, c := range creates {
					m := mysqlCreateTriggerRe().FindStringSubmatch(c)
					name := unquoteMySQL(m[1])
					body := c[strings.Index(c, "BEGIN\n"):]
					matches := server[name] == tb.Table+"\n"+body
					if matches == reported(name) && !(matches && unsure(name)) {
						t.Errorf("trigger %s: the server's is this fencegen's: %v; the replay reports it: %v\nserver: %q\nfindings: %v", name, matches, reported(name), server[name], findings)
					}
					delete(server, name)
				}
			}
			for name := range server {
				if !reported(name) {
					t.Errorf("the server keeps trigger %s on a table no longer fenced, and the replay does not report it: %v", name, findings)
				}
			}
		})
	}
}
