package mysqlparse_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/sqlparse/mysqlparse"
)

func TestParseSpansAndParams(t *testing.T) {
	src := "CREATE TABLE t (id int unsigned PRIMARY KEY, ok tinyint(1) NOT NULL, kind ENUM('a', 'b'), note text COMMENT 'fencegen:token');\n" +
		"-- name: Get :one\nSELECT id FROM t WHERE id = ? AND kind IN (sqlc.slice(kinds)) AND note = sqlc.arg(Note)\n;\n" +
		"-- name: Count :one\nSELECT COUNT(*) FROM t"
	f, err := mysqlparse.Parse("q.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Stmts) != 3 {
		t.Fatalf("%d statements, want 3", len(f.Stmts))
	}
	if got := src[f.Stmts[1].Start:f.Stmts[1].End]; !strings.HasPrefix(got, "SELECT id FROM t") || strings.HasSuffix(strings.TrimSpace(got), ";") {
		t.Errorf("second statement's text = %q", got)
	}
	if got := src[f.Stmts[1].Lead:f.Stmts[1].Start]; !strings.Contains(got, "-- name: Get :one") {
		t.Errorf("second statement's lead = %q, want its annotation", got)
	}
	if got := src[f.Stmts[2].Start:f.Stmts[2].End]; got != "SELECT COUNT(*) FROM t" {
		t.Errorf("last statement (no semicolon) = %q", got)
	}
	ct := f.Stmts[0].Node.(*sqlparse.CreateTable)
	id, ok, kind := ct.Columns[0].Type, ct.Columns[1].Type, ct.Columns[2].Type
	if id.Schema != mysqlparse.Schema || id.Name != "int" || !id.Unsigned || !ct.Columns[0].PrimaryKey {
		t.Errorf("id's type = %+v", id)
	}
	if ok.Name != "tinyint" || ok.Length != 1 || !ct.Columns[1].NotNull {
		t.Errorf("ok's type = %+v", ok)
	}
	if !slices.Equal(kind.Values, []string{"a", "b"}) {
		t.Errorf("kind's values = %q", kind.Values)
	}
	if len(ct.Comments) != 1 || ct.Comments[0].Column != "note" || ct.Comments[0].Text != "fencegen:token" {
		t.Errorf("column comments = %+v", ct.Comments)
	}
	var params []*sqlparse.Param
	var visit func(v reflect.Value)
	visit = func(v reflect.Value) {
		switch v.Kind() {
		case reflect.Interface, reflect.Pointer:
			if v.IsNil() {
				return
			}
			if p, ok := v.Interface().(*sqlparse.Param); ok {
				params = append(params, p)
				return
			}
			visit(v.Elem())
		case reflect.Slice:
			for i := range v.Len() {
				visit(v.Index(i))
			}
		case reflect.Struct:
			for i := range v.NumField() {
				if v.Type().Field(i).IsExported() {
					visit(v.Field(i))
				}
			}
		}
	}
	visit(reflect.ValueOf(f.Stmts[1].Node))
	slices.SortFunc(params, func(a, b *sqlparse.Param) int { return a.Loc - b.Loc })
	if len(params) != 3 {
		t.Fatalf("%d parameters, want 3", len(params))
	}
	for i, want := range []struct {
		name, text string
		slice      bool
	}{{"", "?", false}, {"kinds", "sqlc.slice(kinds)", true}, {"note", "sqlc.arg(Note)", false}} {
		p := params[i]
		if p.Number != i+1 || p.Name != want.name || p.Slice != want.slice || src[p.Loc:p.End] != want.text {
			t.Errorf("parameter %d = %+v (%q), want %q named %q", i+1, p, src[p.Loc:p.End], want.text, want.name)
		}
	}
}

// TestParseReportsEveryBrokenStatement: each statement that does not
// parse is one located error, and the others are still returned.
func TestParseReportsEveryBrokenStatement(t *testing.T) {
	src := "SELECT 1;\nSELEC 2;\nSELECT 3;\nUPDATE SET x = 1;\n"
	f, err := mysqlparse.Parse("q.sql", []byte(src))
	var l diag.List
	if !errors.As(err, &l) || len(l) != 2 {
		t.Fatalf("err = %v, want two located errors", err)
	}
	if l[0].Line != 2 || l[1].Line != 4 || l[0].File != "q.sql" {
		t.Errorf("errors at %s and %s, want lines 2 and 4", l[0], l[1])
	}
	if f == nil || len(f.Stmts) != 2 {
		t.Fatalf("statements kept: %v", f)
	}
}

// TestParseEndOfStatement: a statement that ends too early is reported
// at its end as such, after its last token outside comments, not as
// TiDB's empty `near ""` (trial tnew F7); other errors keep TiDB's
// near text.
func TestParseEndOfStatement(t *testing.T) {
	src := "SELECT * FROM t WHERE id = ? AND;\n" +
		"SELECT * FROM t WHERE id = ? ORDER BY -- the order\n;\n" +
		"SELECT * FROM t WHERE name = 'a;b' AND /* c */\n;\n" +
		"SELECT * FROM t WHERE id = = ?;\n"
	_, err := mysqlparse.Parse("q.sql", []byte(src))
	var l diag.List
	if !errors.As(err, &l) {
		t.Fatalf("err = %v, want located errors", err)
	}
	var got []string
	for _, e := range l {
		got = append(got, e.Error())
	}
	want := []string{
		`q.sql:1:33: syntax error at end of statement: unexpected end after "AND"`,
		`q.sql:3:1: syntax error at end of statement: unexpected end after "BY"`,
		`q.sql:5:1: syntax error at end of statement: unexpected end after "AND"`,
		`q.sql:6:29: syntax error near "= ?"`, // TiDB's column, as sqlc reports it
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// FuzzParse parses arbitrary MySQL (with ParseSchema when it looks like a
// schema file): nothing may panic, statements are in
// order inside the input, and every error is located in it. Seeds: the
// .sql files of ../shared/corpus/sqlc-mysql when present.
func FuzzParse(f *testing.F) {
	f.Add("CREATE TABLE t (id int);\n-- name: X :one\nSELECT * FROM t WHERE id = ?;")
	f.Add("SELECT 'a;b' -- c;\n; /* ; */ SELECT `x;y` FROM t")
	_ = filepath.WalkDir(filepath.Join("..", "..", "..", "..", "..", "shared", "corpus", "sqlc-mysql"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".sql" {
			if b, err := os.ReadFile(path); err == nil && len(b) < 16<<10 {
				f.Add(string(b))
			}
		}
		return nil
	})
	f.Add("DELIMITER $$\nCREATE TRIGGER t BEFORE UPDATE ON a FOR EACH ROW BEGIN SET @x = 1; END$$\nDELIMITER ;\nCREATE TABLE a (id int);")
	f.Add("-- atlas:delimiter -- end\nDROP TRIGGER IF EXISTS t\n-- end\nCREATE TABLE a (id int)\n-- end\n")
	f.Add("UPDATE n /*M!, a */ SET x = '/*!80000 */' /*!, y = 1 */; # /*M! */")
	f.Fuzz(func(t *testing.T, src string) {
		parse := mysqlparse.Parse
		if strings.Contains(src, "CREATE TABLE") || strings.Contains(src, "DELIMITER") || strings.Contains(src, "atlas:") {
			parse = mysqlparse.ParseSchema
		}
		file, err := parse("f.sql", []byte(src))
		if err != nil {
			var l diag.List
			if !errors.As(err, &l) {
				t.Fatalf("unlocated error %v", err)
			}
			for _, e := range l {
				if e.File != "f.sql" || e.Line < 1 || e.Line > strings.Count(src, "\n")+1 {
					t.Errorf("error outside the input: %s", e)
				}
			}
		}
		if file == nil {
			return
		}
		prev := 0
		for _, st := range file.Stmts {
			if st.Lead < prev || st.Start < st.Lead || st.End < st.Start || st.End > len(src) {
				t.Fatalf("statement span lead %d start %d end %d after %d, input of %d bytes", st.Lead, st.Start, st.End, prev, len(src))
			}
			prev = st.End
		}
	})
}

// TestExecutableCommentsRefused: a statement holding an executable
// comment the TiDB parser does not read as MariaDB or MySQL run it is
// refused at the comment, every such comment reported; comments inside
// string literals or after -- and #, optimizer hints, and /*! with no
// version or one below 50700 are not refused.
func TestExecutableCommentsRefused(t *testing.T) {
	for _, c := range []struct {
		src  string
		want []string // line:col of each error, "" for none
	}{
		{"UPDATE notes n /*M!, accounts a */ SET n.body = 'y' /*M!, a.balance = 0 */ WHERE n.id = ?;", []string{"1:16", "1:53"}},
		{"SELECT 1;\nUPDATE notes SET body = 'y' /*M!100100 , x = 1 */ WHERE id = ?;\nSELECT 2;", []string{"2:29"}},
		{"UPDATE notes n /*!80000 , accounts a */ SET n.body = 'y' WHERE n.id = ?;", []string{"1:16"}},
		{"UPDATE notes SET body = 'y' /*!100100 , x = 1 */;", []string{"1:29"}},
		{"UPDATE notes SET body = 'y' /*!50700 , x = 1 */;", []string{"1:29"}},
		// MariaDB reads /*m! (lower case) as a plain comment
		// (TestMySQLLowerCaseMCommentOnMariaDB).
		{"DELETE FROM notes /*m! , accounts */ WHERE id = 1;", nil},
		{"UPDATE notes SET body = '/*M! x */' WHERE id = ?; -- /*M! y */\n# /*!80000 z */\n", nil},
		{"UPDATE notes SET body = \"it''s /*!80000 */\", id = `/*M!`;", nil},
		{"UPDATE /*+ NO_RANGE_OPTIMIZATION(notes) */ notes SET body = 'y' WHERE id = 1;", nil},
		{"/*!40101 SET @saved_cs_client = @@character_set_client */;\nUPDATE notes SET body = 'y' /*!, id = 2 */;", nil},
		{"SELECT 1 /* M! */;", nil},
		{"/*M!999999\\- enable the sandbox mode */ \n-- MariaDB dump 10.19\nSELECT 1;", nil},
		{"/*M!999999\\- enable the sandbox mode, x */ \nSELECT 1;", []string{"1:1"}},
		{"/*M!999999 , x = 1 */ \nSELECT 1;", []string{"1:1"}},
	} {
		f, err := mysqlparse.Parse("q.sql", []byte(c.src))
		var got []string
		if err != nil {
			var l diag.List
			if !errors.As(err, &l) {
				t.Fatalf("%q: unlocated error %v", c.src, err)
			}
			for _, e := range l {
				got = append(got, strconv.Itoa(e.Line)+":"+strconv.Itoa(e.Col))
				if e.File != "q.sql" || !strings.Contains(e.Msg, "executable comment /*") || !strings.Contains(e.Msg, "fencegen cannot see what") {
					t.Errorf("%q: error %s", c.src, e)
				}
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%q: errors at %v, want %v (%v)", c.src, got, c.want, err)
		}
		for _, st := range f.Stmts {
			for _, w := range c.want {
				if l, _ := strconv.Atoi(strings.Split(w, ":")[0]); l == strings.Count(c.src[:st.Start], "\n")+1 {
					t.Errorf("%q: refused statement at line %d kept", c.src, l)
				}
			}
		}
	}
}

// TestParseSchemaPrograms: a schema file's DELIMITER lines, Atlas
// delimiter directive and stored programs (what fencegen guard writes, and
// routines with compound bodies) are accepted and skipped, but for a
// procedure the TiDB parser reads (kept, as sqlc keeps it); the tables
// around them are kept, and a broken table statement is still located.
func TestParseSchemaPrograms(t *testing.T) {
	src := "CREATE TABLE a (id int);\n" +
		"DELIMITER $$\n" +
		"CREATE FUNCTION f() RETURNS int DETERMINISTIC\nBEGIN\n  UPDATE a SET id = 1;\n  RETURN 1;\nEND$$\n" +
		"CREATE TRIGGER tr BEFORE UPDATE ON a FOR EACH ROW\nBEGIN\n  IF NEW.id < OLD.id THEN\n    SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'x';\n  END IF;\nEND$$\n" +
		"DELIMITER ;\n" +
		"DROP TRIGGER IF EXISTS tr;\n" +
		"CREATE PROCEDURE p() BEGIN UPDATE a SET id = 2; END;\n" +
		"CREATE TABLE b (id int);\n"
	f, err := mysqlparse.ParseSchema("s.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, st := range f.Stmts {
		got = append(got, strings.Fields(src[st.Start:st.End])[2])
	}
	if !slices.Equal(got, []string{"a", "p()", "b"}) {
		t.Errorf("statements kept %q, want the tables a and b and the procedure p, which the TiDB parser reads", got)
	}
	atlas := "-- atlas:delimiter -- end\n\nDROP TRIGGER IF EXISTS t1\n-- end\n\nCREATE TRIGGER t1 BEFORE DELETE ON a FOR EACH ROW\nBEGIN\n  DECLARE m VARCHAR(10);\n  SET m = 'x';\nEND\n-- end\n\nCREATE TABLE c (id int)\n-- end\n"
	if f, err := mysqlparse.ParseSchema("s.sql", []byte(atlas)); err != nil || len(f.Stmts) != 1 {
		t.Errorf("atlas file: %v, %v", f, err)
	}
	broken := "DELIMITER //\nCREATE TRIGGER t1 BEFORE DELETE ON a FOR EACH ROW BEGIN END //\nDELIMITER ;\nCREATE TABLE (id int);\n"
	_, err = mysqlparse.ParseSchema("s.sql", []byte(broken))
	var l diag.List
	if !errors.As(err, &l) || len(l) != 1 || l[0].Line != 4 {
		t.Errorf("broken table after a trigger: %v, want one error on line 4", err)
	}
}
