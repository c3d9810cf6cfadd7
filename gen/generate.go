package gen

import (
	"context"
	"errors"
	"fmt"
	"go/token"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/config"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/golang"
	"github.com/fencegen/fencegen/gen/internal/guard"
	"github.com/fencegen/fencegen/gen/internal/guard/mysqlguard"
	"github.com/fencegen/fencegen/gen/internal/migrations"
	"github.com/fencegen/fencegen/gen/internal/parallel"
	"github.com/fencegen/fencegen/gen/internal/pgpb"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/writes/mysqlwrites"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// Generate runs the generator for every sql entry of cfg and returns the
// files it would write; it writes nothing. On any problem it returns an
// error listing every located problem ("file:line:col: message", see
// Problems) and no output, so a caller never writes part of a run.
//
// When the guard migrations among an entry's schema files no longer
// install the guard this fencegen writes for the schema (Guard's
// GuardMigrations), each finding is an error (its diag.Error's Err is the
// GuardFinding), the findings whose cause is a statement of a later
// migration first: fencegen guard writes the migration that fixes them.
func Generate(ctx context.Context, cfg *Config) (*Output, error) {
	return generate(ctx, cfg, true, false)
}

// Vet is Generate for fencegen vet: the same files and notes, and, for
// each PostgreSQL entry that sqlc analyses without a database, a note
// per query PostgreSQL refuses to prepare, with PostgreSQL's message
// (vetPrepare: the entry's schema applied to a scratch database created
// and dropped through the server at VetDatabaseEnv). Without that
// variable one note says the check needs it. An entry with sqlc's
// database key has every query prepared by Generate already (a refusal
// is an error there, as in sqlc).
func Vet(ctx context.Context, cfg *Config) (*Output, error) {
	return generate(ctx, cfg, true, true)
}

// GenerateGuard is Generate for fencegen guard, which writes the
// migration that fixes the guard migrations' findings: they are not
// errors.
func GenerateGuard(ctx context.Context, cfg *Config) (*Output, error) {
	return generate(ctx, cfg, false, false)
}

func generate(ctx context.Context, cfg *Config, checkGuard, vet bool) (*Output, error) {
	out := &Output{Files: map[string][]byte{}}
	var errs diag.List
	// The guard trigger of a table is one per database: every sql entry's
	// fencegen_guard.sql must say the same of it. A non-strict query on a
	// strict table in any entry makes its trigger non-strict in all.
	loosened := map[string]bool{}
	var guards []*guardRun
	// The sql entries are generated concurrently, each with its own
	// catalog, and their results merged in configuration order.
	type pkgResult struct {
		files  map[string][]byte
		notes  []string
		guard  *guardRun
		errs   diag.List
		ctxErr error
	}
	results := make([]pkgResult, len(cfg.Packages))
	// First every entry's catalog, with the configuration's marks; then
	// the schemas' own marks (COMMENT ON COLUMN) are spread to the other
	// entries' catalogs, as the configuration's are (spreadSchemaMarks);
	// then the rest of each entry.
	runs := make([]*pkgRun, len(cfg.Packages))
	// Each migrations directory's tool, detected once for the run: the
	// entries' schema files and the guard's replay read its files alike.
	dirs := migrations.NewDirs()
	// The write analysis of a fenced table walks pg_query's parse trees
	// with protobuf's reflection, whose set-up starts beside the parse
	// as soon as a PostgreSQL entry is known to have one: fenced in the
	// configuration here, or in its schema below (pgpb.WarmReflection).
	for _, pkg := range cfg.Packages {
		if pkg.Engine != config.EngineMySQL && len(pkg.Fence) > 0 {
			pgpb.WarmReflection()
		}
	}
	parallel.For(len(cfg.Packages), func(i int) {
		r := &results[i]
		if r.ctxErr = ctx.Err(); r.ctxErr != nil {
			return
		}
		runs[i] = preparePackage(cfg, cfg.Packages[i], dirs)
	})
	for i := range results {
		if err := results[i].ctxErr; err != nil {
			return nil, err
		}
	}
	for _, r := range runs {
		if r != nil && r.pkg.Engine != config.EngineMySQL && len(r.cat.FencedTables()) > 0 {
			pgpb.WarmReflection()
		}
	}
	spreadSchemaMarks(runs)
	fencesElsewhere(runs)
	vetURI := ""
	if vet {
		vetURI = os.Getenv(VetDatabaseEnv)
	}
	for _, r := range runs {
		r.ctx, r.vet, r.vetURI = ctx, vet, vetURI
	}
	// Each catalog is validated (which ends its schema and fences
	// children of fenced tables) before the relations through which a
	// write reaches a fenced table are shared among the entries
	// (shareReaches); the rest of each entry reads only its own catalog.
	parallel.For(len(cfg.Packages), func(i int) {
		runs[i].validate()
	})
	shareReaches(runs)
	for i, d := range sharedDefDiffs(runs) {
		if runs[i] != nil {
			runs[i].sharedDiffs = d
		}
	}
	for i, e := range sharedSchemaChanges(runs) {
		if runs[i] != nil {
			runs[i].validated = append(runs[i].validated, e...)
		}
	}
	parallel.For(len(cfg.Packages), func(i int) {
		r := &results[i]
		if r.ctxErr = ctx.Err(); r.ctxErr != nil {
			return
		}
		r.files, r.notes, r.guard, r.errs = runs[i].finish()
	})
	found := map[config.Position]bool{}
	entryNotes := make([][]string, len(cfg.Packages))
	for i := range cfg.Packages {
		entryNotes[i] = results[i].notes
	}
	noteLastInsertIDElsewhere(runs, entryNotes)
	entryNotes = nameEntriesOfNotes(cfg.Packages, entryNotes)
	for i, pkg := range cfg.Packages {
		if err := results[i].ctxErr; err != nil {
			return nil, err
		}
		files, notes, guard, pkgErrs := results[i].files, entryNotes[i], results[i].guard, results[i].errs
		for p := range runs[i].found {
			found[p] = true
		}
		if d := path.Clean(filepath.ToSlash(pkg.Go.Out)); !slices.Contains(out.Dirs, d) {
			out.Dirs = append(out.Dirs, d)
		}
		errs = append(errs, pkgErrs...)
		out.Vet = append(out.Vet, notes...)
		for name, b := range files {
			if _, dup := out.Files[name]; dup {
				errs.Add(cfg.Path, pkg.Pos.Line, pkg.Pos.Col, "two sql entries write %s", name)
			}
			out.Files[name] = b
		}
		if guard != nil {
			out.Packages++
			out.Queries += guard.queries
			out.Fenced += guard.fenced
			guards = append(guards, guard)
			for name := range guard.loosened {
				loosened[name] = true
			}
		}
	}
	parse := func(name string) (*sqlparse.File, error) { return readAndParse(name, true, dirs) }
	for _, g := range guards {
		var dg *guard.DatabaseGuard
		var err error
		if g.pkg.Engine == "mysql" {
			dg, err = guard.NewMySQLEntryGuard(g.cat, loosened, g.pkg.Go.Out, g.schema, parseMySQL(dirs))
		} else {
			dg, err = guard.NewDatabaseGuard(g.cat, loosened, g.pkg.Go.Out, g.schema, parse)
		}
		if err == nil && dg != nil {
			dg.SetAt(guardAt(cfg, g.pkg, loosened, parse, dirs))
			dg.SetSqlcSchema(sqlcSchemaReads(cfg, g.pkg))
		}
		var b []byte
		if err == nil && dg != nil {
			out.Guards = append(out.Guards, dg)
			b, err = dg.SQL()
		}
		if de := (*diag.Error)(nil); errors.As(err, &de) {
			errs.AddErr(de) // located in the schema already
			continue
		}
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
	if checkGuard {
		var failed []*pkgRun
		for i, r := range runs {
			if results[i].guard == nil && !r.schemaBroken {
				failed = append(failed, r)
			}
		}
		errs = append(errs, guardMigrationErrors(out.Guards, failed, loosened, parse, dirs)...)
	}
	if len(cfg.Packages) > 0 && schemasSound(runs, errs) {
		// A fenced table no schema has is a problem of its own, whatever
		// the queries' problems (trial tnew F1); with a schema that has
		// problems, it may follow from them and is not reported.
		for _, ft := range cfg.Packages[0].Fence {
			if ft.AnyEntry && ft.From == "" && !found[ft.Pos] {
				file := ft.File
				if file == "" {
					file = cfg.Path // the top-level fence key
				}
				hint := ""
				for _, r := range runs {
					if hint = didYouMeanTable(r.cat, ft); hint != "" {
						break
					}
				}
				errs.Add(file, ft.TablePos.Line, ft.TablePos.Col, "fence: table %s does not exist in the schema of any sql entry of %s%s", quoted(ft.Table), displayName(cfg.Path), hint)
			}
		}
	}
	if len(errs) == 0 && len(cfg.Packages) > 0 {
		errs = append(errs, fenceConflicts(guards)...)
		for _, o := range cfg.Packages[0].Go.Overrides {
			if !o.Global || o.Column == "" || found[overrideKey(o.Pos)] {
				continue
			}
			msg := unmatchedOverride(o, "the schema of any sql entry", "")
			if sqlcReads(cfg.Path, cfg.Packages[0]) {
				out.Vet = append(out.Vet, fmt.Sprintf("%s:%d:%d: note: %s; sqlc ignores it", cfg.Path, o.Pos.Line, o.Pos.Col, msg))
			} else {
				errs.Add(cfg.Path, o.Pos.Line, o.Pos.Col, "%s", msg)
			}
		}
	}
	if vet && vetURI == "" {
		for _, r := range runs {
			if r.prepareChecked() {
				out.Vet = append(out.Vet, fmt.Sprintf("%s:%d:%d: note: vet checks that PostgreSQL prepares each query only with a server to create a scratch database on: set %s", cfg.Path, r.pkg.Pos.Line, r.pkg.Pos.Col, VetDatabaseEnv))
				break
			}
		}
	}
	if err := errs.Err(); err != nil {
		return nil, err
	}
	slices.Sort(out.Dirs)
	return out, nil
}

// guardAt is the Guard's SetAt of entry pkg: the guard of
// the schema as a prefix of its schema files leaves it, built from a
// catalog of those files alone with the configuration's fence keys
// (fencegen guard -into of a migration that newer ones follow).
func guardAt(cfg *Config, pkg config.Package, loosened map[string]bool, parse func(string) (*sqlparse.File, error), dirs *migrations.Dirs) func(files, later []*sqlparse.File) (*guard.DatabaseGuard, error) {
	return func(files, later []*sqlparse.File) (*guard.DatabaseGuard, error) {
		cat := catalog.New(catalog.WithColumnGenerator(analyze.ColumnGenerator{}))
		for _, f := range files {
			for _, st := range f.Stmts {
				cat.Update(f, st)
			}
		}
		// A fence key names the table and column as the whole schema
		// has them: before later's renames, they had other names.
		pkg.Fence = slices.Clone(pkg.Fence)
		for i := range pkg.Fence {
			ft := &pkg.Fence[i]
			ft.TableName, ft.ColumnName = namesBefore(later, ft.TableSchema, ft.TableName, ft.ColumnName)
		}
		if errs, _ := markConfigFences(cat, cfg.Path, pkg, map[config.Position]bool{}); len(errs) > 0 {
			return nil, errs.Err()
		}
		if pkg.Engine == "mysql" {
			g, err := guard.NewMySQLEntryGuard(cat, loosened, pkg.Go.Out, files, parseMySQL(dirs))
			if g != nil {
				g.SetSqlcSchema(sqlcSchemaReads(cfg, pkg))
			}
			return g, err
		}
		return guard.NewDatabaseGuard(cat, loosened, pkg.Go.Out, files, parse)
	}
}

// namesBefore returns the names that table (of schema, "" for any) and
// its column had before the schema files later, which may rename them
// (ALTER TABLE ... RENAME TO, RENAME COLUMN), ran.
func namesBefore(later []*sqlparse.File, schema, table, column string) (string, string) {
	for i := len(later) - 1; i >= 0; i-- {
		stmts := later[i].Stmts
		for j := len(stmts) - 1; j >= 0; j-- {
			r, ok := stmts[j].Node.(*sqlparse.Rename)
			if !ok || schema != "" && r.Target.Schema != "" && r.Target.Schema != schema {
				continue
			}
			switch {
			case r.Kind == "column" && r.Target.Name == table && r.NewName == column:
				column = r.Subname
			case r.Kind == "table" && r.NewName == table:
				table = r.Target.Name
			}
		}
	}
	return table, column
}

// guardMigrationErrors are the findings of the guards' GuardMigrations
// as errors, Err the finding and causes first; for the entries whose
// generation failed (failed), only the findings with a cause in a later
// migration, which the entry's other errors may follow from (a fence key
// naming a token column that a migration renamed).
func guardMigrationErrors(guards []*Guard, failed []*pkgRun, loosened map[string]bool, parse func(string) (*sqlparse.File, error), dirs *migrations.Dirs) diag.List {
	var errs diag.List
	add := func(f GuardFinding) {
		errs.AddErr(&diag.Error{File: f.File, Line: f.Line, Col: f.Col, Msg: f.Msg, Err: f, Cause: f.Cause})
	}
	for _, g := range guards {
		for _, f := range g.GuardMigrations(guards) {
			add(f)
		}
	}
	for _, r := range failed {
		var g *guard.DatabaseGuard
		var err error
		if r.pkg.Engine == "mysql" {
			g, err = guard.NewMySQLEntryGuard(r.cat, loosened, r.pkg.Go.Out, r.parsedSchema(), parseMySQL(dirs))
		} else {
			g, err = guard.NewDatabaseGuard(r.cat, loosened, r.pkg.Go.Out, r.parsedSchema(), parse)
		}
		if err != nil || g == nil {
			continue
		}
		g.SetAt(guardAt(r.cfg, r.pkg, loosened, parse, dirs))
		g.SetSqlcSchema(sqlcSchemaReads(r.cfg, r.pkg))
		for _, f := range g.GuardMigrations(append(slices.Clip(guards), g)) {
			if f.Cause {
				add(f)
			}
		}
	}
	return errs
}

// parsedSchema are r's schema files that parsed, in the order the
// migration tool applies them (r.applied): the files only fencegen reads
// among the entry's own by version (applyOrder).
func (r *pkgRun) parsedSchema() []*sqlparse.File {
	var out []*sqlparse.File
	for _, i := range r.applied {
		if res := r.results[i]; res.f != nil {
			out = append(out, res.f)
		}
	}
	return out
}

// applyOrder is the order in which a migration tool applies schemaFiles,
// the entry's own files (in their order) followed by the nonempty
// fencegenOnly ones, as indexes into schemaFiles: when every file's name
// starts with a version, the two interleaved by version
// (migrations.Interleave), so that the guard's replay and the write
// analysis see a guard migration only fencegen reads before a later
// migration of sqlc's that drops its triggers with their table (trial
// t27h F2); otherwise the files only fencegen reads after the others.
// The catalog, which reads sqlc's files only, is built in sqlc's order.
func applyOrder(schemaFiles []string, fencegenOnly map[string]bool) []int {
	var own, only []string
	at := make(map[string]int, len(schemaFiles))
	for i, f := range schemaFiles {
		at[f] = i
		if fencegenOnly[f] {
			only = append(only, f)
		} else {
			own = append(own, f)
		}
	}
	names, ok := migrations.Interleave(own, only)
	if !ok {
		names = append(own, only...)
	}
	order := make([]int, len(names))
	for i, n := range names {
		order[i] = at[n]
	}
	return order
}

// fenceConflicts reports each table that two sql entries' schemas fence
// differently (another token column, or one strict and one not), at the
// later entry's mark, naming the earlier one's: a database has one guard
// trigger per table, and the entries' generated code and GuardFile must
// agree on it. Marks come from the fence keys (spread to every entry by
// config) and from COMMENT ON COLUMN in each entry's schema.
func fenceConflicts(guards []*guardRun) diag.List {
	var errs diag.List
	type mark struct {
		f   *catalog.Fence
		pkg *config.Package
	}
	first := map[string]mark{}
	for _, g := range guards {
		for _, t := range g.cat.FencedTables() {
			f := t.Fence
			if f.From != nil {
				continue // a partition or child: its parent's mark is compared
			}
			// Entries of different engines share no database.
			name := g.pkg.Engine + " " + t.QualifiedName()
			m, ok := first[name]
			if !ok {
				first[name] = mark{f, &g.pkg}
				continue
			}
			if m.f.Column == f.Column && m.f.Strict == f.Strict && m.f.Required == f.Required {
				continue
			}
			how := func(f *catalog.Fence, pkg *config.Package) string {
				return fmt.Sprintf("by column %s, %s, in %s (its %s at %s:%d:%d)", f.Column, fenceMode(f), config.EntryName(pkg), markWord(f.Source), f.File, f.Line, f.Col)
			}
			errs.Add(f.File, f.Line, f.Col, "fence: table %s is fenced %s but %s: a database has one guard trigger per table, so every sql entry must fence it alike (give the same column and mode)",
				t.QualifiedName(), how(f, &g.pkg), how(m.f, m.pkg))
		}
	}
	return errs
}

// markWord names where a fence mark comes from, for a message.
func markWord(source string) string {
	if source == "comment" {
		return "column comment"
	}
	return "fence key"
}

// guardRun is what rendering a sql entry's GuardFile needs: its catalog,
// and the tables (qualified names of the tables whose marks fence them)
// that one of its queries loosens.
type guardRun struct {
	pkg      config.Package
	cat      *catalog.Catalog
	loosened map[string]bool
	schema   []*sqlparse.File // the entry's schema files, parsed, in order
	// queries and fenced count the entry's queries, and those with a
	// guarded fenced write, for Output's summary.
	queries, fenced int
}

// parseResult is a schema or query file as read and parsed.
type parseResult struct {
	f     *sqlparse.File
	notes []string // readAndParseNoted's
	err   error
}

// pkgRun is one sql entry between preparePackage, which builds its
// catalog with the configuration's marks, and finish, which does the
// rest.
type pkgRun struct {
	cfg *Config
	pkg config.Package
	// found records the fence tables (and global column overrides) of
	// an extending configuration that the entry's schema has (they apply
	// to each entry that has them, and must be in one at least).
	found map[config.Position]bool
	cat   *catalog.Catalog
	errs  diag.List
	// notes are the fence marks' notes so far.
	notes       []string
	schemaFiles []string
	// applied are the indexes of schemaFiles in the order the migration
	// tool applies them (applyOrder), which parsedSchema keeps.
	applied      []int
	results      []parseResult
	schemaBroken bool
	qerr         diag.List
	// lastIDWriter names a guarded write of a MySQL entry that sets the
	// session's LAST_INSERT_ID() to a token ("" for none), lastIDReads
	// the reads of it in the entry's queries (noteLastInsertIDReads).
	lastIDWriter string
	lastIDReads  []lastIDRead
	// ctx, vet and vetURI are the run's: vet is set for fencegen vet,
	// whose prepare check (vetPrepare) asks the server at vetURI.
	ctx    context.Context
	vet    bool
	vetURI string
	// validated are the catalog's Validate errors (validate).
	validated diag.List
	// defs files the schema's statements by the names they define
	// (fileSchemaDefs), sharedDiffs the names another entry's schema
	// files differently (sharedDefDiffs).
	defs        map[string][]schemaDef
	sharedDiffs map[string][]differingName
}

// validate validates r's catalog, once the other entries' marks reached
// it (spreadSchemaMarks, fencesElsewhere).
func (r *pkgRun) validate() {
	r.validated = r.cat.Validate()
}

// lastIDRead is a query's read of MySQL's session LAST_INSERT_ID().
type lastIDRead struct {
	query string
	analyze.LastInsertIDRead
}

// prepareChecked reports whether vet prepares r's queries on a server:
// a PostgreSQL entry that sqlc analyses without a database (with one,
// databaseTypes has prepared them).
func (r *pkgRun) prepareChecked() bool {
	d := r.pkg.Database
	return r.vet && r.pkg.Engine != config.EngineMySQL && (d == nil || d.Managed)
}

// schemasSound reports whether no entry's schema is broken and no
// problem of errs is in a schema file: a table then missing from every
// schema is missing, not lost to a problem reported already.
func schemasSound(runs []*pkgRun, errs diag.List) bool {
	files := map[string]bool{}
	for _, r := range runs {
		if r == nil || r.schemaBroken {
			return false
		}
		for _, f := range r.schemaFiles {
			files[f] = true
		}
	}
	for _, e := range errs {
		if files[e.File] {
			return false
		}
	}
	return true
}

// preparePackage reads and parses pkg's schema and query files and
// builds its catalog, with the fence keys' marks (markConfigFences).
func preparePackage(cfg *Config, pkg config.Package, dirs *migrations.Dirs) *pkgRun {
	var errs diag.List
	found := map[config.Position]bool{}
	cat := catalog.New(catalog.WithColumnGenerator(analyze.ColumnGenerator{}))
	// The schema files are those the migration tool of each directory
	// applies (expandSchema), with notes where sqlc reads others.
	var toolNotes []string
	schemaFiles, err := expandSchema(cfg, pkg.Schema, pkg.Pos, pkg.SchemaPos, dirs, &toolNotes)
	errs = append(errs, err...)
	// The extending configuration's schema files come after the entry's,
	// read by fencegen only (config.Package.FencegenSchema).
	extra, xerr := fencegenSchemaFiles(cfg, pkg)
	errs = append(errs, xerr...)
	var fencegenOnly map[string]bool
	for _, f := range extra {
		if !slices.Contains(schemaFiles, f) {
			schemaFiles = append(schemaFiles, f)
			if fencegenOnly == nil {
				fencegenOnly = map[string]bool{}
			}
			fencegenOnly[f] = true
		}
	}
	// A schema that could not be read or parsed at all would make every
	// query fail with "relation does not exist": report the schema only.
	schemaBroken := len(err) > 0 || len(xerr) > 0
	queryFiles, qerr := expandAt(cfg, pkg.Queries, pkg.Pos, pkg.QueriesPos)
	// Every schema and query file is read and parsed concurrently
	// (pg_query keeps its parser state per thread); the catalog is then
	// built in file order, and the results and errors are used in the
	// order of a sequential run.
	results := make([]parseResult, len(schemaFiles)+len(queryFiles))
	defs := map[string][]schemaDef{}
	// The statements are filed for the comparison of the entries'
	// schemas (sharedDefDiffs, sharedSchemaChanges), which only a
	// configuration with two PostgreSQL entries or more makes: filing
	// scans each statement's text again (PostgreSQL's scanner, through
	// cgo), a twentieth of a run's instructions on a project of twenty
	// migrations, on the one goroutine that builds the catalog.
	fileDefs := pkg.Engine != config.EngineMySQL && postgresEntries(cfg) > 1
	parallel.ForHeaviestFirst(parseWeights(schemaFiles, queryFiles), func(i int) {
		if i < len(schemaFiles) {
			results[i].f, results[i].notes, results[i].err = readAndParseNoted(pkg.Engine, schemaFiles[i], true, dirs)
		} else {
			results[i].f, results[i].err = readAndParseFor(pkg.Engine, queryFiles[i-len(schemaFiles)], false, nil)
		}
	})
	// The fence keys' tables are followed from the first schema file (the
	// token line, catalog.ExpectFenceKeys); their marks come after.
	var keys []catalog.FenceKey
	for _, ft := range pkg.Fence {
		file := cfg.Path
		if ft.File != "" {
			file = ft.File
		}
		keys = append(keys, catalog.FenceKey{Schema: ft.TableSchema, Table: ft.TableName, Column: ft.ColumnName, File: file, Line: ft.Pos.Line, Col: ft.Pos.Col})
	}
	cat.ExpectFenceKeys(keys)
	order, orderNote := sqlcSchemaOrder(cfg, pkg, schemaFiles, func(order []int) diag.List {
		// A trial catalog in sqlc's order: its problems, if any.
		trial := catalog.New(catalog.WithColumnGenerator(analyze.ColumnGenerator{}))
		trial.ExpectFenceKeys(keys)
		for _, i := range order {
			if pf := results[i].f; pf != nil && !fencegenOnly[schemaFiles[i]] {
				for _, st := range pf.Stmts {
					trial.Update(pf, st)
				}
			}
		}
		return trial.Errors
	})
	for _, i := range order {
		r := results[i]
		pf, perr := r.f, r.err
		if perr != nil {
			errs = append(errs, diag.As(perr)...)
		}
		if pf == nil {
			schemaBroken = true
			continue
		}
		if fencegenOnly[schemaFiles[i]] {
			// The stored programs sqlc cannot parse, which the write
			// analysis reads from the file's text: the catalog, whose
			// tables and types make the API, is sqlc's.
			errs = append(errs, fencegenOnlyStmts(cfg, pf)...)
			continue
		}
		for _, st := range pf.Stmts {
			cat.Update(pf, st)
			if fileDefs {
				fileSchemaDefs(defs, pf, st)
			}
			// Of a schema statement's parse tree as pg_query returns it,
			// only the few kinds the guard's replay reads are read again
			// (guard.ReadsRaw: ALTER TABLE, statements on functions,
			// triggers and settings): the catalog reads the converted
			// tree. At a thousand tables the CREATE TABLE trees were 12
			// MiB of the live heap for the rest of the run (BENCHMARKS.md).
			if st.Raw != nil && !guard.ReadsRaw(st.Raw) {
				st.Raw = nil
			}
		}
	}
	cutNotes := toolNotes
	if orderNote != "" {
		cutNotes = append(cutNotes, orderNote)
	}
	for _, r := range results[:len(schemaFiles)] {
		cutNotes = append(cutNotes, r.notes...)
	}
	fenceErrs, fenceNotes := markConfigFences(cat, cfg.Path, pkg, found)
	fenceNotes = append(cutNotes, fenceNotes...)
	errs = append(errs, fenceErrs...)
	fenceNotes = append(append(fenceNotes, skippedFiles(cfg, pkg.Schema, pkg.Pos, pkg.SchemaPos)...),
		skippedFiles(cfg, pkg.Queries, pkg.Pos, pkg.QueriesPos)...)
	return &pkgRun{cfg: cfg, pkg: pkg, found: found, cat: cat, errs: errs, notes: fenceNotes,
		schemaFiles: schemaFiles, applied: applyOrder(schemaFiles, fencegenOnly), results: results,
		schemaBroken: schemaBroken, qerr: qerr, defs: defs}
}

// parseWeights is the expected cost of reading and parsing each of the
// schema files and then each of the query files, for
// parallel.ForHeaviestFirst: its size in bytes, twice that for a query
// file (sqlc's named parameters, and the first use of the many node
// kinds of queries in protobuf's decoder). A project's query file is
// often its largest and was parsed last, while the other goroutine had
// run out of files (a fifth of niks3's parse time).
func parseWeights(schemaFiles, queryFiles []string) []int64 {
	w := make([]int64, len(schemaFiles)+len(queryFiles))
	for i := range w {
		name, factor := "", int64(1)
		if i < len(schemaFiles) {
			name = schemaFiles[i]
		} else {
			name, factor = queryFiles[i-len(schemaFiles)], 2
		}
		if fi, err := os.Stat(name); err == nil {
			w[i] = fi.Size() * factor
		}
	}
	return w
}

// postgresEntries is the number of cfg's PostgreSQL entries.
func postgresEntries(cfg *Config) int {
	n := 0
	for _, p := range cfg.Packages {
		if p.Engine != config.EngineMySQL {
			n++
		}
	}
	return n
}

// spreadSchemaMarks fences, in every entry's catalog, each table that
// another entry's schema marks by COMMENT ON COLUMN, when the catalog has
// a table of that qualified name without a mark: a database has one
// guard trigger per table, so an entry reading a copy of the schema
// without the comment (a dump, another migrations directory) must not
// write it unguarded; entries of another engine are alternative
// databases, which share no table. It is noted (fencegen vet) with the
// mark's place;
// a table there without the token column is an error at the mark. A
// table marked differently in two entries is fenceConflicts' error.
func spreadSchemaMarks(runs []*pkgRun) {
	type mark struct {
		t *catalog.Table
		r *pkgRun
	}
	var marks []mark
	seen := map[string]bool{}
	for _, r := range runs {
		if r.schemaBroken {
			continue
		}
		for _, t := range r.cat.FencedTables() {
			if t.Fence.Source == "comment" && !seen[t.QualifiedName()] {
				seen[t.QualifiedName()] = true
				marks = append(marks, mark{t, r})
			}
		}
	}
	for _, m := range marks {
		f := m.t.Fence
		for _, r := range runs {
			if r == m.r || r.schemaBroken || r.pkg.Engine != m.r.pkg.Engine {
				// A MySQL and a PostgreSQL entry cannot share a database
				// (issue 27, trial r27s F3).
				continue
			}
			t := r.cat.Table(m.t.Schema, m.t.Name)
			if t == nil || t.IsView || t.Fence != nil || t.QualifiedName() != m.t.QualifiedName() {
				continue
			}
			if t.Column(f.Column) == nil {
				r.errs.Add(f.File, f.Line, f.Col, "fence: table %s is fenced by this column comment in the schema of %s, but the schema of %s has table %s without column %s: a database has one guard trigger per table, so a table fenced in one sql entry is fenced in every entry whose schema has it",
					m.t.QualifiedName(), config.EntryName(&m.r.pkg), config.EntryName(&r.pkg), t.QualifiedName(), f.Column)
				continue
			}
			r.cat.MarkFence(t, f.Column, f.Strict, "comment", f.File, f.Line, f.Col)
			if t.Fence != nil {
				t.Fence.Required = f.Required
			}
			r.notes = append(r.notes, fmt.Sprintf("%s:%d:%d: note: fence: table %s is fenced in %s too, by the column comment at %s:%d:%d in the schema of %s: a database has one guard trigger per table, so a table fenced in one sql entry is fenced in every entry whose schema has it",
				r.cfg.Path, r.pkg.Pos.Line, r.pkg.Pos.Col, t.QualifiedName(), config.EntryName(&r.pkg), f.File, f.Line, f.Col, config.EntryName(&m.r.pkg)))
		}
	}
}

// fencesElsewhere gives every entry's catalog the tables another entry
// fences (with their inheritance and partition relatives, through which a
// write reaches them) that its own schema does not define
// (catalog.FenceElsewhere): the entries share a database, so a body of
// its schema that writes a relation of that name is refused as a write
// of the fenced table it may be (trial t24 F11).
func fencesElsewhere(runs []*pkgRun) {
	for _, o := range runs {
		if o == nil || o.schemaBroken {
			continue
		}
		for _, t := range o.cat.FencedTables() {
			for _, x := range append([]*catalog.Table{t}, o.cat.Relatives(t)...) {
				for _, r := range runs {
					if r == o || r == nil || r.schemaBroken || r.pkg.Engine != o.pkg.Engine || r.cat.Table(x.Schema, x.Name) != nil {
						continue
					}
					r.cat.AddFenceElsewhere(catalog.FenceElsewhere{Schema: x.Schema, Name: x.Name, Entry: config.EntryName(&o.pkg), File: t.Fence.File, Line: t.Fence.Line})
				}
			}
		}
	}
}

// shareReaches gives every PostgreSQL entry's catalog the relations of
// every PostgreSQL entry's schema through which a write reaches a fenced
// table (analyze.Reaches; its own marked Own): the entries share a
// database, so a write of a relation that another entry's schema gives a
// trigger, a cascading foreign key or a fenced table of that name in
// another schema is judged by that schema too (trial r24 N6, N8).
func shareReaches(runs []*pkgRun) {
	pg := 0
	for _, r := range runs {
		if r != nil && !r.schemaBroken && r.pkg.Engine != config.EngineMySQL {
			pg++
		}
	}
	if pg < 2 {
		return
	}
	reaches := make([][]catalog.Reach, len(runs))
	parallel.For(len(runs), func(i int) {
		if r := runs[i]; r != nil && !r.schemaBroken && r.pkg.Engine != config.EngineMySQL {
			reaches[i] = analyze.Reaches(r.cat, config.EntryName(&r.pkg))
		}
	})
	for i, o := range reaches {
		for j, r := range runs {
			if reaches[j] == nil && (r == nil || r.schemaBroken || r.pkg.Engine == config.EngineMySQL) {
				continue
			}
			for _, x := range o {
				x.Own = i == j
				r.cat.AddReach(x)
			}
		}
	}
}

// finish analyses r's queries (its catalog validated: validate) and emits its Go
// code and guard; see Generate.
func (r *pkgRun) finish() (map[string][]byte, []string, *guardRun, diag.List) {
	cfg, pkg, found, cat := r.cfg, r.pkg, r.found, r.cat
	errs := r.errs
	fenceNotes := r.notes
	schemaFiles, results, schemaBroken, qerr := r.schemaFiles, r.results, r.schemaBroken, r.qerr
	errs = append(errs, r.validated...)
	if schemaBroken {
		// A missing query file is its own problem, reported too.
		return nil, nil, nil, append(errs, qerr...)
	}
	// The column overrides are checked once the queries are analysed
	// (their WITH entries' columns count, as sqlc matches them), their
	// errors reported here, before the queries'.
	overrideAt := len(errs)
	errs = append(errs, qerr...)
	var parsed []*sqlparse.File
	for _, r := range results[len(schemaFiles):] {
		pf, perr := r.f, r.err
		if perr != nil {
			errs = append(errs, diag.As(perr)...)
		}
		if pf == nil {
			continue
		}
		if e := missingSemicolon(pf); e != nil && pkg.Engine != config.EngineMySQL {
			// sqlc cuts a MySQL statement out by the TiDB parser's text,
			// which needs no semicolon.
			errs = append(errs, e)
		}
		parsed = append(parsed, pf)
	}
	aopts := analyze.Options{StrictFunctionChecks: pkg.StrictFunctionChecks, MySQL: pkg.Engine == config.EngineMySQL,
		LaxOrderBy: pkg.StrictOrderBy != nil && !*pkg.StrictOrderBy}
	aopts.MySQLTypes = aopts.MySQL && pkg.Go.Types()
	aopts.PGTypes = !aopts.MySQL && pkg.Go.Types()
	aopts.Database = pkg.Database != nil
	if aopts.MySQL && len(pkg.Go.Overrides) > 0 {
		// An override that changes a key parameter's Go type may make
		// its comparison with the key no lookup (mysqlguard's by-key form).
		aopts.ParamGoType = golang.ParamGoType(cat, pkg.Go)
	}
	if !aopts.MySQL {
		aopts.GuardFunction = guard.OwnedFunctions(r.parsedSchema())
	}
	var mergeNotes diag.List
	if aopts.MySQL && len(cat.FencedTables()) > 0 {
		var terrs diag.List
		aopts.MySQLSchema, terrs, mergeNotes = mysqlWriteFacts(r.parsedSchema(), cat)
		errs = append(errs, terrs...)
	} else if aopts.MySQL && mysqlMarks(r.parsedSchema(), pkg.Fence) {
		// A fenced table the schema dropped or renamed through a name in
		// another case may still be there (mysqlNameCases).
		errs = append(errs, mysqlSchemaNameCases(r.parsedSchema())...)
	}
	analyzed, aerr := analyze.AnalyzeWith(cat, parsed, aopts)
	aerr = append(aerr, refuseSharedNames(r.sharedDiffs, parsed)...)
	errs = append(errs, aerr...)
	if aopts.MySQL {
		r.lastIDWriter, r.lastIDReads = noteLastInsertIDReads(analyzed)
		noteTriggeredGroupWrites(cat, analyzed, aopts.MySQLSchema, path.Join(filepath.ToSlash(pkg.Go.Out), GuardFile))
	}
	var cteCols []*catalog.Column
	for _, f := range analyzed {
		for _, q := range f.Queries {
			cteCols = append(cteCols, q.CTEColumns...)
		}
	}
	overrideErrs, overrideNotes := checkColumnOverrides(cat, cfg.Path, pkg, found, cteCols)
	errs = append(errs[:overrideAt], append(overrideErrs, errs[overrideAt:]...)...)
	// The query files' statements, pg_query's parse trees and the
	// converted ones, are read by the analysis only, which is done: at a
	// thousand tables pg_query's trees were a third of the live heap
	// while the Go code was rendered (BENCHMARKS.md, "Peak memory at
	// 1,000 tables") and the converted trees 12 MiB. Only the files'
	// names and sources are used from here on. (The schema's statements
	// stay for the guard, the ALTER TABLE statements with their parse
	// trees: preparePackage.)
	for _, f := range parsed {
		f.Stmts = nil
	}
	if !pkg.Go.Types() {
		// sqlc's reading of functions in FROM, where it gives other
		// result columns (analyze.Query.Alt).
		for _, f := range analyzed {
			for _, q := range f.Queries {
				q.UseSqlcReading()
			}
		}
	}
	if len(qerr) == 0 && len(aerr) == 0 && len(errs) == 0 && !anyQuery(analyzed) {
		// As sqlc ("error parsing queries: no queries contained in
		// paths ..."): an entry whose query files hold no query at all.
		// One file without queries beside others with some is fine.
		var dropped []string
		for _, f := range analyzed {
			dropped = append(dropped, f.SqlcDropped...)
		}
		if len(dropped) > 0 {
			// The annotation is there; sqlc drops the statement.
			hint := ""
			if slices.ContainsFunc(dropped, func(d string) bool { return strings.Contains(d, "(LOAD DATA, ") }) {
				hint = " (rows to load: an INSERT ... VALUES query, or :copyfrom on one, which sqlc sends with LOAD DATA LOCAL INFILE)"
			}
			errs.Add(cfg.Path, pkg.Pos.Line, pkg.Pos.Col, "no queries contained in paths %s: sqlc v1.31.1 drops %s with its annotation, its MySQL converter having no node for that statement, so no query is left (as in sqlc); write it as a statement sqlc reads%s", strings.Join(pkg.Queries, ", "), strings.Join(dropped, ", "), hint)
		} else {
			errs.Add(cfg.Path, pkg.Pos.Line, pkg.Pos.Col, "no queries contained in paths %s: each query needs a comment line such as \"-- name: GetAccount :one\" above it", strings.Join(pkg.Queries, ", "))
		}
	}
	// The catalog's notes (types PostgreSQL does not know, foreign keys
	// to relations the schema never creates) come first.
	var notes []string
	for _, n := range cat.Notes() {
		var unknown *catalog.UnknownTypeError
		if errors.As(n.Err, &unknown) {
			// What Go type the unknown name gets is the emitter's to say
			// (sqlc maps blob to []byte; trial x23 F1).
			m := *n
			notNull, nullable := golang.UnknownTypeGo(golang.Input{Catalog: cat, Options: pkg.Go}, unknown.Type)
			typed := notNull
			if nullable != notNull {
				typed += " (" + nullable + " where nullable)"
			}
			m.Msg = fmt.Sprintf("note: %v; its values are typed %s", unknown, typed)
			n = &m
		}
		notes = append(notes, n.Error())
	}
	if pkg.Engine == config.EngineMySQL {
		for _, n := range cat.FencedActionNotes() {
			notes = append(notes, n.Error())
		}
		for _, n := range mergeNotes {
			notes = append(notes, n.Error())
		}
	}
	notes = append(notes, fenceNotes...)
	notes = append(notes, overrideNotes...)
	notes = append(notes, optOutNotes(analyzed)...)
	for _, f := range analyzed {
		notes = append(notes, f.Notes...)
		for _, q := range f.Queries {
			notes = append(notes, q.Notes...)
		}
	}
	if r.vetURI != "" && r.prepareChecked() && len(errs) == 0 {
		where := fmt.Sprintf("%s:%d:%d", cfg.Path, pkg.Pos.Line, pkg.Pos.Col)
		notes = append(notes, vetPrepare(r.ctx, r.vetURI, where, r.parsedSchema(), analyzed)...)
	}
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
			if pkg.Go.SQLPackage != config.SQLPackageStdlib && q.Fence == nil && len(q.InSlices) > 0 && !pkg.Go.Types() {
				// pgx (v5 and v4) sends sqlc.slice as one array parameter, which
				// IN (...) compares as one value: PostgreSQL refuses the
				// query when it runs. sqlc generates it; so does
				// fencegen for a configuration sqlc reads, with sqlc's
				// text (IN ($n)) and a note. A fenced write, and a
				// configuration of fencegen's own (postgresql_types
				// on), refuse it.
				for _, s := range q.InSlices {
					notes = append(notes, fmt.Sprintf("%s:%d:%d: note: query %s: PostgreSQL refuses this query when it runs: %s; generated as sqlc generates it", q.File, s.Line, s.Col, q.Name, golang.InSliceRefusal(pkg.Go, q, s)))
					q.SQL = strings.ReplaceAll(q.SQL, analyze.SliceMarker(s.Name), fmt.Sprintf("$%d", s.Number))
				}
				q.InSlices = nil
			}
			for _, s := range q.InSlices {
				if msg := golang.InSliceRefusal(pkg.Go, q, s); msg != "" {
					errs.Add(q.File, s.Line, s.Col, "%s", msg)
				}
			}
		}
	}
	if len(errs) > 0 {
		return nil, nil, nil, errs
	}
	if d := pkg.Database; d != nil && !d.Managed && !pkg.Go.Types() {
		// sqlc types the queries from the database's answer (issue 23,
		// trial sw4 F2: dbtypes.go).
		if errs := databaseTypes(cfg, pkg, analyzed); len(errs) > 0 {
			return nil, nil, nil, errs
		}
	}
	for _, f := range analyzed {
		for _, q := range f.Queries {
			// Kept: its SQL constant (and params struct) is written, as
			// sqlc writes them, with no method.
			if note := golang.Skipped(pkg.Go, q); note != "" {
				notes = append(notes, note)
			}
			notes = append(notes, golang.RepeatedArgNotes(pkg.Go, q)...)
			// Where fencegen's method sends sqlc.slice so that it runs.
			notes = append(notes, golang.SliceNotes(pkg.Go, q)...)
		}
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
	in := golang.Input{Catalog: cat, Files: analyzed, Options: opts, Sources: sources}
	rendered, err2 := golang.Emit(in)
	if l, ok := err2.(diag.List); ok {
		// Located problems (golang's collision check).
		return nil, nil, nil, append(errs, l...)
	} else if err2 != nil {
		errs.Add(cfg.Path, pkg.Pos.Line, pkg.Pos.Col, "%v", err2)
		return nil, nil, nil, errs
	}
	// Where postgresql_types (mysql_types) would declare another Go type
	// than sqlc's.
	notes = append(notes, golang.APINotes(in)...)
	// Where sqlc's pgx/v4 type is one pgx/v4 cannot read or send.
	notes = append(notes, golang.PgxV4Notes(in)...)
	if d := pkg.Database; d != nil && d.Managed {
		// sqlc types these queries from sqlc Cloud's database's answer
		// (issue 23, trial sw4 F2), which fencegen does not ask.
		notes = append(notes, golang.DatabaseNotes(in, "database: managed")...)
	}
	if note := pgTypesAdvice(cfg, pkg, notes); note != "" {
		notes = append(notes, note)
	}
	files := map[string][]byte{}
	for name, b := range rendered {
		files[path.Join(filepath.ToSlash(opts.Out), name)] = b
	}
	// A non-strict query on a strict table makes that table's trigger
	// non-strict: a strict one would refuse the query's writes.
	gr := &guardRun{pkg: pkg, cat: cat, loosened: map[string]bool{}, schema: r.parsedSchema()}
	for _, f := range analyzed {
		for _, q := range f.Queries {
			gr.queries++
			if q.Fence != nil {
				gr.fenced++
			}
			if q.Fence != nil && q.Fence.Loosens {
				gr.loosened[guard.MarkedTable(q.Fence.Table).QualifiedName()] = true
				notes = append(notes, fmt.Sprintf("%s:%d:%d: note: query %s is non-strict on strict table %s, so the guard trigger in %s refuses only lower tokens on that table",
					q.File, q.Line, q.Col, q.Name, q.Fence.Table.QualifiedName(), GuardFile))
			}
		}
	}
	return files, notes, gr, nil
}

// pgTypesAdvice says where to set postgresql_types (mysql_types on a
// MySQL entry) when notes advise it ("postgresql_types: true declares
// ...") and the configuration is one whose file cannot take it: sqlc
// refuses the key in its own file ("field postgresql_types not found in
// type opts.Options"), so a team that keeps running sqlc sets it in a
// fencegen.yaml that extends that file (config's extension). It returns
// "" when no note advises it, or the file read is fencegen's own, whose
// gen.go takes it.
func pgTypesAdvice(cfg *Config, pkg config.Package, notes []string) string {
	opt := pkg.Go.TypesOption()
	if pkg.Go.Types() || !slices.ContainsFunc(notes, func(n string) bool { return strings.Contains(n, opt+": true") }) {
		return ""
	}
	base := filepath.Base(cfg.Path)
	switch {
	case cfg.Extension != "":
		return fmt.Sprintf("%s:%d:%d: note: %s is fencegen's option, which sqlc refuses in %s: turn it on for every entry in %s, which extends %s: gen: {go: {%s: true}}",
			cfg.Path, pkg.Pos.Line, pkg.Pos.Col, opt, base, filepath.Base(cfg.Extension), base, opt)
	case strings.HasPrefix(base, "fencegen."):
		return ""
	}
	return fmt.Sprintf("%s:%d:%d: note: %s is fencegen's option, which sqlc refuses in %s (field %s not found): to turn it on and keep %s as sqlc reads it, write a fencegen.yaml beside it with extends: %s and gen: {go: {%s: true}}",
		cfg.Path, pkg.Pos.Line, pkg.Pos.Col, opt, base, opt, base, base, opt)
}

// anyQuery reports whether files hold at least one query.
func anyQuery(files []*analyze.File) bool {
	for _, f := range files {
		if len(f.Queries) > 0 {
			return true
		}
	}
	return false
}

// optOutNotes lists the queries that opted out of fencing ("-- @fence off:
// <reason>"), one note per fenced table each writes unguarded, in file
// order, as "file:line:col: note: query X writes fenced table T without
// the guard: reason", and one "query X may write any fenced table without
// the guard (fencegen cannot tell which): reason" for a query whose writes
// the analysis cannot tell (analyze.OptOut.Unknown).
func optOutNotes(files []*analyze.File) []string {
	var notes []string
	for _, f := range files {
		for _, q := range f.Queries {
			if q.OptOut == nil {
				continue
			}
			for _, t := range q.OptOut.Named {
				notes = append(notes, fmt.Sprintf("%s:%d:%d: note: query %s writes fenced table %s without the guard: %s",
					q.File, q.OptOut.Line, q.OptOut.Col, q.Name, t, q.OptOut.Reason))
			}
			if q.OptOut.Unknown {
				notes = append(notes, fmt.Sprintf("%s:%d:%d: note: query %s may write any fenced table without the guard (fencegen cannot tell which): %s",
					q.File, q.OptOut.Line, q.OptOut.Col, q.Name, q.OptOut.Reason))
			}
		}
	}
	return notes
}

// GuardFile is the SQL fencegen writes beside the generated code of a
// package with fenced tables: a trigger per fenced table that refuses any
// UPDATE lowering the stored token (fenceimpl.SQLState), for writers that
// do not use the generated code (see guard.File).
const GuardFile = guard.File

// Guard is the database-side guard of one sql entry, as Generate found it:
// its Migration, NextMigration and GuardMigrations (see guard.DatabaseGuard).
type Guard = guard.DatabaseGuard

// GuardFinding is one way the guard migrations among an entry's schema
// files differ from the guard this fencegen writes (see guard.Finding).
type GuardFinding = guard.Finding

// GuardIntoError is Guard.NextMigration's error when a finding's fix
// belongs in a migration of the team's that -applied does not name (see
// guard.IntoError).
type GuardIntoError = guard.IntoError

// ErrTokenColumn is the sentinel under a Problem (errors.Is) whose
// fencing token column cannot be fenced: its type (not bigint or
// integer), a generated, identity, serial or AUTO_INCREMENT column, a
// column that does not exist, a view (see catalog.ErrFence). fencegen
// guard generates the same schema and stops at it as generate does.
var ErrTokenColumn = catalog.ErrFence

// GuardTemplateVersion numbers the guard's trigger functions as this
// fencegen writes them (see guard.TemplateVersion).
const GuardTemplateVersion = guard.TemplateVersion

// MigrationFormats are the migration tools fencegen guard writes for
// (see guard.MigrationFormats).
var MigrationFormats = guard.MigrationFormats

// modeWord names a fencing mode as the marks spell it.
func modeWord(strict bool) string {
	if strict {
		return "strict"
	}
	return "non-strict"
}

// fenceMode names f's mode: "strict", "required" or "non-strict".
func fenceMode(f *catalog.Fence) string {
	if f.Required {
		return "required"
	}
	return modeWord(f.Strict)
}

// nameEntriesOfNotes names the sql entry in each note (notes[i] are entry
// i's) whose place (file:line:col) another entry has a note at too:
// entries that read the same files are analysed once each, so a query's
// note comes once per entry, and the API of each differs with its
// sql_package ("sql entry pgxv4: query CountByDay: ..."), which the
// place alone does not tell apart. A model's note names its entry
// whenever there are several (modelNote).
func nameEntriesOfNotes(pkgs []config.Package, notes [][]string) [][]string {
	const sep = ": note: "
	entries := map[string]map[int]bool{}
	for i, list := range notes {
		for _, n := range list {
			if at, _, ok := strings.Cut(n, sep); ok {
				if entries[at] == nil {
					entries[at] = map[int]bool{}
				}
				entries[at][i] = true
			}
		}
	}
	out := make([][]string, len(notes))
	for i, list := range notes {
		for _, n := range list {
			if at, text, ok := strings.Cut(n, sep); ok && (len(entries[at]) > 1 || len(pkgs) > 1 && modelNote(text)) {
				n = at + sep + config.EntryName(&pkgs[i]) + ": " + text
			}
			out[i] = append(out[i], n)
		}
	}
	return out
}

// modelNote reports whether note text (after "note: ") is about a
// model's column, placed at its table in the schema, which entries
// share with their own overrides (each entry's model may differ): such a
// note names its entry whenever there are several.
func modelNote(text string) bool {
	return strings.HasPrefix(text, "column ") || strings.HasPrefix(text, "the model of ")
}

// GuardNotes are the notes of out that fencegen guard prints too: the
// foreign keys whose actions, and the MERGE tables whose writes, write a
// fenced table's rows past the guard triggers (MariaDB and MySQL run no
// trigger for them).
func GuardNotes(out *Output) []string {
	var notes []string
	for _, v := range out.Vet {
		if strings.Contains(v, catalog.TriggerlessActionNote) || strings.Contains(v, mergeTriggerlessNote) {
			notes = append(notes, v)
		}
	}
	return notes
}

// noteLastInsertIDReads notes, at each read of the session's
// LAST_INSERT_ID() in a MySQL package's queries (the call without an
// argument, @@identity, @@last_insert_id), that a guarded write of the
// package sets the value: the guard carries the stored and presented
// tokens through LAST_INSERT_ID(expr) (docs/mysql.md), so on the same
// connection or transaction the read then returns a token (or 0 after a
// refusal), not the id an INSERT generated. Restoring the value would
// take a round trip more per write (or multiStatements), so the
// generated code leaves it and vet says where it is read. It returns the
// writer's name ("" for none) and the reads, which noteLastInsertIDElsewhere
// notes when another entry of the database holds the writer.
func noteLastInsertIDReads(files []*analyze.File) (string, []lastIDRead) {
	var writer *analyze.Query
	var reads []lastIDRead
	for _, f := range files {
		for _, q := range f.Queries {
			if writer == nil && q.Fence != nil && q.Fence.MySQL != nil && q.Fence.MySQL.Form != mysqlguard.Store && strings.Contains(q.SQL, "LAST_INSERT_ID(") {
				writer = q
			}
			for _, at := range q.ReadsLastInsertID {
				reads = append(reads, lastIDRead{query: q.Name, LastInsertIDRead: at})
			}
		}
	}
	if writer == nil {
		return "", reads
	}
	for _, f := range files {
		for _, q := range f.Queries {
			for _, at := range q.ReadsLastInsertID {
				q.Notes = append(q.Notes, lastIDNote(q.Name, at, "the guarded writes of this package set", writer.Name))
			}
		}
	}
	return writer.Name, reads
}

// lastIDNote is the note on query's read at of LAST_INSERT_ID(); who
// says which writes set it, one of them being writer.
func lastIDNote(query string, at analyze.LastInsertIDRead, who, writer string) string {
	form := at.Form + ","
	if at.Form != "LAST_INSERT_ID()" {
		form = at.Form + ", the session's LAST_INSERT_ID(),"
	}
	return fmt.Sprintf("%s: note: query %s reads %s which %s to a fencing token (%s, for one): run after one of them on the same connection or transaction, it returns that token, or 0 after a refusal, not the id of an insert; take the id from the INSERT's own result (:execlastid, :execresult) or read LAST_INSERT_ID() right after the INSERT", at.At, query, form, who, writer)
}

// noteLastInsertIDElsewhere notes the reads of LAST_INSERT_ID() in a
// MySQL entry without a guarded write of its own when another MySQL
// entry has one: the entries share the database (as fencesElsewhere
// takes them), and a connection of the one package may run the other's
// write before the read (one *sql.DB, or a transaction passed to both
// packages' New). The notes are appended to notes[i], entry i's.
func noteLastInsertIDElsewhere(runs []*pkgRun, notes [][]string) {
	writer, entry := "", ""
	for _, r := range runs {
		if r != nil && r.pkg.Engine == config.EngineMySQL && r.lastIDWriter != "" {
			writer, entry = r.lastIDWriter, config.EntryName(&r.pkg)
			break
		}
	}
	if writer == "" {
		return
	}
	for i, r := range runs {
		if r == nil || r.pkg.Engine != config.EngineMySQL || r.lastIDWriter != "" {
			continue
		}
		for _, rd := range r.lastIDReads {
			notes[i] = append(notes[i], lastIDNote(rd.query, rd.LastInsertIDRead, "the guarded writes of "+entry+", on the same database, set", writer))
		}
	}
}

// noteTriggeredGroupWrites notes, at each guarded UPDATE of a table the
// schema gives a trigger (fencegen's guard triggers among them), of
// several rows (mysqlguard.All) or by key (mysqlguard.ByKey), that sets a
// column whose stored value the guard's locked read cannot compare
// exactly (mysqlInexact), that such a write needs clientFoundRows=true in
// the DSN: a trigger clears the reply's last-insert id, by which the
// guard tells an UPDATE that matched rows already holding the values
// from one that matched none. The locked read then compares each
// assigned column with its expression as the column stores it
// (mysqlguard.Spec.StoreAs), which is exact for the types mysqlInexact
// leaves out; for the others ('ab ' into CHAR reads 'ab') a retry that
// changes nothing may read as changed, and without the matched-rows
// count such a write ends in fence.ErrConcurrentChange after
// fenceimpl.MaxAttempts runs (docs/mysql.md; issue 27, trials t27 F6 and
// t27s F1).
//
// fencegen's own BEFORE UPDATE guard trigger counts whether the schema
// installs it (a guard migration) or the team applies the guard file
// fencegen writes beside the code (guardFile) or a guard migration it
// has not written yet: the note is given for every fenced table (trial
// t27h F6), naming that trigger.
func noteTriggeredGroupWrites(cat *catalog.Catalog, files []*analyze.File, schema *mysqlwrites.Schema, guardFile string) {
	if schema == nil {
		return
	}
	for _, f := range files {
		for _, q := range f.Queries {
			if q.Fence == nil || q.Fence.MySQL == nil || q.Fence.Kind != "update" {
				continue
			}
			var what string
			switch q.Fence.MySQL.Form {
			case mysqlguard.All:
				what = "several rows of"
			case mysqlguard.ByKey:
				what = "a row, by key, of"
			default:
				continue
			}
			var inexact []string
			for _, name := range q.Fence.MySQL.Assigned {
				if c := q.Fence.Table.Column(name); c == nil || mysqlInexact(c.Type) {
					typ := "unknown type"
					if c != nil {
						typ = strings.ToUpper(c.Type.Name)
						if e := cat.Enum(c.Type.Schema, c.Type.Name); e != nil && e.Linked == c {
							typ = "ENUM or SET" // sqlc's type <table>_<column>
						}
					}
					inexact = append(inexact, name+" ("+typ+")")
				}
			}
			if len(inexact) == 0 {
				continue
			}
			var names []string
			guardTrigger := guard.MySQLTriggerName("bu", q.Fence.Table.Name)
			installed := false
			for _, tr := range schema.Triggers {
				if strings.EqualFold(tr.Table, q.Fence.Table.Name) {
					names = append(names, tr.Name)
					installed = installed || strings.EqualFold(tr.Name, guardTrigger)
				}
			}
			has := strings.Join(names, ", ")
			if !installed {
				// The guard trigger the team installs from the guard
				// file (or a guard migration).
				if has != "" {
					has += ", and "
				}
				has += guardTrigger + " once the guard fencegen writes (" + guardFile + ", or its migration: fencegen guard) is applied"
			}
			q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: query %s writes %s fenced table %s, which has trigger(s) %s: a trigger clears the reply's last-insert id, so a retry that changes nothing is told from a write that matched none by comparing each row with what the UPDATE writes, as the column stores it; for column(s) %s that comparison errs towards \"differs\" where the column stores a value otherwise than written ('ab ' into CHAR reads 'ab'; a FLOAT rounds): such a write fails with fence.ErrConcurrentChange after %d attempts unless the DSN sets clientFoundRows=true (go-sql-driver/mysql); set clientFoundRows=true", q.File, q.Line, q.Col, q.Name, what, q.Fence.Table.Name, has, strings.Join(inexact, ", "), fenceimpl.MaxAttempts))
		}
	}
}

// mysqlInexact reports whether the guard's locked read may find a value
// of MySQL type t unequal to the same value written again: every type
// but the integers, DECIMAL and the temporal types (compared as the
// column stores them, mysqlguard.Spec.StoreAs), and the variable-length
// texts and byte strings (compared byte for byte or as utf8mb4 text,
// stored as written). CHAR and BINARY pad, FLOAT and DOUBLE round,
// MySQL's JSON normalizes, ENUM and SET take a member by number or in
// another spelling, BIT and YEAR convert.
func mysqlInexact(t catalog.Type) bool {
	if t.ArrayDims > 0 || t.Schema != catalog.MySQLSchema {
		return true
	}
	switch t.Name {
	case "tinyint", "smallint", "mediumint", "int", "integer", "bigint",
		"decimal", "dec", "numeric", "fixed",
		"datetime", "timestamp", "time", "date",
		"varchar", "varbinary", "text", "tinytext", "mediumtext", "longtext",
		"blob", "tinyblob", "mediumblob", "longblob":
		return false
	}
	return true
}
