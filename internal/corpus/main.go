// Command corpus measures fencegen against a corpus of sqlc
// configurations: sqlc's own end-to-end cases, or real projects. Every
// DIR argument is copied once for fencegen and once for sqlc, and every
// configuration found under it runs at its own place in the copies, so
// relative paths that leave its folder (schema: ../../sql/schema) resolve
// as in the repository. fencegen's generator runs in-process, sqlc v1.31.1
// (the peer, -sqlc) as a command; the generated packages are compiled and
// vetted in one temporary module, and the exported Go API of both is
// compared.
//
// A configuration with entries for other engines (mysql, sqlite) runs,
// for both tools, as a copy reduced to its engine postgresql entries; one
// with several PostgreSQL entries runs as one reduced copy per entry, and
// each entry is a row "<dir>#N".
//
//	go run ./internal/corpus [-sqlc PATH] [-v] [-q] [-json FILE] [-run REGEX] [-j N] [-keep] [-strict] DIR...
//
// The Markdown report goes to stdout: one row per configuration (or
// entry) with its sql_package, sqlc's and fencegen's result, whether
// fencegen's code compiles, and how many lines of sqlc's exported-API
// listing (API.Lines) fencegen's has identically, and whether every file
// fencegen generated has sqlc's text after the header (CompareText: the
// number of differing lines otherwise); the summary totals them by
// sql_package ("file text identical: N of M cases, K differing lines"),
// and -v prints the unified diff of each case's differing files. Progress goes to stderr. The exit status is 0 whatever
// the differences (1 with -strict when a case fails to generate or
// compile), 1 when the tool itself cannot run, 2 on bad flags.
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
	"path"
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
	// File is the configuration file as found, relative to the DIR
	// argument (slash-separated).
	File string `json:"file"`
	// Dir is the configuration's directory relative to the DIR argument
	// (slash-separated, "." for DIR itself): the case runs there in a copy
	// of the whole DIR tree, so relative paths that leave the folder
	// resolve as in the repository.
	Dir string `json:"dir"`
	// Entry is set when the case is one of several PostgreSQL entries of
	// a configuration: "#N" (1-based index in the file) and its output.
	Entry string `json:"entry,omitempty"`
	// Dropped lists the engines of the entries the run configuration
	// leaves out (only engine postgresql entries are run).
	Dropped []string `json:"dropped,omitempty"`
	// SQLPackage is the entry's sql_package ("none" when unset, sqlc's
	// database/sql default), several joined by ", ".
	SQLPackage string `json:"sql_package"`
	// Skip says why the case was not run (no postgresql entry, a
	// configuration the corpus cannot read).
	Skip string `json:"skip,omitempty"`

	root     int      // index of the DIR argument
	outs     []string // output directories of the run entries, relative to Src
	slug     string
	work     string // the configuration's directory in the fencegen copy
	sqlcWork string // the configuration's directory in the sqlc copy

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
	// APITotal is the number of lines of sqlc's exported-API listing
	// (APILines) and APISame how many of them fencegen's has identically
	// (0 when fencegen did not generate); both 0 when sqlc did not
	// generate.
	APITotal int  `json:"api_lines_sqlc"`
	APISame  int  `json:"api_lines_identical"`
	Fenced   bool `json:"fenced,omitempty"` // fencegen's API mentions fence.Token
	// Text says whether every file fencegen generated has sqlc's text
	// after the header (compareText): identical, N lines differ, n.a.
	Text string `json:"text"`
	// TextLines is the number of differing lines (CompareText) and
	// TextFiles the files that differ.
	TextLines int      `json:"text_lines_differing"`
	TextFiles []string `json:"text_files_differing,omitempty"`
	textDiff  string
	Notes     string `json:"notes"`
}

type options struct {
	sqlc    string
	verbose bool
	jsonOut string
	run     *regexp.Regexp
	jobs    int
	keep    bool
	strict  bool
	quiet   bool
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
	runRe := fl.String("run", "", "only cases whose name (or project/name) matches `REGEX`")
	fl.IntVar(&o.jobs, "j", 2, "parallel sqlc runs")
	fl.BoolVar(&o.keep, "keep", false, "keep temporary directories and print their paths")
	fl.BoolVar(&o.strict, "strict", false, "exit 1 when any case fails to generate or compile")
	fl.BoolVar(&o.quiet, "q", false, "no per-case progress lines on stderr")
	fl.StringVar(&engine, "engine", "postgresql", "the engine whose entries run: postgresql or mysql (the others are dropped)")
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
	var roots []string // the DIR arguments, absolute
	for i, dir := range fl.Args() {
		cs, err := discover(dir, len(fl.Args()) > 1)
		if err != nil {
			fmt.Fprintln(stderr, "corpus:", err)
			return 1
		}
		abs, _ := filepath.Abs(dir)
		roots = append(roots, abs)
		for _, c := range cs {
			c.root = i
		}
		cases = append(cases, cs...)
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
	// One copy of every DIR tree for fencegen and one for sqlc; every
	// configuration runs at its own place in them.
	fgRoots, sqlcRoots := make([]string, len(roots)), make([]string, len(roots))
	for i, r := range roots {
		slug := fmt.Sprintf("d%02d_%s", i, slugify(filepath.Base(r)))
		fgRoots[i] = filepath.Join(tmp, "fencegen", slug)
		sqlcRoots[i] = filepath.Join(tmp, "sqlc", slug)
		if err := copyTree(r, fgRoots[i]); err != nil {
			fmt.Fprintln(stderr, "corpus: copy:", err)
			return 1
		}
		if o.sqlc != "" {
			if err := copyTree(r, sqlcRoots[i]); err != nil {
				fmt.Fprintln(stderr, "corpus: copy:", err)
				return 1
			}
		}
	}
	var expanded []*Case
	for _, c := range cases {
		c.work = filepath.Join(fgRoots[c.root], filepath.FromSlash(c.Dir))
		c.sqlcWork = filepath.Join(sqlcRoots[c.root], filepath.FromSlash(c.Dir))
		cs, err := prepare(c, o.sqlc != "")
		if err != nil {
			fmt.Fprintln(stderr, "corpus:", err)
			return 1
		}
		expanded = append(expanded, cs...)
	}
	cases = expanded
	if o.run != nil {
		var keep []*Case
		for _, c := range cases {
			if o.run.MatchString(c.Name) || o.run.MatchString(c.Project+"/"+c.Name) {
				keep = append(keep, c)
			}
		}
		cases = keep
	}
	if len(cases) == 0 {
		fmt.Fprintln(stderr, "corpus: no cases found")
		return 1
	}
	for i, c := range cases {
		c.slug = fmt.Sprintf("c%03d_%s", i, slugify(c.Name))
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
				if c.Skip != "" {
					c.SqlcStatus = "not run"
					continue
				}
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
		if c.Skip != "" {
			continue
		}
		runFencegen(c)
		if !o.quiet {
			fmt.Fprintf(stderr, "[%d/%d] fencegen %s: %s\n", i+1, len(cases), c.Name, firstOr(c.Errors, "ok"))
		}
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
		if c.Skip != "" {
			c.Result, c.Compile, c.Vet, c.API, c.Notes = "skipped", "n.a.", "n.a.", "n.a.", c.Skip
			continue
		}
		projectTypes(c)
		classify(c, o.sqlc != "")
		compareAPI(c, o.sqlc != "")
		compareText(c)
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
		file := sqlcCfg
		if file == "" {
			file = cfg
		}
		c := &Case{Name: name, Src: p, Config: cfg, SqlcCfg: sqlcCfg, Project: filepath.Base(abs), Dir: rel, File: path.Join(rel, file)}
		if h, ok := hints[rel]; ok {
			c.Hint = strings.TrimSpace(strings.TrimLeft(h, " —-"))
			c.Negative = strings.Contains(h, "NEGATIVE")
			c.ManagedDB = strings.Contains(h, "managed-db only")
		}
		cases = append(cases, c)
		return nil
	})
	if err == nil && len(cases) == 0 && engine == "postgresql" {
		// Schema-only cases are run as PostgreSQL schemas.
		cases, err = discoverSchemas(abs, prefix)
	}
	return cases, err
}

// missingPaths lists the schema and queries paths of entries that do not
// exist under dir (a path holding a glob pattern is not checked).
func missingPaths(dir string, entries []entry) []string {
	var out []string
	for _, e := range entries {
		for _, p := range e.Paths {
			if strings.ContainsAny(p, "*?[") {
				continue
			}
			if _, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p))); err != nil {
				out = append(out, p)
			}
		}
	}
	return out
}

// schemaOnlyQueries is the (empty) queries file written next to the
// configurations of schema-only cases.
const schemaOnlyQueries = "corpus_queries.sql"

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
		dir, _ := filepath.Rel(abs, filepath.Dir(p))
		cases = append(cases, &Case{
			Name: name + " (schema only)", Src: filepath.Dir(p), Dir: filepath.ToSlash(dir),
			Config: "fencegen.corpus-" + strings.TrimSuffix(d.Name(), ".sql") + ".yaml",
			Schema: d.Name(), Project: filepath.Base(abs),
		})
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

// copyTree copies the regular files of the tree src to dst, leaving out
// Go files (neither generator reads them, and the generated ones are
// collected from the output directories) and hidden directories (.git).
// Symbolic links are followed to files; see below for directories.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		t := filepath.Join(dst, rel)
		if d.IsDir() {
			if p != src && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			return os.MkdirAll(t, 0o755)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			// A link to a file is copied as the file; a relative link to
			// a directory of the tree stays a link (it resolves inside
			// the copy); other links are left out, so that no generator
			// writes through one into the tree.
			fi, err := os.Stat(p)
			switch {
			case err != nil:
				return nil
			case fi.Mode().IsRegular():
				if strings.HasSuffix(d.Name(), ".go") {
					return nil
				}
			case fi.IsDir():
				l, err := os.Readlink(p)
				if err != nil || filepath.IsAbs(l) || strings.HasPrefix(d.Name(), ".") {
					return nil
				}
				if r, err := filepath.Rel(src, filepath.Join(filepath.Dir(p), l)); err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
					return nil
				}
				return os.Symlink(l, t)
			default:
				return nil
			}
		} else if !d.Type().IsRegular() || strings.HasSuffix(d.Name(), ".go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(t, b, 0o644)
	})
}

// prepare readies c for running in its copies: a schema-only case gets
// its configuration; a configuration with entries for other engines is
// replaced, in the copies, by one reduced to its engine postgresql
// entries; one with several PostgreSQL entries becomes one case per entry,
// each with its own reduced configuration next to the original. It
// returns the cases to run (c itself, or one per entry).
func prepare(c *Case, haveSqlc bool) ([]*Case, error) {
	if c.Schema != "" {
		cfg := fmt.Sprintf("version: \"2\"\nsql:\n  - engine: postgresql\n    schema: %q\n    queries: %s\n    gen:\n      go: {package: models, out: out, sql_package: pgx/v5}\n", c.Schema, schemaOnlyQueries)
		err := os.WriteFile(filepath.Join(c.work, schemaOnlyQueries), []byte("-- schema only: one query, since an entry without queries is an error (as in sqlc)\n-- name: CorpusSchemaOnly :exec\nSELECT 1;\n"), 0o644)
		if err == nil {
			err = os.WriteFile(filepath.Join(c.work, c.Config), []byte(cfg), 0o644)
		}
		c.SQLPackage = "pgx/v5"
		return []*Case{c}, err
	}
	// The sqlc configuration says what sqlc generates; fencegen reads it
	// too unless the folder has a fencegen.yaml.
	name := c.SqlcCfg
	if name == "" {
		name = c.Config
	}
	src, err := os.ReadFile(filepath.Join(c.Src, name))
	if err != nil {
		return nil, err
	}
	info, err := parseConfig(name, src)
	if err != nil {
		// Run it as found: the generators report what is wrong with it.
		c.SQLPackage = "?"
		return []*Case{c}, nil
	}
	var pg []entry
	var dropped []string
	for i, e := range info.Entries {
		if c.SqlcCfg == "" && e.SQLPackage == "" {
			// fencegen.yaml's default, not sqlc's.
			e.SQLPackage = "pgx/v5"
			info.Entries[i] = e
		}
		if e.postgres() {
			pg = append(pg, e)
		} else {
			dropped = append(dropped, e.Engine)
		}
	}
	c.Dropped = dropped
	if len(info.Entries) > 0 && len(pg) == 0 {
		c.Skip = "no engine " + engine + " entry (" + strings.Join(dropped, ", ") + ")"
		return []*Case{c}, nil
	}
	if missing := missingPaths(c.Src, pg); len(missing) > 0 {
		// A project copied in part (sqlc's examples keep their MySQL
		// halves in peers/sqlc-examples): both generators would fail on
		// the missing file, which measures neither.
		c.Skip = "not in the corpus: " + strings.Join(missing, ", ")
		return []*Case{c}, nil
	}
	same := c.SqlcCfg == "" || c.SqlcCfg == c.Config
	// write puts a reduced configuration into the copies that use it.
	write := func(d *Case, file string, b []byte, fencegen, sqlc bool) error {
		if fencegen {
			if err := os.WriteFile(filepath.Join(d.work, file), b, 0o644); err != nil {
				return err
			}
		}
		if sqlc && haveSqlc {
			return os.WriteFile(filepath.Join(d.sqlcWork, file), b, 0o644)
		}
		return nil
	}
	if !same || len(pg) < 2 || c.Negative {
		c.setEntries(pg)
		if len(dropped) > 0 {
			b, err := reduceConfig(name, src, postgresIndexes(pg))
			if err != nil {
				c.Skip = err.Error()
				return []*Case{c}, nil
			}
			if err := write(c, name, b, same, c.SqlcCfg != ""); err != nil {
				return nil, err
			}
		}
		if !same {
			// fencegen's own configuration: reduce it the same way.
			fsrc, err := os.ReadFile(filepath.Join(c.Src, c.Config))
			if err != nil {
				return nil, err
			}
			if fi, err := parseConfig(c.Config, fsrc); err == nil {
				if keep := postgresIndexes(fi.Entries); len(keep) < len(fi.Entries) {
					b, err := reduceConfig(c.Config, fsrc, keep)
					if err != nil {
						c.Skip = err.Error()
						return []*Case{c}, nil
					}
					if err := write(c, c.Config, b, true, false); err != nil {
						return nil, err
					}
				}
			}
		}
		return []*Case{c}, nil
	}
	var out []*Case
	for _, e := range pg {
		d := *c
		d.Name = fmt.Sprintf("%s#%d", c.Name, e.Index+1)
		d.Entry = fmt.Sprintf("#%d of %d", e.Index+1, len(info.Entries))
		if e.Out != "" {
			d.Entry += ": " + e.Out
		}
		d.setEntries([]entry{e})
		b, err := reduceConfig(name, src, map[int]bool{e.Index: true})
		if err != nil {
			d.Skip = err.Error()
			out = append(out, &d)
			continue
		}
		file := splitName(name, e.Index)
		if err := write(&d, file, b, true, c.SqlcCfg != ""); err != nil {
			return nil, err
		}
		d.Config = file
		if c.SqlcCfg != "" {
			d.SqlcCfg = file
		}
		out = append(out, &d)
	}
	return out, nil
}

// postgresIndexes is the set of the indexes of the engine postgresql
// entries of es, as reduceConfig keeps them.
func postgresIndexes(es []entry) map[int]bool {
	keep := map[int]bool{}
	for _, e := range es {
		if e.postgres() {
			keep[e.Index] = true
		}
	}
	return keep
}

// setEntries records the sql_package and output directories of the
// entries c runs.
func (c *Case) setEntries(es []entry) {
	var pkgs []string
	seen := map[string]bool{}
	c.outs = nil
	for _, e := range es {
		if l := e.sqlPackageLabel(); !seen[l] {
			seen[l] = true
			pkgs = append(pkgs, l)
		}
		if e.Out != "" {
			c.outs = append(c.outs, e.Out)
		}
	}
	c.SQLPackage = strings.Join(pkgs, ", ")
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

// runSqlc runs sqlc generate in c's configuration directory in the sqlc
// copy and collects the Go files it wrote into the entries' output
// directories (the copy holds no other Go files).
func runSqlc(bin string, c *Case) {
	// Two configurations of a tree may share an output directory: their
	// runs take turns, and each starts from a directory without Go files.
	var dirs []string
	for _, o := range c.outs {
		dirs = append(dirs, filepath.Clean(filepath.Join(c.sqlcWork, filepath.FromSlash(o))))
	}
	sort.Strings(dirs)
	for i, d := range dirs {
		if i > 0 && d == dirs[i-1] {
			continue
		}
		mu := outLock(d)
		mu.Lock()
		defer mu.Unlock()
		ents, _ := os.ReadDir(d)
		for _, e := range ents {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") {
				os.Remove(filepath.Join(d, e.Name()))
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
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
	c.sqlcFiles = collectGo(c.sqlcWork, c.outs)
}

var outLocks sync.Map // output directory → *sync.Mutex

func outLock(dir string) *sync.Mutex {
	mu, _ := outLocks.LoadOrStore(dir, new(sync.Mutex))
	return mu.(*sync.Mutex)
}

// collectGo reads the .go files directly in the directories outs
// (relative to dir), or, with no outs, anywhere under dir; the keys are
// slash-separated paths relative to dir, like fencegen's Output.Files.
func collectGo(dir string, outs []string) map[string][]byte {
	files := map[string][]byte{}
	add := func(p string) {
		if b, err := os.ReadFile(p); err == nil {
			rel, _ := filepath.Rel(dir, p)
			files[filepath.ToSlash(rel)] = b
		}
	}
	if len(outs) == 0 {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".go") {
				add(p)
			}
			return nil
		})
		return files
	}
	for _, o := range outs {
		od := filepath.Join(dir, filepath.FromSlash(o))
		ents, _ := os.ReadDir(od)
		for _, e := range ents {
			if !e.IsDir() && strings.HasSuffix(e.Name(), ".go") {
				add(filepath.Join(od, e.Name()))
			}
		}
	}
	return files
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
	}
	sa := ExtractAPI(c.sqlcFiles)
	sl := sa.Lines()
	c.APITotal = len(sl)
	if c.files == nil {
		c.API = "n.a."
		return
	}
	fa := ExtractAPI(c.files)
	c.APISame = SameLines(sl, fa.Lines())
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
	fmt.Fprintln(w, "| project | configuration | sql_package | sqlc | fencegen | compiles | API lines identical | file text | result | notes |")
	fmt.Fprintln(w, "|---|---|---|---|---|---|---|---|---|---|")
	for _, c := range cases {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
			cell(c.Project, 60), cell(configCell(c), 200), cell(c.SQLPackage, 40),
			cell(sqlcCell(c), 100), cell(fencegenCell(c), 120), cell(compileCell(c), 80),
			apiCell(c), c.Text, c.Result, cell(c.Notes, 160))
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
	var all lineCount
	for _, c := range cases {
		if counted(c) {
			all.add(c)
		}
	}
	fmt.Fprintf(w, "- API lines identical (of sqlc's exported API, where sqlc generates; NEGATIVE and managed-db cases left out): %s\n", all.ratio())
	if skipped := countIf(cases, func(c *Case) bool { return c.Skip != "" }); skipped > 0 {
		fmt.Fprintf(w, "- skipped (not run): %d\n", skipped)
	}
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
	// Totals by sql_package.
	groups := map[string]*groupCount{}
	var order []string
	for _, c := range cases {
		if c.Skip != "" || c.Negative || c.ManagedDB {
			continue
		}
		g := sqlPackageGroup(c.SQLPackage)
		if c.Schema != "" {
			g = "schema only (no sqlc configuration)"
		}
		if groups[g] == nil {
			groups[g] = &groupCount{}
			order = append(order, g)
		}
		groups[g].add(c)
	}
	sort.SliceStable(order, func(i, j int) bool { return groupRank(order[i]) < groupRank(order[j]) })
	if len(order) > 0 {
		fmt.Fprintf(w, "\n### By sql_package (configurations or entries run; NEGATIVE and managed-db cases left out)\n\n")
		for _, g := range order {
			fmt.Fprintf(w, "- %s\n", groups[g].String(g))
		}
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
			if len(c.Diffs) == 0 && len(c.Errors) == 0 && len(c.CompileErr) == 0 && len(c.VetErr) == 0 && c.SqlcStatus == "ok" && c.textDiff == "" {
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
			if c.textDiff != "" {
				fmt.Fprintf(w, "\nfile text (after the header), sqlc's and fencegen's:\n\n```diff\n%s```\n", c.textDiff)
			}
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

// configCell is the configuration file (relative to the DIR argument),
// the entry when the case is one of several, and the dropped entries.
func configCell(c *Case) string {
	s := c.File
	if c.Schema != "" {
		s = path.Join(c.Dir, c.Schema) + " (schema only)"
	}
	if c.Entry != "" {
		s += " " + c.Entry
	}
	if len(c.Dropped) > 0 {
		s += " [dropped entries: " + strings.Join(c.Dropped, ", ") + "]"
	}
	return s
}

func sqlcCell(c *Case) string {
	switch c.SqlcStatus {
	case "ok":
		return "generated"
	case "":
		return "not run"
	case "not run":
		if c.Skip != "" || c.Schema != "" {
			return "not run"
		}
		return "not run: " + firstOr(c.SqlcErr, "")
	}
	return c.SqlcStatus + ": " + firstOr(c.SqlcErr, "")
}

func fencegenCell(c *Case) string {
	switch {
	case c.Skip != "":
		return "not run"
	case c.files != nil:
		return "generated"
	}
	for _, e := range c.Errors {
		if loc(e) != "" {
			return "failed: " + e
		}
	}
	return "failed: " + firstOr(c.Errors, "")
}

func compileCell(c *Case) string {
	switch {
	case c.Skip != "":
		return "skipped: not run"
	case c.files == nil:
		return "skipped: fencegen failed"
	case c.Compile == "fail":
		return "fail: " + firstOr(c.CompileErr, "")
	case c.Compile == "OK" && c.Vet == "fail":
		return "OK (vet fails)"
	case strings.HasPrefix(c.Compile, "n.a."):
		return "skipped: " + strings.Trim(strings.TrimPrefix(c.Compile, "n.a."), " ()")
	}
	return c.Compile
}

func apiCell(c *Case) string {
	switch {
	case c.SqlcStatus != "ok":
		return "n.a."
	case c.files == nil:
		return fmt.Sprintf("0/%d (fencegen failed)", c.APITotal)
	}
	s := (&lineCount{c.APISame, c.APITotal}).ratio()
	if n := len(c.Diffs); n > 0 {
		s += fmt.Sprintf(", %d diffs", n)
	}
	return s
}

// counted reports whether c's API lines enter the totals.
func counted(c *Case) bool {
	return c.Skip == "" && !c.Negative && !c.ManagedDB && c.SqlcStatus == "ok"
}

// lineCount is a number of identical API lines out of sqlc's.
type lineCount struct{ same, total int }

func (l *lineCount) add(c *Case) { l.same += c.APISame; l.total += c.APITotal }

// ratio is "same/total (P%)", or "0/0" without lines.
func (l *lineCount) ratio() string { return l.ratioSep("/") }

// ratioSep is ratio with sep between the two counts.
func (l *lineCount) ratioSep(sep string) string {
	if l.total == 0 {
		return fmt.Sprintf("%d%s%d", l.same, sep, l.total)
	}
	return fmt.Sprintf("%d%s%d (%.1f%%)", l.same, sep, l.total, 100*float64(l.same)/float64(l.total))
}

// groupCount totals the cases of one sql_package group.
type groupCount struct {
	n, sqlc, fencegen, compiled int
	lines                       lineCount
	// textCases are the cases whose file text was compared, textSame
	// those identical after the header, textLines the differing lines.
	textCases, textSame, textLines int
}

func (g *groupCount) add(c *Case) {
	g.n++
	if c.SqlcStatus == "ok" {
		g.sqlc++
	}
	if c.files != nil {
		g.fencegen++
	}
	if c.Compile == "OK" {
		g.compiled++
	}
	if counted(c) {
		g.lines.add(c)
	}
	if counted(c) && c.Text != "n.a." && c.Text != "" {
		g.textCases++
		g.textLines += c.TextLines
		if c.Text == "identical" {
			g.textSame++
		}
	}
}

func (g *groupCount) String(name string) string {
	return fmt.Sprintf("%s: configurations %d; sqlc generates %d, fencegen generates %d, compile OK %d; API lines identical %s; file text identical: %d of %d cases, %d differing lines",
		name, g.n, g.sqlc, g.fencegen, g.compiled, g.lines.ratioSep(" of "), g.textSame, g.textCases, g.textLines)
}

// groupRank orders the summary groups: pgx/v5, database/sql, the others.
func groupRank(g string) int {
	switch g {
	case "pgx/v5":
		return 0
	case "database/sql":
		return 1
	}
	return 2
}

func countIf(cases []*Case, f func(*Case) bool) int {
	n := 0
	for _, c := range cases {
		if f(c) {
			n++
		}
	}
	return n
}

var undefinedRe = regexp.MustCompile(`: undefined: ([A-Za-z_][A-Za-z0-9_]*)$`)

// projectTypes turns a compile failure into a skip when every error is a
// type the configuration names without an import (an override with a type
// of the project's own package, e.g. go_type: {type: AssetMetadata}): sqlc's
// code uses the same undeclared name, and only the project's Go files,
// which the corpus does not hold, declare it.
func projectTypes(c *Case) {
	if c.Compile != "fail" || c.sqlcFiles == nil || len(c.CompileErr) == 0 {
		return
	}
	var sqlcSrc strings.Builder
	for _, n := range sortedKeys(c.sqlcFiles) {
		sqlcSrc.Write(c.sqlcFiles[n])
		sqlcSrc.WriteByte('\n')
	}
	src := sqlcSrc.String()
	seen := map[string]bool{}
	var names []string
	for _, l := range c.CompileErr {
		if strings.HasSuffix(l, "too many errors") {
			continue
		}
		m := undefinedRe.FindStringSubmatch(l)
		if m == nil {
			return
		}
		x := m[1]
		if !seen[x] {
			used := regexp.MustCompile(`\b` + x + `\b`).MatchString(src)
			declared := regexp.MustCompile(`(?m)^type\s+` + x + `\b`).MatchString(src)
			if !used || declared {
				return
			}
			seen[x] = true
			names = append(names, x)
		}
	}
	if len(names) > 0 {
		c.Compile = "skipped: needs the project's own Go types (" + strings.Join(names, ", ") + "), as sqlc's code does"
	}
}
