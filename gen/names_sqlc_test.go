package gen_test

// TestNamesMatchSqlc is a differential test of sqlc's naming rules: it
// runs sqlc v1.31.1 and fencegen on testdata/names (a configuration whose
// schema and queries exercise struct, field, enum, method and parameter
// names, initialisms, renames, json tag names and the package names of
// overrides' import paths) and compares every name the two outputs
// declare, as a sorted list of lines (see declaredNames): imports with
// their alias, types, struct fields with their type and tag, functions
// and methods with their parameters and results, and constants.
//
// sqlc is $(go env GOPATH)/bin/sqlc (go install
// github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1); without it the test skips
// with one line, and fails under CI=true.
//
//	go test ./gen -run TestNamesMatchSqlc

import (
	"context"
	"fmt"
	"go/ast"
	"go/build"
	"go/parser"
	"go/printer"
	"go/token"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
)

// sqlcNameDiffs are the lines where fencegen declares, on purpose,
// another name than sqlc, each with the reason; they are taken out of
// both sides before comparing ("-" lines are sqlc's, "+" fencegen's).
var sqlcNameDiffs = map[string]string{
	// go_type: github.com/x/thing/v3.Dotted: sqlc qualifies with the
	// last element (v3.Dotted, compiling only for a package named v3);
	// fencegen imports the path as thing (specAlias).
	"-import - \"github.com/x/thing/v3\"":                             "alias",
	"+import thing \"github.com/x/thing/v3\"":                         "alias",
	"-field Member.DottedCol v3.Dotted `json:\"dottedCol\"`":          "alias",
	"+field Member.DottedCol thing.Dotted `json:\"dottedCol\"`":       "alias",
	"-field OverridesRow.DottedCol v3.Dotted `json:\"dottedCol\"`":    "alias",
	"+field OverridesRow.DottedCol thing.Dotted `json:\"dottedCol\"`": "alias",
}

// unexportedJSONTag matches the line of a field with an unexported name
// and a json tag; its group is the tag with the space before it, if any.
var unexportedJSONTag = regexp.MustCompile(`^field \w+\.[_a-z]\w* .*?( ?json:"[^"]*")`)

func TestNamesMatchSqlc(t *testing.T) {
	sqlc := filepath.Join(build.Default.GOPATH, "bin", "sqlc")
	if _, err := os.Stat(sqlc); err != nil {
		testenv.UnavailableAt(t, "sqlc v1.31.1 (go install github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1)", "PATH", "", err)
	}
	src, err := filepath.Abs(filepath.Join("testdata", "names"))
	if err != nil {
		t.Fatal(err)
	}
	sqlcDir := t.TempDir()
	if err := os.CopyFS(sqlcDir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sqlc, "--no-remote", "generate")
	cmd.Dir = sqlcDir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("sqlc generate: %v\n%s", err, out)
	}
	want := map[string][]byte{}
	paths, _ := filepath.Glob(filepath.Join(sqlcDir, "out*", "*.go"))
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		want[filepath.Base(filepath.Dir(p))+"/"+filepath.Base(p)] = b
	}

	cfg, err := gen.LoadConfig(filepath.Join(src, "sqlc.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}

	sqlcNames := declaredNames(t, want)
	// A column whose Go name is unexported ("2fa" is _2fa) has no json
	// tag in fencegen's output: go vet reports one (encoding/json ignores
	// the field). sqlc writes it; take it out of sqlc's line.
	for i, l := range sqlcNames {
		if m := unexportedJSONTag.FindStringSubmatch(l); m != nil {
			l = strings.Replace(l, m[1], "", 1)
			sqlcNames[i] = strings.Replace(strings.TrimSuffix(l, " ``"), "` ", "`", 1)
		}
	}
	slices.Sort(sqlcNames)
	fgNames := declaredNames(t, out.Files)
	if len(sqlcNames) < 200 {
		t.Fatalf("sqlc's output declares %d names; the configuration exercises more", len(sqlcNames))
	}
	var diff []string
	for _, l := range sqlcNames {
		if !slices.Contains(fgNames, l) && sqlcNameDiffs["-"+l] == "" {
			diff = append(diff, "- "+l)
		}
	}
	for _, l := range fgNames {
		if !slices.Contains(sqlcNames, l) && sqlcNameDiffs["+"+l] == "" {
			diff = append(diff, "+ "+l)
		}
	}
	if len(diff) > 0 {
		slices.SortFunc(diff, func(a, b string) int { return strings.Compare(a[2:], b[2:]) })
		t.Errorf("declared names differ from sqlc's (- sqlc, + fencegen):\n%s", strings.Join(diff, "\n"))
	}
}

// declaredNames lists what the Go files of files declare, one line each,
// sorted: "import alias path", "type T kind", "field T.F type `tag`",
// "func (R) F(params) results", "method I.M(params) results", "const C
// [= value]" (a string constant's value only when it is one line: enum
// values, not SQL text). Fencing adds names sqlc has no counterpart for;
// testdata/names has no fenced table, so there are none.
func declaredNames(t *testing.T, files map[string][]byte) []string {
	t.Helper()
	fset := token.NewFileSet()
	expr := func(e ast.Expr) string {
		var b strings.Builder
		printer.Fprint(&b, fset, e)
		return b.String()
	}
	fields := func(fl *ast.FieldList) string {
		if fl == nil {
			return ""
		}
		var parts []string
		for _, f := range fl.List {
			if len(f.Names) == 0 {
				parts = append(parts, expr(f.Type))
			}
			for _, n := range f.Names {
				parts = append(parts, n.Name+" "+expr(f.Type))
			}
		}
		return strings.Join(parts, ", ")
	}
	var lines []string
	for name, b := range files {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, b, parser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, im := range f.Imports {
			alias := "-"
			if im.Name != nil {
				alias = im.Name.Name
			}
			lines = append(lines, fmt.Sprintf("import %s %s", alias, im.Path.Value))
		}
		for _, d := range f.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				recv := ""
				if d.Recv != nil {
					recv = "(" + fields(d.Recv) + ") "
				}
				lines = append(lines, fmt.Sprintf("func %s%s(%s) (%s)", recv, d.Name.Name, fields(d.Type.Params), fields(d.Type.Results)))
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						switch ty := s.Type.(type) {
						case *ast.StructType:
							lines = append(lines, "type "+s.Name.Name+" struct")
							for _, fl := range ty.Fields.List {
								tag := ""
								if fl.Tag != nil {
									tag = " " + fl.Tag.Value
								}
								for _, n := range fl.Names {
									lines = append(lines, fmt.Sprintf("field %s.%s %s%s", s.Name.Name, n.Name, expr(fl.Type), tag))
								}
							}
						case *ast.InterfaceType:
							lines = append(lines, "type "+s.Name.Name+" interface")
							for _, m := range ty.Methods.List {
								if ft, ok := m.Type.(*ast.FuncType); ok && len(m.Names) == 1 {
									lines = append(lines, fmt.Sprintf("method %s.%s(%s) (%s)", s.Name.Name, m.Names[0].Name, fields(ft.Params), fields(ft.Results)))
								}
							}
						default:
							lines = append(lines, "type "+s.Name.Name+" "+expr(s.Type))
						}
					case *ast.ValueSpec:
						for i, n := range s.Names {
							l := "const " + n.Name
							if d.Tok == token.VAR {
								l = "var " + n.Name
							}
							if i < len(s.Values) {
								if v := expr(s.Values[i]); !strings.Contains(v, "\n") {
									l += " = " + v
								}
							}
							lines = append(lines, l)
						}
					}
				}
			}
		}
	}
	slices.Sort(lines)
	return lines
}
