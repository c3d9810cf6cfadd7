package gen

import (
	"context"
	"fmt"
	"go/token"
	"path"
	"path/filepath"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/config"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/golang"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/templates"
)

// Generate runs the generator for every sql entry of cfg and returns the
// files it would write; it writes nothing. On any problem it returns an
// error listing every located problem ("file:line:col: message", see
// Problems) and no output, so a caller never writes part of a run.
func Generate(ctx context.Context, cfg *Config) (*Output, error) {
	out := &Output{Files: map[string][]byte{}}
	var errs diag.List
	// The guard trigger of a table is one per database: every sql entry's
	// fencegen_guard.sql must say the same of it. A non-strict query on a
	// strict table in any entry makes its trigger non-strict in all.
	loosened := map[string]bool{}
	var guards []*guardRun
	for _, pkg := range cfg.Packages {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		files, notes, guard, pkgErrs := generatePackage(cfg, pkg)
		errs = append(errs, pkgErrs...)
		out.Vet = append(out.Vet, notes...)
		for name, b := range files {
			if _, dup := out.Files[name]; dup {
				errs.Add(cfg.Path, pkg.Pos.Line, pkg.Pos.Col, "two sql entries write %s", name)
			}
			out.Files[name] = b
		}
		if guard != nil {
			guards = append(guards, guard)
			for name := range guard.loosened {
				loosened[name] = true
			}
		}
	}
	for _, g := range guards {
		b, err := guardSQL(g.cat, loosened)
		if err != nil {
			errs.Add(cfg.Path, g.pkg.Pos.Line, g.pkg.Pos.Col, "%v", err)
			continue
		}
		if b != nil {
			name := path.Join(filepath.ToSlash(g.pkg.Go.Out), GuardFile)
			if _, dup := out.Files[name]; dup {
				errs.Add(cfg.Path, g.pkg.Pos.Line, g.pkg.Pos.Col, "two sql entries write %s", name)
			}
			out.Files[name] = b
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// guardRun is what rendering a sql entry's GuardFile needs: its catalog,
// and the tables (qualified names of the tables whose marks fence them)
// that one of its queries loosens.
type guardRun struct {
	pkg      config.Package
	cat      *catalog.Catalog
	loosened map[string]bool
}

func generatePackage(cfg *Config, pkg config.Package) (map[string][]byte, []string, *guardRun, diag.List) {
	var errs diag.List
	cat := catalog.New()
	schemaFiles, err := expand(cfg, pkg.Schema, pkg.Pos)
	errs = append(errs, err...)
	// A schema that could not be read or parsed at all would make every
	// query fail with "relation does not exist": report the schema only.
	schemaBroken := len(err) > 0
	for _, f := range schemaFiles {
		pf, perr := readAndParse(f, true)
		if perr != nil {
			errs = append(errs, diag.As(perr)...)
		}
		if pf == nil {
			schemaBroken = true
			continue
		}
		for _, st := range pf.Stmts {
			cat.Update(pf, st)
		}
	}
	for _, ft := range pkg.Fence {
		schema, table := "", ft.Table
		if i := strings.LastIndexByte(table, '.'); i >= 0 {
			schema, table = table[:i], table[i+1:]
		}
		t := cat.Table(schema, table)
		if t == nil {
			errs.Add(cfg.Path, ft.Pos.Line, ft.Pos.Col, "fence: table %q does not exist in the schema", ft.Table)
			continue
		}
		cat.MarkFence(t, ft.Column, ft.Mode == config.ModeStrict, "config", cfg.Path, ft.Pos.Line, ft.Pos.Col)
	}
	errs = append(errs, cat.Validate()...)
	if schemaBroken {
		return nil, nil, nil, errs
	}
	queryFiles, qerr := expand(cfg, pkg.Queries, pkg.Pos)
	errs = append(errs, qerr...)
	var parsed []*sqlparse.File
	for _, f := range queryFiles {
		pf, perr := readAndParse(f, false)
		if perr != nil {
			errs = append(errs, diag.As(perr)...)
		}
		if pf == nil {
			continue
		}
		parsed = append(parsed, pf)
	}
	analyzed, aerr := analyze.Analyze(cat, parsed)
	errs = append(errs, aerr...)
	notes := optOutNotes(analyzed)
	// The generated files' headers name each query file relative to the
	// configuration. (Query files that share a base name share one output
	// file, as in sqlc: see golang.Emit.)
	sources := map[string]string{}
	dir, _ := filepath.Abs(cfg.Dir)
	for _, f := range parsed {
		rel := f.Name
		// f.Name is relative to the current directory, which need not be
		// the configuration's.
		abs, _ := filepath.Abs(filepath.FromSlash(f.Name))
		if r, err := filepath.Rel(dir, abs); err == nil && !strings.HasPrefix(r, "..") {
			rel = filepath.ToSlash(r)
		}
		sources[f.Name] = rel
	}
	for _, f := range analyzed {
		for _, q := range f.Queries {
			if q.Cmd == ":execresult" && q.Fence != nil && q.Fence.CTE != "" {
				errs.Add(q.File, q.Line, q.Col, "query %s: a statement with a fenced write in WITH has no one command tag to report; use :exec or :execrows instead of :execresult", q.Name)
			}
			if msg := golang.Refusal(pkg.Go, q); msg != "" {
				errs.Add(q.File, q.Line, q.Col, "%s", msg)
			}
		}
	}
	if len(errs) > 0 {
		return nil, nil, nil, errs
	}
	opts := pkg.Go
	if opts.Package == "" {
		abs, err := filepath.Abs(filepath.Join(cfg.Dir, opts.Out))
		if err != nil {
			abs = opts.Out
		}
		opts.Package = filepath.Base(abs)
		if !token.IsIdentifier(opts.Package) {
			errs.Add(cfg.Path, pkg.Pos.Line, pkg.Pos.Col, "no package name is set and the output directory's name %q is not a Go identifier: set gen.go.package (version 2) or name (version 1)", opts.Package)
			return nil, nil, nil, errs
		}
	} else if !token.IsIdentifier(opts.Package) {
		errs.Add(cfg.Path, pkg.Pos.Line, pkg.Pos.Col, "package name %q is not a Go identifier", opts.Package)
		return nil, nil, nil, errs
	}
	rendered, err2 := golang.Emit(golang.Input{Catalog: cat, Files: analyzed, Options: opts, Sources: sources})
	if err2 != nil {
		errs.Add(cfg.Path, pkg.Pos.Line, pkg.Pos.Col, "%v", err2)
		return nil, nil, nil, errs
	}
	files := map[string][]byte{}
	for name, b := range rendered {
		files[path.Join(filepath.ToSlash(opts.Out), name)] = b
	}
	// A non-strict query on a strict table makes that table's trigger
	// non-strict: a strict one would refuse the query's writes.
	guard := &guardRun{pkg: pkg, cat: cat, loosened: map[string]bool{}}
	for _, f := range analyzed {
		for _, q := range f.Queries {
			if q.Fence != nil && q.Fence.Loosens {
				guard.loosened[markedTable(q.Fence.Table).QualifiedName()] = true
				notes = append(notes, fmt.Sprintf("%s:%d:%d: note: query %s is non-strict on strict table %s, so the guard trigger in %s refuses only lower tokens on that table",
					q.File, q.Line, q.Col, q.Name, q.Fence.Table.QualifiedName(), GuardFile))
			}
		}
	}
	return files, notes, guard, nil
}

// optOutNotes lists the queries that opted out of fencing ("-- @fence off:
// <reason>"), one note per fenced table each writes unguarded, in file
// order, as "file:line:col: note: query X writes fenced table T without
// the guard: reason".
func optOutNotes(files []*analyze.File) []string {
	var notes []string
	for _, f := range files {
		for _, q := range f.Queries {
			if q.OptOut == nil {
				continue
			}
			for _, t := range q.OptOut.Tables {
				notes = append(notes, fmt.Sprintf("%s:%d:%d: note: query %s writes fenced table %s without the guard: %s",
					q.File, q.OptOut.Line, q.OptOut.Col, q.Name, t, q.OptOut.Reason))
			}
		}
	}
	return notes
}

// GuardFile is the migration SQL fencegen writes beside the generated code
// of a package with fenced tables: a trigger per fenced table that refuses
// any UPDATE lowering the stored token (fence.SQLState), for writers that
// do not use the generated code.
const GuardFile = "fencegen_guard.sql"

type guardTable struct {
	Table, QualifiedTable, Function, Column, Trigger string
	Strict                                           bool
}

// markedTable is the table whose mark fences t: t, or the ancestor it
// inherits its fence from. A non-strict query on any table of that family
// makes all their guard triggers non-strict: a partition runs the trigger
// of its partitioned table, and a write through a parent reaches the
// children's rows.
func markedTable(t *catalog.Table) *catalog.Table {
	if t.Fence != nil && t.Fence.From != nil {
		return t.Fence.From
	}
	return t
}

// guardSQL renders GuardFile for cat's fenced tables, or nil if none.
func guardSQL(cat *catalog.Catalog, loosened map[string]bool) ([]byte, error) {
	data := struct {
		Tables    []guardTable
		SQLState  string
		AnyStrict bool
	}{SQLState: fence.SQLState}
	functions := map[string]string{} // guard function name → table
	for _, t := range cat.FencedTables() {
		if p := t.PartitionOf(); p != nil && p.Fence != nil {
			// PostgreSQL clones a partitioned table's row triggers to
			// its partitions, present and future (PostgreSQL docs,
			// CREATE TRIGGER, "Notes"); one of its own would collide.
			continue
		}
		qt := sqlparse.QuoteIdent(t.Name)
		if t.Schema != "" && t.Schema != catalog.DefaultSchema {
			qt = sqlparse.QuoteIdent(t.Schema) + "." + qt
		}
		fn, err := templates.GuardFunction(qt)
		if err != nil {
			return nil, err
		}
		if other, dup := functions[fn]; dup {
			return nil, fmt.Errorf("the guard functions of tables %s and %s would have the same name %s: rename one of the tables", other, t.QualifiedName(), fn)
		}
		functions[fn] = t.QualifiedName()
		strict := t.Fence.Strict && !loosened[markedTable(t).QualifiedName()]
		data.Tables = append(data.Tables, guardTable{
			Table: t.QualifiedName(), QualifiedTable: qt, Function: fn, Column: sqlparse.QuoteIdent(t.Fence.Column),
			Trigger: "fencegen_guard", Strict: strict,
		})
		data.AnyStrict = data.AnyStrict || strict
	}
	if len(data.Tables) == 0 {
		return nil, nil
	}
	var b strings.Builder
	if err := templates.Templates.ExecuteTemplate(&b, "guard.sql.tmpl", data); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}
