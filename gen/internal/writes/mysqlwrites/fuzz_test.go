package mysqlwrites

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
)

// FuzzReadSchema reads each input as a schema file, then as a query
// analysed against the held-out shapes' schema and against itself: no
// panic, no hang, every location inside the text, and every statement
// SplitStatements returns inside the input.
func FuzzReadSchema(f *testing.F) {
	if b, err := os.ReadFile("testdata/shapes.sql"); err == nil {
		f.Add(string(b))
		for _, st := range SplitStatements(string(b)) {
			f.Add(st.Text)
		}
	}
	_ = filepath.WalkDir("../../../../../shared/corpus/sqlc-mysql", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".sql") {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(string(b))
			}
		}
		return nil
	})
	f.Add("DELIMITER //\nCREATE TRIGGER t BEFORE UPDATE ON a FOR EACH ROW BEGIN IF NEW.x < OLD.x THEN SIGNAL SQLSTATE '45000'; END IF; END//\nDELIMITER ;\n")
	shapes := shapesSchema(f)
	f.Fuzz(func(t *testing.T, src string) {
		if len(src) > 8000 {
			return
		}
		for _, st := range SplitStatements(src) {
			if st.Pos < 0 || st.Pos+len(st.Text) > len(src) || src[st.Pos:st.Pos+len(st.Text)] != st.Text {
				t.Fatalf("statement %q at %d is not the input's text there", st.Text, st.Pos)
			}
		}
		own, _ := ReadSchema([]byte(src))
		own.Fence("accounts")
		stmts, _, err := parser.New().Parse(src, "", "")
		if err != nil {
			return
		}
		for _, st := range stmts {
			n := len(st.Text())
			for _, sc := range []*Schema{shapes, own} {
				r := Of(st, 0, sc)
				for _, w := range r.Writes {
					if w.Loc < 0 || w.Loc > n {
						t.Errorf("write of %s at %d, outside the statement's %d bytes", w.Table, w.Loc, n)
					}
				}
			}
		}
	})
}
