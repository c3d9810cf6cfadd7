package mysqlparse_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
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

// FuzzParse parses arbitrary MySQL: nothing may panic, statements are in
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
	f.Fuzz(func(t *testing.T, src string) {
		file, err := mysqlparse.Parse("f.sql", []byte(src))
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
