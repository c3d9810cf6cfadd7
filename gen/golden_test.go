// End-to-end golden tests for the generator.
//
// Every directory gen/testdata/cases/<case>/ holds a fencegen.yaml, the
// schema and query files it names, and either
//
//   - want/: the files Generate must return, byte for byte (each case's
//     configuration writes to out: want, so the output map's keys are
//     "want/<file>"), or
//   - stderr.txt: the error Generate (or LoadConfig) must return, one
//     "file:line:col: message" line per problem, file names relative to
//     the case directory.
//
// A case that generates may also hold vet.txt: the notes Generate returns
// in Output.Vet (queries that opted out of fencing), one per line; a case
// without vet.txt must produce none.
//
// The runner changes into the case directory before loading its
// configuration, so every message names files relative to it and never
// by an absolute path. Each case runs Generate twice and checks that the
// bytes are identical, and every generated file must pass
// go/ast.IsGenerated and be gofmt-clean.
//
// gen/testdata is its own module (replace github.com/fencegen/fencegen =>
// ../..), so every want/ directory is a package: TestGoldenCompile runs
// go build and go vet over all of them at once (skipped under -short).
//
// Run the golden cases, and the compile check of their outputs:
//
//	go test ./gen -run 'TestGolden'
//
// To accept the generator's current output after reviewing the diff (this
// rewrites every want/ directory and stderr.txt file):
//
//	go test ./gen -run 'TestGolden$' -update
//
// To run one case:
//
//	go test ./gen -run 'TestGolden$/fenced_update_exec$'
//
// A new case is a new directory with fencegen.yaml (out: want) and its
// schema and query files; -update then writes want/ or stderr.txt,
// whichever the run produces. Review it before committing.
package gen_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"go/ast"
	"go/format"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/pmezard/go-difflib/difflib"

	"github.com/fencegen/fencegen/gen"
)

var update = flag.Bool("update", false, "rewrite the want/ directories and stderr.txt files of gen/testdata/cases")

const (
	casesDir  = "testdata/cases"
	wantDir   = "want"
	stderrTxt = "stderr.txt"
	vetTxt    = "vet.txt"
)

// caseDirs returns the case directories' names, sorted.
func caseDirs(t *testing.T) []string {
	t.Helper()
	ents, err := os.ReadDir(casesDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range ents {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		t.Fatalf("no cases in %s", casesDir)
	}
	return names
}

func TestGolden(t *testing.T) {
	for _, name := range caseDirs(t) {
		t.Run(name, func(t *testing.T) {
			dir, err := filepath.Abs(filepath.Join(casesDir, name))
			if err != nil {
				t.Fatal(err)
			}
			runCase(t, dir)
		})
	}
}

// generate loads the configuration and runs Generate from the case
// directory, which must be the working directory.
func generate() (map[string][]byte, error) {
	files, _, err := generateWithNotes()
	return files, err
}

// generateWithNotes is generate that also returns Output.Vet.
func generateWithNotes() (map[string][]byte, []string, error) {
	cfg, err := gen.LoadConfig("fencegen.yaml")
	if err != nil {
		return nil, nil, err
	}
	out, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		return nil, nil, err
	}
	return out.Files, out.Vet, nil
}

// problemLine is the form of every line of an expected error.
var problemLine = regexp.MustCompile(`^[^\s:/][^\s:]*:[0-9]+:[0-9]+: \S`)

func runCase(t *testing.T, dir string) {
	t.Chdir(dir) // messages name files relative to the case directory
	files, notes, err := generateWithNotes()
	files2, err2 := generate()

	// Determinism: a second run gives the same bytes, or the same error.
	if fmt.Sprint(err) != fmt.Sprint(err2) {
		t.Errorf("second run gave a different error:\nfirst:\n%v\nsecond:\n%v", err, err2)
	}
	if !maps.EqualFunc(files, files2, bytes.Equal) {
		t.Errorf("second run gave different files:\n%s", diffMaps(files, files2))
	}

	_, statErr := os.Stat(stderrTxt)
	wantsError := statErr == nil
	if *update {
		if err := os.RemoveAll(wantDir); err != nil {
			t.Fatal(err)
		}
		for _, f := range []string{stderrTxt, vetTxt} {
			if err := os.Remove(f); err != nil && !os.IsNotExist(err) {
				t.Fatal(err)
			}
		}
		if err != nil {
			writeFile(t, stderrTxt, []byte(err.Error()+"\n"))
		} else {
			for name, b := range files {
				writeFile(t, name, b)
			}
			if len(notes) > 0 {
				writeFile(t, vetTxt, []byte(strings.Join(notes, "\n")+"\n"))
			}
		}
		wantsError = err != nil
	}

	if wantsError {
		want, rerr := os.ReadFile(stderrTxt)
		if rerr != nil {
			t.Fatal(rerr)
		}
		if _, err := os.Stat(wantDir); err == nil {
			t.Errorf("case has both %s and %s/", stderrTxt, wantDir)
		}
		if err == nil {
			t.Fatalf("Generate succeeded; want the error in %s:\n%s", stderrTxt, want)
		}
		got := err.Error() + "\n"
		if got != string(want) {
			t.Errorf("error differs from %s (-want +got):\n%s", stderrTxt, diffText(stderrTxt, string(want), got))
		}
		checkProblems(t, dir, err)
		return
	}

	if err != nil {
		t.Fatalf("Generate: %v", err)
	}
	wantNotes, rerr := os.ReadFile(vetTxt)
	if rerr != nil && !os.IsNotExist(rerr) {
		t.Fatal(rerr)
	}
	gotNotes := ""
	if len(notes) > 0 {
		gotNotes = strings.Join(notes, "\n") + "\n"
	}
	if gotNotes != string(wantNotes) {
		t.Errorf("Output.Vet differs from %s (-want +got):\n%s", vetTxt, diffText(vetTxt, string(wantNotes), gotNotes))
	}
	want := readTree(t, wantDir)
	if !maps.EqualFunc(want, files, bytes.Equal) {
		t.Errorf("output differs from %s/ (-want +got; run with -update to accept):\n%s", wantDir, diffMaps(want, files))
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if strings.HasSuffix(name, ".go") {
			checkGoFile(t, name, files[name])
		} else if !bytes.HasPrefix(files[name], []byte("-- Code generated by fencegen. DO NOT EDIT.")) {
			t.Errorf("%s: missing the generated-file header", name)
		}
	}
}

// checkProblems checks that err lists located problems, one per line of
// its text, each "file:line:col: message" with a file relative to dir.
func checkProblems(t *testing.T, dir string, err error) {
	t.Helper()
	lines := strings.Split(err.Error(), "\n")
	if n := len(gen.Problems(err)); n != len(lines) {
		t.Errorf("gen.Problems returned %d problems for an error of %d lines", n, len(lines))
	}
	for _, l := range lines {
		if !problemLine.MatchString(l) {
			t.Errorf("error line is not \"file:line:col: message\" with a relative file name: %q", l)
		}
		if strings.Contains(l, dir) || strings.Contains(l, filepath.Dir(dir)) {
			t.Errorf("error line names an absolute path: %q", l)
		}
	}
	if !slices.IsSortedFunc(gen.Problems(err), func(a, b *gen.Problem) int {
		if a.File != b.File {
			return strings.Compare(a.File, b.File)
		}
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Col - b.Col
	}) {
		t.Errorf("problems are not sorted by file, line and column")
	}
}

// checkGoFile checks that a generated file says so and is gofmt-clean.
func checkGoFile(t *testing.T, name string, src []byte) {
	t.Helper()
	if !strings.HasSuffix(name, ".go") {
		t.Errorf("%s: generated a file that is not Go", name)
		return
	}
	f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.ParseComments)
	if err != nil {
		t.Errorf("%s: does not parse: %v", name, err)
		return
	}
	if !ast.IsGenerated(f) {
		t.Errorf("%s: go/ast.IsGenerated is false: the file lacks the \"Code generated ... DO NOT EDIT.\" header", name)
	}
	formatted, err := format.Source(src)
	if err != nil {
		t.Errorf("%s: format.Source: %v", name, err)
		return
	}
	if !bytes.Equal(formatted, src) {
		t.Errorf("%s: not gofmt-clean (-generated +gofmt):\n%s", name, diffText(name, string(src), string(formatted)))
	}
}

// readTree reads every file under root into a map keyed by slash paths
// that start with root.
func readTree(t *testing.T, root string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		out[filepath.ToSlash(p)] = b
		return nil
	})
	if err != nil {
		t.Fatalf("read %s/: %v (run with -update to create it)", root, err)
	}
	return out
}

func writeFile(t *testing.T, name string, b []byte) {
	t.Helper()
	p := filepath.FromSlash(name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// diffMaps describes the differences between two output maps: missing
// and extra files, and a unified diff of each file that differs.
func diffMaps(want, got map[string][]byte) string {
	var b strings.Builder
	names := slices.Sorted(maps.Keys(want))
	for n := range got {
		if _, ok := want[n]; !ok {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		w, inWant := want[n]
		g, inGot := got[n]
		switch {
		case !inGot:
			fmt.Fprintf(&b, "missing file %s\n", n)
		case !inWant:
			fmt.Fprintf(&b, "extra file %s:\n%s\n", n, g)
		case !bytes.Equal(w, g):
			b.WriteString(diffText(n, string(w), string(g)))
		}
	}
	return b.String()
}

func diffText(name, want, got string) string {
	d, err := difflib.GetUnifiedDiffString(difflib.UnifiedDiff{
		A:        difflib.SplitLines(want),
		B:        difflib.SplitLines(got),
		FromFile: name + " (want)",
		ToFile:   name + " (got)",
		Context:  3,
	})
	if err != nil {
		return err.Error()
	}
	return d
}

// TestGoldenCompile builds and vets every want/ package in the
// gen/testdata module: its requirements are downloaded first (go mod
// download), then the build and vet run offline.
func TestGoldenCompile(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: skipping go build/go vet of the golden outputs")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skipf("go command not found: %v", err)
	}
	mod, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	// go build must not rewrite the module files: keep them as they are
	// and fail if a command changed them.
	var saved [][]byte
	for _, f := range []string{"go.mod", "go.sum"} {
		b, err := os.ReadFile(filepath.Join(mod, f))
		if err != nil {
			t.Fatal(err)
		}
		saved = append(saved, b)
	}
	defer func() {
		for i, f := range []string{"go.mod", "go.sum"} {
			p := filepath.Join(mod, f)
			if b, _ := os.ReadFile(p); !bytes.Equal(b, saved[i]) {
				t.Errorf("testdata/%s changed while building; fix it by hand (diff):\n%s", f, diffText(f, string(saved[i]), string(b)))
				os.WriteFile(p, saved[i], 0o644)
			}
		}
	}()
	// A fresh machine's module cache lacks gen/testdata's requirements
	// (uuid, pqtype, ...): fetch them first, then build offline.
	dl := exec.Command(goTool, "mod", "download")
	dl.Dir = mod
	dl.Env = append(os.Environ(), "GOWORK=off")
	if out, err := dl.CombinedOutput(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("go mod download in gen/testdata: %v\n%s", err, out)
		}
		t.Skipf("SKIP: go mod download in gen/testdata failed (offline?): %v\n%s", err, out)
	}
	for _, args := range [][]string{{"build", "./..."}, {"vet", "./..."}} {
		cmd := exec.Command(goTool, args...)
		cmd.Dir = mod
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOPROXY=off", "GOWORK=off")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("go %s in gen/testdata: %v\n%s", strings.Join(args, " "), err, out)
		}
	}
}

// The tests below reproduce generator bugs found while writing the golden
// cases; their inputs are in gen/testdata/bugs. Each fails until the bug is
// fixed.

// generateIn runs generate from gen/testdata/bugs/<name>.
func generateIn(t *testing.T, name string) (map[string][]byte, error) {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("testdata", "bugs", name))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	return generate()
}

// Query names become the name of the unexported SQL constant by lowering
// their first letter (golang.sqlConstName). Names such as Select or Type
// give "const select"/"const type" (Go keywords: the file does not parse,
// and the error is a dump of the unformatted source located at the
// configuration file); Append gives "const append", which shadows the
// builtin the :many bodies call, so the package does not compile.
func TestBugQueryNamesThatAreGoKeywords(t *testing.T) {
	files, err := generateIn(t, "keyword_query_names")
	if err != nil {
		first, _, _ := strings.Cut(err.Error(), "\n")
		t.Fatalf("BUG: queries named Select, Type and Append: Generate failed: %s ...", first)
	}
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, files[name], 0)
		if err != nil {
			t.Errorf("BUG: %s does not parse: %v", name, err)
			continue
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, s := range gd.Specs {
				if vs, ok := s.(*ast.ValueSpec); ok {
					for _, id := range vs.Names {
						if predeclared[id.Name] {
							t.Errorf("BUG: %s declares %s, shadowing Go's predeclared identifier", name, id.Name)
						}
					}
				}
			}
		}
	}
}

// predeclared are Go's predeclared identifiers that generated code uses or
// that a query name could plausibly lower to.
var predeclared = map[string]bool{
	"append": true, "cap": true, "clear": true, "close": true, "copy": true, "delete": true,
	"len": true, "make": true, "max": true, "min": true, "new": true, "panic": true,
	"print": true, "println": true, "recover": true, "error": true, "string": true,
	"int64": true, "nil": true, "true": true, "false": true, "any": true,
}

// Two query files with the same base name in different directories both
// map to <base>.go. Once the second silently replaced the first; now, as in
// sqlc, they share the file. A query must never disappear with no error.
func TestBugQueryFilesWithSameBaseName(t *testing.T) {
	files, err := generateIn(t, "same_base_name")
	if err != nil {
		t.Logf("Generate refused the configuration (acceptable): %v", err)
		return
	}
	var all strings.Builder
	for _, b := range files {
		all.Write(b)
	}
	for _, m := range []string{"GetName", "GetID"} {
		if !strings.Contains(all.String(), ") "+m+"(") {
			t.Errorf("BUG: queries a/queries.sql and b/queries.sql: method %s is missing from the output (files: %v)", m, slices.Sorted(maps.Keys(files)))
		}
	}
}

// The header's source line names the query file as sqlc names it: its
// base name (queries/tasks.sql is announced as tasks.sql), so that
// switching from sqlc changes no line but the first (issue 23; this
// replaces STYLE item 9's path relative to the configuration).
func TestSourceHeaderIsSqlcBaseName(t *testing.T) {
	dir, err := filepath.Abs(filepath.Join(casesDir, "mixed"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	files, err := generate()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"want/tasks.sql.go":   "// Code generated by fencegen. DO NOT EDIT.\n// source: tasks.sql\n\npackage ",
		"want/workers.sql.go": "// Code generated by fencegen. DO NOT EDIT.\n// source: workers.sql\n\npackage ",
	} {
		if !bytes.Contains(files[name], []byte(want)) {
			first, _, _ := bytes.Cut(bytes.SplitN(files[name], []byte("\n"), 3)[1], []byte("\n"))
			t.Errorf("%s: header's second line %q, want the header %q", name, first, want)
		}
	}
}
