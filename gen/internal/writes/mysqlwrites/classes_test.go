package mysqlwrites

import (
	"go/importer"
	gotoken "go/token"
	"go/types"
	"sort"
	"testing"
)

// TestEveryStmtNodeClassified type-checks the TiDB parser's ast package
// from its source (the version in go.mod) and fails for every type
// implementing ast.StmtNode that Classes does not classify, and for every
// entry of Classes that is no such type.
func TestEveryStmtNodeClassified(t *testing.T) {
	pkg, err := importer.ForCompiler(gotoken.NewFileSet(), "source", nil).Import("github.com/pingcap/tidb/pkg/parser/ast")
	if err != nil {
		t.Fatalf("type-checking the parser's ast package: %v", err)
	}
	stmt := pkg.Scope().Lookup("StmtNode").Type().Underlying().(*types.Interface)
	var stmts []string
	for _, name := range pkg.Scope().Names() {
		tn, ok := pkg.Scope().Lookup(name).(*types.TypeName)
		if !ok || !tn.Exported() {
			continue
		}
		if _, isInterface := tn.Type().Underlying().(*types.Interface); isInterface {
			continue
		}
		if types.Implements(types.NewPointer(tn.Type()), stmt) || types.Implements(tn.Type(), stmt) {
			stmts = append(stmts, name)
		}
	}
	if len(stmts) < 100 {
		t.Fatalf("found %d statement types in the parser's ast package, expected over 100: the enumeration is broken", len(stmts))
	}
	sort.Strings(stmts)
	is := map[string]bool{}
	for _, s := range stmts {
		is[s] = true
		if Classes[s] == Unclassified {
			t.Errorf("ast.%s implements ast.StmtNode and is not in Classes", s)
		}
	}
	for k := range Classes {
		if !is[k] {
			t.Errorf("Classes holds %s, which is not a statement type of the parser", k)
		}
	}
	t.Logf("%d statement types, all classified", len(stmts))
}
