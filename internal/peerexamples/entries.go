package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/goccy/go-yaml"
)

// entry is one entry (v2 sql:, v1 packages:) of an example's
// configuration, and what was measured of it.
type entry struct {
	Example    string // folder under examples/
	Config     string // configuration file name in that folder
	Index      int    // 1-based place in the file
	Engine     string
	Out        string // output folder, relative to the example
	Package    string
	SQLPackage string // "database/sql" when unset, as sqlc reads it

	gen    *genResult // fencegen generate of the configuration
	sqlc   *pkgResult // sqlc's checked-in output
	fg     *pkgResult // fencegen's output (nil when generate failed)
	diffs  []fileDiff
	fenced bool // fencegen's output imports its fencing runtime
}

// label names the entry in the report: the example, with its engine when
// that is not postgresql.
func (e *entry) label() string {
	if e.Engine == "postgresql" {
		return e.Example
	}
	return e.Example + " (" + e.Engine + ")"
}

type configFile struct {
	SQL []struct {
		Engine string `yaml:"engine"`
		Gen    struct {
			Go struct {
				Package    string `yaml:"package"`
				Out        string `yaml:"out"`
				SQLPackage string `yaml:"sql_package"`
			} `yaml:"go"`
		} `yaml:"gen"`
	} `yaml:"sql"`
	Packages []struct {
		Name       string `yaml:"name"`
		Path       string `yaml:"path"`
		Engine     string `yaml:"engine"`
		SQLPackage string `yaml:"sql_package"`
	} `yaml:"packages"`
}

// discover reads every examples/<name>/sqlc.{yaml,yml,json} under src and
// returns its entries whose output folder exists there (the corpus leaves
// out the sqlite folders), ordered by example, then engine postgresql
// first, then place in the file.
func discover(src string) ([]*entry, error) {
	dirs, err := os.ReadDir(filepath.Join(src, "examples"))
	if err != nil {
		return nil, err
	}
	var entries []*entry
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		for _, name := range []string{"sqlc.yaml", "sqlc.yml", "sqlc.json"} {
			p := filepath.Join(src, "examples", d.Name(), name)
			b, err := os.ReadFile(p)
			if os.IsNotExist(err) {
				continue
			}
			if err != nil {
				return nil, err
			}
			es, err := parseConfig(b)
			if err != nil {
				return nil, fmt.Errorf("%s: %v", p, err)
			}
			for _, e := range es {
				e.Example, e.Config = d.Name(), name
				if fi, err := os.Stat(filepath.Join(src, "examples", d.Name(), e.Out)); err == nil && fi.IsDir() {
					entries = append(entries, e)
				}
			}
			break
		}
	}
	sort.SliceStable(entries, func(i, j int) bool {
		a, b := entries[i], entries[j]
		if a.Example != b.Example {
			return a.Example < b.Example
		}
		if (a.Engine == "postgresql") != (b.Engine == "postgresql") {
			return a.Engine == "postgresql"
		}
		return a.Index < b.Index
	})
	return entries, nil
}

// parseConfig reads the entries of a sqlc configuration, version 1 or 2
// (JSON is read as YAML).
func parseConfig(b []byte) ([]*entry, error) {
	var c configFile
	if err := yaml.Unmarshal(b, &c); err != nil {
		return nil, err
	}
	var es []*entry
	for i, s := range c.SQL {
		es = append(es, &entry{Index: i + 1, Engine: s.Engine, Out: s.Gen.Go.Out, Package: s.Gen.Go.Package, SQLPackage: s.Gen.Go.SQLPackage})
	}
	for i, p := range c.Packages {
		es = append(es, &entry{Index: i + 1, Engine: p.Engine, Out: p.Path, Package: p.Name, SQLPackage: p.SQLPackage})
	}
	for _, e := range es {
		if e.SQLPackage == "" {
			e.SQLPackage = "database/sql"
		}
		if e.Engine == "" {
			e.Engine = "postgresql"
		}
	}
	return es, nil
}

// genResult is one run of fencegen generate on a configuration.
type genResult struct {
	output string // stdout and stderr
	err    string // "" on success
}

func (g *genResult) status() string {
	if g.err != "" {
		return "failed: " + g.err
	}
	return "ok"
}

// notes are fencegen's lines on stderr and stdout other than its summary.
func (g *genResult) notes() []string {
	var out []string
	for _, l := range strings.Split(strings.TrimSpace(g.output), "\n") {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// regenerate removes the files sqlc generated in the output folders of
// e's configuration's PostgreSQL entries in the copy root, then runs
// fencegen generate on the configuration in the example's folder.
func regenerate(ctx context.Context, fencegen, root string, e *entry, all []*entry) *genResult {
	exDir := filepath.Join(root, "examples", e.Example)
	for _, o := range all {
		if o.Example != e.Example || o.Config != e.Config || !generatedEngine(o.Engine) {
			continue
		}
		files, err := generatedFiles(filepath.Join(exDir, o.Out), "sqlc")
		if err != nil {
			return &genResult{err: err.Error()}
		}
		for _, f := range files {
			if err := os.Remove(filepath.Join(exDir, o.Out, f)); err != nil {
				return &genResult{err: err.Error()}
			}
		}
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, fencegen, "generate", "-f", e.Config)
	cmd.Dir = exDir
	out, err := cmd.CombinedOutput()
	g := &genResult{output: string(out)}
	if err != nil {
		g.err = err.Error()
	}
	return g
}

// generatedFiles lists the .go files directly in dir whose first line
// says "Code generated by <tool>".
func generatedFiles(dir, tool string) ([]string, error) {
	des, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var names []string
	for _, d := range des {
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".go") {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, d.Name()))
		if err != nil {
			return nil, err
		}
		first, _, _ := bytes.Cut(b, []byte("\n"))
		if strings.HasPrefix(string(first), "// Code generated by "+tool+". ") {
			names = append(names, d.Name())
		}
	}
	return names, nil
}

// fencedOutput reports whether fencegen's files in dir import its fencing
// runtime, i.e. the package has a fenced table.
func fencedOutput(dir string) bool {
	files, _ := generatedFiles(dir, "fencegen")
	for _, f := range files {
		b, _ := os.ReadFile(filepath.Join(dir, f))
		if bytes.Contains(b, []byte(`"github.com/fencegen/fencegen/runtime/`)) {
			return true
		}
	}
	return false
}

// pkgResult is go build, go vet and go test of one example package.
type pkgResult struct {
	build, vet string            // "OK" or the command's output
	tests      map[string]string // test (and subtest) name → pass, fail, skip
	testOut    map[string]string // test name → its output, for a failure
	testErr    string            // go test's output when it ran no test
}

func (r *pkgResult) ok(s string) bool { return s == "OK" }

func (r *pkgResult) count(action string) int {
	n := 0
	for _, a := range r.tests {
		if a == action {
			n++
		}
	}
	return n
}

func (r *pkgResult) summary() string {
	if r == nil {
		return "not run"
	}
	parts := []string{"build OK", "vet OK"}
	if !r.ok(r.build) {
		parts[0], parts[1] = "build failed", "vet n.a."
	} else if !r.ok(r.vet) {
		parts[1] = "vet failed"
	}
	switch {
	case len(r.tests) > 0:
		s := fmt.Sprintf("%d passed", r.count("pass"))
		if n := r.count("fail"); n > 0 {
			s += fmt.Sprintf(", %d failed", n)
		}
		if n := r.count("skip"); n > 0 {
			s += fmt.Sprintf(", %d skipped", n)
		}
		parts = append(parts, s)
	case r.testErr != "":
		parts = append(parts, "go test failed")
	default:
		parts = append(parts, "no tests")
	}
	return strings.Join(parts, ", ")
}

// checkPackage builds, vets and tests pkg in the module at dir with the
// build tag examples, offline.
func checkPackage(ctx context.Context, dir, pkg string, env []string) *pkgResult {
	r := &pkgResult{tests: map[string]string{}, testOut: map[string]string{}}
	env = append(append([]string{}, offline...), env...)
	r.build = "OK"
	if out, err := goCmd(ctx, dir, env, "build", "-tags=examples", pkg); err != nil {
		r.build = strings.TrimSpace(out + "\n" + err.Error())
	}
	r.vet = "OK"
	if out, err := goCmd(ctx, dir, env, "vet", "-tags=examples", pkg); err != nil {
		r.vet = strings.TrimSpace(out + "\n" + err.Error())
	}
	out, err := goCmd(ctx, dir, env, "test", "-tags=examples", "-count=1", "-json", pkg)
	parseTestJSON(out, r)
	if err != nil && len(r.tests) == 0 {
		r.testErr = strings.TrimSpace(out + "\n" + err.Error())
	}
	return r
}

// testEvent is a line of go test -json (test2json).
type testEvent struct {
	Action string
	Test   string
	Output string
}

// parseTestJSON records every test's final action from go test -json's
// output; lines that are not JSON (build errors) are ignored.
func parseTestJSON(out string, r *pkgResult) {
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for sc.Scan() {
		var ev testEvent
		if json.Unmarshal(sc.Bytes(), &ev) != nil || ev.Test == "" {
			continue
		}
		switch ev.Action {
		case "output":
			r.testOut[ev.Test] += ev.Output
		case "pass", "fail", "skip":
			r.tests[ev.Test] = ev.Action
		}
	}
}
