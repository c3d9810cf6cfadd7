// Command corpus measures fencegen against a corpus of sqlc cases: for every
// folder holding an sqlc (or fencegen) configuration it runs fencegen's
// generator in-process on a copy, compiles and vets all generated packages
// in one temporary module, and compares the exported Go API with what sqlc
// generates for the same input.
//
//	go run ./internal/corpus [-sqlc PATH] [-v] [-json FILE] [-run REGEX] [-j N] [-keep] [-strict] DIR...
//
// The Markdown report goes to stdout, progress to stderr.
package main

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fencegen/fencegen/gen"
)

// Result values.
const (
	resGenerated = "generated"
	resErrOK     = "expected error OK"
	resErrLoc    = "expected error, location differs"
	resFailed    = "failed"
)

// Case is one configuration folder and everything measured about it.
type Case struct {
	Name      string `json:"name"`
	Src       string `json:"src"`
	Config    string `json:"config"`      // configuration fencegen uses
	SqlcCfg   string `json:"sqlc_config"` // sqlc.json/yaml/yml, "" for fencegen.yaml only
	Negative  bool   `json:"negative,omitempty"`
	ManagedDB bool   `json:"managed_db,omitempty"`
	Hint      string `json:"hint,omitempty"` // the CASES.md line
	// Schema is set for a schema-only case (a project without a sqlc
	// configuration): the schema file, relative to Src; the case runs with
	// a configuration the tool writes.
	Schema string `json:"schema,omitempty"`
	// Project is the base name of the directory the case was found under.
	Project string `json:"project,omitempty"`

	slug     string
	work     string // fencegen copy
	sqlcWork string // sqlc copy

	Result     string            `json:"result"`
	Errors     []string          `json:"errors,omitempty"`     // fencegen's error lines
	ErrLocs    []string          `json:"error_locs,omitempty"` // fencegen's file:line
	Files      []string          `json:"files,omitempty"`
	files      map[string][]byte // generated files
	Duration   float64           `json:"fencegen_seconds"`
	Compile    string            `json:"compile"` // OK, fail, skipped: …, n.a.
	CompileErr []string          `json:"compile_errors,omitempty"`
	Vet        string            `json:"vet"`
	VetErr     []string          `json:"vet_errors,omitempty"`

	SqlcStatus string   `json:"sqlc_status,omitempty"` // ok, failed, timeout, not run
	SqlcErr    []string `json:"sqlc_errors,omitempty"`
	SqlcLocs   []string `json:"sqlc_error_locs,omitempty"`
	Matched    int      `json:"sqlc_locs_matched,omitempty"` // sqlc error lines fencegen also reports
	sqlcFiles  map[string][]byte
	API        string `json:"api"` // identical, N differences, sqlc failed, n.a.
	Diffs      []Diff `json:"api_diffs,omitempty"`
	Fenced     bool   `json:"fenced,omitempty"` // fencegen's API mentions fence.Token
	Notes      string `json:"notes"`
}

type options struct {
	sqlc    string
	verbose bool
	jsonOut string
	run     *regexp.Regexp
	jobs    int
	keep    bool
	strict  bool
}

func main() {
	os.Exit(realMain(os.Args[1:], os.Stdout, os.Stderr))
}

func realMain(args []string, stdout, stderr io.Writer) int {
	fl := flag.NewFlagSet("corpus", flag.ContinueOnError)
	fl.SetOutput(stderr)
	var o options
	defSqlc, _ := exec.LookPath("sqlc")
	fl.StringVar(&o.sqlc, "sqlc", defSqlc, "sqlc binary to compare against (empty: skip the API comparison)")
	fl.BoolVar(&o.verbose, "v", false, "print full API differences and errors per case")
	fl.StringVar(&o.jsonOut, "json", "", "write machine-readable results to `FILE`")
	runRe := fl.String("run", "", "only cases whose name matches `REGEX`")
	fl.IntVar(&o.jobs, "j", 2, "parallel sqlc runs")
	fl.BoolVar(&o.keep, "keep", false, "keep temporary directories and print their paths")
	fl.BoolVar(&o.strict, "strict", false, "exit 1 when any case fails to generate or compile")
	fl.Usage = func() {
		fmt.Fprintln(stderr, "usage: go run ./internal/corpus [flags] DIR...")
		fl.PrintDefaults()
	}
	if err := fl.Parse(args); err != nil {
		return 2
	}
	if fl.NArg() == 0 {
		fl.Usage()
		return 2
	}
	if *runRe != "" {
		re, err := regexp.Compile(*runRe)
		if err != nil {
			fmt.Fprintln(stderr, "corpus: -run:", err)
			return 2
		}
		o.run = re
	}
	if o.jobs < 1 {
		o.jobs = 1
	}
	var sqlcNote string
	if o.sqlc != "" {
		p, err := exec.LookPath(o.sqlc)
		if err != nil {
			sqlcNote = fmt.Sprintf("sqlc %q not found: API comparison skipped", o.sqlc)
			o.sqlc = ""
		} else if p, err = filepath.Abs(p); err == nil {
			o.sqlc = p
		}
	} else {
		sqlcNote = "no sqlc binary (-sqlc): API comparison skipped"
	}

	root, rootMod, err := projectRoot()
	if err != nil {
		fmt.Fprintln(stderr, "corpus:", err)
		return 1
	}
	var cases []*Case
	for _, dir := range fl.Args() {
		cs, err := discover(dir, len(fl.Args()) > 1)
		if err != nil {
			fmt.Fprintln(stderr, "corpus:", err)
			return 1
		}
		cases = append(cases, cs...)
	}
	if o.run != nil {
		var keep []*Case
		for _, c := range cases {
			if o.run.MatchString(c.Name) {
				keep = append(keep, c)
			}
		}
		cases = keep
	}
	if len(cases) == 0 {
		fmt.Fprintln(stderr, "corpus: no cases found")
		return 1
	}
	tmp, err := os.MkdirTemp("", "fencegen-corpus-")
	if err != nil {
		fmt.Fprintln(stderr, "corpus:", err)
		return 1
	}
	if o.keep {
		fmt.Fprintln(stderr, "corpus: temporary directory:", tmp)
	} else {
		defer os.RemoveAll(tmp)
	}
	for i, c := range cases {
		c.slug = fmt.Sprintf("c%03d_%s", i, slugify(c.Name))
		c.work = filepath.Join(tmp, "cases", c.slug, "fencegen")
		c.sqlcWork = filepath.Join(tmp, "cases", c.slug, "sqlc")
		if err := copyTree(c.Src, c.work); err != nil {
			fmt.Fprintln(stderr, "corpus: copy:", err)
			return 1
		}
		if c.Schema != "" {
			cfg := fmt.Sprintf("version: \"2\"\nsql:\n  - engine: postgresql\n    schema: %q\n    queries: corpus_queries.sql\n    gen:\n      go: {package: models, out: out, sql_package: pgx/v5}\n", c.Schema)
			err := os.WriteFile(filepath.Join(c.work, "corpus_queries.sql"), []byte("-- schema only: no queries\n"), 0o644)
			if err == nil {
				err = os.WriteFile(filepath.Join(c.work, schemaOnlyConfig), []byte(cfg), 0o644)
			}
			if err != nil {
				fmt.Fprintln(stderr, "corpus:", err)
				return 1
			}
		}
		if o.sqlc != "" && c.SqlcCfg != "" {
			if err := copyTree(c.Src, c.sqlcWork); err != nil {
				fmt.Fprintln(stderr, "corpus: copy:", err)
				return 1
			}
		}
	}
	start := time.Now()

	// sqlc runs in the background while fencegen runs in-process.
	var wg sync.WaitGroup
	if o.sqlc != "" {
		work := make(chan *Case)
		for i := 0; i < o.jobs; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for c := range work {
					runSqlc(o.sqlc, c)
				}
			}()
		}
		go func() {
			for _, c := range cases {
				if c.SqlcCfg == "" {
					c.SqlcStatus = "not run"
					c.SqlcErr = []string{"no sqlc configuration (fencegen.yaml only)"}
					continue
				}
				work <- c
			}
			close(work)
		}()
	}
	wd, _ := os.Getwd()
	for i, c := range cases {
		runFencegen(c)
		fmt.Fprintf(stderr, "[%d/%d] fencegen %s: %s\n", i+1, len(cases), c.Name, firstOr(c.Errors, "ok"))
	}
	os.Chdir(wd)
	fmt.Fprintf(stderr, "corpus: fencegen done in %s; building…\n", time.Since(start).Round(time.Millisecond))

	modDir := filepath.Join(tmp, "mod")
	if err := compileCheck(root, rootMod, modDir, cases, stderr); err != nil {
		fmt.Fprintln(stderr, "corpus: compile check:", err)
	}
	if o.keep {
		fmt.Fprintln(stderr, "corpus: build module:", modDir)
	}
	if o.sqlc != "" {
		fmt.Fprintln(stderr, "corpus: waiting for sqlc…")
		wg.Wait()
	}
	for _, c := range cases {
		classify(c, o.sqlc != "")
		compareAPI(c, o.sqlc != "")
		c.Notes = notes(c)
	}
	fmt.Fprintf(stderr, "corpus: done in %s\n", time.Since(start).Round(time.Millisecond))

	report(stdout, cases, o, sqlcNote)
	if o.jsonOut != "" {
		b, _ := json.MarshalIndent(struct {
			Sqlc  string  `json:"sqlc"`
			Note  string  `json:"note,omitempty"`
			Cases []*Case `json:"cases"`
		}{o.sqlc, sqlcNote, cases}, "", "  ")
		if err := os.WriteFile(o.jsonOut, b, 0o644); err != nil {
			fmt.Fprintln(stderr, "corpus:", err)
			return 1
		}
	}
	if o.strict {
		for _, c := range cases {
			if c.Result == resFailed || c.Compile == "fail" {
				return 1
			}
		}
	}
	return 0
}

var rootModuleRe = regexp.MustCompile(`(?m)^module\s+github\.com/fencegen/fencegen\s*$`)

// projectRoot is the directory of the go.mod of module
// github.com/fencegen/fencegen, found upwards from the working directory,
// and that go.mod's contents.
func projectRoot() (string, []byte, error) {
	d, err := os.Getwd()
	if err != nil {
		return "", nil, err
	}
	for {
		b, err := os.ReadFile(filepath.Join(d, "go.mod"))
		if err == nil && rootModuleRe.Match(b) {
			return d, b, nil
		}
		p := filepath.Dir(d)
		if p == d {
			return "", nil, errors.New("run inside the fencegen module (no go.mod of github.com/fencegen/fencegen above the working directory)")
		}
		d = p
	}
}

var configNames = []string{"fencegen.yaml", "fencegen.yml", "sqlc.yaml", "sqlc.yml", "sqlc.json"}

// discover finds every case folder under dir, with CASES.md hints when
// dir (or a folder above a case, up to dir) holds one.
func discover(dir string, prefix bool) ([]*Case, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	hints := map[string]string{}
	if b, err := os.ReadFile(filepath.Join(abs, "CASES.md")); err == nil {
		re := regexp.MustCompile("(?m)^- `([^`]+)`(.*)$")
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			hints[m[1]] = m[2]
		}
	}
	var cases []*Case
	err = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if p != abs && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
			return filepath.SkipDir
		}
		var cfg, sqlcCfg string
		for _, n := range configNames {
			if _, err := os.Stat(filepath.Join(p, n)); err == nil {
				if cfg == "" {
					cfg = n
				}
				if sqlcCfg == "" && strings.HasPrefix(n, "sqlc.") {
					sqlcCfg = n
				}
			}
		}
		if cfg == "" {
			return nil
		}
		rel, _ := filepath.Rel(abs, p)
		rel = filepath.ToSlash(rel)
		name := rel
		if prefix {
			name = filepath.Base(abs) + "/" + rel
		}
		c := &Case{Name: name, Src: p, Config: cfg, SqlcCfg: sqlcCfg, Project: filepath.Base(abs)}
		if h, ok := hints[rel]; ok {
			c.Hint = strings.TrimSpace(strings.TrimLeft(h, " —-"))
			c.Negative = strings.Contains(h, "NEGATIVE")
			c.ManagedDB = strings.Contains(h, "managed-db only")
		}
		cases = append(cases, c)
		return nil
	})
	if err == nil && len(cases) == 0 {
		cases, err = discoverSchemas(abs, prefix)
	}
	return cases, err
}

// schemaOnlyConfig is written into the copy of a schema-only case.
const schemaOnlyConfig = "fencegen.corpus.yaml"

// discoverSchemas makes one schema-only case of every *schema*.sql file
// under abs, for projects that have a schema but no sqlc configuration
// (a pg_dump, a schema file per version): fencegen must build the catalog
// and emit models that compile, or report a located error.
func discoverSchemas(abs string, prefix bool) ([]*Case, error) {
	var cases []*Case
	err := filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".sql") || !strings.Contains(strings.ToLower(d.Name()), "schema") {
			return nil
		}
		rel, _ := filepath.Rel(abs, p)
		name := filepath.ToSlash(rel)
		if prefix {
			name = filepath.Base(abs) + "/" + name
		}
		cases = append(cases, &Case{Name: name + " (schema only)", Src: filepath.Dir(p), Config: schemaOnlyConfig, Schema: d.Name(), Project: filepath.Base(abs)})
		return nil
	})
	return cases, err
}

var slugRe = regexp.MustCompile(`[^A-Za-z0-9]+`)

func slugify(s string) string {
	s = strings.ReplaceAll(s, "/", "__")
	s = slugRe.ReplaceAllStringFunc(s, func(m string) string {
		if strings.Trim(m, "_") == "" {
			return m
		}
		return "_"
	})
	if len(s) > 80 {
		s = s[:80]
	}
	return s
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		t := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(t, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(t, b, 0o644)
	})
}

var locRe = regexp.MustCompile(`^([^\s:][^:]*):(\d+)(?::(\d+))?: `)

// loc returns "file:line" of an error line, or "".
func loc(line string) string {
	m := locRe.FindStringSubmatch(line)
	if m == nil {
		return ""
	}
	return filepath.ToSlash(filepath.Clean(m[1])) + ":" + m[2]
}

// runFencegen runs the generator in c's copy. It changes the working
// directory so that messages are relative to the copy.
func runFencegen(c *Case) {
	start := time.Now()
	defer func() { c.Duration = time.Since(start).Seconds() }()
	type res struct {
		out *gen.Output
		err error
	}
	done := make(chan res, 1)
	go func() {
		defer func() {
			if r := recover(); r != nil {
				done <- res{err: fmt.Errorf("panic: %v\n%s", r, firstLines(string(debug.Stack()), 12))}
			}
		}()
		if err := os.Chdir(c.work); err != nil {
			done <- res{err: err}
			return
		}
		cfg, err := gen.LoadConfig(c.Config)
		if err != nil {
			done <- res{err: err}
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		out, err := gen.Generate(ctx, cfg)
		done <- res{out, err}
	}()
	var r res
	select {
	case r = <-done:
	case <-time.After(90 * time.Second):
		r.err = errors.New("timeout: fencegen did not finish in 90s")
	}
	if r.err != nil {
		if ps := gen.Problems(r.err); len(ps) > 0 {
			for _, p := range ps {
				c.Errors = append(c.Errors, p.Error())
				if p.Line > 0 {
					c.ErrLocs = append(c.ErrLocs, filepath.ToSlash(filepath.Clean(p.File))+":"+strconv.Itoa(p.Line))
				}
			}
		} else {
			c.Errors = strings.Split(strings.TrimSpace(r.err.Error()), "\n")
			for _, l := range c.Errors {
				if x := loc(l); x != "" {
					c.ErrLocs = append(c.ErrLocs, x)
				}
			}
		}
		if len(c.Errors) == 0 {
			c.Errors = []string{"error without message"}
		}
		return
	}
	c.files = r.out.Files
	c.Files = sortedKeys(r.out.Files)
}

func firstLines(s string, n int) string {
	ls := strings.Split(s, "\n")
	if len(ls) > n {
		ls = ls[:n]
	}
	return strings.Join(ls, "\n")
}

func firstOr(ls []string, def string) string {
	if len(ls) == 0 {
		return def
	}
	return ls[0]
}

// runSqlc runs sqlc generate in c's second copy and collects the Go files
// it wrote.
func runSqlc(bin string, c *Case) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	before := map[string]bool{}
	filepath.WalkDir(c.sqlcWork, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			before[p] = true
		}
		return nil
	})
	cmd := exec.CommandContext(ctx, bin, "--no-remote", "generate", "-f", c.SqlcCfg)
	cmd.Dir = c.sqlcWork
	cmd.Env = append(os.Environ(), "SQLC_AUTH_TOKEN=")
	out, err := cmd.CombinedOutput()
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if l != "" && !strings.HasPrefix(l, "# package ") {
			lines = append(lines, l)
		}
	}
	if ctx.Err() != nil {
		c.SqlcStatus = "timeout"
		c.SqlcErr = append([]string{"timeout after 30s"}, lines...)
		return
	}
	if err != nil {
		c.SqlcStatus = "failed"
		if len(lines) == 0 {
			lines = []string{err.Error()}
		}
		c.SqlcErr = lines
		for _, l := range lines {
			if x := loc(l); x != "" {
				c.SqlcLocs = append(c.SqlcLocs, x)
			}
		}
		return
	}
	c.SqlcStatus = "ok"
	c.sqlcFiles = map[string][]byte{}
	filepath.WalkDir(c.sqlcWork, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || before[p] || !strings.HasSuffix(p, ".go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err == nil {
			rel, _ := filepath.Rel(c.sqlcWork, p)
			c.sqlcFiles[filepath.ToSlash(rel)] = b
		}
		return nil
	})
}

// needsDB reports whether an sqlc error line says it needed a database.
func needsDB(l string) bool {
	return strings.Contains(l, "no PostgreSQL database server found") ||
		strings.Contains(l, "connect: connection refused") ||
		strings.Contains(l, "database.uri") || strings.Contains(l, "SQLC_AUTH_TOKEN")
}

// classify sets c.Result from fencegen's and sqlc's outcomes.
func classify(c *Case, haveSqlc bool) {
	var sqlcLocs []string // sqlc's located errors that are not "no database"
	if haveSqlc && c.SqlcStatus == "failed" {
		for _, l := range c.SqlcErr {
			if x := loc(l); x != "" && !needsDB(l) {
				sqlcLocs = append(sqlcLocs, x)
			}
		}
	}
	if c.files != nil {
		c.Result = resGenerated
		if c.Negative && (!haveSqlc || c.SqlcStatus != "ok") {
			c.Result = resFailed
		}
		return
	}
	have := map[string]bool{}
	for _, l := range c.ErrLocs {
		have[l] = true
	}
	for _, l := range sqlcLocs {
		if have[l] {
			c.Matched++
		}
	}
	all := len(sqlcLocs) > 0 && c.Matched == len(sqlcLocs)
	switch {
	case c.Negative && len(sqlcLocs) == 0:
		// sqlc's expected error is not reproducible here (it needs a
		// database, or sqlc v1.31.1 without one generates).
		c.Result = resErrOK + " (unverified)"
	case c.Negative && all:
		c.Result = resErrOK
	case c.Negative:
		c.Result = resErrLoc
	case all && !c.ManagedDB:
		c.Result = resErrOK + " (sqlc fails too)"
	default:
		c.Result = resFailed
	}
}

func compareAPI(c *Case, haveSqlc bool) {
	switch {
	case !haveSqlc, c.SqlcStatus == "not run":
		c.API = "n.a."
		return
	case c.SqlcStatus != "ok":
		c.API = "sqlc failed"
		return
	case c.files == nil:
		c.API = "n.a."
		return
	}
	fa := ExtractAPI(c.files)
	sa := ExtractAPI(c.sqlcFiles)
	for _, p := range fa {
		for _, t := range p.Types {
			for _, f := range t.Fields {
				c.Fenced = c.Fenced || strings.Contains(f.Type, "fence.Token")
			}
		}
		for _, s := range p.Funcs {
			c.Fenced = c.Fenced || strings.Contains(s, "fence.Token")
		}
	}
	c.Diffs = CompareAPI(sa, fa)
	if len(c.Diffs) == 0 {
		c.API = "identical"
	} else {
		c.API = fmt.Sprintf("%d differences", len(c.Diffs))
	}
	if c.ManagedDB {
		// sqlc ran without the database this case needs: its output is
		// not the reference output.
		c.API += " (sqlc w/o DB)"
	}
}

// explained.tsv says, for cases whose result differs from sqlc's, whether
// the difference is a deliberate improvement, a defect, or an unsupported
// input, and why: case name, kind, reason, tab-separated.
//
//go:embed explained.tsv
var explainedTSV string

type explanation struct{ kind, why string }

// explanations parses explained.tsv once.
var explanations = sync.OnceValue(func() map[string]explanation {
	out := map[string]explanation{}
	for _, l := range strings.Split(explainedTSV, "\n") {
		if strings.HasPrefix(l, "#") || strings.TrimSpace(l) == "" {
			continue
		}
		f := strings.SplitN(l, "\t", 3)
		if len(f) == 3 {
			out[f[0]] = explanation{f[1], f[2]}
		}
	}
	return out
})

// clean reports whether a case needs no explanation: generated (or failed
// as expected), compiled, and identical to sqlc or not comparable.
func clean(c *Case) bool {
	ok := c.Result == resGenerated || strings.HasPrefix(c.Result, resErrOK)
	return ok && c.Compile != "fail" && len(c.Diffs) == 0 && !(c.Negative && c.Result == resGenerated && c.API != "identical")
}

// explain returns the explanation for c: by its name, or by its project
// and name ("riverqueue__river/riverdriver/...") when the project was run
// on its own.
func explain(c *Case) (explanation, bool) {
	ex := explanations()
	if e, ok := ex[c.Name]; ok {
		return e, true
	}
	e, ok := ex[c.Project+"/"+c.Name]
	return e, ok
}

func notes(c *Case) string {
	n := rawNotes(c)
	if e, ok := explain(c); ok && !clean(c) {
		return "[" + e.kind + "] " + e.why + " — " + n
	}
	return n
}

func rawNotes(c *Case) string {
	var n string
	switch {
	case c.Result == resFailed && c.files != nil:
		n = "NEGATIVE case generated; sqlc: " + firstOr(c.SqlcErr, "not run")
	case c.Result == resFailed && c.SqlcStatus == "failed" && c.Matched > 0:
		n = "(sqlc without DB fails at the same line too) " + firstOr(c.Errors, "")
	case c.Result == resFailed:
		n = firstOr(c.Errors, "")
	case c.Result == resErrLoc:
		n = fmt.Sprintf("%d/%d sqlc lines matched; sqlc: %s; fencegen: %s", c.Matched, len(c.SqlcLocs), firstOr(c.SqlcErr, ""), firstOr(c.Errors, ""))
	case c.Result == resErrOK+" (unverified)":
		why := "sqlc without DB: " + firstOr(c.SqlcErr, "generates")
		if c.SqlcStatus == "ok" {
			why = "sqlc v1.31.1 without DB generates"
		}
		n = fmt.Sprintf("%s; fencegen: %s", why, firstOr(c.Errors, ""))
	case c.Compile == "fail":
		n = "compile: " + firstOr(c.CompileErr, "")
	case strings.HasPrefix(c.Compile, "skipped"):
		n = c.Compile
	case len(c.Diffs) > 0:
		n = c.Diffs[0].String()
	case c.API == "sqlc failed":
		n = "sqlc: " + firstOr(c.SqlcErr, "")
	case c.Vet == "fail":
		n = "vet: " + firstOr(c.VetErr, "")
	case c.Negative && c.Result == resGenerated:
		n = "NEGATIVE in CASES.md, but sqlc v1.31.1 generates too"
	}
	return n
}

func cell(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len([]rune(s)) > max {
		s = string([]rune(s)[:max-1]) + "…"
	}
	s = strings.ReplaceAll(s, "|", `\|`)
	return s
}

func report(w io.Writer, cases []*Case, o options, sqlcNote string) {
	fmt.Fprintln(w, "| case | result | compiles | API vs sqlc | notes |")
	fmt.Fprintln(w, "|---|---|---|---|---|")
	for _, c := range cases {
		comp := c.Compile
		if c.Vet == "fail" && comp == "OK" {
			comp = "OK (vet fails)"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", cell(c.Name, 200), c.Result, cell(comp, 60), c.API, cell(c.Notes, 160))
	}
	count := func(f func(*Case) string) string {
		m := map[string]int{}
		for _, c := range cases {
			m[f(c)]++
		}
		ks := sortedKeys(m)
		sort.SliceStable(ks, func(i, j int) bool { return m[ks[i]] > m[ks[j]] })
		var parts []string
		for _, k := range ks {
			parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
		}
		return strings.Join(parts, ", ")
	}
	fmt.Fprintf(w, "\n## Summary\n\n")
	fmt.Fprintf(w, "- cases: %d\n", len(cases))
	fmt.Fprintf(w, "- result: %s\n", count(func(c *Case) string { return c.Result }))
	fmt.Fprintf(w, "- compiles: %s\n", count(func(c *Case) string {
		if strings.HasPrefix(c.Compile, "skipped") {
			return "skipped"
		}
		return c.Compile
	}))
	fmt.Fprintf(w, "- vet: %s\n", count(func(c *Case) string { return c.Vet }))
	fmt.Fprintf(w, "- API vs sqlc: %s\n", count(func(c *Case) string {
		a := strings.TrimSuffix(c.API, " (sqlc w/o DB)")
		if strings.HasSuffix(a, " differences") {
			a = "differs"
		}
		if c.ManagedDB && (a == "differs" || a == "identical") {
			a += " (managed-db case, sqlc w/o DB)"
		}
		return a
	}))
	ident, comparable, identDB, comparableDB := 0, 0, 0, 0
	for _, c := range cases {
		a := strings.TrimSuffix(c.API, " (sqlc w/o DB)")
		if a != "identical" && !strings.HasSuffix(a, " differences") {
			continue
		}
		if c.ManagedDB {
			comparableDB++
			if a == "identical" {
				identDB++
			}
			continue
		}
		comparable++
		if a == "identical" {
			ident++
		}
	}
	fmt.Fprintf(w, "- identical API: %d of %d compared (%d cases total; not counting %d managed-db cases compared with sqlc run without a database, %d of them identical)\n",
		ident, comparable, len(cases), comparableDB, identDB)
	fmt.Fprintf(w, "- not clean (failed, not compiling, or API differs): %s\n", count(func(c *Case) string {
		if clean(c) {
			return "clean"
		}
		if e, ok := explain(c); ok {
			return "explained as " + e.kind
		}
		return "unexplained"
	}))
	fenced := 0
	for _, c := range cases {
		if c.Fenced {
			fenced++
		}
	}
	if fenced > 0 {
		fmt.Fprintf(w, "- fencegen API mentions fence.Token in %d cases (differences there may be fencing, by design)\n", fenced)
	}
	if sqlcNote != "" {
		fmt.Fprintf(w, "- note: %s\n", sqlcNote)
	}
	// Difference kinds, for a quick overview.
	kinds := map[string]int{}
	for _, c := range cases {
		for _, d := range c.Diffs {
			kinds[diffKind(d)]++
		}
	}
	if len(kinds) > 0 {
		fmt.Fprintf(w, "\n### API difference kinds (count of differences)\n\n")
		ks := sortedKeys(kinds)
		sort.SliceStable(ks, func(i, j int) bool { return kinds[ks[i]] > kinds[ks[j]] })
		for _, k := range ks {
			fmt.Fprintf(w, "- %s: %d\n", k, kinds[k])
		}
	}
	if o.verbose {
		fmt.Fprintf(w, "\n## Details\n")
		for _, c := range cases {
			if len(c.Diffs) == 0 && len(c.Errors) == 0 && len(c.CompileErr) == 0 && len(c.VetErr) == 0 && c.SqlcStatus == "ok" {
				continue
			}
			fmt.Fprintf(w, "\n### %s\n\n```\n", c.Name)
			if c.Hint != "" {
				fmt.Fprintf(w, "hint: %s\n", c.Hint)
			}
			for _, e := range c.Errors {
				fmt.Fprintf(w, "fencegen: %s\n", e)
			}
			if c.SqlcStatus != "" && c.SqlcStatus != "ok" {
				for _, e := range c.SqlcErr {
					fmt.Fprintf(w, "sqlc %s: %s\n", c.SqlcStatus, e)
				}
			}
			for _, e := range c.CompileErr {
				fmt.Fprintf(w, "compile: %s\n", e)
			}
			for _, e := range c.VetErr {
				fmt.Fprintf(w, "vet: %s\n", e)
			}
			for _, d := range c.Diffs {
				fmt.Fprintf(w, "%s\n", d)
			}
			fmt.Fprintf(w, "```\n")
		}
	}
}

// diffKind is a coarse category of a difference for the summary.
func diffKind(d Diff) string {
	item := d.Item
	if i := strings.Index(item, ": "); i >= 0 && !strings.HasPrefix(item, "package") {
		item = item[i+2:]
	}
	what := strings.SplitN(item, " ", 2)[0]
	switch {
	case strings.HasPrefix(item, "func ("):
		what = "method"
	case strings.HasPrefix(item, "func "):
		what = "func"
	case strings.HasPrefix(item, "type "):
		what = "type"
	case d.Kind == "order":
		what = "struct"
	case !strings.Contains(item, " ") && strings.Contains(item, "."):
		what = "interface method"
	}
	return d.Kind + " " + what
}
