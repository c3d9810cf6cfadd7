package mysqloracle

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/fencegen/fencegen/gen/internal/writes/mysqlwrites"
)

// FuzzMySQLWriteShapes parses each input with the TiDB parser, analyses
// it against the held-out shapes' schema (accounts and holds fenced) and
// runs it on MariaDB in a rolled-back transaction: a statement whose
// recorded fenced writes the analysis did not report fails, and so does a
// location outside the statement or a panic. Seeds: the held-out shapes
// and every query of ../shared/corpus/sqlc-mysql (sqlc's macros
// rewritten). Only statements that MariaDB runs inside a transaction and
// that touch nothing outside the scratch database are run (SELECT,
// INSERT, REPLACE, UPDATE, DELETE, CALL, DO; no SELECT ... INTO a file).
func FuzzMySQLWriteShapes(f *testing.F) {
	for _, q := range Shapes {
		f.Add(q)
	}
	root := filepath.Join(shared, "corpus", "sqlc-mysql")
	if _, err := os.Stat(root); err == nil {
		for _, c := range corpusCases(f, root) {
			for _, q := range c.Queries {
				f.Add(Rewrite(q))
			}
		}
	}
	db := admin(f)
	schema := shapesSchema(f)
	s, findings, err := NewScratch(context.Background(), db, mysqlURL(), [][]byte{schema}, []string{"accounts", "holds"})
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(s.Close)
	if len(findings) > 0 {
		f.Fatalf("schema: %v", findings)
	}
	sc, err := mysqlwrites.ReadSchema(schema)
	if err != nil {
		f.Fatal(err)
	}
	sc.Fence("accounts")
	sc.Fence("holds")
	f.Fuzz(func(t *testing.T, q string) {
		if len(q) > 4000 {
			return
		}
		st, err := parseOne(q)
		if err != nil {
			return
		}
		r := mysqlwrites.Of(st, 0, sc)
		n := len(st.Text())
		for _, w := range r.Writes {
			if w.Loc < 0 || w.Loc > n {
				t.Errorf("write of %s at %d, outside the statement's %d bytes", w.Table, w.Loc, n)
			}
		}
		for _, x := range r.Refusals {
			if x.Loc < 0 || x.Loc > n {
				t.Errorf("refusal %s at %d, outside the statement's %d bytes", x.Kind, x.Loc, n)
			}
		}
		if !runnable(st, q) {
			return
		}
		rep := &Report{}
		rep.check(context.Background(), s, sc, "fuzz", q, st, s.Run, false)
		for _, e := range rep.Escapes {
			t.Errorf("%s", e)
		}
	})
}

// runnable: the statement kinds the fuzz target runs.
func runnable(st ast.StmtNode, q string) bool {
	u := strings.ToUpper(q)
	if strings.Contains(u, "OUTFILE") || strings.Contains(u, "DUMPFILE") {
		return false
	}
	switch st.(type) {
	case *ast.SelectStmt, *ast.SetOprStmt, *ast.InsertStmt, *ast.UpdateStmt, *ast.DeleteStmt, *ast.CallStmt, *ast.DoStmt:
		return true
	}
	return false
}
