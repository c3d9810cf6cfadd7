package mysqlwrites

import (
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
)

// shapesSchema reads testdata/shapes.sql with accounts and holds fenced.
func shapesSchema(t testing.TB) *Schema {
	t.Helper()
	src, err := os.ReadFile("testdata/shapes.sql")
	if err != nil {
		t.Fatal(err)
	}
	sc, err := ReadSchema(src)
	if err != nil {
		t.Fatalf("ReadSchema: %v", err)
	}
	sc.Fence("accounts")
	sc.Fence("holds")
	return sc
}

// summary is the fenced writes of r, each "VERB table" with "direct",
// "multi", "upsert", "select" or "via <path>", sorted, and "refused"
// when r has refusals.
func summary(r *Report, sc *Schema) string {
	var out []string
	for _, w := range r.FencedWrites(sc) {
		s := w.Verb + " " + w.Table
		switch {
		case w.Direct:
			s += " direct"
		default:
			s += " via " + w.Via
		}
		if w.Multi {
			s += " multi"
		}
		if w.Upsert {
			s += " upsert"
		}
		if w.Select {
			s += " select"
		}
		out = append(out, s)
	}
	sort.Strings(out)
	if len(r.Refusals) > 0 {
		out = append(out, "refused")
	}
	return strings.Join(out, "; ")
}

func TestShapes(t *testing.T) {
	sc := shapesSchema(t)
	for _, c := range []struct{ q, want string }{
		{"SELECT * FROM accounts WHERE id = ?", ""},
		{"SELECT pure(id) FROM accounts", ""},
		{"SELECT bump(id) FROM notes", "UPDATE accounts via function bump"},
		{"SELECT * FROM rich", ""},
		{"SELECT * FROM bumped", "UPDATE accounts via view bumped -> function bump"},
		{"UPDATE accounts SET balance = 1 WHERE id = ?", "UPDATE accounts direct"},
		{"DELETE FROM accounts WHERE id = ?", "DELETE accounts direct; UPDATE holds via foreign key of holds to accounts ON DELETE SET NULL"},
		{"DELETE FROM holds WHERE id = ?", "DELETE holds direct"},
		{"REPLACE INTO holds (id, fence) VALUES (1, 2)", "REPLACE holds direct"},
		{"INSERT INTO holds (id, fence) VALUES (1, 2) ON DUPLICATE KEY UPDATE fence = VALUES(fence)", "INSERT holds direct upsert"},
		{"INSERT INTO holds (id, fence) SELECT id, fence FROM holds", "INSERT holds direct select"},
		{"UPDATE notes n JOIN accounts a ON a.id = n.id SET n.body = 'x'", ""},
		{"UPDATE notes n JOIN holds h ON h.id = n.id SET h.fence = 1", "UPDATE holds direct multi"},
		{"UPDATE notes JOIN holds USING (id) SET fence = 1", "UPDATE holds direct multi"},
		{"UPDATE notes JOIN holds USING (id) SET body = 'y'", ""},
		{"UPDATE notes n /*!, holds h */ SET n.body = 'y' /*!, h.fence = 1 */ WHERE n.id = 1", "UPDATE holds direct multi"},
		{"UPDATE /*+ NO_RANGE_OPTIMIZATION(notes) */ notes SET body = '/*!, x */' WHERE id = 1", ""},
		{"DELETE n, h FROM notes n JOIN holds h USING (id)", "DELETE holds direct multi"},
		{"DELETE n FROM notes n JOIN holds h USING (id)", ""},
		{"DELETE FROM n USING notes n JOIN holds h USING (id)", ""},
		{"LOAD DATA INFILE '/tmp/x' INTO TABLE holds", "LOAD DATA holds direct"},
		{"CALL pay(1)", "UPDATE accounts via procedure pay"},
		{"CALL note(1)", ""},
		{"CALL dyn()", "refused"},
		{"CALL nosuch()", "refused"},
		{"INSERT INTO notes (id, body) VALUES (1, 'x')", "UPDATE accounts via trigger notes_touch on notes"},
		{"SELECT via_note(1)", "UPDATE accounts via function via_note -> trigger notes_touch on notes"},
		{"UPDATE rich SET balance = 1", "UPDATE accounts via view rich; UPDATE holds via view rich -> foreign key of holds to accounts ON UPDATE CASCADE"},
		{"UPDATE note_view SET body = 'y'", ""},
		{"UPDATE audit SET what = 'x'", ""},
		{"TRUNCATE holds", "TRUNCATE holds direct"},
		{"ALTER TABLE holds ADD COLUMN x INT", "ALTER TABLE holds direct"},
		{"DROP TABLE notes, holds", "DROP TABLE holds direct"},
		{"RENAME TABLE notes TO holds_old, holds TO notes", "RENAME TABLE holds direct"},
		{"CREATE TABLE holds2 AS SELECT * FROM holds", ""},
		{"EXECUTE s", "refused"},
		{"CREATE VIEW v AS SELECT * FROM holds", "refused"},
		{"WITH x AS (SELECT bump(1) AS b) SELECT * FROM x", "UPDATE accounts via function bump"},
		{"SELECT (SELECT bump(id) FROM notes LIMIT 1)", "UPDATE accounts via function bump"},
		{"INSERT INTO audit (what) SELECT bump(id) FROM notes", "UPDATE accounts via function bump"},
		{"DO bump(1)", "UPDATE accounts via function bump"},
		{"SET @x = bump(1)", "UPDATE accounts via function bump"},
		{"EXPLAIN DELETE FROM holds", "DELETE holds via the statement ExplainStmt runs"},
		{"EXPLAIN ANALYZE UPDATE holds SET fence = 1 WHERE id = 1", "UPDATE holds via the statement ExplainStmt runs"},
		{"SELECT * FROM notes WHERE id IN (SELECT id FROM accounts) FOR UPDATE", ""},
		{"BINLOG 'AAAA'", "refused"},
	} {
		stmts, _, err := parser.New().Parse(c.q, "", "")
		if err != nil || len(stmts) != 1 {
			t.Errorf("parse %q: %v", c.q, err)
			continue
		}
		r := Of(stmts[0], 0, sc)
		if got := summary(r, sc); got != c.want {
			t.Errorf("%s\n got: %s\nwant: %s", c.q, got, c.want)
			for _, f := range r.Refusals {
				t.Logf("  refusal: %s %s", f.Kind, f.Reason)
			}
		}
	}
}

// TestLocations: a write's Loc is the offset of its table's name in the
// file (the base plus its offset in the statement).
func TestLocations(t *testing.T) {
	sc := shapesSchema(t)
	src := "SELECT 1;\nUPDATE notes n JOIN `holds` h USING (id) SET h.fence = 1;"
	stmts, _, err := parser.New().Parse(src, "", "")
	if err != nil {
		t.Fatal(err)
	}
	st := stmts[1]
	base := strings.Index(src, "UPDATE")
	r := Of(st, base, sc)
	ws := r.FencedWrites(sc)
	if len(ws) != 1 {
		t.Fatalf("fenced writes %+v", ws)
	}
	if want := strings.Index(src, "`holds`"); ws[0].Loc != want {
		t.Errorf("Loc %d, want %d (%q)", ws[0].Loc, want, src[ws[0].Loc:])
	}
	r = Of(mustParse(t, "EXECUTE s"), 7, sc)
	if len(r.Refusals) != 1 || r.Refusals[0].Loc != 7 || r.Refusals[0].Kind != "ExecuteStmt" {
		t.Errorf("refusals %+v", r.Refusals)
	}
}

func mustParse(t testing.TB, q string) ast.StmtNode {
	t.Helper()
	stmts, _, err := parser.New().Parse(q, "", "")
	if err != nil || len(stmts) != 1 {
		t.Fatalf("parse %q: %v", q, err)
	}
	return stmts[0]
}

// TestForeignKeyCycles: a table whose foreign key references itself, and
// two that reference each other, end: each table's foreign-key actions are followed once.
func TestForeignKeyCycles(t *testing.T) {
	sc, err := ReadSchema([]byte(`
CREATE TABLE tree (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL, parent BIGINT REFERENCES tree (id) ON DELETE CASCADE);
CREATE TABLE a (id BIGINT PRIMARY KEY, b_id BIGINT, FOREIGN KEY (b_id) REFERENCES b (id) ON DELETE CASCADE ON UPDATE CASCADE);
CREATE TABLE b (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL, a_id BIGINT, FOREIGN KEY (a_id) REFERENCES a (id) ON DELETE SET NULL);
`))
	if err != nil {
		t.Fatal(err)
	}
	sc.Fence("tree")
	sc.Fence("b")
	for q, want := range map[string]string{
		"DELETE FROM tree WHERE id = 1": "DELETE tree direct; DELETE tree via foreign key of tree to tree ON DELETE CASCADE",
		"DELETE FROM a WHERE id = 1":    "UPDATE b via foreign key of b to a ON DELETE SET NULL",
		"DELETE FROM b WHERE id = 1":    "DELETE b direct; UPDATE b via foreign key of a to b ON DELETE CASCADE -> foreign key of b to a ON DELETE SET NULL",
	} {
		if got := summary(Of(mustParse(t, q), 0, sc), sc); got != want {
			t.Errorf("%s\n got: %s\nwant: %s", q, got, want)
		}
	}
}

// TestDocsShapes checks the table of docs/mysql.md's section on writes
// against the analysis: each row's statement reports what the row says.
func TestDocsShapes(t *testing.T) {
	b, err := os.ReadFile("../../../../docs/mysql.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	begin := strings.Index(doc, "<!-- mysqlwrites shapes: begin -->")
	end := strings.Index(doc, "<!-- mysqlwrites shapes: end -->")
	if begin < 0 || end < begin {
		t.Fatal("docs/mysql.md has no mysqlwrites shapes table")
	}
	sc := shapesSchema(t)
	rows := 0
	for _, line := range strings.Split(doc[begin:end], "\n") {
		if !strings.HasPrefix(line, "| `") {
			continue
		}
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 2 {
			t.Errorf("row %q: want 2 cells", line)
			continue
		}
		q := strings.Trim(cells[0], "`")
		want := cells[1]
		got := summary(Of(mustParse(t, q), 0, sc), sc)
		switch {
		case got == "":
			got = "none"
		case got == "refused":
			got = "refused"
			want, _, _ = strings.Cut(want, " (")
		}
		if got != want {
			t.Errorf("docs/mysql.md: %s\n got: %s\nwant: %s", q, got, want)
		}
		rows++
	}
	if rows < 10 {
		t.Errorf("%d rows checked, want the whole table", rows)
	}
}

// TestAddParsed: a schema handed over as parsed statements (Add), the way
// a catalog's front end holds them, gives the analysis what ReadSchema
// gives it from the text: a procedure's body, a view, a foreign key.
func TestAddParsed(t *testing.T) {
	stmts, _, err := parser.New().Parse(`CREATE TABLE accounts (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL);
CREATE TABLE holds (id BIGINT PRIMARY KEY, account_id BIGINT REFERENCES accounts (id) ON DELETE CASCADE);
CREATE VIEW v AS SELECT id FROM accounts;
CREATE PROCEDURE p(a BIGINT) BEGIN UPDATE accounts SET fence = fence WHERE id = a; END;`, "", "")
	if err != nil {
		t.Fatal(err)
	}
	sc := NewSchema()
	for _, st := range stmts {
		sc.Add(st)
	}
	sc.Fence("accounts")
	sc.Fence("holds")
	for q, want := range map[string]string{
		"CALL p(1)":                       "UPDATE accounts via procedure p",
		"DELETE FROM v WHERE id = 1":      "DELETE accounts via view v; DELETE holds via view v -> foreign key of holds to accounts ON DELETE CASCADE",
		"DELETE FROM accounts WHERE id=1": "DELETE accounts direct; DELETE holds via foreign key of holds to accounts ON DELETE CASCADE",
	} {
		if got := summary(Of(mustParse(t, q), 0, sc), sc); got != want {
			t.Errorf("%s\n got: %s\nwant: %s", q, got, want)
		}
	}
}

// TestUnreadSchema: a schema statement that may define what a write
// reaches, and that cannot be read, refuses every statement.
func TestUnreadSchema(t *testing.T) {
	sc, err := ReadSchema([]byte("CREATE TABLE t (id INT);\nCREATE VIEW v AS SELECT * FROM t WITH SYSTEM VERSIONING NONSENSE;\nCREATE TABLE u (x INT) NONSENSE;"))
	if err == nil {
		t.Fatal("ReadSchema read the broken statements")
	}
	if len(sc.Unread) != 1 {
		t.Fatalf("Unread %q, want the view only", sc.Unread)
	}
	sc.Fence("t")
	if r := Of(mustParse(t, "SELECT 1"), 0, sc); len(r.Refusals) != 1 {
		t.Errorf("refusals %+v", r.Refusals)
	}
}
