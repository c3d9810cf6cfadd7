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
	"errors"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"maps"
	"os"
	"os/exec"
	"path"
	"path/filepath"
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
	// An argument named as what the method's body declares in its own
	// block: sqlc's code does not compile (go build says why), fencegen
	// appends "_".
	"-func (q *Queries) BatchMany(ctx context.Context, br []int32) (*BatchManyBatchResults)":         "sqlc's batch body declares br := q.db.SendBatch(...): no new variables",
	"+func (q *Queries) BatchMany(ctx context.Context, br_ []int32) (*BatchManyBatchResults)":        "sqlc's batch body declares br := q.db.SendBatch(...): no new variables",
	"-method Querier.BatchMany(ctx context.Context, br []int32) (*BatchManyBatchResults)":            "sqlc's batch body declares br := q.db.SendBatch(...): no new variables",
	"+method Querier.BatchMany(ctx context.Context, br_ []int32) (*BatchManyBatchResults)":           "sqlc's batch body declares br := q.db.SendBatch(...): no new variables",
	"-func (q *Queries) BatchOne(ctx context.Context, batch []pgtype.Text) (*BatchOneBatchResults)":  "sqlc's batch body declares batch := &pgx.Batch{}: no new variables",
	"+func (q *Queries) BatchOne(ctx context.Context, batch_ []pgtype.Text) (*BatchOneBatchResults)": "sqlc's batch body declares batch := &pgx.Batch{}: no new variables",
	"-method Querier.BatchOne(ctx context.Context, batch []pgtype.Text) (*BatchOneBatchResults)":     "sqlc's batch body declares batch := &pgx.Batch{}: no new variables",
	"+method Querier.BatchOne(ctx context.Context, batch_ []pgtype.Text) (*BatchOneBatchResults)":    "sqlc's batch body declares batch := &pgx.Batch{}: no new variables",
	"-func (q *Queries) ExecRows(ctx context.Context, result pgtype.Text) (int64, error)":            "sqlc's body assigns result, err := q.db.Exec(...): a pgconn.CommandTag to a pgtype.Text",
	"+func (q *Queries) ExecRows(ctx context.Context, result_ pgtype.Text) (int64, error)":           "sqlc's body assigns result, err := q.db.Exec(...): a pgconn.CommandTag to a pgtype.Text",
	"-method Querier.ExecRows(ctx context.Context, result pgtype.Text) (int64, error)":               "sqlc's body assigns result, err := q.db.Exec(...): a pgconn.CommandTag to a pgtype.Text",
	"+method Querier.ExecRows(ctx context.Context, result_ pgtype.Text) (int64, error)":              "sqlc's body assigns result, err := q.db.Exec(...): a pgconn.CommandTag to a pgtype.Text",
	"-func (q *Queries) ManyItems(ctx context.Context, items pgtype.Text) ([]int32, error)":          "sqlc's body declares var items []int32: redeclared",
	"+func (q *Queries) ManyItems(ctx context.Context, items_ pgtype.Text) ([]int32, error)":         "sqlc's body declares var items []int32: redeclared",
	"-method Querier.ManyItems(ctx context.Context, items pgtype.Text) ([]int32, error)":             "sqlc's body declares var items []int32: redeclared",
	"+method Querier.ManyItems(ctx context.Context, items_ pgtype.Text) ([]int32, error)":            "sqlc's body declares var items []int32: redeclared",
	"-func (q *Queries) OneRow(ctx context.Context, row pgtype.Text) (int32, error)":                 "sqlc's body declares row := q.db.QueryRow(...): no new variables",
	"+func (q *Queries) OneRow(ctx context.Context, row_ pgtype.Text) (int32, error)":                "sqlc's body declares row := q.db.QueryRow(...): no new variables",
	"-method Querier.OneRow(ctx context.Context, row pgtype.Text) (int32, error)":                    "sqlc's body declares row := q.db.QueryRow(...): no new variables",
	"+method Querier.OneRow(ctx context.Context, row_ pgtype.Text) (int32, error)":                   "sqlc's body declares row := q.db.QueryRow(...): no new variables",

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

func TestNamesMatchSqlc(t *testing.T) {
	sqlc := testenv.SqlcBinary()
	if sqlc == "" {
		testenv.UnavailableAt(t, "sqlc v1.31.1 (go install github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1)", "SQLC", "", errors.New("not in $SQLC, GOPATH/bin or PATH"))
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
	return declared(t, files, false)
}

// declared is declaredNames; with namesOnly the types are left out (a
// parameter is its name, a field its name and tag, a type its name and
// kind, a constant its name), so that it compares names where the types
// differ for other reasons.
func declared(t *testing.T, files map[string][]byte, namesOnly bool) []string {
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
				if namesOnly {
					parts = append(parts, n.Name)
				} else {
					parts = append(parts, n.Name+" "+expr(f.Type))
				}
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
				if namesOnly {
					lines = append(lines, fmt.Sprintf("func %s%s(%s)", recv, d.Name.Name, fields(d.Type.Params)))
				} else {
					lines = append(lines, fmt.Sprintf("func %s%s(%s) (%s)", recv, d.Name.Name, fields(d.Type.Params), fields(d.Type.Results)))
				}
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
									if namesOnly {
										lines = append(lines, fmt.Sprintf("field %s.%s%s", s.Name.Name, n.Name, tag))
									} else {
										lines = append(lines, fmt.Sprintf("field %s.%s %s%s", s.Name.Name, n.Name, expr(fl.Type), tag))
									}
								}
							}
						case *ast.InterfaceType:
							lines = append(lines, "type "+s.Name.Name+" interface")
							for _, m := range ty.Methods.List {
								if ft, ok := m.Type.(*ast.FuncType); ok && len(m.Names) == 1 {
									if namesOnly {
										lines = append(lines, fmt.Sprintf("method %s.%s(%s)", s.Name.Name, m.Names[0].Name, fields(ft.Params)))
									} else {
										lines = append(lines, fmt.Sprintf("method %s.%s(%s) (%s)", s.Name.Name, m.Names[0].Name, fields(ft.Params), fields(ft.Results)))
									}
								}
							}
						default:
							if namesOnly {
								lines = append(lines, "type "+s.Name.Name)
							} else {
								lines = append(lines, "type "+s.Name.Name+" "+expr(s.Type))
							}
						}
					case *ast.ValueSpec:
						for i, n := range s.Names {
							l := "const " + n.Name
							if d.Tok == token.VAR {
								l = "var " + n.Name
							}
							if i < len(s.Values) && !namesOnly {
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

// TestCorpusNamesMatchSqlc compares, for every case of sqlc's own
// end-to-end inputs in the shared corpus (../shared/corpus/sqlc and
// sqlc-stdlib) that both generate, the names the two outputs declare,
// types left out (declared with namesOnly; the API comparison of
// internal/corpus compares the types): parameter, field, type, method
// and constant names, json and db tags, import aliases.
func TestCorpusNamesMatchSqlc(t *testing.T) {
	if testing.Short() {
		t.Skip("runs sqlc on every case of the shared corpus")
	}
	if raceEnabled {
		// It runs no goroutine of its own, and under the race detector
		// the corpus's generation takes minutes of the package's
		// ten-minute budget: .ci/run runs it without -race.
		t.Skip("SKIP under -race: run go test -run TestCorpusNamesMatchSqlc ./gen (as .ci/run does)")
	}
	sqlc := testenv.SqlcBinary()
	if sqlc == "" {
		testenv.UnavailableAt(t, "sqlc v1.31.1 (go install github.com/sqlc-dev/sqlc/cmd/sqlc@v1.31.1)", "SQLC", "", errors.New("not in $SQLC, GOPATH/bin or PATH"))
	}
	corpus := filepath.Join("..", "..", "shared", "corpus")
	var cfgs []string
	for _, group := range []string{"sqlc", "sqlc-stdlib", "real"} {
		filepath.WalkDir(filepath.Join(corpus, group), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && slices.Contains([]string{"sqlc.json", "sqlc.yaml", "sqlc.yml"}, d.Name()) {
				cfgs = append(cfgs, p)
			}
			return nil
		})
	}
	if len(cfgs) == 0 {
		t.Skipf("SKIP: no sqlc cases under %s (the shared corpus is optional)", filepath.ToSlash(corpus))
	}
	compared, same := 0, 0
	for _, cfgPath := range cfgs {
		dir := filepath.Dir(cfgPath)
		name := filepath.ToSlash(strings.TrimPrefix(dir, corpus+string(filepath.Separator)))
		// The case's directory (a real project's, whose schema may lie
		// beside its configuration's directory) is copied whole.
		parts := strings.SplitN(name, "/", 3)
		root := filepath.Join(corpus, parts[0], parts[1])
		rel, err := filepath.Rel(root, cfgPath)
		if err != nil {
			t.Fatal(err)
		}
		tmp := t.TempDir()
		if err := os.CopyFS(tmp, os.DirFS(root)); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(sqlc, "--no-remote", "generate", "-f", rel)
		cmd.Dir = tmp
		if err := cmd.Run(); err != nil {
			continue // a NEGATIVE or managed-db case
		}
		cfg, err := gen.LoadConfig(cfgPath)
		if err != nil {
			continue // refused: internal/corpus reports it
		}
		out, err := gen.Generate(context.Background(), cfg)
		if err != nil || out.Fenced > 0 {
			continue
		}
		// Compared by output directory: those fencegen writes (an entry of
		// another engine, which it does not generate, is left out).
		fgDirs := map[string]map[string][]byte{}
		for f, b := range out.Files {
			d := path.Dir(f)
			if fgDirs[d] == nil {
				fgDirs[d] = map[string][]byte{}
			}
			fgDirs[d][f] = b
		}
		base := filepath.Join(tmp, filepath.Dir(rel))
		var diff []string
		for _, d := range slices.Sorted(maps.Keys(fgDirs)) {
			want := map[string][]byte{}
			paths, _ := filepath.Glob(filepath.Join(base, filepath.FromSlash(d), "*.go"))
			for _, p := range paths {
				b, _ := os.ReadFile(p)
				want[p] = b
			}
			sqlcNames, fgNames := declared(t, want, true), declared(t, fgDirs[d], true)
			for _, l := range sqlcNames {
				if !slices.Contains(fgNames, l) {
					diff = append(diff, "- "+d+": "+l)
				}
			}
			for _, l := range fgNames {
				// strconv: fencegen expands IN (sqlc.slice(x)) into one $n
				// per element on database/sql (docs/sqlc.md).
				if !slices.Contains(sqlcNames, l) && l != `import - "strconv"` {
					diff = append(diff, "+ "+d+": "+l)
				}
			}
		}
		compared++
		why, explained := corpusNameDiffs[name]
		switch {
		case len(diff) == 0 && explained:
			t.Errorf("%s declares sqlc's names now: take it out of corpusNameDiffs (%s)", name, why)
		case len(diff) == 0:
			same++
		case !explained:
			t.Errorf("%s: declared names differ from sqlc's (- sqlc, + fencegen):\n%s", name, strings.Join(diff, "\n"))
		}
	}
	t.Logf("%d of %d cases that both generate declare sqlc's names (%d differ for the reasons corpusNameDiffs gives)", same, compared, len(corpusNameDiffs))
}

// corpusNameDiffs are the cases of TestCorpusNamesMatchSqlc whose declared
// names differ from sqlc's for another reason than a naming rule, each
// with it.
var corpusNameDiffs = map[string]string{}
