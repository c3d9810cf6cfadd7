package mysqloracle

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/goccy/go-yaml"

	"github.com/fencegen/fencegen/internal/testenv"
)

// mysqlURL is MYSQL_URL (a go-sql-driver DSN) or its default.
func mysqlURL() string { return testenv.MySQLURL() }

// admin connects to MYSQL_URL's server, or skips t (fails it under
// CI=true) with one line.
func admin(t testing.TB) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", mysqlURL())
	if err == nil {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		err = db.PingContext(ctx)
		cancel()
	}
	if err != nil {
		testenv.UnavailableAt(t, "MariaDB", "MYSQL_URL", "", err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// shared is the team's corpora directory, ../shared from the module root.
const shared = "../../../../../shared"

// corpusCases reads the mysql entries of every sqlc configuration under
// root: one Case per entry, its schema and query files read in order.
func corpusCases(t testing.TB, root string) []Case {
	t.Helper()
	var cases []Case
	_ = filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		switch d.Name() {
		case "sqlc.json", "sqlc.yaml", "sqlc.yml":
		default:
			return nil
		}
		src, err := os.ReadFile(p)
		if err != nil {
			return nil
		}
		var cfg struct {
			Packages []entry `yaml:"packages"`
			SQL      []entry `yaml:"sql"`
		}
		if err := yaml.Unmarshal(src, &cfg); err != nil {
			t.Logf("%s: %v", p, err)
			return nil
		}
		dir := filepath.Dir(p)
		rel, _ := filepath.Rel(root, dir)
		for i, e := range append(cfg.Packages, cfg.SQL...) {
			if !strings.EqualFold(e.Engine, "mysql") {
				continue
			}
			c := Case{Label: rel}
			if i > 0 {
				c.Label += "#" + string(rune('0'+i))
			}
			for _, f := range files(dir, e.Schema) {
				b, _ := os.ReadFile(f)
				c.Schema = append(c.Schema, b)
			}
			for _, f := range files(dir, e.Queries) {
				b, _ := os.ReadFile(f)
				c.Queries = append(c.Queries, Queries(b)...)
			}
			cases = append(cases, c)
		}
		return nil
	})
	sort.Slice(cases, func(i, j int) bool { return cases[i].Label < cases[j].Label })
	return cases
}

type entry struct {
	Engine  string `yaml:"engine"`
	Schema  paths  `yaml:"schema"`
	Queries paths  `yaml:"queries"`
}

// paths is a string or a list of strings.
type paths []string

func (p *paths) UnmarshalYAML(b []byte) error {
	var one string
	if err := yaml.Unmarshal(b, &one); err == nil {
		*p = paths{one}
		return nil
	}
	var many []string
	if err := yaml.Unmarshal(b, &many); err != nil {
		return err
	}
	*p = many
	return nil
}

// files are the .sql files of ps (files, directories, globs) under dir,
// each directory's sorted.
func files(dir string, ps []string) []string {
	var out []string
	for _, p := range ps {
		full := filepath.Join(dir, p)
		matches, _ := filepath.Glob(full)
		if len(matches) == 0 {
			matches = []string{full}
		}
		for _, m := range matches {
			fi, err := os.Stat(m)
			if err != nil {
				continue
			}
			if !fi.IsDir() {
				out = append(out, m)
				continue
			}
			ents, _ := os.ReadDir(m)
			var names []string
			for _, e := range ents {
				if !e.IsDir() && strings.HasSuffix(e.Name(), ".sql") && !strings.HasSuffix(e.Name(), ".down.sql") {
					names = append(names, filepath.Join(m, e.Name()))
				}
			}
			sort.Strings(names)
			out = append(out, names...)
		}
	}
	return out
}

func requireSound(t *testing.T, rep *Report) {
	t.Helper()
	t.Log(rep.Summary())
	for _, f := range rep.Escapes {
		t.Errorf("%s", f)
	}
	if testing.Verbose() {
		for _, f := range rep.Observed {
			t.Logf("%s", f)
		}
	}
}

// TestOracleCorpus runs every mysql entry of ../shared/corpus/sqlc-mysql
// with every table that has an integer column fenced: no escape.
// .ci/run runs it without -race (go test -run '^TestOracleCorpus$'
// ./gen/internal/writeoracle/mysqloracle).
func TestOracleCorpus(t *testing.T) {
	if raceEnabled {
		t.Skip("SKIP under -race: a minute of round trips to MariaDB with no concurrency of its own; .ci/run runs it without -race")
	}
	root := filepath.Join(shared, "corpus", "sqlc-mysql")
	if _, err := os.Stat(root); err != nil {
		if testenv.InCI() {
			t.Fatalf("CI=true: no shared MySQL corpus at ../shared/corpus/sqlc-mysql: %v", err)
		}
		t.Skipf("SKIP: no shared MySQL corpus at ../shared/corpus/sqlc-mysql: %v", err)
	}
	db := admin(t)
	cases := corpusCases(t, root)
	if len(cases) < 50 {
		t.Fatalf("found %d mysql entries under %s, expected over 50", len(cases), root)
	}
	total := &Report{}
	for _, c := range cases {
		rep, err := Check(context.Background(), db, mysqlURL(), c)
		if err != nil {
			t.Errorf("%s: %v", c.Label, err)
			continue
		}
		total.Add(rep)
	}
	t.Logf("sqlc-mysql, %d configurations: %s", len(cases), total.Summary())
	// sqlc's MySQL examples and the real projects' MySQL entries, when
	// the shared corpora have them.
	for _, extra := range []string{filepath.Join(shared, "corpus", "peers", "sqlc-examples"), filepath.Join(shared, "corpus", "real")} {
		if _, err := os.Stat(extra); err != nil {
			continue
		}
		more := corpusCases(t, extra)
		for _, c := range more {
			if len(c.Queries) == 0 {
				continue
			}
			rep, err := Check(context.Background(), db, mysqlURL(), c)
			if err != nil {
				t.Errorf("%s: %v", c.Label, err)
				continue
			}
			t.Logf("%s: %s", c.Label, rep.Summary())
			total.Add(rep)
		}
		cases = append(cases, more...)
	}
	t.Logf("%d configurations", len(cases))
	if total.PassedRun == 0 {
		t.Fatalf("no statement ran on MariaDB: the oracle checked nothing (%s)", total.Summary())
	}
	requireSound(t, total)
}

// shapesSchema is the held-out shapes' schema (views, triggers,
// procedures, functions, foreign-key actions), mysqlwrites' testdata.
func shapesSchema(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile("../../writes/mysqlwrites/testdata/shapes.sql")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Shapes are held-out MySQL write shapes over shapesSchema (accounts and
// holds fenced): upserts, REPLACE, IGNORE, multi-table writes, INSERT ... SELECT,
// writes through views, triggers, procedures, stored functions and
// foreign-key actions, and statements that only read.
var Shapes = []string{
	"SELECT * FROM accounts WHERE id = ?",
	"SELECT pure(id) FROM accounts",
	"SELECT bump(id) FROM notes",
	"SELECT * FROM bumped",
	"SELECT * FROM rich",
	"UPDATE accounts SET balance = 1 WHERE id = ?",
	"DELETE FROM accounts WHERE id = ?",
	"INSERT INTO accounts (id, fence) VALUES (5, 1)",
	"INSERT INTO accounts (id, fence) VALUES (1, 3) ON DUPLICATE KEY UPDATE fence = IF(VALUES(fence) >= fence, VALUES(fence), fence)",
	"REPLACE INTO holds (id, fence) VALUES (1, 2)",
	"REPLACE INTO notes (id, body) VALUES (1, 'x')",
	"INSERT INTO holds (id, fence) SELECT id + 10, fence FROM holds",
	"INSERT INTO notes (id, body) SELECT id + 10, 'copy' FROM accounts",
	"UPDATE notes n JOIN accounts a ON a.id = n.id SET n.body = 'x'",
	"UPDATE notes n JOIN holds h ON h.id = n.id SET h.fence = 1",
	"UPDATE notes JOIN holds USING (id) SET fence = 1",
	"UPDATE notes JOIN holds USING (id) SET body = 'y'",
	"UPDATE notes, holds SET holds.fence = 2 WHERE notes.id = holds.id",
	"DELETE n, h FROM notes n JOIN holds h USING (id)",
	"DELETE n FROM notes n JOIN holds h USING (id)",
	"DELETE FROM n USING notes n JOIN holds h USING (id)",
	"DELETE FROM h USING notes n JOIN holds h USING (id)",
	"CALL pay(1)",
	"CALL note(1)",
	"CALL dyn()",
	"INSERT INTO notes (id, body) VALUES (1, 'x')",
	"INSERT INTO notes (id, body) VALUES (77, 'x')",
	"SELECT via_note(1)",
	"UPDATE rich SET balance = 1",
	"UPDATE note_view SET body = 'y'",
	"DELETE FROM note_view WHERE id = ?",
	"UPDATE audit SET what = 'x'",
	"UPDATE ledger SET amount = 2",
	"DELETE FROM ledger",
	"WITH x AS (SELECT bump(1) AS b) SELECT * FROM x",
	"SELECT (SELECT bump(id) FROM notes LIMIT 1)",
	"INSERT INTO audit (what) SELECT bump(id) FROM notes",
	"DO bump(1)",
	"SET @x = bump(1)",
	"SELECT * FROM notes WHERE id IN (SELECT id FROM accounts) FOR UPDATE",
	"UPDATE accounts SET id = 9 WHERE id = 1",
	"TRUNCATE notes",
	"TRUNCATE holds",
	"CREATE TABLE holds2 AS SELECT * FROM holds",
	"ALTER TABLE notes ADD COLUMN extra INT",
	"DROP TABLE audit",
	// IGNORE (issue 27): still a write of the fenced table, which the
	// generator refuses (TestOracleGenerated runs the guarded forms).
	"UPDATE IGNORE accounts SET balance = 2 WHERE balance >= ?",
	"DELETE IGNORE FROM holds WHERE id = ?",
	"INSERT IGNORE INTO accounts (id, fence) VALUES (1, 3) ON DUPLICATE KEY UPDATE balance = 5",
	"INSERT IGNORE INTO notes (id, body) VALUES (1, 'x')",
}

// TestOracleShapes runs the held-out shapes: no escape, and the oracle
// saw fenced writes (it can fail).
func TestOracleShapes(t *testing.T) {
	db := admin(t)
	rep, err := Check(context.Background(), db, mysqlURL(), Case{
		Label: "shapes", Schema: [][]byte{shapesSchema(t)}, Queries: Shapes, Fenced: []string{"accounts", "holds"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Schema {
		t.Errorf("schema: %s", f)
	}
	for _, f := range rep.Rejects {
		t.Logf("%s", f)
	}
	if rep.Refused-rep.NotObserved < 20 {
		t.Errorf("only %d refused statements wrote a fenced row on MariaDB: the shapes do not exercise the oracle", rep.Refused-rep.NotObserved)
	}
	requireSound(t, rep)
	requireDocRow(t, "TestOracleShapes", rep, len(Shapes))
}

// requireDocRow fails t unless the row of docs/mysql.md's oracle table
// that names test shows rep's counts: statements, passed (ran), refused
// (read-only; ran without a fenced write), escapes, and, first in its
// label, shapes (the number of statements a run repeats under each
// sql_mode).
func requireDocRow(t *testing.T, test string, rep *Report, shapes int) {
	t.Helper()
	b, err := os.ReadFile("../../../../docs/mysql.md")
	if err != nil {
		t.Fatal(err)
	}
	var row string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(l, "| ") && strings.Contains(l, "(`"+test+"`) |") {
			row = l
		}
	}
	want := fmt.Sprintf("| %d | %d (%d) | %d (%d; %d) | %d |", rep.Statements, rep.Passed, rep.PassedRun, rep.Refused, rep.RefusedReads, rep.NotObserved, len(rep.Escapes))
	if !strings.HasPrefix(row, fmt.Sprintf("| %d ", shapes)) || !strings.HasSuffix(row, want) {
		t.Errorf("docs/mysql.md's row of %s is\n%s\nwhile the run gives %d shapes and\n%s", test, row, shapes, want)
	}
}

// TestOracleCatchesEscape: the oracle sees writes that reach a fenced
// table through a trigger, a procedure, a view and a stored function, and
// with the analysis told nothing of them (Facts: the tables only) it
// reports each as an escape.
func TestOracleCatchesEscape(t *testing.T) {
	db := admin(t)
	through := []string{"REPLACE INTO notes (id, body) VALUES (1, 'x')", "CALL pay(1)", "UPDATE rich SET balance = 1", "SELECT bump(1)"}
	sc, _, err := NewScratch(context.Background(), db, mysqlURL(), [][]byte{shapesSchema(t)}, []string{"accounts", "holds"})
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	for _, q := range through {
		written, err := sc.Run(context.Background(), q, 1)
		if err != nil {
			t.Errorf("%s: %v", q, err)
			continue
		}
		if !written["accounts"] {
			t.Errorf("%s: MariaDB recorded %v, want a write of accounts", q, written)
		}
	}
	var tablesOnly []string
	for _, st := range strings.Split(string(shapesSchema(t)), ";") {
		if strings.Contains(st, "CREATE TABLE") {
			tablesOnly = append(tablesOnly, st)
		}
	}
	rep, err := Check(context.Background(), db, mysqlURL(), Case{
		Label: "blind", Fenced: []string{"accounts", "holds"},
		Schema:  [][]byte{shapesSchema(t)},
		Facts:   [][]byte{[]byte(strings.Join(tablesOnly, ";\n"))},
		Queries: through,
	})
	if err != nil {
		t.Fatal(err)
	}
	// The view is a table to blind facts, its UPDATE a write of an
	// unfenced one; the procedure is unknown, so CALL is refused.
	if len(rep.Escapes) != 3 {
		t.Errorf("%d escapes with blind facts, want 3 (trigger, view, function): %v", len(rep.Escapes), rep.Escapes)
	}
}

// ModeShapes are statements over shapesSchema whose tokens depend on the
// session's sql_mode: under NO_BACKSLASH_ESCAPES 'a\' is a whole string
// and what follows it SQL, under ANSI_QUOTES "x\" an identifier. The
// first three write accounts (fenced) under a mode only.
var ModeShapes = []string{
	"UPDATE notes n JOIN accounts a ON a.id = n.id SET n.body = 'a\\', a.balance = 99 -- '\nWHERE n.id = ?",
	"SELECT 'a\\', bump(1) -- ' AS s FROM notes",
	"SELECT 1 AS \"x\\\", bump(1) AS \" -- \"\nFROM notes WHERE id = ?",
	"SELECT 'a\\nb' AS s FROM notes WHERE id = ?",
	"SELECT \"plain\" AS s FROM notes WHERE id = ?",
	"UPDATE notes SET body = 'it''s' WHERE id = ?",
	"UPDATE accounts SET balance = 2 WHERE id = ? AND 'a\\\\' <> ''",
	"UPDATE notes SET body = body || 'x' WHERE id = ? || 0",
	"UPDATE accounts SET balance = 2 WHERE id = ? AND (1 || 0)",
	// HIGH_NOT_PRECEDENCE: other rows of accounts, or of notes beside
	// a call of bump.
	"UPDATE accounts SET balance = 3 WHERE NOT id BETWEEN 5 AND 6",
	"SELECT bump(id) FROM notes WHERE NOT id BETWEEN 5 AND 6",
	"UPDATE accounts SET balance = 4 WHERE id = ? AND NOT (balance BETWEEN 5 AND 6) AND NOT EXISTS (SELECT 1 FROM notes WHERE id < 0)",
}

// TestOracleSQLModes runs ModeShapes on MariaDB under the default mode,
// NO_BACKSLASH_ESCAPES, ANSI_QUOTES, both, and PIPES_AS_CONCAT: no escape
// under any, and
// the mode-only writes of accounts were seen (the test can fail: without
// the analysis' second reading the first three are escapes).
func TestOracleSQLModes(t *testing.T) {
	db := admin(t)
	rep, err := Check(context.Background(), db, mysqlURL(), Case{
		Label: "modes", Schema: [][]byte{shapesSchema(t)}, Queries: ModeShapes, Fenced: []string{"accounts", "holds"},
		SQLModes: []string{"NO_BACKSLASH_ESCAPES", "ANSI_QUOTES", "NO_BACKSLASH_ESCAPES,ANSI_QUOTES", "PIPES_AS_CONCAT", "HIGH_NOT_PRECEDENCE", "IGNORE_SPACE"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Rejects {
		t.Logf("%s", f)
	}
	for _, f := range rep.Observed {
		t.Logf("%s", f)
	}
	if rep.Refused-rep.NotObserved < 4 {
		t.Errorf("only %d refused runs wrote a fenced row on MariaDB: the mode shapes do not exercise the oracle", rep.Refused-rep.NotObserved)
	}
	requireSound(t, rep)
	requireDocRow(t, "TestOracleSQLModes", rep, len(ModeShapes))
}

// TestOracleBodySQLModes: MySQL and MariaDB run a stored program under the
// sql_mode of the session that created it, stored with it, which the
// analysis cannot see. p_nbe is created under NO_BACKSLASH_ESCAPES, where
// 'a\' is a whole string and the rest of its line code: it updates
// accounts on MariaDB, which the default reading of its body does not
// show. The analysis reads the body again under each mode that changes
// it and refuses what reaches it (no escape); p_plain, a body no mode
// reads otherwise, runs as analysed.
func TestOracleBodySQLModes(t *testing.T) {
	db := admin(t)
	schema := `CREATE TABLE accounts (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL DEFAULT 0, balance INT NOT NULL DEFAULT 0);
CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT);
SET SESSION sql_mode = 'NO_BACKSLASH_ESCAPES';
DELIMITER $$
CREATE PROCEDURE p_nbe()
BEGIN
  UPDATE notes n JOIN accounts a ON a.id = n.id SET n.body = 'a\', a.balance = 99 -- '
  WHERE n.id >= 0;
END$$
CREATE PROCEDURE p_plain()
BEGIN
  UPDATE notes SET body = 'b' WHERE id >= 0;
END$$
DELIMITER ;
SET SESSION sql_mode = DEFAULT;
`
	rep, err := Check(context.Background(), db, mysqlURL(), Case{
		Label: "body modes", Schema: [][]byte{[]byte(schema)}, Queries: []string{"CALL p_nbe()", "CALL p_plain()"}, Fenced: []string{"accounts"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range rep.Schema {
		t.Errorf("schema: %s", f)
	}
	requireSound(t, rep)
	if rep.Refused != 1 || rep.Refused-rep.NotObserved != 1 {
		t.Errorf("refused %d runs, %d of which wrote a fenced row on MariaDB; want p_nbe's one, which writes", rep.Refused, rep.Refused-rep.NotObserved)
	}
}
