package guard

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/migrations"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/writes"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
	"github.com/fencegen/fencegen/templates"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// File is the migration SQL fencegen writes beside the generated code
// of a package with fenced tables: a trigger per fenced table that refuses
// any UPDATE lowering the stored token (fenceimpl.SQLState), for writers that
// do not use the generated code.
const File = "fencegen_guard.sql"

type guardTable struct {
	Table, QualifiedTable, Function, Column, Trigger string
	Strict                                           bool
	// Required is the guard of mode required (catalog.Fence.Required):
	// besides refusing an UPDATE that lowers the token (or sets it below
	// 1), it refuses an UPDATE that does not set the token column. Its
	// function runs from two triggers, in PostgreSQL's order of trigger
	// names: fencegen_guard, BEFORE UPDATE OF the token column, which
	// fires only when the UPDATE sets it (PostgreSQL docs, CREATE
	// TRIGGER), checks the token and marks the row by negating it;
	// fencegen_guard_token, BEFORE every UPDATE, restores a marked token
	// and refuses an unmarked row (SQLSTATE fenceimpl.MissingTokenSQLState).
	Required bool
	// SchemaName, TableName and ColumnName are the table's schema and
	// name and its token column, unquoted: the trigger's error carries
	// them in its SCHEMA, TABLE and COLUMN fields (fenceimpl.SQLState).
	SchemaName, TableName, ColumnName string
	// Comment is set when a column comment marks the token column (the
	// table's own, or its ancestor's), not a fence key of the
	// configuration: the mark follows a RENAME COLUMN, and the trigger
	// (template 3) finds the column by it.
	Comment bool
	// Tag is the dollar-quote tag of the function's body
	// (templates.DollarTag of the names the body holds): "fencegen",
	// longer when a name holds "$fencegen".
	Tag string
	// First is set on a table of guardData.Removed that is a partition
	// of a table the migration guards: PostgreSQL clones that table's
	// trigger onto its partitions under the same name, and refuses it
	// while the partition has a trigger of that name of its own, so the
	// partition's is dropped before (trigger "fencegen_guard" for
	// relation ... already exists; PostgreSQL 15, tried).
	First bool
}

// MarkedTable is the table whose mark fences t: t, or the ancestor it
// inherits its fence from. A non-strict query on any table of that family
// makes all their guard triggers non-strict: a partition runs the trigger
// of its partitioned table, and a write through a parent reaches the
// children's rows.
func MarkedTable(t *catalog.Table) *catalog.Table {
	if t.Fence != nil && t.Fence.From != nil {
		return t.Fence.From
	}
	return t
}

// guardData is the guard template's data for cat's fenced tables, or
// nil when it has none.
type guardData struct {
	Tables    []guardTable
	SQLState  string
	AnyStrict bool
	// MissingSQLState is the SQLSTATE of a required guard's refusal of an
	// UPDATE that does not set the token (fenceimpl.MissingTokenSQLState);
	// AnyRequired reports a table with such a guard.
	MissingSQLState string
	AnyRequired     bool
	// Format is "" for File, else one of MigrationFormats; Down asks
	// for golang-migrate's down migration.
	Format string
	Down   bool
	// TemplateVersion is TemplateVersion, recorded in a migration's
	// header; Removed are the guards of tables that earlier guard
	// migrations installed and that are no longer fenced, which a new
	// migration drops (NextMigration).
	TemplateVersion int
	Removed         []guardTable
	// Previous is the guard earlier guard migrations installed, which
	// the down section of a new one restores, and Added the tables they
	// did not guard, whose guards it drops; both nil for a first guard
	// migration, whose down section drops every guard.
	Previous []previousGuard
	Added    []guardTable
	// Orphans are guard functions that earlier guard migrations created
	// and no trigger runs any more (their table was dropped or renamed):
	// a new migration drops them.
	Orphans []string
}

// previousGuard is the guard of one table as earlier guard migrations
// installed it: Text is its CREATE OR REPLACE FUNCTION statement, verbatim.
type previousGuard struct {
	QualifiedTable, Function, Trigger, Text string
	// Required is set when Text is a required guard's function (run by
	// two triggers), Column then its token column as quoted in SQL;
	// DropToken when the down section must drop the second trigger,
	// fencegen_guard_token (the new or the earlier guard is required).
	Required, DropToken bool
	Column              string
}

// requiredText reports whether text is the function of a required guard
// (guardTable.Required).
func requiredText(text string) bool {
	return strings.Contains(text, "TG_NAME = 'fencegen_guard_token'")
}

// renderGuard renders the guard template: File, or one file of a
// migration (data.Format, data.Down).
func renderGuard(data *guardData) ([]byte, error) {
	var b strings.Builder
	if err := templates.Templates().ExecuteTemplate(&b, "guard.sql.tmpl", data); err != nil {
		return nil, err
	}
	return []byte(b.String()), nil
}

// newGuardData collects the guard template's data for cat's fenced
// tables: one trigger per table, none for partitions of a fenced
// partitioned table; loosened names the tables whose trigger is
// non-strict. It returns nil when cat has no fenced table.
func newGuardData(cat *catalog.Catalog, loosened map[string]bool) (*guardData, error) {
	data := &guardData{SQLState: fenceimpl.SQLState, MissingSQLState: fenceimpl.MissingTokenSQLState, TemplateVersion: TemplateVersion}
	functions := map[string]string{} // guard function name → table
	for _, t := range cat.FencedTables() {
		if p := t.PartitionOf(); p != nil && p.Fence != nil {
			// PostgreSQL clones a partitioned table's row triggers to
			// its partitions, present and future (PostgreSQL docs,
			// CREATE TRIGGER, "Notes"); one of its own would collide.
			continue
		}
		qt := sqlparse.QuoteIdent(t.Name)
		schema := t.Schema
		if schema == "" {
			schema = catalog.DefaultSchema
		}
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
		strict := t.Fence.Strict && !loosened[MarkedTable(t).QualifiedName()]
		required := t.Fence.Required && !strict // strict refuses an UPDATE without a token already
		data.Tables = append(data.Tables, guardTable{
			Table: t.QualifiedName(), QualifiedTable: qt, Function: fn, Column: sqlparse.QuoteIdent(t.Fence.Column),
			Trigger: "fencegen_guard", Strict: strict, Required: required,
			SchemaName: schema, TableName: t.Name, ColumnName: t.Fence.Column,
			Comment: MarkedTable(t).Fence != nil && MarkedTable(t).Fence.Source == "comment",
			// The body holds these names (quoted, or in literals, whose
			// doubled quotes add no $).
			Tag: templates.DollarTag(sqlparse.QuoteIdent(t.Fence.Column), t.Fence.Column, t.QualifiedName(), schema, t.Name),
		})
		data.AnyStrict = data.AnyStrict || strict
		data.AnyRequired = data.AnyRequired || required
	}
	if len(data.Tables) == 0 {
		return nil, nil
	}
	return data, nil
}

// MigrationFormats are the migration tools GuardMigration writes for:
//   - golang-migrate: <version>_fencegen_guard.up.sql and .down.sql;
//   - goose: <version>_fencegen_guard.sql with -- +goose Up and Down, each
//     function between -- +goose StatementBegin and StatementEnd (goose
//     splits statements at semicolons otherwise);
//   - dbmate: <version>_fencegen_guard.sql with -- migrate:up and down;
//   - atlas: <version>_fencegen_guard.sql, up only (Atlas versioned
//     migrations have no down section; run atlas migrate hash after adding
//     it, so that atlas.sum lists it).
var MigrationFormats = []string{"golang-migrate", "goose", "dbmate", "atlas"}

// upMark and downMark are the lines that start the up and the down
// section of a goose or a dbmate migration ("" for the other formats).
var (
	upMark   = map[string]string{"goose": "-- +goose Up", "dbmate": "-- migrate:up"}
	downMark = map[string]string{"goose": "-- +goose Down", "dbmate": "-- migrate:down"}
)

// DatabaseGuard is the database-side guard of one sql entry (gen.Guard):
// the trigger of each fenced table, File's SQL and the migrations that
// fencegen guard writes of it, and how the guard migrations among the
// entry's schema files differ from it.
type DatabaseGuard struct {
	// Out is the entry's out directory as the configuration writes it.
	Out  string
	data *guardData
	// schema are the entry's schema files as parsed, in the order they
	// are read (GuardMigrations replays the guard migrations among them,
	// and follows the others' statements); parse reads another migration
	// file as a schema file is read (NextMigration); tables holds the
	// quoted, qualified name of every table in its catalog.
	schema []*sqlparse.File
	parse  func(name string) (*sqlparse.File, error)
	tables map[string]bool
	// unfence are the tables fencegen guard -unfence names (Unfence).
	unfence []string
	// applied are the migrations fencegen guard -applied names (Applied).
	applied []string
	// mysql holds the guard of an entry with engine mysql (mysqlmig.go),
	// which the methods render instead of data's PostgreSQL triggers;
	// mysqlEntry is set for such an entry, fenced or not, whose schema
	// GuardMigrations replays as MySQL's (mysqlreplay.go).
	mysql      []mysqlGuardTable
	mysqlEntry bool
	// mysqlRemove is what a MySQL guard migration removes besides
	// (NextMigration).
	mysqlRemove mysqlRemoval
	// at returns the guard of the entry's schema as its schema files up
	// to one of them leave it (SetAt), for fencegen guard -into of a
	// migration that newer ones follow (Inline).
	at func(files, later []*sqlparse.File) (*DatabaseGuard, error)
	// sqlcReads, set for an entry with engine mysql of a configuration
	// sqlc reads (SetSqlcSchema), returns why a guard migration must not
	// be written at a path, or nil: sqlc reads that file as schema.
	sqlcReads func(path string) error
}

// SetSqlcSchema gives g, the guard of an entry with engine mysql of a
// configuration that sqlc v1.31.1 reads too, the function that returns
// why a guard migration must not be written at a path (nil when it may):
// sqlc reads the file as a schema file of the entry, and its MySQL parser
// stops at CREATE TRIGGER with a syntax error, so sqlc generate would
// fail (trial t27h F1). Writable and Inline refuse such a path, and a
// Finding whose Into is one is marked SqlcReadsInto.
func (g *DatabaseGuard) SetSqlcSchema(reads func(path string) error) {
	g.sqlcReads = reads
}

// Writable returns nil when a guard migration may be written at path,
// else why not: the entry's configuration is one sqlc reads and it reads
// path as schema (SetSqlcSchema).
func (g *DatabaseGuard) Writable(path string) error {
	if g.sqlcReads == nil {
		return nil
	}
	return g.sqlcReads(path)
}

// MySQL reports whether g is the guard of an entry with engine mysql.
func (g *DatabaseGuard) MySQL() bool { return g.mysqlEntry }

// SchemaFiles are the names of g's schema files, in the order the
// migration tool applies them (paths relative to the current directory,
// slash-separated, as the schema entries name them).
func (g *DatabaseGuard) SchemaFiles() []string {
	out := make([]string, len(g.schema))
	for i, f := range g.schema {
		out[i] = f.Name
	}
	return out
}

// Migrations are the migrations NextMigration replays given files, the
// up migrations of the directory it writes to, in the order the migration
// tool applies them: files, and for an entry with engine mysql its schema
// files too (mysqlReplayFiles).
func (g *DatabaseGuard) Migrations(files []string) []string {
	if !g.mysqlEntry {
		return files
	}
	return g.mysqlReplayFiles(files)
}

// mysqlReplayFiles are the migrations NextMigration replays for an entry
// with engine mysql, given files, the up migrations of the directory it
// writes to: the entry's schema files (in the order the migration tool
// applies them, the files only fencegen reads among sqlc's), and those of
// files that are not among them, interleaved by version; the check
// (GuardMigrations) replays the same. When such a file or a schema file
// has no version, files alone, whose order is known.
func (g *DatabaseGuard) mysqlReplayFiles(files []string) []string {
	names := g.SchemaFiles()
	var extra []string
	for _, f := range files {
		if !slices.ContainsFunc(names, func(n string) bool { return samePath(n, f) }) {
			extra = append(extra, f)
		}
	}
	if len(names) == 0 {
		return files
	}
	if len(extra) == 0 {
		return names
	}
	if merged, ok := migrations.Interleave(names, extra); ok {
		return merged
	}
	return files
}

// SetAt gives g the function that builds the guard of its entry's schema
// as a prefix of its schema files (files, parsed, in order; later are the
// others) leaves it: a catalog of those files alone, with the
// configuration's fence keys (a key's table and column by the names they
// have there, before later's renames), and the tables' modes as the
// entry's queries loosen them. It is nil when that schema has no fenced
// table and no guard migration, and an error when a fence key names a
// table or column that schema does not have. Inline needs it to add a
// guard to a migration that newer ones follow: the guard there is the
// one of the schema as that migration leaves it.
func (g *DatabaseGuard) SetAt(at func(files, later []*sqlparse.File) (*DatabaseGuard, error)) {
	g.at = at
}

// NewDatabaseGuard returns the database-side guard of the sql entry whose
// catalog is cat (built from the schema files schema, parsed, in order;
// parse reads another file as they were read) and whose Go code goes to
// out: one trigger per fenced table, non-strict for the tables (by the
// qualified name of the table whose mark fences them, MarkedTable) that
// loosened names. It returns nil when cat has no fenced table and schema
// holds no guard migration (with one, the guard is kept, without tables:
// it has guard triggers to remove), and an error when two tables' guard
// functions would share a name.
func NewDatabaseGuard(cat *catalog.Catalog, loosened map[string]bool, out string, schema []*sqlparse.File, parse func(name string) (*sqlparse.File, error)) (*DatabaseGuard, error) {
	data, err := newGuardData(cat, loosened)
	if err != nil {
		return nil, err
	}
	if data == nil {
		if !slices.ContainsFunc(schema, func(f *sqlparse.File) bool { _, ok := isGuardMigration(f.Src); return ok }) {
			return nil, nil
		}
		data = &guardData{SQLState: fenceimpl.SQLState, TemplateVersion: TemplateVersion}
	}
	return &DatabaseGuard{Out: out, data: data, schema: schema, parse: parse, tables: quotedTables(cat)}, nil
}

// Unfence is fencegen guard -unfence: the migration NextMigration and
// Inline write also removes the guard of tables (quoted, qualified as a
// guard migration names them, e.g. jobs or app.jobs), each a fenced table
// that a migration dropped and created again without its fencing mark
// (Finding.Unfence), and so records that it is no longer fenced on
// purpose. They return an error for a table that is not such a table.
func (g *DatabaseGuard) Unfence(tables []string) { g.unfence = tables }

// Applied is fencegen guard -applied: files (paths as the schema entries
// name them, or as the current directory reaches them) are migrations
// that a finding's fix belongs in (Finding.Into) but that are applied
// somewhere already, so no longer change: NextMigration then writes the
// new guard migration after the newest although, between the two, the
// database does not guard the table. Without it, NextMigration refuses
// while such a finding stands (trial r24 F3: the plain command wrote a
// migration that silenced the finding and left that state unguarded).
func (g *DatabaseGuard) Applied(files []string) { g.applied = files }

// acknowledged reports whether file is one of g.applied.
func (g *DatabaseGuard) acknowledged(file string) bool {
	return slices.ContainsFunc(g.applied, func(a string) bool { return samePath(a, file) })
}

// checkInto returns an error for the first of found whose fix belongs in
// a migration of the team's (Into) that -applied does not name: a new
// guard migration after the newest would leave every state from that
// migration to it unguarded. PostgreSQL's refusal of the migration
// (whyRequired) is an error whatever -applied says: no database gets past
// it, so a guard migration after it is never reached (trial t24 F5). A
// finding with Unfence is checkUnfence's.
func (g *DatabaseGuard) checkInto(found []Finding) error {
	for _, f := range found {
		if f.Into != "" && f.Why == whyRequired {
			return fmt.Errorf("%s:%d:%d: PostgreSQL refuses this migration as written: it %s; a new guard migration after it would never be reached: add the guard to it with -into %s", f.File, f.Line, f.Col, whyRequired, filepath.ToSlash(f.Into))
		}
	}
	for _, f := range found {
		if f.Into == "" || f.Unfence != "" || f.SqlcReadsInto || g.acknowledged(f.Into) {
			continue
		}
		return &IntoError{Finding: f}
	}
	return nil
}

// IntoError is NextMigration's error when a finding's fix belongs in a
// migration of the team's (Finding.Into) that Applied does not name.
type IntoError struct{ Finding Finding }

func (e *IntoError) Error() string {
	f := e.Finding
	if f.Move != "" {
		return fmt.Sprintf("%s:%d:%d: a migration that %s leaves it unguarded until that one: move the ATTACH into it while neither is applied anywhere; once either is, write the new one with -applied %s (the partition is unguarded between the two)", f.File, f.Line, f.Col, f.Why, filepath.ToSlash(f.Into))
	}
	return fmt.Sprintf("%s:%d:%d: a migration that %s needs its guard in it: a new guard migration after the newest would leave the table unguarded from it on until that one is applied; add the guard to it with -into %s, or, if it is applied anywhere already, write the new one with -applied %[5]s (the table is unguarded between the two)", f.File, f.Line, f.Col, f.Why, filepath.ToSlash(f.Into))
}

// Fenced reports whether g's entry has a fenced table (otherwise g only
// has guard migrations, whose triggers a new one removes).
func (g *DatabaseGuard) Fenced() bool { return len(g.data.Tables) > 0 || len(g.mysql) > 0 }

// SQL renders g as File, the SQL fencegen generate writes beside the
// generated code; nil when g has no fenced table.
func (g *DatabaseGuard) SQL() ([]byte, error) {
	if !g.Fenced() {
		return nil, nil
	}
	if g.mysql != nil {
		return mysqlSQL(g.mysql, mysqlRemoval{}, "", false), nil
	}
	return renderGuard(g.data)
}

// Migration renders g as a migration of the tool format (one of
// MigrationFormats) with the given version (the digits a tool orders
// migrations by, e.g. 20260102150405 or 000042): the files' names, to be
// put in the tool's migrations directory, and their contents. The SQL is
// that of File; the files do not carry the generated-code header, so
// that generate never takes them for its own.
func (g *DatabaseGuard) Migration(format, version string) (map[string][]byte, error) {
	if !slices.Contains(MigrationFormats, format) {
		return nil, fmt.Errorf("unknown migration format %q: want one of %s", format, strings.Join(MigrationFormats, ", "))
	}
	if version == "" || strings.Trim(version, "0123456789") != "" {
		return nil, fmt.Errorf("migration version %q: want digits", version)
	}
	// render writes the up file (or the single file), or golang-migrate's
	// down file.
	if g.mysql != nil && len(g.mysql) == 0 && len(g.mysqlRemove.triggers) == 0 && len(g.mysqlRemove.unfenced) == 0 {
		return nil, fmt.Errorf("no sql entry has a fenced table: there is no guard to write")
	}
	render := func(down bool) ([]byte, error) { return mysqlSQL(g.mysql, g.mysqlRemove, format, down), nil }
	if g.mysql == nil {
		data := *g.data
		if len(data.Tables) == 0 && len(data.Removed) == 0 && len(data.Orphans) == 0 {
			return nil, fmt.Errorf("no sql entry has a fenced table: there is no guard to write")
		}
		data.Format = format
		render = func(down bool) ([]byte, error) {
			data.Down = down
			return renderGuard(&data)
		}
	}
	up, err := render(false)
	if err != nil {
		return nil, err
	}
	base := version + "_fencegen_guard"
	if format != "golang-migrate" {
		return map[string][]byte{base + ".sql": up}, nil
	}
	down, err := render(true)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{base + ".up.sql": up, base + ".down.sql": down}, nil
}

// TemplateVersion numbers the guard's trigger functions as this
// fencegen writes them. A guard migration records it in its header
// ("-- fencegen guard template: N"); one written before the line existed
// (whose trigger raised without DETAIL, SCHEMA, TABLE and COLUMN) is
// template 1. It changes whenever the text of a trigger function changes
// (TestGuardTemplateVersion pins the text to the number).
const TemplateVersion = 4

// guardMigrationHeader starts the first line of every migration fencegen
// guard writes (up file or single file), in every template version; the
// format follows it: "... as a goose migration, written".
const guardMigrationHeader = "-- fencegen's database-side fencing guard, as a "

// guardTemplateLine is the header line that records TemplateVersion.
const guardTemplateLine = "-- fencegen guard template: "

// Finding is one way the guard migrations fencegen guard wrote
// differ from the guard this fencegen would write for the current schema.
type Finding struct {
	// File, Line and Col locate it: the migration (a path relative to the
	// current directory, as the schema entries name it) and the statement
	// concerned, or line 1 for a table no migration guards.
	File      string
	Line, Col int
	Msg       string
	// Format and Dir are the format and directory of the newest guard
	// migration: fencegen guard -format Format -dir Dir writes the new
	// migration that brings the database to the current guard.
	Format, Dir string
	// Out is the out directory of the sql entry, for guard's -out.
	Out string
	// Several is set when several sql entries have guards: guard's -out
	// picks this one.
	Several bool
	// Newer is set when the migration was written by a newer fencegen
	// (a higher guard template): update fencegen rather than write a
	// migration with this one.
	Newer bool
	// Cause is set when File:Line:Col is the statement of a schema file
	// (a migration of the team's, not a guard migration) that made the
	// guard stop matching the schema: it renames, drops or retypes the
	// token column, drops or renames the table, or removes the mark.
	Cause bool
	// Into is set when the fix belongs in a migration of the team's
	// rather than in a new one: the migration that drops a fenced table
	// and creates it again (the trigger goes with the dropped table, so
	// every state after it would be unguarded until a later migration).
	// fencegen guard -into Into adds the guard to its up section
	// (DatabaseGuard.Inline). Also set for a rename of a token column that
	// a fence key marks (no comment moves with it, so the trigger finds no
	// token column) and for a new column of the token column's old name
	// (the trigger reads it instead). Why says what the migration does,
	// for the fix's line ("drops and re-creates a fenced table").
	Into, Why string
	// Unfence is set (to the table, as the configuration would name it)
	// when the table was fenced and a migration re-created it without its
	// fencing mark: the fix is either to mark it again (then Into), or to
	// stop fencing it deliberately, with fencegen guard -unfence Unfence
	// (DatabaseGuard.Unfence), whose migration records the decision.
	Unfence string
	// SqlcReadsInto is set with Into when Into is a schema file that
	// sqlc reads too (an entry with engine mysql of a configuration sqlc
	// reads: DatabaseGuard.SetSqlcSchema): sqlc cannot parse the
	// triggers -into would add, so the guard goes in a new migration
	// that only fencegen reads, right after Into, applied in the same
	// deployment (the table is unguarded between the two).
	SqlcReadsInto bool
	// Move is set (to the partition, as a guard migration names it) on a
	// finding with Into whose fix is not the guard: a partition that
	// Into takes from a fenced table, and that a later migration attaches
	// again, is unguarded between the two, so the team moves the ATTACH
	// into Into (fencegen guard -into refuses it); once either is applied
	// anywhere, fencegen guard -applied Into writes a new guard migration,
	// whose re-created triggers PostgreSQL clones onto the partition again
	// and after which the replay no longer reports it.
	Move string
	// Refused is set when no guard migration undoes what the statement
	// does (a renamed guard trigger, a setting of session_replication_role
	// that outlives the migration, a USING that rewrites every token):
	// the team changes that migration, or writes one that undoes it.
	Refused bool
}

func (f Finding) String() string {
	return fmt.Sprintf("%s:%d:%d: %s", f.File, f.Line, f.Col, f.Msg)
}

// Error is String: a Finding is the Err of the generator's located
// error that reports it (errors.As).
func (f Finding) Error() string { return f.String() }

// guardFunc is a trigger function a guard migration creates.
type guardFunc struct {
	name, text string // the CREATE OR REPLACE FUNCTION statement, LF line ends
	file       string
	line       int
	template   int
}

// guardInstalled is the guard trigger of one table after a sequence of
// migrations: the function it runs, and where its CREATE TRIGGER is;
// broken is the later statement after which the trigger fails every
// UPDATE of the table (its token column renamed, dropped or retyped),
// unmarked the one that removed the column's fencing mark, renamed the
// one that renamed the table (the trigger moves with it).
type guardInstalled struct {
	fn                        guardFunc
	file                      string
	line                      int
	broken, unmarked, renamed *cause
	// disabled is the statement that disabled the trigger (ALTER TABLE
	// ... DISABLE TRIGGER), until one enables it again.
	disabled *cause
	// shadowed is the statement that adds a column of the name the
	// trigger reads after a rename of the token column (broken), or
	// renames another column to it: the trigger then reads that column
	// instead of the token.
	shadowed *cause
	// remarked is the newest statement that marks the column the
	// trigger reads again (COMMENT ON COLUMN ... IS 'fencegen:token
	// required', say): the cause of a change of mode.
	remarked *cause
	// weakened is the statement that replaces or alters the guard
	// function, or replaces the guard trigger (CREATE OR REPLACE
	// FUNCTION or TRIGGER, ALTER FUNCTION): the guard is not the one
	// fencegen wrote until a new guard migration installs it again.
	weakened *cause
}

// cause is a statement of a schema file, not a guard migration, that
// changes what a guard trigger reads: what it does, and what fails once
// it is applied.
type cause struct {
	file      string
	line, col int
	what      string
	fails     string
	// ack is set when the statement carries catalog.ResetTokensMark: a
	// reset of the stored tokens it makes is deliberate.
	ack bool
	// renamedTo is the column's new name, for a rename of the token
	// column.
	renamedTo string
	// refusedOn is set (to the table) when PostgreSQL refuses the
	// statement itself: it drops or retypes the column of a trigger
	// BEFORE UPDATE OF it (mode required).
	refusedOn string
	// kind is what the statement does to the token column of a guard
	// of template 3 or later, whose trigger does not fail on it (its
	// function reads the column by name only while it exists): "rename",
	// "drop" or "retype"; fails is empty then (compare says what holds).
	kind string
	// vacated is set when a guarded table leaves its name: DROP TABLE,
	// or a rename (ALTER TABLE ... RENAME TO, SET SCHEMA) that takes its
	// trigger along to the new name. recreatedIn is then the file of the
	// migration in which a table of the name appears again (the first
	// one, from which on it is unguarded): CREATE TABLE (also AS and
	// LIKE), or another table renamed or moved to it, as in a swap
	// through a copy. That table has no
	// trigger, so its guard belongs in that migration (Finding.Into).
	vacated     bool
	recreatedIn string
	// recreatedAt is the statement that creates it again (file
	// recreatedIn), fn and column the vacating guard's function and
	// token column (as quoted in SQL).
	recreatedAt *cause
	fn, column  string
	// advice, when set, ends the finding instead of the text compare
	// chooses: what to do about this statement.
	advice string
	// detached is set for a partition detached from, or a child table
	// no longer inheriting from (or dropped from), a guarded table: it
	// leaves the guard's trigger behind as a vacated table does, and
	// recreatedAt is the statement itself.
	detached bool
	// child is the partition a DETACH PARTITION took from the guarded
	// table (leaves), on the removal of its rows (guardReplay.removed).
	child string
	// kept is the guard trigger of its own that an inheritance child
	// keeps when it stops inheriting from keptFrom (NO INHERIT; leaves):
	// inheriting from it again (INHERIT), it is guarded by it again.
	kept     *guardInstalled
	keptFrom string
	// reattached is the statement of a later migration that attaches
	// the partition this cause took the guard's clone from (DETACH, or a
	// DROP and CREATE) to a guarded table again (attaches): PostgreSQL
	// clones the guard trigger onto it there, and the finding is the
	// state between the two, unguarded.
	reattached *cause
	// seq is the statement's place in the replay (guardReplay.seq), for
	// a removal of rows.
	seq int
}

// guardMigration is one migration fencegen guard wrote.
type guardMigration struct {
	file, format string
	template     int
}

// guardReplay is the guard that a sequence of migrations installs: each
// table's (by its quoted, qualified name) trigger and function, replayed
// from the guard migrations, and followed through the other migrations'
// renames and drops of its table and token column; lost are the tables
// whose trigger a DROP TABLE (or DROP TRIGGER) of a later migration
// dropped, funcs every guard function the guard migrations create.
type guardReplay struct {
	// path is the search_path a SET search_path of the file being
	// replayed set (nil: PostgreSQL's default, public).
	path       []string
	tables     map[string]guardInstalled
	lost       map[string]*cause
	funcs      map[string]guardFunc
	migrations []guardMigration
	// parents are, for each table (key), the tables it is a partition
	// (partition set) or an inheritance child of, followed from the
	// first migration on: a partition has its parent's trigger as a
	// clone, an inheritance child a trigger of its own.
	parents map[string][]parentRef
	// stray are the guard triggers a migration renamed (by table key
	// and new name), until one drops them or renames them back: they
	// keep firing under the new name, in another order.
	stray map[string]strayTrigger
	// refused are statements that weaken every guard in a way no guard
	// migration undoes (a setting of session_replication_role that
	// outlives the migration, a USING that rewrites every token), by
	// what they set (settings: cleared by a later RESET of the same).
	refused map[string]*cause
	// routines are the functions and procedures the migrations create,
	// by name (define); pending the event triggers and triggers that run
	// one whose body is not harmless, reported when a guard migration
	// exists.
	routines map[string]*routineRisk
	pending  []*cause
	// localReplica is set while the migration being replayed has set
	// session_replication_role to replica (SET LOCAL, SET, set_config,
	// until it sets it back or RESETs it), under which no guard trigger
	// fires; inserted are the guarded tables it inserted rows into
	// without their tokens, by key, and copies the tables it made, with
	// whether their rows carry the stored tokens (madeTables).
	localReplica bool
	// seq counts the statements replayed after a guard migration (the
	// order of removals and copies).
	seq      int
	inserted map[string]*cause
	copies   map[string]copyOf
	// removed are the guarded tables whose rows a migration after a
	// guard migration removed (DELETE, TRUNCATE, a foreign key's
	// cascade, a drop, a rename or move away), by key, with the first
	// statement that did: rows inserted into the table from then on, in
	// any later migration, must carry the stored tokens (resets).
	removed map[string]*cause
	// fks are the foreign keys of each table (key), triggers the
	// functions of each table's triggers, ruleWrites and ruleCalls the
	// writes and calls of its rules' actions, and viewBase the table a
	// view of one table reads, from the first migration on: the writes a
	// write of a table sets off (rowWrites).
	fks        map[string][]fkRef
	triggers   map[string][]string
	ruleWrites map[string][]writes.Write
	ruleCalls  map[string][]string
	viewBase   map[string]string
	// marked are the tables a migration since the last guard migration
	// marked for fencing (COMMENT ON COLUMN ... IS 'fencegen:token'), by
	// key, where no guard trigger reads the column: a table fenced (again)
	// there is unguarded from that migration on, so its guard belongs in
	// it (trial pg4 F7).
	marked map[string]*cause
}

// parentRef is a table's parent: partitioned table or inheritance parent.
type parentRef struct {
	key       string
	partition bool
}

// strayTrigger is a guard trigger renamed away: the statement, the
// trigger's name before, and the guard it belonged to.
type strayTrigger struct {
	c         *cause
	table, as string
	was       string
	in        guardInstalled
	lostWas   *cause
}

func newReplay() *guardReplay {
	return &guardReplay{tables: map[string]guardInstalled{}, lost: map[string]*cause{}, funcs: map[string]guardFunc{},
		parents: map[string][]parentRef{}, stray: map[string]strayTrigger{}, refused: map[string]*cause{},
		routines: map[string]*routineRisk{}, inserted: map[string]*cause{}, copies: map[string]copyOf{}, marked: map[string]*cause{},
		removed: map[string]*cause{}, fks: map[string][]fkRef{}, triggers: map[string][]string{}, ruleWrites: map[string][]writes.Write{},
		ruleCalls: map[string][]string{}, viewBase: map[string]string{}}
}

// isGuardMigration reports whether b starts as a migration that fencegen
// guard wrote (its up file, or its only file), and its format.
func isGuardMigration(b []byte) (format string, ok bool) {
	b = bytes.TrimPrefix(b, []byte("\uFEFF"))
	line, _, _ := bytes.Cut(b, []byte("\n"))
	rest, ok := strings.CutPrefix(strings.TrimRight(string(line), "\r"), guardMigrationHeader)
	if !ok {
		return "", false
	}
	format, _, ok = strings.Cut(rest, " migration")
	return format, ok && slices.Contains(MigrationFormats, format)
}

// replayGuard replays files in the order given (the order the migration
// tool applies them): the up sections of those that fencegen guard wrote,
// and, in the others, the statements that rename or drop a guarded
// table or its token column, retype that column or remove its mark.
func replayGuard(files []*sqlparse.File) *guardReplay {
	r := newReplay()
	for _, f := range files {
		if format, ok := isGuardMigration(f.Src); ok {
			m := r.apply(f.Name, f.Src)
			m.format = format
			r.migrations = append(r.migrations, m)
			clear(r.marked)
			continue
		}
		inline, format := inlineBlock(f.Src)
		r.path = nil // a SET search_path lasts for its file (as the catalog reads it)
		r.localReplica = false
		clear(r.inserted)
		clear(r.copies)
		for _, st := range f.Stmts {
			if inline >= 0 && st.Start >= inline {
				continue
			}
			r.define(f, st, "")
			if len(r.migrations) > 0 {
				r.statement(f, st)
			} else if sp, ok := st.Node.(*sqlparse.SetSearchPath); ok && !sp.Local {
				r.path = nil
				if !sp.Default {
					r.path = sp.Schemas
				}
			}
			r.member(st)
		}
		if inline >= 0 {
			m := r.applyAt(f.Name, f.Src[inline:], bytes.Count(f.Src[:inline], []byte("\n")))
			m.format = format
			r.migrations = append(r.migrations, m)
			clear(r.marked)
		}
	}
	if len(r.migrations) > 0 {
		for i, c := range r.pending {
			r.refused[fmt.Sprintf("pending %d", i)] = c
		}
	}
	return r
}

// OwnedFunctions returns whether a function defined at file:line of the
// schema files is fencegen's: defined in a guard migration (any section)
// or in the guard fencegen guard -into added to a migration. Its text is
// then checked by the replay (GuardMigrations: a function that differs
// from the one this fencegen writes is an error of generate, vet and
// check), so the write analysis need not read it as a trigger of the
// team's.
func OwnedFunctions(schema []*sqlparse.File) func(file string, line int) bool {
	from := map[string]int{} // file -> first line owned
	for _, f := range schema {
		if _, ok := isGuardMigration(f.Src); ok {
			from[f.Name] = 1
		} else if off, _ := inlineBlock(f.Src); off >= 0 {
			from[f.Name] = 1 + bytes.Count(f.Src[:off], []byte("\n"))
		}
	}
	return func(file string, line int) bool {
		first, ok := from[file]
		return ok && line >= first
	}
}

// inlineHeader starts the first line of the guard that fencegen guard
// -into adds to a migration of the team's (DatabaseGuard.Inline); the
// format follows it: "... as a goose migration: ...".
const inlineHeader = "-- fencegen guard -into, as a "

// inlineBlock returns the offset in b of the guard fencegen guard -into
// added to it (its header line), and its format; -1 when b has none.
func inlineBlock(b []byte) (offset int, format string) {
	for off := 0; off < len(b); {
		line, _, _ := bytes.Cut(b[off:], []byte("\n"))
		if rest, ok := strings.CutPrefix(strings.TrimRight(string(line), "\r"), inlineHeader); ok {
			if format, _, ok = strings.Cut(rest, " migration"); ok && slices.Contains(MigrationFormats, format) {
				return off, format
			}
		}
		off += len(line) + 1
	}
	return -1, ""
}

// tableKey is the quoted, qualified name of table n, as a guard
// migration names it (the schema only when it is not public).
func tableKey(n sqlparse.Name) string {
	qt := sqlparse.QuoteIdent(n.Name)
	if n.Schema != "" && n.Schema != catalog.DefaultSchema {
		qt = sqlparse.QuoteIdent(n.Schema) + "." + qt
	}
	return qt
}

// key is the quoted, qualified name of table n as r names it: an
// unqualified name is looked up through the search_path (the first of its
// schemas with a guarded table of that name, else its first schema).
func (r *guardReplay) key(n sqlparse.Name) string {
	if n.Schema != "" {
		return tableKey(n)
	}
	path := r.path
	if path == nil {
		path = []string{catalog.DefaultSchema}
	}
	first := ""
	for _, s := range path {
		if s == "$user" || s == "pg_temp" || s == "" {
			continue
		}
		k := tableKey(sqlparse.Name{Schema: s, Name: n.Name})
		if _, ok := r.tables[k]; ok {
			return k
		}
		if _, ok := r.lost[k]; ok {
			return k
		}
		if first == "" {
			first = k
		}
	}
	if first == "" {
		return tableKey(n)
	}
	return first
}

// disabledTriggers lists the triggers an ALTER TABLE statement disables
// ("-name", "-" for ALL or USER), makes fire only in replica sessions
// ("rname", "r": ENABLE REPLICA, which a session of the default
// session_replication_role, origin, never is) or enables ("+name", "+":
// ENABLE, and ENABLE ALWAYS, which fires in every session), in order.
func disabledTriggers(st *sqlparse.Stmt) []string {
	var out []string
	if st.Raw == nil {
		return nil
	}
	for _, c := range st.Raw.GetAlterTableStmt().GetCmds() {
		cmd := c.GetAlterTableCmd()
		switch cmd.GetSubtype() {
		case pg.AlterTableType_AT_DisableTrig:
			out = append(out, "-"+cmd.GetName())
		case pg.AlterTableType_AT_DisableTrigAll, pg.AlterTableType_AT_DisableTrigUser:
			out = append(out, "-")
		case pg.AlterTableType_AT_EnableReplicaTrig:
			out = append(out, "r"+cmd.GetName())
		case pg.AlterTableType_AT_EnableTrig, pg.AlterTableType_AT_EnableAlwaysTrig:
			out = append(out, "+"+cmd.GetName())
		case pg.AlterTableType_AT_EnableTrigAll, pg.AlterTableType_AT_EnableTrigUser:
			out = append(out, "+")
		}
	}
	return out
}

// guardTrigger reports whether name is one of the triggers fencegen
// guard creates ("" stands for ALL and USER, which include them).
func guardTrigger(name string) bool {
	return name == "" || name == "fencegen_guard" || name == "fencegen_guard_token"
}

// inSchema reports whether key (tableKey) names a table of schema.
func inSchema(key, schema string) bool {
	if schema == catalog.DefaultSchema {
		return !strings.Contains(key, ".") || strings.HasPrefix(key, sqlparse.QuoteIdent(schema)+".")
	}
	return strings.HasPrefix(key, sqlparse.QuoteIdent(schema)+".")
}

// statement follows one statement of a migration that is not a guard
// migration: see replayGuard.
func (r *guardReplay) statement(f *sqlparse.File, st *sqlparse.Stmt) {
	r.seq++
	at := func(what, fails string, a ...any) *cause {
		line, col := diag.Position(f.Src, st.Start)
		return &cause{file: f.Name, line: line, col: col, what: fmt.Sprintf(what, a...), fails: fails}
	}
	readsColumn := func(in guardInstalled, col string) bool {
		c, _ := guardMode(in.fn.text)
		return c != "" && c == sqlparse.QuoteIdent(col)
	}
	fails := func(table, col string) string {
		return fmt.Sprintf("every UPDATE of %s fails (record \"new\" has no field \"%s\")", table, col)
	}
	// robust reports a guard whose trigger survives the token column's
	// rename, drop and retype (template 3): kind is then set instead of
	// the cause's fails.
	robust := func(in guardInstalled, c *cause, kind string) *cause {
		if in.fn.template >= 3 {
			c.fails, c.kind = "", kind
		}
		return c
	}
	if r.hidden(f, st, at) || r.raw(f, st, at) {
		return
	}
	switch n := st.Node.(type) {
	case *sqlparse.SetSearchPath:
		if n.Local {
			return // for the transaction only; a migration's is its own
		}
		r.path = nil
		if !n.Default {
			r.path = n.Schemas
		}
	case *sqlparse.Rename:
		key := r.key(n.Target)
		// toKey is the renamed table's key: its new name, in its schema.
		toKey := sqlparse.QuoteIdent(n.NewName)
		if schema, _, ok := strings.Cut(key, "."); ok {
			toKey = schema + "." + toKey
		}
		in, ok := r.tables[key]
		if !ok {
			if n.Kind == "table" || n.Kind == "view" || n.Kind == "materialized view" {
				// Another table takes the name: a guarded table that
				// left it (dropped, renamed away) is not that table.
				r.arrives(toKey, f.Name, at("renames table %s to %s, which takes the place of fenced table %s,", "", n.Target.String(), n.NewName, toKey))
			}
			return
		}
		switch n.Kind {
		case "column":
			renamed := in.broken != nil && in.broken.renamedTo != ""
			switch {
			case renamed && in.broken.renamedTo == n.Subname && readsColumn(in, n.NewName) && in.shadowed == nil:
				in.broken = nil // renamed back: the trigger reads it again
			case renamed && in.broken.renamedTo == n.Subname:
				// The token column renamed on: the trigger finds it by its
				// mark, under its newest name.
				c := *in.broken
				c.renamedTo = n.NewName
				in.broken = &c
			case renamed && readsColumn(in, n.NewName) && in.shadowed == nil:
				// Another column takes the name the trigger reads, as a
				// new column of that name would.
				in.shadowed = at("renames column %s of fenced table %s to %s, the name its token column had before %s:%d:%d renamed it to %s", "", n.Subname, n.Target.String(), n.NewName, in.broken.file, in.broken.line, in.broken.col, in.broken.renamedTo)
			case readsColumn(in, n.Subname) && in.shadowed != nil:
				in.shadowed = nil // the column that took the name leaves it
			case readsColumn(in, n.Subname):
				in.broken = robust(in, at("renames column %s of fenced table %s to %s", fails(n.Target.String(), n.Subname), n.Subname, n.Target.String(), n.NewName), "rename")
				in.broken.renamedTo = n.NewName
			}
			r.tables[key] = in
		case "table":
			to := n.NewName
			in.renamed = at("renames fenced table %s to %s", "", n.Target.String(), to)
			delete(r.tables, key)
			r.vacate(key, in, in.renamed) // a table of the old name has no trigger
			delete(r.lost, toKey)         // the guarded table itself is there again
			r.tables[toKey] = in
			r.moved(key, toKey)
		}
	case *sqlparse.AlterObjectSchema:
		if n.Kind != "table" {
			return
		}
		key := r.key(n.Target)
		to := tableKey(sqlparse.Name{Schema: n.NewSchema, Name: n.Target.Name})
		in, ok := r.tables[key]
		if !ok {
			r.arrives(to, f.Name, at("moves table %s to schema %s, where it takes the place of fenced table %s,", "", n.Target.String(), n.NewSchema, to))
			return
		}
		in.renamed = at("moves fenced table %s to schema %s", "", n.Target.String(), n.NewSchema)
		delete(r.tables, key)
		r.vacate(key, in, in.renamed) // a table of the old name has no trigger
		delete(r.lost, to)
		r.tables[to] = in
		r.moved(key, to)
	case *sqlparse.AlterTable:
		key := r.key(n.Table)
		for _, c := range n.Cmds {
			switch c.Kind {
			case sqlparse.AlterInherit:
				if l := r.lost[key]; l != nil && l.kept != nil && l.keptFrom == r.key(c.Other) {
					// Inheriting again from the table it stopped
					// inheriting from (NO INHERIT): its own trigger never
					// left it, and it has the mark again.
					r.tables[key] = *l.kept
					delete(r.lost, key)
					continue
				}
				// An inheritance child of a fenced table is fenced with
				// it: its guard belongs where it starts to inherit.
				if col := r.tokenColumn(r.key(c.Other)); col != "" && r.marked[key] == nil {
					if _, guarded := r.tables[key]; !guarded {
						r.marked[key] = at("makes table %s inherit from fenced table %s, which fences it too (token column %s of table %[2]s)", "", n.Table.String(), c.Other.String(), col)
					}
				}
			case sqlparse.AlterAttachPartition:
				r.attaches(f.Name, r.key(c.Other), key, at("attaches table %s as a partition of %s", "", c.Other.String(), n.Table.String()))
			case sqlparse.AlterDetachPartition:
				r.leaves(r.key(c.Other), key, at("detaches partition %s from fenced table %s, which takes the clone of its guard trigger off it", "", c.Other.String(), n.Table.String()))
			case sqlparse.AlterNoInherit:
				r.leaves(key, r.key(c.Other), at("makes table %s no longer inherit from fenced table %s", "", n.Table.String(), c.Other.String()))
			}
		}
		in, ok := r.tables[key]
		if !ok {
			r.partitionTriggers(f, st, key, n.Table, at)
			return
		}
		for _, op := range disabledTriggers(st) {
			if !guardTrigger(op[1:]) {
				continue
			}
			switch op[0] {
			case '+':
				in.disabled = nil
			case '-':
				in.disabled = at("disables the guard trigger of fenced table %s that %s installs", "", n.Table.String(), in.file)
			case 'r':
				in.disabled = at("makes the guard trigger of fenced table %s that %s installs fire only in sessions whose session_replication_role is replica (ENABLE REPLICA TRIGGER), which no ordinary writer's is", "", n.Table.String(), in.file)
			}
		}
		r.usingRewrite(f, st, in, at)
		for _, c := range n.Cmds {
			switch {
			case c.Kind == sqlparse.AlterAddColumn && readsColumn(in, c.Column) && in.broken != nil && in.broken.renamedTo != "":
				// The trigger reads the column by the name it was
				// installed for: this new column, not the token.
				in.shadowed = at("adds column %s to fenced table %s, the name its token column had before %s:%d:%d renamed it to %s", "", c.Column, n.Table.String(), in.broken.file, in.broken.line, in.broken.col, in.broken.renamedTo)
				continue
			case c.Kind == sqlparse.AlterAddColumn && readsColumn(in, c.Column) && in.broken != nil && in.broken.kind == "drop" ||
				c.Kind == sqlparse.AlterAddColumn && readsColumn(in, c.Column) && in.broken != nil && strings.HasPrefix(in.broken.what, "drops column "):
				// The token column dropped and added again: every row's
				// token is the new column's default.
				rc := at("adds token column %s to fenced table %s again after %s:%d:%d dropped it", "", c.Column, n.Table.String(), in.broken.file, in.broken.line, in.broken.col)
				rc.advice = ": every row's stored token is lost (the new column holds its default), so a stale holder's write passes the guard; no guard migration can undo that: keep the column (rename or retype it instead)"
				r.refused[fmt.Sprintf("readd %s:%d", f.Name, st.Start)] = rc
				in.broken = nil // the trigger reads the column of the name again
				continue
			case c.Kind == sqlparse.AlterDropColumn && readsColumn(in, c.Column) && in.shadowed != nil:
				// The new column of the old name goes again: the
				// trigger finds the renamed token column as before.
				in.shadowed = nil
				continue
			case c.Kind == sqlparse.AlterDropColumn && readsColumn(in, c.Column):
				in.broken = robust(in, at("drops column %s of fenced table %s", fails(n.Table.String(), c.Column), c.Column, n.Table.String()), "drop")
			case c.Kind == sqlparse.AlterColumnType && readsColumn(in, c.Column):
				in.broken = robust(in, at("changes the type of column %s of fenced table %s", fmt.Sprintf("every UPDATE of %s fails in each database session that ran the trigger before (type of parameter does not match that when preparing the plan)", n.Table.String()), c.Column, n.Table.String()), "retype")
			default:
				continue
			}
			if _, mode := guardMode(in.fn.text); mode == "required" {
				// A trigger BEFORE UPDATE OF the column depends on it.
				in.broken.refusedOn = key
			}
		}
		r.tables[key] = in
	case *sqlparse.Comment:
		if n.Kind != "column" {
			return
		}
		key := r.key(n.Target)
		in, ok := r.tables[key]
		if !ok || !readsColumn(in, n.Column) {
			if mark, _, err := catalog.ParseFenceComment(n.Text); err == nil && mark {
				r.marked[key] = at("marks column %s of table %s for fencing", "", n.Column, n.Target.String())
			} else if c := r.marked[key]; c != nil && strings.Contains(c.what, " "+n.Column+" ") {
				delete(r.marked, key)
			}
			return
		}
		if mark, _, err := catalog.ParseFenceComment(n.Text); err != nil || !mark {
			in.unmarked = at("removes the fencing mark of column %s of table %s", "", n.Column, n.Target.String())
		} else {
			in.unmarked = nil
			in.remarked = at("marks column %s of table %s for fencing again", "", n.Column, n.Target.String())
		}
		r.tables[key] = in
	case *sqlparse.CreateTable:
		key := r.key(n.Table)
		if n.PartitionOf && len(n.Inherits) > 0 {
			if _, ok := r.tables[r.key(n.Inherits[0])]; ok {
				// PostgreSQL clones the guard trigger onto it.
				if l := r.lost[key]; l != nil && l.fn == "" {
					delete(r.lost, key)
				}
				return
			}
		}
		if c := r.fencedBy(n, at); c != nil {
			r.marked[key] = c
		}
		r.arrives(key, f.Name, at("creates table %s again", "", n.Table.String()))
	case *sqlparse.CreateView:
		if n.AsTable {
			r.arrives(r.key(n.View), f.Name, at("creates table %s again (CREATE TABLE ... AS)", "", n.View.String()))
		} else {
			// Writes through the view reach its table, which has no
			// trigger.
			r.arrives(r.key(n.View), f.Name, at("creates view %s in place of fenced table %s,", "", n.View.String(), n.View.String()))
		}
	case *sqlparse.Drop:
		for i, name := range n.Names {
			switch {
			case n.Kind == "schema" && n.Cascade:
				if name.Name == catalog.DefaultSchema {
					clear(r.funcs) // every guard function is public's
				}
				for key, in := range r.tables {
					if inSchema(key, name.Name) {
						delete(r.tables, key)
						// The table leaves its name as a dropped one
						// does: a table of the name created later has
						// neither its trigger nor, unless marked again,
						// its mark (trial t24f).
						r.vacate(key, in, at("drops schema %s with its fenced table %s, and with it the guard trigger that %s installs", "", name.Name, key, in.file))
					}
				}
			case (n.Kind == "extension" || n.Kind == "language") && name.Name == "plpgsql" && n.Cascade:
				// Every guard function is LANGUAGE plpgsql: all go, and
				// with them (CASCADE) every guard trigger.
				for key, in := range r.tables {
					delete(r.tables, key)
					c := at("drops %s plpgsql, and with it (CASCADE) every guard function and the guard trigger of table %s that %s installs", "", n.Kind, key, in.file)
					c.advice = ": every guard function is LANGUAGE plpgsql, so no guard migration installs a guard again until a migration creates the language again (CREATE EXTENSION plpgsql); until then the database lets a stale token's UPDATE of " + key + " from any writer through: remove this statement"
					r.lost[key] = c
				}
			case n.Kind == "function" || n.Kind == "routine":
				fn := sqlparse.QuoteIdent(name.Name)
				if name.Schema != "" && name.Schema != catalog.DefaultSchema {
					fn = sqlparse.QuoteIdent(name.Schema) + "." + fn
				}
				// Dropped by the team's migration: no guard migration
				// needs to drop it (without CASCADE, PostgreSQL refuses
				// it while a trigger runs it).
				delete(r.funcs, fn)
				if !n.Cascade {
					break
				}
				for key, in := range r.tables {
					if in.fn.name == fn {
						delete(r.tables, key)
						r.lost[key] = at("drops the guard function %s, and with it (CASCADE) the guard trigger of table %s that %s installs", "", fn, key, in.file)
					}
				}
			case n.Kind == "table":
				key := r.key(name)
				for k, s := range r.stray {
					if s.table == key {
						delete(r.stray, k)
					}
				}
				if in, ok := r.tables[key]; ok {
					delete(r.tables, key)
					r.vacate(key, in, at("drops fenced table %s, and with it the guard trigger that %s installs", "", name.String(), in.file))
				} else if p, ok := r.guardedParent(key, true); ok {
					// A partition: its clone of the trigger goes with it;
					// a table created again under its name, not as a
					// partition of p, has none.
					in := r.tables[p]
					c := at("drops partition %s of fenced table %s, and with it the clone of the guard trigger that %s installs", "", name.String(), p, in.file)
					c.vacated, c.column = true, column(in.fn.text)
					r.lost[key] = c
					r.rowsLeft(p, c)
				}
			case n.Kind == "trigger" && i < len(n.On) && r.stray[r.key(n.On[i])+"\x00"+name.Name].c != nil:
				delete(r.stray, r.key(n.On[i])+"\x00"+name.Name)
			case n.Kind == "trigger" && i < len(n.On) && (name.Name == "fencegen_guard" || name.Name == "fencegen_guard_token"):
				key := r.key(n.On[i])
				if in, ok := r.tables[key]; ok && (name.Name == "fencegen_guard" || requiredText(in.fn.text)) {
					delete(r.tables, key)
					what := "drops the guard trigger of table %s that %s installs"
					if name.Name != "fencegen_guard" {
						what = "drops the guard trigger " + name.Name + " of table %s that %s installs"
					}
					r.lost[key] = at(what, "", n.On[i].String(), in.file)
				}
			}
		}
	}
}

// raw follows the statements the converted tree does not model that
// can touch a guard: its function (CREATE [OR REPLACE] FUNCTION of its
// name, ALTER FUNCTION, its RENAME, OWNER TO, SET SCHEMA or DEPENDS ON
// EXTENSION), its triggers (CREATE OR REPLACE TRIGGER, ALTER TRIGGER
// ... RENAME or DEPENDS ON EXTENSION) and the setting that skips every
// trigger (session_replication_role, for the migration's session beyond
// its transaction, a database or a role). It reports whether it took
// the statement.
func (r *guardReplay) raw(f *sqlparse.File, st *sqlparse.Stmt, at func(what, fails string, a ...any) *cause) bool {
	if st.Raw == nil {
		return false
	}
	// fnTables weakens the guard of each table whose function is named
	// by names (a function's possibly qualified name).
	fnTables := func(names []*pg.Node, verb string) bool {
		schema, name := nodeName(names)
		took := false
		for key, in := range r.tables {
			fs, fname, ok := strings.Cut(in.fn.name, ".")
			if !ok {
				fs, fname = "", fs
			}
			if sqlparse.QuoteIdent(name) != fname || schema != "" && sqlparse.QuoteIdent(schema) != fs && (fs != "" || schema != catalog.DefaultSchema) {
				continue
			}
			c := at("%s the guard function %s of fenced table %s that %s installs", "", verb, in.fn.name, key, in.file)
			c.advice = fmt.Sprintf(": fencegen finds and replaces its guard functions by name, so from here the trigger may run a function other than the one fencegen wrote (a replaced body lets a stale token's UPDATE of %s through), until a new guard migration installs the guard again; change the guard with fencegen guard only", key)
			if in.weakened == nil {
				in.weakened = c
				r.tables[key] = in
			}
			took = true
		}
		return took
	}
	owa := func(n *pg.Node) []*pg.Node { return n.GetObjectWithArgs().GetObjname() }
	routine := func(t pg.ObjectType) bool {
		return t == pg.ObjectType_OBJECT_FUNCTION || t == pg.ObjectType_OBJECT_ROUTINE || t == pg.ObjectType_OBJECT_PROCEDURE
	}
	setting := func(set *pg.VariableSetStmt, on string) bool {
		if set == nil || set.GetName() != "session_replication_role" {
			return false
		}
		key := "session_replication_role " + on
		value := ""
		for _, a := range set.GetArgs() {
			value += a.GetAConst().GetSval().GetSval()
		}
		switch {
		case set.GetKind() == pg.VariableSetKind_VAR_SET_VALUE && !strings.EqualFold(value, "origin"):
			c := at("sets session_replication_role to %s for %s", "", value, on)
			c.advice = ": PostgreSQL fires no ordinary trigger, fencegen's guard triggers included, in a session of that setting, so a stale token's UPDATE of a fenced table from it passes; no guard migration can undo it: remove the setting (or set it back with RESET session_replication_role)"
			r.refused[key] = c
		default:
			delete(r.refused, key)
		}
		return true
	}
	const session = "the migration's session (a setting that outlives its transaction, on a connection the migration tool may use again)"
	switch n := st.Raw.Node.(type) {
	case *pg.Node_VariableSetStmt:
		if n.VariableSetStmt.GetIsLocal() {
			return false // for the migration's transaction only
		}
		if n.VariableSetStmt.GetKind() == pg.VariableSetKind_VAR_RESET_ALL {
			r.localReplica = false
			delete(r.refused, "session_replication_role "+session)
			return true
		}
		if n.VariableSetStmt.GetName() == "session_replication_role" {
			// Also for the rest of the migration itself: the token
			// resets that follow (resets) run with no guard trigger.
			value := ""
			for _, a := range n.VariableSetStmt.GetArgs() {
				value += a.GetAConst().GetSval().GetSval()
			}
			r.localReplica = n.VariableSetStmt.GetKind() == pg.VariableSetKind_VAR_SET_VALUE && !strings.EqualFold(value, "origin")
		}
		return setting(n.VariableSetStmt, session)
	case *pg.Node_AlterDatabaseSetStmt:
		return setting(n.AlterDatabaseSetStmt.GetSetstmt(), "every session of database "+n.AlterDatabaseSetStmt.GetDbname())
	case *pg.Node_AlterRoleSetStmt:
		on := "every session of role " + n.AlterRoleSetStmt.GetRole().GetRolename()
		if n.AlterRoleSetStmt.GetRole().GetRolename() == "" {
			on = "every session of every role"
		}
		if db := n.AlterRoleSetStmt.GetDatabase(); db != "" {
			on += " in database " + db
		}
		return setting(n.AlterRoleSetStmt.GetSetstmt(), on)
	case *pg.Node_AlterSystemStmt:
		return setting(n.AlterSystemStmt.GetSetstmt(), "every session of the server (ALTER SYSTEM)")
	case *pg.Node_DropOwnedStmt, *pg.Node_ReassignOwnedStmt:
		if len(r.tables) == 0 {
			return false
		}
		verb := "DROP OWNED drops"
		if _, ok := n.(*pg.Node_ReassignOwnedStmt); ok {
			verb = "REASSIGN OWNED gives another owner"
		}
		c := at("%s every object of the roles it names, which may be fencegen's guard functions and the fenced tables with their guard triggers", "", verb)
		c.advice = ": the replay cannot tell which roles own them, so it refuses the statement; drop or re-own the objects by name instead"
		r.refused[fmt.Sprintf("owned %s:%d", f.Name, st.Start)] = c
		return true
	case *pg.Node_AlterExtensionContentsStmt:
		if routine(n.AlterExtensionContentsStmt.GetObjtype()) {
			return fnTables(owa(n.AlterExtensionContentsStmt.GetObject()), "makes an extension's drop drop")
		}
	case *pg.Node_CreateFunctionStmt:
		verb := "creates a function of the name of"
		if n.CreateFunctionStmt.GetReplace() {
			verb = "replaces"
		}
		return fnTables(n.CreateFunctionStmt.GetFuncname(), verb)
	case *pg.Node_AlterFunctionStmt:
		return fnTables(owa(&pg.Node{Node: &pg.Node_ObjectWithArgs{ObjectWithArgs: n.AlterFunctionStmt.GetFunc()}}), "alters")
	case *pg.Node_AlterOwnerStmt:
		if routine(n.AlterOwnerStmt.GetObjectType()) {
			return fnTables(owa(n.AlterOwnerStmt.GetObject()), "changes the owner of")
		}
	case *pg.Node_AlterObjectSchemaStmt:
		if routine(n.AlterObjectSchemaStmt.GetObjectType()) {
			return fnTables(owa(n.AlterObjectSchemaStmt.GetObject()), "moves to schema "+n.AlterObjectSchemaStmt.GetNewschema())
		}
	case *pg.Node_AlterObjectDependsStmt:
		d := n.AlterObjectDependsStmt
		switch {
		case routine(d.GetObjectType()):
			return fnTables(owa(d.GetObject()), "makes an extension's drop drop")
		case d.GetObjectType() == pg.ObjectType_OBJECT_TRIGGER:
			_, trig := nodeName(d.GetObject().GetList().GetItems())
			key := r.key(rangeName(d.GetRelation()))
			if in, ok := r.tables[key]; ok && guardTrigger(trig) && trig != "" {
				c := at("makes an extension's drop drop the guard trigger %s of fenced table %s that %s installs", "", trig, key, in.file)
				c.advice = ": fencegen's guard triggers are changed by fencegen guard only; remove this statement"
				in.weakened = c
				r.tables[key] = in
				return true
			}
		}
	case *pg.Node_CreateTrigStmt:
		t := n.CreateTrigStmt
		key := r.key(rangeName(t.GetRelation()))
		if in, ok := r.tables[key]; ok && t.GetReplace() && guardTrigger(t.GetTrigname()) {
			c := at("replaces the guard trigger %s of fenced table %s that %s installs", "", t.GetTrigname(), key, in.file)
			c.advice = fmt.Sprintf(": it is not the trigger fencegen wrote (a stale token's UPDATE of %s may pass), until a new guard migration installs the guard again; fencegen's guard triggers are changed by fencegen guard only", key)
			in.weakened = c
			r.tables[key] = in
			return true
		}
	case *pg.Node_RenameStmt:
		rn := n.RenameStmt
		switch {
		case rn.GetRenameType() == pg.ObjectType_OBJECT_SCHEMA:
			// Its tables move with it, triggers and all: a table created
			// again in the old schema has none.
			old, to := rn.GetSubname(), rn.GetNewname()
			took := false
			for _, key := range slices.Sorted(maps.Keys(r.tables)) {
				if !inSchema(key, old) {
					continue
				}
				part := strings.TrimPrefix(key, sqlparse.QuoteIdent(old)+".")
				toKey := sqlparse.QuoteIdent(to) + "." + part
				if to == catalog.DefaultSchema {
					toKey = part
				}
				in := r.tables[key]
				in.renamed = at("renames schema %s to %s, and with it fenced table %s (to %s)", "", old, to, key, toKey)
				delete(r.tables, key)
				r.vacate(key, in, in.renamed)
				delete(r.lost, toKey)
				r.tables[toKey] = in
				r.moved(key, toKey)
				took = true
			}
			return took
		case routine(rn.GetRenameType()):
			return fnTables(owa(rn.GetObject()), "renames (to "+rn.GetNewname()+")")
		case rn.GetRenameType() == pg.ObjectType_OBJECT_TRIGGER:
			key := r.key(rangeName(rn.GetRelation()))
			old, to := rn.GetSubname(), rn.GetNewname()
			if s, ok := r.stray[key+"\x00"+old]; ok && to == s.was {
				// Renamed back: the guard is as before the rename.
				delete(r.stray, key+"\x00"+old)
				if r.lost[key] == s.lostWas {
					delete(r.lost, key)
					r.tables[key] = s.in
				}
				return true
			}
			in, ok := r.tables[key]
			if !ok || old == "" || !guardTrigger(old) {
				return false
			}
			c := at("renames the guard trigger %s of fenced table %s that %s installs to %s", "", old, key, in.file, to)
			c.advice = fmt.Sprintf(": PostgreSQL runs a table's triggers in the order of their names, and fencegen finds and replaces its guard triggers by name (in mode required, fencegen_guard must run just before fencegen_guard_token: renamed, every UPDATE that sets the token fails with FN002, or the token is stored negated), so a new guard migration would install a second trigger beside it; rename it back (ALTER TRIGGER %s ON %s RENAME TO %s) or drop it (DROP TRIGGER %[1]s ON %[2]s), then install the guard again with a new guard migration", to, key, old)
			r.stray[key+"\x00"+to] = strayTrigger{c: c, table: key, as: to, was: old, in: in, lostWas: c}
			delete(r.tables, key)
			r.lost[key] = c
			return true
		}
	}
	return false
}

// ReadsRaw reports whether the replay of the guard migrations reads a
// schema statement's parse tree as pg_query returns it (Stmt.Raw), not
// only its converted tree: the others' trees may be let go. It reads
// every kind but CREATE TABLE, the types' and COMMENT, which run no code
// (a CREATE TABLE's defaults and checks run on rows it does not have):
// any other statement may call a function, run a DO block or change a
// setting (replayhidden.go).
func ReadsRaw(n *pg.Node) bool {
	switch n.Node.(type) {
	case *pg.Node_CreateStmt, *pg.Node_CommentStmt, *pg.Node_CompositeTypeStmt, *pg.Node_CreateEnumStmt, *pg.Node_CreateDomainStmt:
		return false
	}
	return true
}

// nodeName is the possibly qualified name a list of String nodes spells:
// its schema ("" when unqualified) and its last part.
func nodeName(names []*pg.Node) (schema, name string) {
	var parts []string
	for _, n := range names {
		parts = append(parts, n.GetString_().GetSval())
	}
	switch len(parts) {
	case 0:
		return "", ""
	case 1:
		return "", parts[0]
	}
	return parts[len(parts)-2], parts[len(parts)-1]
}

// rangeName is the table a RangeVar names.
func rangeName(rv *pg.RangeVar) sqlparse.Name {
	return sqlparse.Name{Schema: rv.GetSchemaname(), Name: rv.GetRelname()}
}

// usingRewrite refuses a USING expression of a retype of the token
// column in (ALTER COLUMN ... TYPE ... USING) that is not the column
// itself, or a cast of it: PostgreSQL rewrites every row with it, firing
// no UPDATE trigger, so every stored token may be lowered (USING 0 lets
// every stale holder win).
func (r *guardReplay) usingRewrite(f *sqlparse.File, st *sqlparse.Stmt, in guardInstalled, at func(what, fails string, a ...any) *cause) {
	col := column(in.fn.text)
	if st.Raw == nil || col == "" {
		return
	}
	for _, c := range st.Raw.GetAlterTableStmt().GetCmds() {
		cmd := c.GetAlterTableCmd()
		if cmd.GetSubtype() != pg.AlterTableType_AT_AlterColumnType || sqlparse.QuoteIdent(cmd.GetName()) != col {
			continue
		}
		using := cmd.GetDef().GetColumnDef().GetRawDefault()
		if using == nil || isColumnRef(using, cmd.GetName()) {
			continue
		}
		k := fmt.Sprintf("using %s:%d", f.Name, st.Start)
		c := at("changes the type of token column %s of fenced table %s with a USING expression other than the column itself or a cast of it that keeps every token", "", cmd.GetName(), st.Raw.GetAlterTableStmt().GetRelation().GetRelname())
		c.advice = ": PostgreSQL rewrites every row with it and fires no trigger, so it may lower every stored token (USING 0 lets every stale holder's write through); no guard migration can undo that: convert the column with USING " + cmd.GetName() + " (or a cast of it to bigint or numeric, which keeps every token), or without USING"
		r.refused[k] = c
	}
}

// isColumnRef reports whether n is a reference to column col, or a cast
// of one that keeps every int64 value exactly: to bigint, or to numeric
// without a type modifier or with one that keeps 19 integer digits and a
// scale of 0 or more. Any other cast may lower a stored token (numeric
// with a negative scale rounds, float4 and float8 round above 2^24 and
// 2^53, a domain's or a user cast's function can return anything; x24 F2).
func isColumnRef(n *pg.Node, col string) bool {
	if tc := n.GetTypeCast(); tc != nil {
		return losslessTokenCast(tc.GetTypeName()) && isColumnRef(tc.GetArg(), col)
	}
	fields := n.GetColumnRef().GetFields()
	return len(fields) > 0 && fields[len(fields)-1].GetString_().GetSval() == col
}

// losslessTokenCast reports whether a cast of a bigint to type tn keeps
// every value (isColumnRef).
func losslessTokenCast(tn *pg.TypeName) bool {
	schema, name := nodeName(tn.GetNames())
	if schema != "" && schema != "pg_catalog" || len(tn.GetArrayBounds()) > 0 {
		return false
	}
	var mods []int64
	for _, m := range tn.GetTypmods() {
		c := m.GetAConst()
		if c == nil || c.GetIval() == nil {
			return false
		}
		mods = append(mods, int64(c.GetIval().GetIval()))
	}
	switch name {
	case "int8", "bigint":
		return len(mods) == 0
	case "numeric", "decimal":
		switch len(mods) {
		case 0:
			return true
		case 1:
			return mods[0] >= 19
		case 2:
			return mods[1] >= 0 && mods[0]-mods[1] >= 19
		}
	}
	return false
}

// member follows which tables are partitions or inheritance children of
// which (parents), for every migration from the first.
func (r *guardReplay) member(st *sqlparse.Stmt) {
	r.foreignKeys(st)
	switch n := st.Node.(type) {
	case *sqlparse.CreateTable:
		key := r.key(n.Table)
		delete(r.parents, key)
		for _, p := range n.Inherits {
			r.parents[key] = append(r.parents[key], parentRef{key: r.key(p), partition: n.PartitionOf})
		}
	case *sqlparse.AlterTable:
		key := r.key(n.Table)
		for _, c := range n.Cmds {
			switch c.Kind {
			case sqlparse.AlterAttachPartition:
				r.parents[r.key(c.Other)] = []parentRef{{key: key, partition: true}}
			case sqlparse.AlterDetachPartition:
				delete(r.parents, r.key(c.Other))
			case sqlparse.AlterInherit:
				r.parents[key] = append(r.parents[key], parentRef{key: r.key(c.Other)})
			case sqlparse.AlterNoInherit:
				p := r.key(c.Other)
				r.parents[key] = slices.DeleteFunc(r.parents[key], func(ref parentRef) bool { return ref.key == p })
			}
		}
	case *sqlparse.Drop:
		if n.Kind == "table" || n.Kind == "view" {
			for _, name := range n.Names {
				delete(r.parents, r.key(name))
				delete(r.fks, r.key(name))
				delete(r.viewBase, r.key(name))
			}
		}
	case *sqlparse.Rename:
		if n.Kind == "table" {
			key := r.key(n.Target)
			to := sqlparse.QuoteIdent(n.NewName)
			if schema, _, ok := strings.Cut(key, "."); ok {
				to = schema + "." + to
			}
			r.moved(key, to)
		}
	case *sqlparse.AlterObjectSchema:
		if n.Kind == "table" {
			r.moved(r.key(n.Target), tableKey(sqlparse.Name{Schema: n.NewSchema, Name: n.Target.Name}))
		}
	}
}

// moved follows a table's rename from key to to in parents and stray.
func (r *guardReplay) moved(key, to string) {
	if key == to {
		return
	}
	if fks, ok := r.fks[key]; ok {
		delete(r.fks, key)
		r.fks[to] = fks
	}
	for from, fks := range r.fks {
		for i := range fks {
			if fks[i].to == key {
				fks[i].to = to
			}
		}
		r.fks[from] = fks
	}
	if p, ok := r.parents[key]; ok {
		delete(r.parents, key)
		r.parents[to] = p
	}
	for child, refs := range r.parents {
		for i := range refs {
			if refs[i].key == key {
				refs[i].key = to
			}
		}
		r.parents[child] = refs
	}
	for k, s := range r.stray {
		if s.table == key {
			delete(r.stray, k)
			s.table = to
			r.stray[to+"\x00"+s.as] = s
		}
	}
}

// guardedParent returns the guarded table that child (a key) is a
// partition of (partition) or an inheritance child of, if any.
func (r *guardReplay) guardedParent(child string, partition bool) (string, bool) {
	for _, p := range r.parents[child] {
		if _, ok := r.tables[p.key]; ok && p.partition == partition {
			return p.key, true
		}
	}
	return "", false
}

// leaves records that table child stops being a partition or an
// inheritance child of parent by statement c (DETACH PARTITION, NO
// INHERIT): a partition of a guarded table loses the clone of its
// trigger; a child keeps a trigger of its own, but no longer inherits the
// token column's mark. Either was fenced and is not, as a table created
// again without its mark: the finding asks for the mark again (and the
// guard, -into) or -unfence.
func (r *guardReplay) leaves(child, parent string, c *cause) {
	pin, ok := r.tables[parent]
	if !ok {
		return
	}
	partition := false
	for _, p := range r.parents[child] {
		if p.key == parent {
			partition = p.partition
		}
	}
	lost := *c
	lost.vacated, lost.detached, lost.column = true, true, column(pin.fn.text)
	if in, ok := r.tables[child]; ok && !partition {
		lost.fn = in.fn.name
		lost.kept, lost.keptFrom = &in, parent
		delete(r.tables, child)
	}
	lost.recreatedIn, lost.recreatedAt = c.file, c
	r.lost[child] = &lost
	if partition {
		lost.child = child
		r.rowsLeft(parent, &lost) // its rows leave the partitioned table
	}
}

// attaches records that table child becomes a partition of table parent
// by statement c of file (ATTACH PARTITION). When parent is guarded, or a
// partition of a guarded table, PostgreSQL clones the guard triggers onto
// child (PostgreSQL docs, CREATE TRIGGER, "Notes"), which is then guarded
// as a partition created with PARTITION OF is:
//   - a guard trigger of child's own makes PostgreSQL refuse the
//     statement (a trigger of the name exists): a finding no guard
//     migration undoes, whose fix is to drop it before;
//   - child's guard lost in this migration (detached, or a partition
//     dropped and created again) is back: no applied state has it
//     unguarded, and the rows a DETACH took from parent are back too;
//   - lost in an earlier migration, it is back from this one on, and
//     the loss's finding is the state between (cause.reattached).
func (r *guardReplay) attaches(file, child, parent string, c *cause) {
	p, _, ok := r.guardOf(parent)
	if !ok {
		return
	}
	if own, ok := r.tables[child]; ok {
		drops := "DROP TRIGGER fencegen_guard ON " + child
		if requiredText(own.fn.text) {
			drops += "; DROP TRIGGER fencegen_guard_token ON " + child
		}
		c.advice = fmt.Sprintf(": PostgreSQL refuses it (trigger \"fencegen_guard\" for relation already exists), since it clones the guard trigger of fenced table %s onto every partition under that name, and %s has a guard trigger of its own, which %s installs: drop that one first, in this migration (%s), and the clone guards %s from the ATTACH on", p, child, own.file, drops, child)
		r.refused["attach "+child] = c
		delete(r.tables, child) // as the statement's fix leaves it
		return
	}
	if l := r.lost[child]; l != nil {
		if l.file == file {
			delete(r.lost, child)
		} else if l.vacated && l.reattached == nil {
			l.reattached = c
		}
	}
	if rc := r.removed[p]; rc != nil && rc.child == child && rc.file == file {
		delete(r.removed, p) // its rows are back, with their tokens
	}
}

// vacate records that guarded table key, whose guard was in, left its
// name by statement c (dropped, or renamed with its trigger): a table
// that takes the name later has no trigger (arrives).
func (r *guardReplay) vacate(key string, in guardInstalled, c *cause) {
	lost := *c
	lost.vacated, lost.fn, lost.column = true, in.fn.name, column(in.fn.text)
	r.lost[key] = &lost
	r.rowsLeft(key, &lost)
}

// rowsLeft records that the rows of fenced table key left it with
// statement c (the table dropped, renamed or moved away, a partition
// dropped or detached): rows a table of the name gets later stand in
// for them (resets).
func (r *guardReplay) rowsLeft(key string, c *cause) {
	if r.removed[key] == nil {
		rc := *c
		rc.vacated, rc.seq = true, r.seq // reported at the insert
		r.removed[key] = &rc
	}
}

// arrives records that a table other than the guarded one takes the
// name key by statement c of file (CREATE TABLE, a rename or a move to
// another schema): when a guarded table left that name, the new table
// re-creates it, without a trigger. Of several migrations that do, the
// first is the one whose guard is missing (the table is unguarded from
// it on); within one migration, the last statement (a swap creates the
// copy, then renames it to the name).
// fencedBy returns the cause when CREATE TABLE n makes its table fenced
// by copying a fenced table (trial N3): LIKE it INCLUDING COMMENTS (or
// ALL) copies its token column's fencing mark, and INHERITS makes the new
// table an inheritance child, fenced with its parent; nil otherwise. The
// finding of a missing guard points at this statement, as at the COMMENT
// that marks a table, not at the newest guard migration.
func (r *guardReplay) fencedBy(n *sqlparse.CreateTable, at func(what, fails string, a ...any) *cause) *cause {
	for i, like := range n.LikeTables {
		if i < len(n.LikeOptions) && n.LikeOptions[i]&sqlparse.LikeComments != 0 {
			if col := r.tokenColumn(r.key(like)); col != "" {
				return at("creates table %s as a copy of fenced table %s (LIKE ... INCLUDING COMMENTS), with token column %s and its fencing mark", "", n.Table.String(), like.String(), col)
			}
		}
	}
	if n.PartitionOf {
		return nil // PostgreSQL clones the partitioned table's guard trigger onto it
	}
	for _, p := range n.Inherits {
		if col := r.tokenColumn(r.key(p)); col != "" {
			return at("creates table %s as an inheritance child of fenced table %s, which fences it too (token column %s of table %[2]s)", "", n.Table.String(), p.String(), col)
		}
	}
	return nil
}

// tokenColumn returns the token column of table key, unquoted: the one
// its guard trigger reads, or the one a migration after the guard
// migrations marked; "" when the replay knows of no mark on it.
func (r *guardReplay) tokenColumn(key string) string {
	if in, ok := r.tables[key]; ok {
		if col, _ := guardMode(in.fn.text); col != "" {
			if len(col) >= 2 && col[0] == '"' && col[len(col)-1] == '"' {
				return strings.ReplaceAll(col[1:len(col)-1], `""`, `"`)
			}
			return col
		}
	}
	if c := r.marked[key]; c != nil {
		if m := markedColumnRE().FindStringSubmatch(c.what); m != nil {
			return m[1]
		}
	}
	return ""
}

// markedColumnRE finds the column in a marked cause's text.
var markedColumnRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`column (\S+) (?:of table|and its fencing mark)`) })

func (r *guardReplay) arrives(key, file string, c *cause) {
	if l := r.lost[key]; l != nil && l.vacated && (l.recreatedIn == "" || l.recreatedIn == file) {
		l.recreatedIn, l.recreatedAt = file, c
	}
}

// apply replays the up section of one guard migration.
func (r *guardReplay) apply(file string, b []byte) guardMigration {
	return r.applyAt(file, b, 0)
}

// applyAt is apply for b starting after line skip of file (the guard
// fencegen guard -into added to it).
func (r *guardReplay) applyAt(file string, b []byte, skip int) guardMigration {
	m := guardMigration{file: file, template: 1}
	funcs := r.funcs
	sc := bufio.NewScanner(bytes.NewReader(bytes.TrimPrefix(b, []byte("\uFEFF"))))
	sc.Buffer(nil, 1<<20)
	n := skip
	var fn *guardFunc
	// end is the line that ends fn's body: its dollar-quote tag
	// (guardTable.Tag), as the first LANGUAGE line after the CREATE line
	// opens it (template 4 sets search_path between them)
	// ($fencegen$ in every migration of a name without "$fencegen").
	end := "$fencegen$;"
	var pendingTable string
	pendingLine := 0
	for sc.Scan() {
		n++
		line := strings.TrimRight(sc.Text(), "\r")
		if fn != nil {
			if open, ok := strings.CutPrefix(line, "LANGUAGE plpgsql AS $"); ok && strings.HasPrefix(fn.text, "CREATE OR REPLACE FUNCTION "+fn.name+"() RETURNS trigger\n") && !strings.Contains(fn.text, "\nLANGUAGE plpgsql AS $") && strings.HasSuffix(open, "$") {
				end = "$" + open + ";"
			}
			fn.text += line + "\n"
			if line == end {
				funcs[fn.name] = *fn
				fn = nil
			}
			continue
		}
		if pendingTable != "" {
			if name, ok := strings.CutPrefix(strings.TrimSpace(line), "FOR EACH ROW EXECUTE FUNCTION "); ok {
				name = unpublic(strings.TrimSuffix(strings.TrimSuffix(name, ";"), "()"))
				if f, ok := funcs[name]; ok {
					r.tables[pendingTable] = guardInstalled{fn: f, file: file, line: pendingLine}
					// PostgreSQL clones the trigger onto every partition
					// it has now: one attached again since it lost the
					// clone is guarded again (the state between stays
					// history, which fencegen guard -applied accepted).
					for k, l := range r.lost {
						if p, ok := r.partitionGuard(k); ok && p == pendingTable && l.reattached != nil {
							delete(r.lost, k)
						}
					}
				}
			}
			pendingTable = ""
			continue
		}
		switch {
		case line == "-- +goose Down" || line == "-- migrate:down":
			return m
		case strings.HasPrefix(line, guardTemplateLine):
			var v int
			if _, err := fmt.Sscanf(strings.TrimPrefix(line, guardTemplateLine), "%d", &v); err == nil {
				m.template = v
			}
		case strings.HasPrefix(line, "CREATE OR REPLACE FUNCTION ") && strings.HasSuffix(line, "() RETURNS trigger"):
			// Read as this fencegen's unqualified for a public table
			// (the form older guard migrations wrote): the text is
			// compared so, and qualifiedText writes it back.
			name := unpublic(strings.TrimSuffix(strings.TrimPrefix(line, "CREATE OR REPLACE FUNCTION "), "() RETURNS trigger"))
			fn = &guardFunc{name: name, text: "CREATE OR REPLACE FUNCTION " + name + "() RETURNS trigger\n", file: file, line: n, template: m.template}
			end = "$fencegen$;"
		case strings.HasPrefix(line, "DROP TRIGGER IF EXISTS fencegen_guard ON "):
			qt := unpublic(strings.TrimSuffix(strings.TrimPrefix(line, "DROP TRIGGER IF EXISTS fencegen_guard ON "), ";"))
			delete(r.tables, qt)
			delete(r.lost, qt)
		case strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, removedLine):
			// A table unfenced on purpose (-unfence): without a trigger
			// of its own to drop (a partition's was PostgreSQL's clone),
			// this line records the decision.
			delete(r.lost, unpublic(strings.TrimSuffix(strings.TrimPrefix(line, "-- "), removedLine)))
		case strings.HasPrefix(line, "DROP FUNCTION IF EXISTS "):
			delete(funcs, unpublic(strings.TrimSuffix(strings.TrimPrefix(line, "DROP FUNCTION IF EXISTS "), "();")))
		case strings.HasPrefix(line, "CREATE TRIGGER fencegen_guard BEFORE UPDATE ON "):
			pendingTable, pendingLine = unpublic(strings.TrimPrefix(line, "CREATE TRIGGER fencegen_guard BEFORE UPDATE ON ")), n
		case strings.HasPrefix(line, "CREATE TRIGGER fencegen_guard BEFORE UPDATE OF "):
			// A required guard's first trigger: ... OF <column> ON <table>.
			if _, qt, ok := strings.Cut(strings.TrimPrefix(line, "CREATE TRIGGER fencegen_guard BEFORE UPDATE OF "), " ON "); ok {
				pendingTable, pendingLine = unpublic(qt), n
			}
		}
	}
	return m
}

// removedLine ends the line a guard migration writes before the drops of
// a table's guard when the table is no longer fenced (guard.sql.tmpl).
const removedLine = " is no longer fenced: its guard is removed."

// unpublic is name (of a table or function, as a guard migration writes
// it) as the replay keys it: without the schema when it is public.
// fencegen guard writes public.jobs since issue 24 (trial-pg3 finding
// 11: a search_path left by an earlier migration moved the trigger);
// older guard migrations wrote jobs.
func unpublic(name string) string {
	return strings.TrimPrefix(name, "public.")
}

// qualifiedText is a guard function's text (as the replay keeps it) with
// its name schema-qualified, as fencegen guard writes it.
func qualifiedText(text string) string {
	rest, ok := strings.CutPrefix(text, "CREATE OR REPLACE FUNCTION ")
	if !ok {
		return text
	}
	name, after, _ := strings.Cut(rest, "() RETURNS trigger")
	return "CREATE OR REPLACE FUNCTION " + templates.Qualified(name) + "() RETURNS trigger" + after
}

// guardMode returns the token column a trigger function's text tests
// (as quoted in SQL) and its mode, "strict" (<=), "required"
// (requiredText) or "non-strict" (<);
// "", "" when the text has no such test.
func guardMode(text string) (column, mode string) {
	required := requiredText(text)
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if lit, ok := strings.CutPrefix(line, "col name := '"); ok {
			// Template 3: the column as installed, then the test of the
			// variables read from it.
			if lit, _, ok = strings.Cut(lit, "'; --"); ok {
				column = sqlparse.QuoteIdent(strings.ReplaceAll(lit, "''", "'"))
			}
			continue
		}
		var col, op string
		if rest, ok := strings.CutPrefix(line, "IF presented "); ok && column != "" {
			col, op = column, rest
		} else if rest, ok := strings.CutPrefix(line, "IF NEW."); ok {
			if col, op, ok = strings.Cut(rest, " "); !ok {
				return "", ""
			}
		} else {
			continue
		}
		switch {
		case strings.HasPrefix(op, "<= "):
			return col, "strict"
		case required:
			return col, "required"
		case strings.HasPrefix(op, "< "):
			return col, "non-strict"
		}
	}
	return "", ""
}

// want is the guard g writes, replayed from its own migration.
func (g *DatabaseGuard) want() *guardReplay {
	r := newReplay()
	if len(g.data.Tables) == 0 {
		return r
	}
	files, err := g.Migration("atlas", "1")
	if err != nil {
		panic(err) // a fixed, valid format and version
	}
	r.apply("", files["1_fencegen_guard.sql"])
	return r
}

// GuardMigrations returns how the guard migrations fencegen guard wrote
// among the entry's schema files (the golang-migrate .up.sql, goose,
// dbmate or Atlas files whose first line is guard's header, replayed in
// the order the tool applies them, with the other migrations' renames
// and drops of guarded tables and token columns) differ from the guard
// this fencegen writes for the current schema: a fenced table without a
// guard trigger (never installed, or dropped with its table), a trigger
// that reads a token column a later migration renamed, dropped or
// retyped, a trigger function written by an older fencegen or for another
// token column or mode, a trigger on a table that is no longer fenced. A
// finding whose cause is a statement of a later migration is located
// there (Finding.Cause). It returns nothing when the schema files hold no
// guard migration (the guard is applied some other way, e.g. File with
// psql). others are the guards of the run's other sql entries, whose
// tables are not "no longer fenced" (a trigger is one per database).
func (g *DatabaseGuard) GuardMigrations(others []*DatabaseGuard) []Finding {
	if g.mysqlEntry || g.mysql != nil {
		return g.mysqlGuardMigrations(others)
	}
	have := replayGuard(g.schema)
	if len(have.migrations) == 0 {
		return nil
	}
	return g.compare(have, others)
}

// refusedText ends the finding of a statement PostgreSQL refuses because
// a guard trigger BEFORE UPDATE OF the column depends on it: the file
// that installs the trigger, and the table.
const refusedText = ": PostgreSQL refuses it, since the guard trigger that %s installs fires on UPDATE OF that column (mode required) and depends on it; its triggers must be dropped before it and the guard installed again after it, both in this migration, for no applied state to leave %[2]s unguarded (fencegen guard -into writes both)"

// severalGuards reports whether fencegen guard needs -out to pick one of
// guards (the run's): several have fenced tables, or none has and several
// have guard migrations to remove.
func severalGuards(guards []*DatabaseGuard) bool {
	fenced := 0
	for _, g := range guards {
		if g.Fenced() {
			fenced++
		}
	}
	return fenced > 1 || fenced == 0 && len(guards) > 1
}

// fencedTables are the quoted, qualified names of the tables g and
// others fence.
func (g *DatabaseGuard) fencedTables(others []*DatabaseGuard) map[string]bool {
	fenced := map[string]bool{}
	for _, o := range append([]*DatabaseGuard{g}, others...) {
		for _, t := range o.data.Tables {
			fenced[t.QualifiedTable] = true
		}
	}
	return fenced
}

// compare lists the differences of the guard have installs from g's.
func (g *DatabaseGuard) compare(have *guardReplay, others []*DatabaseGuard) []Finding {
	last := have.migrations[len(have.migrations)-1]
	several := severalGuards(others)
	at := func(file string, line int, format string, a ...any) Finding {
		return Finding{File: file, Line: line, Col: 1, Msg: fmt.Sprintf(format, a...),
			Format: last.format, Dir: filepath.Dir(last.file), Out: g.Out, Several: several}
	}
	because := func(c *cause, format string, a ...any) Finding {
		f := at(c.file, c.line, "%s%s", c.what, fmt.Sprintf(format, a...))
		f.Col, f.Cause = c.col, true
		return f
	}
	want := g.want()
	var out []Finding
	for _, t := range g.data.Tables {
		in, ok := have.tables[t.QualifiedTable]
		w := want.tables[t.QualifiedTable]
		switch {
		case !ok && have.lost[t.QualifiedTable] != nil && have.lost[t.QualifiedTable].recreatedIn != "":
			c := have.lost[t.QualifiedTable]
			where := "the migration that creates it again"
			if c.detached {
				where = "that migration"
			}
			f := because(c, "; table %s is fenced, so its guard belongs in %s, %s, for no applied state to leave it unguarded: without it, the database lets a stale token's UPDATE of %s from any writer through", t.Table, where, c.recreatedIn, t.Table)
			f.Into, f.Why = c.recreatedIn, whyRecreate
			if c.detached {
				f.Why = whyDetach
			}
			out = append(out, f)
		case !ok && have.lost[t.QualifiedTable] != nil && have.lost[t.QualifiedTable].advice != "":
			out = append(out, because(have.lost[t.QualifiedTable], "%s", have.lost[t.QualifiedTable].advice))
		case !ok && have.lost[t.QualifiedTable] != nil:
			out = append(out, because(have.lost[t.QualifiedTable], "; table %s is fenced, so until a new guard migration installs its guard again, the database lets a stale token's UPDATE of %s from any writer through", t.Table, t.Table))
		case !ok && have.marked[t.QualifiedTable] != nil:
			// Marked (again) after the last guard migration: the cause
			// is the mark, and its guard belongs in that migration.
			c := have.marked[t.QualifiedTable]
			f := because(c, "; table %s has no guard trigger in the guard migrations, so from this migration on the database lets a stale token's UPDATE of %s from any writer through: its guard belongs in this migration, %s, for no applied state to leave it unguarded", t.Table, t.Table, c.file)
			f.Into, f.Why = c.file, whyMark
			out = append(out, f)
		case !ok:
			out = append(out, at(last.file, 1, "fenced table %s has no guard trigger in the guard migrations: the database does not refuse a stale token's UPDATE from other writers", t.Table))
		case in.shadowed != nil:
			f := because(in.shadowed, ": the guard trigger that %s installs reads the token column by that name, so once this is applied it checks this new column instead of %s, and the database lets a stale token's UPDATE of %s from any writer through; its guard belongs in this migration, %s, for no applied state to leave %s unguarded", in.file, in.broken.renamedTo, t.Table, in.shadowed.file, t.Table)
			f.Into, f.Why = in.shadowed.file, whyShadow
			if strings.HasPrefix(in.shadowed.what, "renames ") {
				f.Why = whyShadowRename
			}
			out = append(out, f)
		case in.broken != nil && in.broken.refusedOn != "":
			f := because(in.broken, refusedText, in.file, in.broken.refusedOn)
			f.Into, f.Why = in.broken.file, whyRequired
			out = append(out, f)
		case in.broken != nil && in.broken.kind != "":
			follows := t.ColumnName == in.broken.renamedTo && t.Comment
			f := because(in.broken, "%s", robustText(in, t.Table, follows, true))
			if in.broken.kind == "rename" && !follows {
				// No mark moved with the column: the trigger finds no
				// token column once this is applied, so the guard
				// belongs in this migration.
				f.Into, f.Why = in.broken.file, whyKeyRename
			}
			out = append(out, f)
		case in.broken != nil:
			out = append(out, because(in.broken, ", which the guard trigger that %s installs reads: once this is applied, %s until a new guard migration replaces the trigger", in.file, in.broken.fails))
		case in.weakened != nil:
			out = append(out, because(in.weakened, "%s", in.weakened.advice))
		case in.disabled != nil:
			out = append(out, because(in.disabled, "; table %s is fenced, so until a new guard migration installs its guard again, the database lets a stale token's UPDATE of %s from any writer through", t.Table, t.Table))
		case in.fn.text == w.fn.text:
		case in.renamed != nil:
			out = append(out, because(in.renamed, ": its guard trigger moves with it, but its function %s still names the old table in the stale-token error until a new guard migration replaces it", in.fn.name))
		case in.fn.template < TemplateVersion:
			out = append(out, at(in.fn.file, in.fn.line, "the guard of table %s was written by an older fencegen (guard template %d, this fencegen writes %d%s)",
				t.Table, in.fn.template, TemplateVersion, templateChange(in.fn.template)))
		case in.fn.template > TemplateVersion:
			f := at(in.fn.file, in.fn.line, "the guard of table %s was written by a newer fencegen (guard template %d, this fencegen writes %d)", t.Table, in.fn.template, TemplateVersion)
			f.Newer = true
			out = append(out, f)
		default:
			hc, hm := guardMode(in.fn.text)
			wc, wm := guardMode(w.fn.text)
			if m := have.marked[t.QualifiedTable]; hc != "" && hc != wc && m != nil && strings.Contains(m.what, " "+wc+" ") {
				// The mark moved to another column while the one the
				// trigger reads stays (trial r24 F9): the trigger keeps
				// checking the old column, which the generated writes
				// no longer set, so the new one is unguarded from this
				// migration on; its guard belongs in it.
				f := because(m, ": the guard trigger that %s installs reads column %s while a column of that name exists, so once this is applied it keeps checking %s, which the generated writes no longer set, and the database lets a stale token's UPDATE of %s from any writer through; its guard belongs in this migration, %s, for no applied state to leave %s unguarded", in.file, hc, hc, t.Table, m.file, t.Table)
				f.Into, f.Why = m.file, whyMove
				out = append(out, f)
			} else if hc != "" && hc == wc && hm != wm && in.remarked != nil {
				out = append(out, because(in.remarked, ": the guard trigger that %s installs checks column %s %s; the mark now asks for %s, which a new guard migration installs", in.file, hc, hm, wm))
			} else if hc != "" && (hc != wc || hm != wm) {
				out = append(out, at(in.fn.file, in.fn.line, "the guard of table %s checks column %s %s; the schema now fences column %s %s", t.Table, hc, hm, wc, wm))
			} else {
				out = append(out, at(in.fn.file, in.fn.line, "the guard function of table %s differs from the one this fencegen writes (edited by hand, or by another fencegen)", t.Table))
			}
		}
	}
	fenced := g.fencedTables(others)
	var gone []string
	for qt := range have.tables {
		if !fenced[qt] && g.tables[qt] {
			gone = append(gone, qt)
		}
	}
	slices.Sort(gone)
	for _, qt := range gone {
		in := have.tables[qt]
		switch {
		case in.broken != nil && in.broken.refusedOn != "":
			// Dropping the token column of a guard of mode required:
			// PostgreSQL refuses it while the trigger depends on the
			// column, so the triggers' drops belong in that migration,
			// not in a new one after it (trial t24 F5).
			f := because(in.broken, refusedText, in.file, in.broken.refusedOn)
			f.Into, f.Why = in.broken.file, whyRequired
			out = append(out, f)
		case in.broken != nil && in.broken.kind != "":
			f := because(in.broken, "%s", robustText(in, qt, false, false))
			if in.broken.kind == "rename" {
				f.Into, f.Why = in.broken.file, whyKeyRename
			}
			out = append(out, f)
		case in.broken != nil && in.broken.renamedTo != "":
			// The mark did not follow the column (a fence key names it).
			out = append(out, because(in.broken, ", which the guard trigger that %s installs reads: once this is applied, %s until a new guard migration replaces the trigger; fence column %s of %s by its new name first", in.file, in.broken.fails, in.broken.renamedTo, qt))
		case in.broken != nil:
			out = append(out, because(in.broken, ", which the guard trigger that %s installs reads: once this is applied, %s until a new guard migration removes the trigger (table %s is no longer fenced)", in.file, in.broken.fails, qt))
		case in.unmarked != nil && refusesUnfenced(in):
			out = append(out, because(in.unmarked, ", but %s", staysText(in, qt, "stays", "stay")))
		case in.unmarked != nil:
			out = append(out, because(in.unmarked, ", but the guard trigger that %s installs stays: it refuses every UPDATE of %s that lowers %s until a new guard migration removes it", in.file, qt, column(in.fn.text)))
		case in.renamed != nil && refusesUnfenced(in):
			out = append(out, because(in.renamed, ", which is not fenced under its new name, but %s", staysText(in, qt, "moves with it", "move with it")))
		case in.renamed != nil:
			out = append(out, because(in.renamed, ", which is not fenced under its new name, but the guard trigger that %s installs moves with it: it refuses every UPDATE of %s that lowers %s until a new guard migration removes it", in.file, qt, column(in.fn.text)))
		case refusesUnfenced(in):
			out = append(out, at(in.file, in.line, "table %s is no longer fenced, but %s", qt, staysText(in, qt, "stays", "stay")))
		default:
			out = append(out, at(in.file, in.line, "table %s is no longer fenced, but the guard migrations still install its guard trigger, which refuses UPDATEs that lower %s", qt, column(in.fn.text)))
		}
	}
	// A fenced table dropped and created again without its mark: fenced
	// no longer, by accident or on purpose; fencegen guard -unfence (or
	// the mark again) says which.
	var recreated []string
	for qt, c := range have.lost {
		if c.vacated && c.recreatedAt != nil && !fenced[qt] && c.reattached == nil {
			recreated = append(recreated, qt)
		}
	}
	slices.Sort(recreated)
	for _, qt := range recreated {
		c := have.lost[qt]
		if g.fencedAt(c.recreatedIn, qt) {
			// Marked where it is created again, and unmarked, dropped
			// or renamed by a later migration: from the re-creation to
			// that one it is fenced, so its guard belongs there.
			f := because(c, "; table %s is fenced as %s creates it again (a later migration changes that), so its guard belongs in that migration, for no applied state to leave it unguarded: without it, the database lets a stale token's UPDATE of %s from any writer through", qt, c.recreatedIn, qt)
			f.Into, f.Why = c.recreatedIn, whyRecreate
			out = append(out, f)
			continue
		}
		if !g.tables[qt] {
			continue
		}
		col := c.column
		if col == "" {
			col = "<token column>"
		}
		if c.detached {
			f := because(c, ": table %s is no longer fenced (its token column %s has no fencing mark of its own), so its generated writes take no token and the database refuses no stale one. Either mark it in this migration (COMMENT ON COLUMN %s.%s IS 'fencegen:token', or a fence key) and add its guard to it (fencegen guard -into), or stop fencing %s deliberately (fencegen guard -unfence %s writes the migration that removes its guard and records the decision)",
				qt, col, qt, col, qt, qt)
			f.Into, f.Why, f.Unfence = c.recreatedIn, whyDetach, qt
			out = append(out, f)
			continue
		}
		f := because(c.recreatedAt, " without the fencing mark of its token column %s, after %s:%d:%d %s: table %s is no longer fenced, so its generated writes take no token and the database refuses no stale one. Either mark it again in this migration (COMMENT ON COLUMN %s.%s IS 'fencegen:token', or a fence key) and add its guard to it (fencegen guard -into), or stop fencing %s deliberately (fencegen guard -unfence %s writes the migration that removes its guard and records the decision)",
			col, c.file, c.line, c.col, c.what, qt, qt, col, qt, qt)
		f.Into, f.Why, f.Unfence = c.recreatedIn, whyRecreate, qt
		out = append(out, f)
	}
	// A partition that lost the clone of its guard trigger (detached, or
	// dropped and created again) and that a later migration attaches to
	// a guarded table again: guarded from there on, not between. The
	// fix is the team's: the ATTACH goes into the migration of the loss.
	for _, qt := range slices.Sorted(maps.Keys(have.lost)) {
		c := have.lost[qt]
		if c.reattached == nil {
			continue
		}
		a := c.reattached
		f := because(c, "; %s:%d:%d %s again, and PostgreSQL clones the guard trigger onto it there, but from this migration to that one table %s has no guard trigger: the database lets a stale token's UPDATE of its rows from any writer through. Attach it again in this migration, %s, while neither migration is applied anywhere, for no applied state to leave it unguarded", a.file, a.line, a.col, a.what, qt, c.file)
		f.Into, f.Why, f.Move = c.file, whyReattach, qt
		out = append(out, f)
	}
	// A fenced table dropped for good: its trigger went with it, its
	// guard function stays in the database, run by no trigger. It names
	// the table and its token column as they were, so a table created
	// later under that name and fenced another way, or a hand-written
	// trigger that picks it up, would check what the dropped table had.
	// A function the triggers run, or that the guard of a table fenced
	// now creates again (CREATE OR REPLACE of its name), is none.
	used := map[string]bool{}
	for _, in := range have.tables {
		used[in.fn.name] = true
	}
	for _, o := range append([]*DatabaseGuard{g}, others...) {
		for _, t := range o.data.Tables {
			used[t.Function] = true
		}
	}
	for _, qt := range slices.Sorted(maps.Keys(have.lost)) {
		c := have.lost[qt]
		if _, ok := have.funcs[c.fn]; !ok || !c.vacated || c.recreatedIn != "" || fenced[qt] || used[c.fn] {
			continue
		}
		used[c.fn] = true
		out = append(out, because(c, "; its guard function %s() stays in the database, run by no trigger, and still names %s and its token column %s, until a new guard migration removes it", c.fn, qt, c.column))
	}
	// Statements no guard migration undoes: the team changes them.
	for _, k := range slices.Sorted(maps.Keys(have.refused)) {
		c := have.refused[k]
		f := because(c, "%s", c.advice)
		f.Refused = true
		out = append(out, f)
	}
	for _, k := range slices.Sorted(maps.Keys(have.stray)) {
		if st := have.stray[k]; have.lost[st.table] != st.c {
			f := because(st.c, "%s", st.c.advice)
			f.Refused = true
			out = append(out, f)
		}
	}
	sortFindings(out)
	return out
}

// The Why of a Finding with Into: what the migration does that only
// itself can fix without an unguarded state between.
const (
	whyRecreate     = "drops and re-creates a fenced table"
	whyKeyRename    = "renames a token column that a fence key marks (no column comment moves with it, so the trigger finds no token column)"
	whyShadow       = "adds a column of the name a renamed token column had (the trigger reads it instead)"
	whyShadowRename = "renames a column to the name a renamed token column had (the trigger reads it instead)"
	whyMove         = "moves the fencing mark to another column (the trigger reads the old one while it exists)"
	whyMark         = "marks a table for fencing (its guard triggers are installed by none of the guard migrations before it)"
	whyRequired     = "changes or drops the token column that a guard trigger of mode required depends on (its guard triggers are dropped before the change and installed again after it)"
	whyDetach       = "detaches a partition or an inheritance child from a fenced table (it loses the guard trigger or the mark it had from it)"
	whyReattach     = "takes a partition from a fenced table (DETACH PARTITION, or DROP TABLE) that a later migration attaches again"
)

// robustText ends the finding of a statement that renames, drops or
// retypes the token column read by a guard trigger of template 3 or later
// (cause.kind), on table: what the trigger does once it is applied, and
// until when. follows is set when the column keeps its fencing mark
// (a comment) under its new name; fenced when table is still fenced.
func robustText(in guardInstalled, table string, follows, fenced bool) string {
	c := in.broken
	until := "until a new guard migration replaces the trigger"
	if !fenced {
		until = fmt.Sprintf("until a new guard migration removes it (table %s is no longer fenced)", table)
	}
	switch {
	case c.kind == "rename" && follows:
		return fmt.Sprintf(", which the guard trigger that %s installs was written for: it keeps guarding the column under its new name, found by its fencing mark with a catalog lookup on every UPDATE of %s, %s", in.file, table, until)
	case c.kind == "rename" && !fenced:
		return fmt.Sprintf(", which the guard trigger that %s installs was written for: once this is applied, it finds no token column (a fence key of the configuration marks it, not a column comment, which would move with it), so the database would let a stale token's UPDATE of %s from any writer through: fence column %s of %s by its new name, and its guard belongs in this migration, %s, for no applied state to leave it unguarded", in.file, table, c.renamedTo, table, c.file)
	case c.kind == "rename":
		return fmt.Sprintf(", which the guard trigger that %s installs was written for: once this is applied, it finds no token column (a fence key of the configuration marks it, not a column comment, which would move with it), so the database would let a stale token's UPDATE of %s from any writer through: its guard belongs in this migration, %s, for no applied state to leave it unguarded", in.file, table, c.file)
	case c.kind == "drop":
		return fmt.Sprintf(", which the guard trigger that %s installs was written for: once this is applied, it finds no token column and lets every UPDATE of %s through, %s", in.file, table, until)
	default: // retype
		return fmt.Sprintf(", which the guard trigger that %s installs reads: it keeps guarding it, but each database session that ran the trigger before reads the column with a catalog lookup on every UPDATE of %s, %s", in.file, table, until)
	}
}

// staysText says what the guard trigger in (of a table qt no longer
// fenced; refusesUnfenced) refuses from the migration that unfenced the table until a new
// guard migration removes it: with verb (one trigger) or verbs (the two
// of mode required), "the guard trigger that F installs stays: ...". In
// mode strict or required, that is every UPDATE without a token, every
// UPDATE of the generated code once it is generated for the table
// unfenced (trial t24h F_unmark_required: FN002 for every write of the
// regenerated code, where the message said only lowering ones).
func staysText(in guardInstalled, qt, verb, verbs string) string {
	col, mode := guardMode(in.fn.text)
	if mode == "required" {
		return fmt.Sprintf("the guard triggers that %s installs %s (mode required) until a new guard migration removes them: they refuse every UPDATE of %s that does not set %s (a write without a token) with SQLSTATE %s, so every UPDATE that the generated code, generated for %s unfenced, sends without a token fails (and an UPDATE that lowers %s is refused with %s)", in.file, verbs, qt, col, fenceimpl.MissingTokenSQLState, qt, col, fenceimpl.SQLState)
	}
	return fmt.Sprintf("the guard trigger that %s installs %s (mode strict) until a new guard migration removes it: it refuses every UPDATE of %s that does not raise %s (a write without a token among them) with SQLSTATE %s, so every UPDATE that the generated code, generated for %s unfenced, sends without a token fails", in.file, verb, qt, col, fenceimpl.SQLState, qt)
}

// refusesUnfenced reports whether guard trigger in refuses an UPDATE
// that sets no token (mode strict or required): staysText says so.
func refusesUnfenced(in guardInstalled) bool {
	_, mode := guardMode(in.fn.text)
	return mode == "strict" || mode == "required"
}

// column is the token column a trigger function's text checks.
func column(text string) string {
	c, _ := guardMode(text)
	return c
}

// templateChange says what changed since template version v.
func templateChange(v int) string {
	switch {
	case v < 2:
		return ": its error has no DETAIL, SCHEMA, TABLE and COLUMN fields, so a *fence.StaleError from it carries the tokens 0"
	case v < 3:
		return ": its function names the token column, so once a migration renames, drops or retypes it, every UPDATE of the table fails"
	case v < 4:
		return ": its comparisons of tokens bind to the operators a session's search_path finds first, so a schema named before pg_catalog (SET search_path = app, pg_catalog) whose < takes numeric lets a stale token's UPDATE through"
	}
	return ""
}

// removedTables are the tables with a trigger in have that no guard of
// the run fences and that still exist: the new migration drops their
// triggers and functions.
func (g *DatabaseGuard) removedTables(have *guardReplay, others []*DatabaseGuard) []guardTable {
	fenced := g.fencedTables(others)
	guards := map[string]bool{}
	for _, t := range g.data.Tables {
		guards[t.QualifiedTable] = true
	}
	var out []guardTable
	for qt, in := range have.tables {
		if !fenced[qt] && g.tables[qt] {
			out = append(out, guardTable{Table: qt, QualifiedTable: qt, Function: in.fn.name, Trigger: "fencegen_guard", Required: requiredText(in.fn.text),
				First: have.partitionOf(qt, guards)})
		}
	}
	slices.SortFunc(out, func(a, b guardTable) int { return strings.Compare(a.QualifiedTable, b.QualifiedTable) })
	return out
}

// partitionOf reports whether table key is a partition, at any depth, of
// one of tables (keys).
func (r *guardReplay) partitionOf(key string, tables map[string]bool) bool {
	seen := map[string]bool{}
	for !seen[key] {
		seen[key] = true
		next := ""
		for _, p := range r.parents[key] {
			if p.partition {
				next = p.key
			}
		}
		if next == "" {
			return false
		}
		if tables[next] {
			return true
		}
		key = next
	}
	return false
}

// orphanFunctions are the guard functions the guard migrations created
// that no trigger runs any more and that the new migration does not
// create again (their table was dropped or renamed): it drops them.
func (g *DatabaseGuard) orphanFunctions(have *guardReplay, removed []guardTable) []string {
	// After it, the fenced tables run their new functions; the triggers
	// of the other tables the migrations guard (another entry's) stay.
	used := map[string]bool{}
	replaced := map[string]bool{}
	for _, t := range g.data.Tables {
		used[t.Function] = true
		replaced[t.QualifiedTable] = true
	}
	for _, t := range removed {
		used[t.Function] = true // dropped with its table's trigger
		replaced[t.QualifiedTable] = true
	}
	for qt, in := range have.tables {
		if !replaced[qt] {
			used[in.fn.name] = true
		}
	}
	var out []string
	for name := range have.funcs {
		if !used[name] {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// NextMigration is fencegen guard -dir: it replays the migrations files
// (the migrations directory's up files, in the tool's order) as
// GuardMigrations does and returns, when they install g's guard already,
// the newest guard migration and no files; otherwise the migration (as
// Migration) that, applied after all of them, brings the database to g's
// guard: every fenced table's function and trigger re-created (CREATE OR
// REPLACE FUNCTION, DROP TRIGGER IF EXISTS, CREATE TRIGGER: this also
// mends a trigger whose token column was renamed, dropped or retyped, or
// that was dropped with its table), the triggers and functions of tables
// no longer fenced dropped, and the functions of tables dropped or
// renamed (on MySQL, every fenced table's triggers dropped and created
// again, and those of tables no longer fenced dropped). It is an error
// when a newer fencegen wrote one of them, or when there is nothing to
// write a migration of (no fenced table and no guard migration).
func (g *DatabaseGuard) NextMigration(files []string, others []*DatabaseGuard, format, version string) (current string, out map[string][]byte, err error) {
	if g.mysql != nil {
		// A MySQL guard migration drops and re-creates every trigger of
		// the fenced tables, whatever ran before; it also drops the
		// triggers left on tables no longer fenced, and records the
		// -unfence tables.
		// The migrations files are replayed as on PostgreSQL: when
		// their guard migrations install g's guard already (no
		// finding), nothing is written (trial tnew F9).
		g2 := *g
		if g.mysqlEntry {
			parsed, err := g.readAll(g.mysqlReplayFiles(files))
			if err != nil {
				return "", nil, err
			}
			have := replayMySQLGuard(parsed)
			if len(have.migrations) > 0 {
				found := g.mysqlFindings(have, others)
				if len(found) == 0 {
					return have.migrations[len(have.migrations)-1], nil, nil
				}
				if err := g.checkUnfence(found); err != nil {
					return "", nil, err
				}
				if err := g.checkInto(found); err != nil {
					return "", nil, err
				}
				g2.mysqlRemove = mysqlRemoval{triggers: have.gone(g, others), unfenced: g.unfence}
			}
		}
		out, err = g2.Migration(format, version)
		return "", out, err
	}
	parsed, err := g.readAll(files)
	if err != nil {
		return "", nil, err
	}
	have := replayGuard(parsed)
	if len(have.migrations) > 0 {
		found := g.compare(have, others)
		if len(found) == 0 {
			return have.migrations[len(have.migrations)-1].file, nil, nil
		}
		if err := g.checkInto(found); err != nil {
			return "", nil, err
		}
	} else if len(g.data.Tables) == 0 {
		return "", nil, fmt.Errorf("no sql entry has a fenced table, and the migrations directory holds no guard migration: there is no guard to write")
	}
	out, err = g.next(have, others, format, version)
	return "", out, err
}

// Inline is fencegen guard -into: it replays the migrations files (the
// up migrations of into's directory, in the tool's order) up to into as
// NextMigration does and returns the text of into (a migration of the
// team's, not yet applied anywhere, that drops and re-creates a fenced
// table or renames its token column: Finding.Into), with the up section
// of the migration that NextMigration would write after it added at the
// end of into's up section (before goose's -- +goose Down or dbmate's --
// migrate:down; into is the .up.sql file of golang-migrate), after a
// header line (inlineHeader) that the replay recognises, and (goose,
// dbmate) the guard of the migrations before into restored at the end of
// its down section (inlineDown; for golang-migrate, InlineDown). Applied,
// into then leaves no state in which a table it re-creates is unguarded,
// nor one in which the trigger misses a token column it renames
// (Finding.Into). When newer migrations follow into (which must not be
// applied anywhere either), the guard added is the one of the schema as
// the migrations up to into leave it (SetAt), not the current schema's:
// the newer migrations' own changes are their own findings. It returns
// nil when the migrations up to into install that guard already, and an
// error when into is not one of files, is a guard migration or holds
// such a guard already, or, on MySQL, is not the newest.
func (g *DatabaseGuard) Inline(files []string, into string, others []*DatabaseGuard, format string) ([]byte, error) {
	if !slices.Contains(MigrationFormats, format) {
		return nil, fmt.Errorf("unknown migration format %q: want one of %s", format, strings.Join(MigrationFormats, ", "))
	}
	if g.mysql != nil {
		if err := g.Writable(into); err != nil {
			return nil, fmt.Errorf("-into %s: %w", filepath.ToSlash(into), err)
		}
		gk, others, err := g.mysqlAt(files, into, others)
		if err != nil {
			return nil, err
		}
		return gk.mysqlInline(into, others, format)
	}
	raw, err := os.ReadFile(into) // as written: the schema reader may drop its down section
	if err != nil {
		return nil, err
	}
	if _, ok := isGuardMigration(raw); ok {
		return nil, fmt.Errorf("-into %s: a guard migration already: run fencegen guard without -into for a new one", filepath.ToSlash(into))
	}
	if off, _ := inlineBlock(raw); off >= 0 {
		return nil, fmt.Errorf("-into %s: holds a guard that fencegen guard -into added already: run fencegen guard without -into for a new migration", filepath.ToSlash(into))
	}
	if f, err := g.read(into); err == nil {
		if how := outsideTransaction(raw, format, f); how != "" {
			// Its statements commit one by one: a writer sees the
			// states between them, the table changed and not yet
			// guarded among them (trial t24h).
			return nil, fmt.Errorf("-into %s: %s, so writers see each state between its statements: the table unguarded from the statement that changes it to the guard's CREATE TRIGGER (and between the DROP TRIGGER and CREATE TRIGGER the guard writes), and a statement that fails leaves it half applied, without the guard; move the statements that must run outside a transaction (CREATE INDEX CONCURRENTLY, say) to a migration of their own, let this one run in a transaction, then run fencegen guard -into again", filepath.ToSlash(into), how)
		}
	}
	if all, err := g.readAll(files); err == nil {
		if have := replayGuard(all); len(have.migrations) > 0 {
			for _, f := range g.compare(have, others) {
				if f.Move != "" && samePath(f.Into, into) {
					return nil, fmt.Errorf("-into %s: no guard added to it closes the gap %s:%d:%d leaves: partition %s has no guard trigger from it to the migration that attaches it again, where PostgreSQL clones its parent's; move that ATTACH into %[1]s instead", filepath.ToSlash(into), f.File, f.Line, f.Col, f.Move)
				}
			}
		}
	}
	gk, parsed, others, err := g.inlineAt(files, into, others)
	if err != nil {
		return nil, err
	}
	have := replayGuard(parsed)
	if len(have.migrations) > 0 && len(gk.compare(have, others)) == 0 {
		return nil, nil
	}
	pre, downPre := inlinePre(have, into), gk.inlineDownPre(have, into)
	files2, err := gk.next(have, others, format, "0")
	if err != nil {
		return nil, err
	}
	up := files2["0_fencegen_guard.sql"]
	if format == "golang-migrate" {
		up = files2["0_fencegen_guard.up.sql"]
	}
	block := fmt.Sprintf("%s%s migration: the database-side fencing guard, added by\n"+
		"-- \"fencegen guard -into\" to the migration that changes a fenced table (re-creates\n"+
		"-- it, or renames its token column), so that no applied state leaves it unguarded.\n"+
		"-- Keep it as it is once applied.\n%s%d\n",
		inlineHeader, format, guardTemplateLine, TemplateVersion) + upStatements(string(up), format)
	return spliceInline(raw, pre, downPre, block, format, func() (string, error) {
		return gk.inlineDown(replayGuard(parsed[:len(parsed)-1]), format)
	})
}

// inlinePre is what fencegen guard -into puts before the statements of
// into (have: the replay of the migrations up to into) when PostgreSQL
// refuses one of them while a guard trigger of mode required depends on
// the token column (ALTER COLUMN ... TYPE, DROP COLUMN): the guard
// triggers' drops, at the start of its up section and of its down
// section (golang-migrate: of its .down.sql file, InlineDown), whose
// statements undo the change under the guard the up section installs;
// the guard comes back at the end of each. "" when none is refused.
func inlinePre(have *guardReplay, into string) string {
	var refused []string
	for _, in := range have.tables {
		if in.broken != nil && in.broken.refusedOn != "" && samePath(in.broken.file, into) && !slices.Contains(refused, in.broken.refusedOn) {
			refused = append(refused, in.broken.refusedOn)
		}
	}
	if len(refused) == 0 {
		return ""
	}
	slices.Sort(refused)
	pre := "-- fencegen guard -into: the guard triggers of mode required depend on the token\n" +
		"-- column this migration changes; dropped here, installed again at the end.\n"
	for _, qt := range refused {
		pre += "DROP TRIGGER IF EXISTS fencegen_guard ON " + qt + ";\nDROP TRIGGER IF EXISTS fencegen_guard_token ON " + qt + ";\n"
	}
	return pre
}

// inlineDownPre is what fencegen guard -into puts before the statements
// of into's down section (golang-migrate: its .down.sql file, InlineDown):
// the drops of the guard triggers of mode required that the up section
// installs (g, the guard at into), which depend on the token column, as
// do those inlinePre drops. The down section undoes the change, which
// may drop, retype or unmark a token column the up section made (trial
// N17: a mark moved to a new column, whose down section drops it, failed
// under goose down with "cannot drop column ... because other objects
// depend on it"); the guard of the migrations before into is installed
// again at its end (inlineDown). "" when g has no table of mode required
// and inlinePre is "".
func (g *DatabaseGuard) inlineDownPre(have *guardReplay, into string) string {
	var tables []string
	for _, in := range have.tables {
		if in.broken != nil && in.broken.refusedOn != "" && samePath(in.broken.file, into) && !slices.Contains(tables, in.broken.refusedOn) {
			tables = append(tables, in.broken.refusedOn)
		}
	}
	for _, t := range g.data.Tables {
		if t.Required && !slices.Contains(tables, t.QualifiedTable) {
			tables = append(tables, t.QualifiedTable)
		}
	}
	if len(tables) == 0 {
		return ""
	}
	slices.Sort(tables)
	pre := "-- fencegen guard -into: the guard triggers of mode required depend on the token\n" +
		"-- column this section may change; dropped here, the earlier guard installed at the end.\n"
	for _, qt := range tables {
		pre += "DROP TRIGGER IF EXISTS fencegen_guard ON " + qt + ";\nDROP TRIGGER IF EXISTS fencegen_guard_token ON " + qt + ";\n"
	}
	return pre
}

// mysqlAt is inlineAt for an entry with engine mysql: g when into is the
// newest of files; for an older one, which a finding of the replay of
// g's schema files must name (Finding.Into), the guard of the schema as
// the files up to into leave it (SetAt), and others with g replaced by it.
func (g *DatabaseGuard) mysqlAt(files []string, into string, others []*DatabaseGuard) (*DatabaseGuard, []*DatabaseGuard, error) {
	if checkNewest(files, into) == nil {
		return g, others, nil
	}
	idx, err := g.schemaIndex(into)
	if err != nil || g.at == nil {
		return nil, nil, checkNewest(files, into)
	}
	named := false
	if have := replayMySQLGuard(g.schema); len(have.migrations) > 0 {
		for _, f := range g.mysqlFindings(have, others) {
			named = named || f.Into != "" && samePath(f.Into, into)
		}
	}
	if !named {
		return nil, nil, fmt.Errorf("-into %s: not the newest up migration of the directory (%s is), nor one whose guard is missing (fencegen check names it): only a migration not yet applied anywhere may change, and the guard goes into the newest unless an older one leaves a table unguarded", filepath.ToSlash(into), filepath.ToSlash(files[len(files)-1]))
	}
	gk, err := g.at(g.schema[:idx+1], g.schema[idx+1:])
	if err != nil {
		return nil, nil, fmt.Errorf("-into %s: the schema as the migrations up to it leave it: %v", filepath.ToSlash(into), err)
	}
	if gk == nil {
		return nil, nil, fmt.Errorf("-into %s: no table is fenced in the schema as the migrations up to it leave it, and none of them is a guard migration: there is no guard to add to it", filepath.ToSlash(into))
	}
	gk.unfence = g.unfence
	others = slices.Clone(others)
	if i := slices.Index(others, g); i >= 0 {
		others[i] = gk
	}
	return gk, others, nil
}

// samePath reports whether a and b name the same file.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	ba, err2 := filepath.Abs(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return aa == ba
}

// fencedAt reports whether table qt (quoted, qualified) is fenced in the
// schema as g's schema files up to file leave it (SetAt); false when
// that guard cannot be built.
func (g *DatabaseGuard) fencedAt(file, qt string) bool {
	if g.at == nil {
		return false
	}
	idx, err := g.schemaIndex(file)
	if err != nil {
		return false
	}
	gk, err := g.at(g.schema[:idx+1], g.schema[idx+1:])
	if err != nil || gk == nil {
		return false
	}
	return slices.ContainsFunc(gk.data.Tables, func(t guardTable) bool { return t.QualifiedTable == qt })
}

// inlineAt returns what fencegen guard -into into writes from: the
// guard of the schema as the migrations files up to into leave it, the
// files up to into, parsed, and others with g replaced by that guard. It
// is g itself when into is the newest of files; for an older one, which
// a finding of the whole directory must name (Finding.Into), the guard
// SetAt builds from the entry's schema files up to into. It is an error
// when into is not one of files, is older and named by no finding, or
// when no table is fenced there.
func (g *DatabaseGuard) inlineAt(files []string, into string, others []*DatabaseGuard) (*DatabaseGuard, []*sqlparse.File, []*DatabaseGuard, error) {
	abs := func(name string) string {
		a, err := filepath.Abs(name)
		if err != nil {
			return name
		}
		return a
	}
	k := slices.IndexFunc(files, func(f string) bool { return abs(f) == abs(into) })
	if k < 0 {
		return nil, nil, nil, fmt.Errorf("-into %s: not an up migration of the migrations directory (-dir)", filepath.ToSlash(into))
	}
	all, err := g.readAll(files)
	if err != nil {
		return nil, nil, nil, err
	}
	parsed := all[:k+1]
	if k == len(files)-1 {
		return g, parsed, others, nil
	}
	if g.at == nil {
		return nil, nil, nil, checkNewest(files, into)
	}
	// An older migration changes only when a finding puts the guard
	// there: the first that re-creates a fenced table, renames a token
	// column a fence key marks, or adds a column of its old name.
	named := false
	if have := replayGuard(all); len(have.migrations) > 0 {
		for _, f := range g.compare(have, others) {
			named = named || f.Into != "" && abs(f.Into) == abs(into)
		}
	}
	if !named {
		return nil, nil, nil, fmt.Errorf("-into %s: not the newest up migration of the directory (%s is), nor one whose guard is missing (fencegen check names it): only a migration not yet applied anywhere may change, and the guard goes into the newest unless an older one leaves a table unguarded", filepath.ToSlash(into), filepath.ToSlash(files[len(files)-1]))
	}
	idx, err := g.schemaIndex(into)
	if err != nil {
		return nil, nil, nil, err
	}
	gk, err := g.at(g.schema[:idx+1], g.schema[idx+1:])
	if err != nil {
		return nil, nil, nil, fmt.Errorf("-into %s: the schema as the migrations up to it leave it: %v", filepath.ToSlash(into), err)
	}
	if gk == nil {
		return nil, nil, nil, fmt.Errorf("-into %s: no table is fenced in the schema as the migrations up to it leave it, and none of them is a guard migration: there is no guard to add to it", filepath.ToSlash(into))
	}
	gk.unfence = g.unfence
	others = slices.Clone(others)
	if i := slices.Index(others, g); i >= 0 {
		others[i] = gk
	}
	return gk, parsed, others, nil
}

// checkNewest returns an error unless into is the newest of files, the
// up migrations of its directory in the tool's order (fencegen guard
// -into on MySQL, and where no guard of an older migration's schema can
// be built).
func checkNewest(files []string, into string) error {
	abs := func(name string) string {
		a, err := filepath.Abs(name)
		if err != nil {
			return name
		}
		return a
	}
	if len(files) == 0 || abs(files[len(files)-1]) != abs(into) {
		newest := "none"
		if len(files) > 0 {
			newest = files[len(files)-1]
		}
		return fmt.Errorf("-into %s: not the newest up migration of the directory (%s is): only a migration not yet applied anywhere may change, which is the newest", filepath.ToSlash(into), filepath.ToSlash(newest))
	}
	return nil
}

// spliceInline returns the migration raw with block (the guard, with its
// header line) added at the end of its up section and pre (inlinePre) at
// its start, and, when it has a down section (goose, dbmate), downPre
// (inlineDownPre) at the start of that and down's text at its end.
func spliceInline(raw []byte, pre, downPre, block, format string, downText func() (string, error)) ([]byte, error) {
	bom := ""
	src := string(raw)
	if s, ok := strings.CutPrefix(src, "\uFEFF"); ok {
		bom, src = "\uFEFF", s
	}
	eol := "\n"
	if strings.Contains(src, "\r\n") {
		eol = "\r\n"
		block = strings.ReplaceAll(block, "\n", "\r\n")
		pre = strings.ReplaceAll(pre, "\n", "\r\n")
		downPre = strings.ReplaceAll(downPre, "\n", "\r\n")
	}
	if pre != "" {
		src = insertAfterMark(src, upMark[format], pre, eol)
	}
	if down := downMark[format]; down != "" && downPre != "" {
		src = insertAfterMark(src, down, downPre, eol)
	}
	down := downMark[format]
	at := len(src)
	if down != "" {
		for off := 0; off < len(src); {
			line, _, _ := strings.Cut(src[off:], "\n")
			if strings.HasPrefix(strings.TrimSpace(line), down) {
				at = off
				break
			}
			off += len(line) + 1
		}
	}
	head, tail := src[:at], src[at:]
	if head != "" && !strings.HasSuffix(head, "\n") {
		head += eol
	}
	out := head + eol + block
	if tail != "" {
		out += eol + tail
		// The down section: after its statements, which undo the
		// change, the guard of the migrations before into again.
		down, err := downText()
		if err != nil {
			return nil, err
		}
		if down != "" {
			if !strings.HasSuffix(out, "\n") {
				out += eol
			}
			out += eol + strings.ReplaceAll(down, "\n", eol)
		}
	}
	return []byte(bom + out), nil
}

// insertAfterMark returns src with text inserted after its line mark
// (goose's or dbmate's section line, trimmed), at the start of src when
// mark is "" (golang-migrate's .up.sql: the whole file is the up
// section); src unchanged when it has no such line.
func insertAfterMark(src, mark, text, eol string) string {
	if mark == "" {
		return text + src
	}
	for off := 0; off < len(src); {
		line, _, found := strings.Cut(src[off:], "\n")
		next := off + len(line) + 1
		if strings.HasPrefix(strings.TrimSpace(line), mark) {
			if !found {
				return src + eol + text
			}
			return src[:next] + text + src[next:]
		}
		off = next
	}
	return src
}

// upStatements is the up section of a migration fencegen guard wrote
// in format: its statements, without the header's comment and goose's
// or dbmate's section lines.
func upStatements(migration, format string) string {
	lines := strings.SplitAfter(migration, "\n")
	start := 0
	up, down := upMark[format], downMark[format]
	for i, l := range lines {
		t := strings.TrimSpace(l)
		if up != "" {
			if t == up {
				start = i + 1
				break
			}
			continue
		}
		if t != "" && !strings.HasPrefix(t, "--") {
			start = i
			break
		}
	}
	end := len(lines)
	for i := start; down != "" && i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) == down {
			end = i
			break
		}
	}
	for start < end && strings.TrimSpace(lines[start]) == "" {
		start++
	}
	for end > start && strings.TrimSpace(lines[end-1]) == "" {
		end--
	}
	return strings.Join(lines[start:end], "")
}

// next is the migration of NextMigration after the migrations that
// installed have.
func (g *DatabaseGuard) next(have *guardReplay, others []*DatabaseGuard, format, version string) (map[string][]byte, error) {
	found := []Finding(nil)
	if len(have.migrations) > 0 {
		found = g.compare(have, others)
	}
	for _, f := range found {
		if f.Newer {
			return nil, fmt.Errorf("%s: update fencegen rather than undo it with an older guard", f)
		}
	}
	if err := g.checkUnfence(found); err != nil {
		return nil, err
	}
	g2 := *g
	data := *g.data
	data.Removed = g.removedTables(have, others)
	for _, t := range g.unfence {
		// Its trigger went with the dropped table: the migration drops
		// the function, and names the table as no longer fenced. A
		// partition's only guard trigger was PostgreSQL's clone of its
		// parent's, which went with the DETACH or the DROP; one attached
		// again has it back, and PostgreSQL refuses to drop a clone
		// (2BP01, cannot drop trigger ... because trigger ... on table
		// ... requires it): no DROP TRIGGER is written for it.
		trigger := "fencegen_guard"
		if l := have.lost[t]; l != nil && l.fn == "" && l.column != "" && l.vacated {
			trigger = ""
		}
		data.Removed = append(data.Removed, guardTable{Table: t, QualifiedTable: t, Function: have.lost[t].fn, Trigger: trigger})
	}
	data.Orphans = g.orphanFunctions(have, data.Removed)
	data.Previous, data.Added = g.previous(have)
	g2.data = &data
	return g2.Migration(format, version)
}

// checkUnfence returns an error when g's -unfence tables (Unfence) are
// not exactly the tables that found (the guard migrations' findings)
// report re-created without their fencing mark: fencegen guard makes no
// choice for the team.
func (g *DatabaseGuard) checkUnfence(found []Finding) error {
	recreated := map[string]bool{}
	for _, f := range found {
		if f.Unfence != "" {
			recreated[f.Unfence] = true
		}
	}
	for _, t := range g.unfence {
		if !recreated[t] {
			return fmt.Errorf("-unfence %s: not a fenced table that a migration created again without its fencing mark (the only tables -unfence takes); to stop fencing a table, remove its mark (COMMENT ON COLUMN ... IS NULL, or its fence key)", t)
		}
	}
	for _, f := range found {
		if f.Unfence != "" && !slices.Contains(g.unfence, f.Unfence) {
			if f.Into == "" {
				return fmt.Errorf("%s:%d:%d: table %s was fenced and is created again without its fencing mark: mark it again and write its guard with fencegen guard, or stop fencing it deliberately with -unfence %s", f.File, f.Line, f.Col, f.Unfence, f.Unfence)
			}
			return fmt.Errorf("%s:%d:%d: table %s was fenced and is created again without its fencing mark: mark it again in that migration and add its guard with -into %s, or stop fencing it deliberately with -unfence %s", f.File, f.Line, f.Col, f.Unfence, filepath.ToSlash(f.Into), f.Unfence)
		}
	}
	return nil
}

// previous is what the down section of a guard written after the
// migrations that installed have restores: their guard (nil when there
// is no guard migration among them: the down section then drops every
// guard), and the tables of g they did not guard, whose guards it drops.
func (g *DatabaseGuard) previous(have *guardReplay) (prev []previousGuard, added []guardTable) {
	if len(have.migrations) == 0 {
		return nil, nil
	}
	for qt, in := range have.tables {
		col, _ := guardMode(in.fn.text)
		if in.broken != nil && in.broken.renamedTo != "" {
			// The down section restores the earlier trigger on the
			// column as the migrations before the new one left it:
			// a required guard's trigger is BEFORE UPDATE OF it.
			col = sqlparse.QuoteIdent(in.broken.renamedTo)
		}
		pg := previousGuard{QualifiedTable: qt, Function: in.fn.name, Trigger: "fencegen_guard", Text: qualifiedText(in.fn.text), Required: requiredText(in.fn.text), Column: col}
		pg.DropToken = pg.Required || slices.ContainsFunc(g.data.Tables, func(t guardTable) bool { return t.QualifiedTable == qt && t.Required })
		prev = append(prev, pg)
	}
	slices.SortFunc(prev, func(a, b previousGuard) int { return strings.Compare(a.QualifiedTable, b.QualifiedTable) })
	for _, t := range g.data.Tables {
		if _, ok := have.tables[t.QualifiedTable]; !ok {
			added = append(added, t)
		}
	}
	return prev, added
}

// inlineDownHeader starts the down part of the guard fencegen guard
// -into adds (inlineDown, mysqlInlineDown).
const inlineDownHeader = "-- fencegen guard -into: back to the guard the migrations before this one\n" +
	"-- installed, once the statements above have undone its change.\n"

// inlineDown is the down part of the guard fencegen guard -into adds to
// a migration whose up section the migrations before it, which installed
// before, precede: after the migration's own down statements (which undo
// its change), it restores the guard of before (golang-migrate, goose,
// dbmate; "" for Atlas, which has no down migrations). It starts with its
// header line and ends with a newline.
func (g *DatabaseGuard) inlineDown(before *guardReplay, format string) (string, error) {
	if format == "atlas" {
		return "", nil
	}
	data := *g.data
	data.Format, data.Removed, data.Orphans = format, nil, nil
	data.Previous, data.Added = g.previous(before)
	if len(data.Previous) == 0 && len(data.Added) == 0 && len(data.Tables) == 0 {
		return "", nil
	}
	data.Down = format == "golang-migrate"
	b, err := renderGuard(&data)
	if err != nil {
		return "", err
	}
	text := string(b)
	var body string
	if down := downMark[format]; down != "" {
		_, body, _ = strings.Cut(text, down+"\n")
	} else {
		// golang-migrate's down file: its statements after the header.
		lines := strings.SplitAfter(text, "\n")
		i := 0
		for i < len(lines) && strings.HasPrefix(lines[i], "--") {
			i++
		}
		body = strings.Join(lines[i:], "")
	}
	body = strings.TrimLeft(body, "\n")
	body = strings.TrimLeft(strings.TrimPrefix(body, "-- Back to the guard the earlier guard migrations installed.\n"), "\n")
	if strings.TrimSpace(body) == "" {
		return "", nil
	}
	return inlineDownHeader + strings.TrimRight(body, "\n") + "\n", nil
}

// InlineDown is the golang-migrate part of fencegen guard -into: the
// down file of into (its .down.sql, which must exist) with the guard of
// the migrations before into restored at its end (inlineDown), and the
// file's name; "" and nil for the other formats (Inline writes their
// down section), when the .down.sql file does not exist, or when it
// holds that block already.
func (g *DatabaseGuard) InlineDown(files []string, into, format string) (name string, text []byte, err error) {
	if format != "golang-migrate" || !strings.HasSuffix(into, ".up.sql") || len(files) == 0 {
		return "", nil, nil
	}
	name = strings.TrimSuffix(into, ".up.sql") + ".down.sql"
	raw, err := os.ReadFile(name)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	if bytes.Contains(raw, []byte("-- fencegen guard -into: back to the guard")) {
		return "", nil, nil
	}
	if g.mysql != nil {
		gk, _, err := g.mysqlAt(files, into, nil)
		if err != nil {
			return "", nil, err
		}
		return gk.mysqlInlineDownFile(into, name, raw)
	}
	gk, parsed, _, err := g.inlineAt(files, into, nil)
	if err != nil {
		return "", nil, err
	}
	block, err := gk.inlineDown(replayGuard(parsed[:len(parsed)-1]), format)
	if err != nil || block == "" {
		return "", nil, err
	}
	// The up file's shape: the guard triggers that PostgreSQL's refusal
	// of the change names dropped before the file's statements, which
	// undo the change, and the earlier guard installed after them.
	return name, prependDownPre(appendDownBlock(raw, block), gk.inlineDownPre(replayGuard(parsed), into)), nil
}

// appendDownBlock returns the golang-migrate down file raw with block
// (inlineDown, mysqlInlineDown) added at its end after an empty line, in
// the file's line endings.
func appendDownBlock(raw []byte, block string) []byte {
	src := string(raw)
	eol := "\n"
	if strings.Contains(src, "\r\n") {
		eol = "\r\n"
		block = strings.ReplaceAll(block, "\n", "\r\n")
	}
	if src != "" && !strings.HasSuffix(src, "\n") {
		src += eol
	}
	return []byte(src + eol + block)
}

// prependDownPre returns the golang-migrate down file raw with pre
// (inlinePre) before its statements, after a byte order mark, in the
// file's line endings; raw when pre is "".
func prependDownPre(raw []byte, pre string) []byte {
	if pre == "" {
		return raw
	}
	src := string(raw)
	bom := ""
	if s, ok := strings.CutPrefix(src, "\uFEFF"); ok {
		bom, src = "\uFEFF", s
	}
	if strings.Contains(src, "\r\n") {
		pre = strings.ReplaceAll(pre, "\n", "\r\n")
	}
	return []byte(bom + pre + src)
}

// readAll returns the migrations files, parsed (read), in order.
func (g *DatabaseGuard) readAll(files []string) ([]*sqlparse.File, error) {
	parsed := make([]*sqlparse.File, 0, len(files))
	for _, name := range files {
		f, err := g.read(name)
		if err != nil {
			return nil, err
		}
		parsed = append(parsed, f)
	}
	return parsed, nil
}

// read returns the schema file name, parsed: the entry's own when name
// is one of its schema files, else read with the reader gen gave.
func (g *DatabaseGuard) read(name string) (*sqlparse.File, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return nil, err
	}
	for _, f := range g.schema {
		if fa, err := filepath.Abs(filepath.FromSlash(f.Name)); err == nil && fa == abs {
			return f, nil
		}
	}
	if g.parse == nil {
		src, err := os.ReadFile(name)
		if err != nil {
			return nil, err
		}
		return &sqlparse.File{Name: filepath.ToSlash(name), Src: src}, nil
	}
	return g.parse(name)
}

// quotedTables is the set of cat's tables by their quoted, qualified
// names, as a guard migration names them (the schema only when it is not
// public).
func quotedTables(cat *catalog.Catalog) map[string]bool {
	out := map[string]bool{}
	for _, s := range cat.Schemas {
		for _, t := range s.Tables {
			qt := sqlparse.QuoteIdent(t.Name)
			if s.Name != "" && s.Name != catalog.DefaultSchema {
				qt = sqlparse.QuoteIdent(s.Name) + "." + qt
			}
			out[qt] = true
		}
	}
	return out
}

// sortFindings puts the causes first, in file order, then the other
// findings, in file order.
func sortFindings(out []Finding) {
	slices.SortStableFunc(out, func(a, b Finding) int {
		if a.Cause != b.Cause {
			if a.Cause {
				return -1
			}
			return 1
		}
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return a.Line - b.Line
	})
}
