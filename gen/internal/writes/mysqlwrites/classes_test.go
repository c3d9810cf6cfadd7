package mysqlwrites

import (
	"go/ast"
	"go/build"
	goparser "go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// TestEveryStmtNodeClassified reads the TiDB parser's ast package from
// its source (the version in go.mod) and fails for every statement type
// that Classes does not classify, and for every entry of Classes that is
// no statement type. A statement type is an exported struct type that
// has every method of the ast.StmtNode interface (read from its
// declaration, with the interfaces it embeds): declared on it or on a
// type it embeds (stmtNode, dmlNode, ddlNode, ...), at any depth.
func TestEveryStmtNodeClassified(t *testing.T) {
	pkg, err := build.Import("github.com/pingcap/tidb/pkg/parser/ast", ".", build.FindOnly)
	if err != nil {
		t.Fatalf("finding the parser's ast package: %v", err)
	}
	fset := gotoken.NewFileSet()
	embeds := map[string][]string{}         // struct type -> the types it embeds
	methods := map[string]map[string]bool{} // type -> the methods declared on it
	ifaces := map[string]*ast.InterfaceType{}
	exported := map[string]bool{}
	files, _ := filepath.Glob(filepath.Join(pkg.Dir, "*.go"))
	for _, p := range files {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := goparser.ParseFile(fset, p, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Recv != nil && len(d.Recv.List) == 1 {
					r := baseName(d.Recv.List[0].Type)
					if methods[r] == nil {
						methods[r] = map[string]bool{}
					}
					methods[r][d.Name.Name] = true
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					ts, ok := s.(*ast.TypeSpec)
					if !ok {
						continue
					}
					if it, ok := ts.Type.(*ast.InterfaceType); ok {
						ifaces[ts.Name.Name] = it
						continue
					}
					st, ok := ts.Type.(*ast.StructType)
					if !ok {
						continue
					}
					if ts.Name.IsExported() {
						exported[ts.Name.Name] = true
					}
					for _, fl := range st.Fields.List {
						if len(fl.Names) == 0 {
							embeds[ts.Name.Name] = append(embeds[ts.Name.Name], baseName(fl.Type))
						}
					}
				}
			}
		}
	}
	// The methods of ast.StmtNode, with those of the interfaces it embeds.
	var required []string
	var need func(name string)
	need = func(name string) {
		it := ifaces[name]
		if it == nil {
			t.Fatalf("no interface %s in %s: the parser's ast package changed shape", name, pkg.Dir)
		}
		for _, m := range it.Methods.List {
			if len(m.Names) == 0 {
				need(baseName(m.Type))
				continue
			}
			for _, n := range m.Names {
				required = append(required, n.Name)
			}
		}
	}
	need("StmtNode")
	var hasMethod func(typ, m string, depth int) bool
	hasMethod = func(typ, m string, depth int) bool {
		if methods[typ][m] {
			return true
		}
		if depth > 10 {
			return false
		}
		for _, e := range embeds[typ] {
			if hasMethod(e, m, depth+1) {
				return true
			}
		}
		return false
	}
	var stmts []string
	for name := range exported {
		all := true
		for _, m := range required {
			if !hasMethod(name, m, 0) {
				all = false
				break
			}
		}
		if all {
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

// baseName is a type expression's name without * and package.
func baseName(e ast.Expr) string {
	switch x := e.(type) {
	case *ast.StarExpr:
		return baseName(x.X)
	case *ast.Ident:
		return x.Name
	case *ast.SelectorExpr:
		return x.Sel.Name
	}
	return ""
}
