package writeoracle

import (
	"context"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/gen/internal/config"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// Statement is one SQL constant of the generated code.
type Statement struct {
	// Query is the query's name ("-- name: Query :kind"); a guard's
	// auxiliary statement (the stored token read by key) has its query's.
	Query string
	// SQL is the constant's text as the generated code sends it.
	SQL string
	// Tokens are the parameter numbers ($n) the guard's comment lines
	// name as the fencing token; none for a statement without a guard.
	Tokens []int
}

// Guarded reports whether the generator put a guard on the statement.
func (s *Statement) Guarded() bool { return len(s.Tokens) > 0 }

// tokenParam finds the token parameter in a guard comment line, such as
// "-- fencegen: guarded by key (jobs.tok <= $3)".
var tokenParam = regexp.MustCompile(`\$(\d+)\)\s*$`)

// statements extracts the SQL constants of the generated Go files: those
// whose text begins with sqlc's "-- name: " line.
func statements(files map[string][]byte) ([]*Statement, error) {
	names := make([]string, 0, len(files))
	for n := range files {
		if strings.HasSuffix(n, ".go") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var out []*Statement
	fset := token.NewFileSet()
	for _, n := range names {
		f, err := parser.ParseFile(fset, n, files[n], parser.SkipObjectResolution)
		if err != nil {
			return nil, fmt.Errorf("generated file %s: %w", n, err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok || gd.Tok != token.CONST {
				continue
			}
			for _, spec := range gd.Specs {
				vs := spec.(*ast.ValueSpec)
				for _, v := range vs.Values {
					lit, ok := v.(*ast.BasicLit)
					if !ok || lit.Kind != token.STRING {
						continue
					}
					text, err := strconv.Unquote(lit.Value)
					if err != nil || !strings.HasPrefix(text, "-- name: ") {
						continue
					}
					st := &Statement{SQL: text}
					first, _, _ := strings.Cut(text, "\n")
					if f := strings.Fields(strings.TrimPrefix(first, "-- name: ")); len(f) > 0 {
						st.Query = f[0]
					}
					for _, line := range strings.Split(text, "\n") {
						if !strings.HasPrefix(line, "-- fencegen: ") {
							continue
						}
						if m := tokenParam.FindStringSubmatch(line); m != nil {
							n, _ := strconv.Atoi(m[1])
							st.Tokens = append(st.Tokens, n)
						}
					}
					out = append(out, st)
				}
			}
		}
	}
	return out, nil
}

// queryFile is a query file the oracle hands the generator: a copy of the
// entry's file in which refused queries are blanked out (keeping lines).
type queryFile struct {
	orig, path string
	src        []byte
	stmts      []*sqlparse.Stmt
	names      []string // the query name of each statement
	blanked    []bool
}

var queryName = regexp.MustCompile(`(?m)^\s*--\s*name:\s*(\S+)`)

func loadQueryFiles(cfg *gen.Config, entries []string, tmp string) ([]*queryFile, error) {
	var out []*queryFile
	for i, name := range schemaFiles(cfg.Dir, entries) {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		q := newQueryFile(filepath.Join(tmp, fmt.Sprintf("q%03d_%s", i, filepath.Base(name))), src)
		q.orig = name
		out = append(out, q)
	}
	return out, nil
}

// newQueryFile is a query file of src, written at path when generated.
func newQueryFile(path string, src []byte) *queryFile {
	q := &queryFile{orig: path, path: path, src: src}
	if f, _ := sqlparse.Parse(filepath.Base(path), src); f != nil {
		for _, s := range f.Stmts {
			q.stmts = append(q.stmts, s)
			n := ""
			if m := queryName.FindSubmatch(src[s.Lead:s.Start]); m != nil {
				n = string(m[1])
			}
			q.names = append(q.names, n)
		}
	}
	q.blanked = make([]bool, len(q.stmts))
	return q
}

// clone copies the file, so that a run's blanking does not reach another
// run's copy.
func (q *queryFile) clone() *queryFile {
	c := *q
	c.src = append([]byte(nil), q.src...)
	c.blanked = append([]bool(nil), q.blanked...)
	return &c
}

func (q *queryFile) write() error { return os.WriteFile(q.path, q.src, 0o644) }

// blankAt blanks the statement that holds line (1-based) and returns its
// query name; blanked is false when no statement holds the line or the
// statement was blanked before (another problem of the same query).
func (q *queryFile) blankAt(line int) (name string, blanked bool) {
	lineOf := func(off int) int { return 1 + strings.Count(string(q.src[:off]), "\n") }
	for i, s := range q.stmts {
		end := s.End
		if end < len(q.src) && q.src[end] == ';' {
			end++
		}
		if line < lineOf(s.Lead) || line > lineOf(end) {
			continue
		}
		if q.blanked[i] {
			return q.names[i], false
		}
		for j := s.Lead; j < end; j++ {
			if q.src[j] != '\n' {
				q.src[j] = ' '
			}
		}
		q.blanked[i] = true
		return q.names[i], true
	}
	return "", false
}

// generation is the result of generating one sql entry until it renders.
type generation struct {
	stmts []*Statement
	// refused are the queries the generator refused, each with its first
	// message.
	refused map[string]string
	optOut  map[string]bool
	// copies are, with Options.SharedDatabase, the other entries' copies
	// of each extra schema file.
	copies map[string][]string
	// failed is set when a problem outside the query files (or one that no
	// query holds) stopped generation.
	failed error
}

// generate runs the generator (gen.Generate, as the CLI does) on one sql
// entry with extra schema files (and without its fence configuration when
// unfenced), blanking out each refused query and
// generating again, until the entry renders or a problem outside a query
// stops it.
//
// With shared set (Options.SharedDatabase) the other entries are
// generated too, each with a copy of the extra files of its own (whose
// lines it cannot read are blanked in its copy alone, generation.copies)
// and a query file of one read-only query; only the checked entry's
// statements are kept.
func generate(ctx context.Context, base *gen.Config, entry int, extra []string, queries []*queryFile, unfenced, shared bool) *generation {
	cfg := *base
	pkg := base.Packages[entry]
	if unfenced {
		pkg.Fence = nil
	}
	pkg.Schema = append(append([]string(nil), pkg.Schema...), extra...)
	pkg.Queries = nil
	byBase := map[string]*queryFile{}
	for _, q := range queries {
		pkg.Queries = append(pkg.Queries, q.path)
		byBase[filepath.Base(q.path)] = q
	}
	cfg.Packages = []config.Package{pkg}
	g := &generation{refused: map[string]string{}, optOut: map[string]bool{}, copies: map[string][]string{}}
	if shared {
		base0 := extra
		extra = append([]string(nil), extra...)
		cfg.Packages = nil
		for j, other := range base.Packages {
			if j == entry {
				cfg.Packages = append(cfg.Packages, pkg)
				continue
			}
			if unfenced {
				other.Fence = nil
			}
			other.Schema = append([]string(nil), other.Schema...)
			for _, e := range base0 {
				c := strings.TrimSuffix(e, ".sql") + fmt.Sprintf(".e%d.sql", j)
				b, err := os.ReadFile(e)
				if err == nil {
					err = os.WriteFile(c, b, 0o644)
				}
				if err != nil {
					g.failed = err
					return g
				}
				other.Schema = append(other.Schema, c)
				g.copies[e] = append(g.copies[e], c)
				extra = append(extra, c)
			}
			stub := filepath.Join(filepath.Dir(queries[0].path), fmt.Sprintf("oracle_other_%d.sql", j))
			if err := os.WriteFile(stub, []byte("-- name: OracleOther :one\nSELECT 1 AS one;\n"), 0o644); err != nil {
				g.failed = err
				return g
			}
			other.Queries = []string{stub}
			cfg.Packages = append(cfg.Packages, other)
		}
	}
	for round := 0; ; round++ {
		for _, q := range queries {
			if err := q.write(); err != nil {
				g.failed = err
				return g
			}
		}
		out, err := gen.Generate(ctx, &cfg)
		if err == nil {
			files := out.Files
			if shared {
				files = map[string][]byte{}
				dir := path.Clean(filepath.ToSlash(pkg.Go.Out)) + "/"
				for n, b := range out.Files {
					if strings.HasPrefix(n, dir) {
						files[n] = b
					}
				}
			}
			g.stmts, g.failed = statements(files)
			for _, v := range out.Vet {
				if m := optOutNote.FindStringSubmatch(v); m != nil {
					g.optOut[m[1]] = true
				}
			}
			return g
		}
		problems := gen.Problems(err)
		if len(problems) == 0 || round > 200 {
			g.failed = err
			return g
		}
		progress := false
		if len(problems) == 1 && strings.Contains(problems[0].Msg, "no queries contained") {
			// Every query was refused (now or without the marks).
			return g
		}
		for _, p := range problems {
			q := byBase[filepath.Base(p.File)]
			if q == nil {
				// A statement of the oracle's own schema files (a token
				// column or mark of a table the generator's catalog does
				// not have, such as one a DO block creates) is left out.
				if extraFile(extra, p.File) != "" && p.Line > 0 && blankLine(extraFile(extra, p.File), p.Line) {
					progress = true
					continue
				}
				g.failed = p
				return g
			}
			name, ok := q.blankAt(p.Line)
			if ok {
				progress = true
			}
			if _, seen := g.refused[name]; name != "" && !seen {
				g.refused[name] = tmpPath.ReplaceAllString(p.Msg, "")
			}
		}
		if !progress {
			g.failed = err
			return g
		}
	}
}

// extraFile returns the extra schema file a problem's file names, or "".
func extraFile(extra []string, file string) string {
	for _, e := range extra {
		if filepath.Base(e) == filepath.Base(file) {
			return e
		}
	}
	return ""
}

// blankLine empties line n (1-based) of the file, reporting whether it
// held anything.
func blankLine(path string, n int) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	if n > len(lines) || strings.TrimSpace(lines[n-1]) == "" {
		return false
	}
	lines[n-1] = ""
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644) == nil
}

// keptLines returns the non-blank lines of the files (a file and its
// copies: a line any of them kept).
func keptLines(paths ...string) map[string]bool {
	out := map[string]bool{}
	for _, p := range paths {
		b, _ := os.ReadFile(p)
		for _, l := range strings.Split(string(b), "\n") {
			if strings.TrimSpace(l) != "" {
				out[l] = true
			}
		}
	}
	return out
}

// optOutNote is fencegen vet's note on a query that opted out of fencing
// with "-- @fence off: <reason>" (docs/guard.md).
var optOutNote = regexp.MustCompile(`note: query (\S+) (?:writes fenced table .*|may write any fenced table) without the guard`)
