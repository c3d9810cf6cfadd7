// Package analyze turns annotated query files into fencegen's intermediate
// representation: each query with its command, parameters and result
// columns typed against the catalog, and, for writes to fenced tables, the
// fencing guard to add. It never imports the parser library; it reads the
// converted tree of package sqlparse, and asks package writes, which reads
// the parser's whole tree, for every write, call and statement it cannot
// see through (sound.go: checkWrites).
package analyze

import (
	"bytes"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/guard"
	"github.com/fencegen/fencegen/gen/internal/guard/mysqlguard"
	"github.com/fencegen/fencegen/gen/internal/parallel"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/writes"
	"github.com/fencegen/fencegen/gen/internal/writes/mysqlwrites"
)

// LastInsertIDRead is a read of MySQL's session LAST_INSERT_ID(): At is
// its "file:line:col", Form how it is written ("LAST_INSERT_ID()",
// "@@identity" or "@@last_insert_id").
type LastInsertIDRead struct{ At, Form string }

// Query is one annotated query, analysed.
type Query struct {
	Name string
	Cmd  string
	// CTEColumns are the columns of the statement's WITH entries as
	// sqlc's column overrides match them (SqlcType.CTE).
	CTEColumns []*catalog.Column
	// File is the query file's name as given in messages; Line and Col
	// locate the "-- name:" line.
	File      string
	Line, Col int
	// Doc holds the comment lines above the query, each the text after
	// its "--" (a leading space kept, as sqlc keeps it).
	Doc []string
	// SQL is the statement sent to PostgreSQL: named parameters replaced by
	// $n and, for a fenced write, the guard added.
	SQL string
	// Lead is the file's text between the previous statement's semicolon
	// (or the file's start) and the statement: its annotation, comments
	// and blank lines, which sqlc's query text and comments are made of
	// with the statement's (golang's sqlcText).
	Lead string
	// Params are the parameters in number order ($1 first). A fenced write's
	// token is not among them; it is Fence.TokenParam.
	Params []*Param
	// Columns are the result columns, in order.
	Columns []*Column
	// Fence is set for a write to a fenced table.
	Fence *Fence
	// InSlices are the IN (sqlc.slice(name)) lists of the query, in order
	// of appearance. The SQL holds SliceMarker(name) at each, as sqlc's
	// does: database/sql output replaces it, when run, by one placeholder
	// per element (the first element takes the parameter's own $n, the
	// others numbers after every other parameter's, the token's
	// included); pgx output refuses them, sqlc.slice being one array
	// parameter there.
	InSlices []InSlice
	// Placeholders is, for a MySQL statement that uses a named
	// parameter more than once, the parameter's number (1-based, in
	// Params) of each ? of SQL in order: MySQL binds by position, so such
	// a parameter is sent once per use. nil when every parameter is
	// sent once, in order.
	Placeholders []int
	// InsertTable is the target of an INSERT (used by :copyfrom).
	InsertTable *catalog.Table
	// InsertColumns are the INSERT's column names in order (used by
	// :copyfrom).
	InsertColumns []string
	// CreatesOutsideLease lists the fenced tables the query writes only
	// by INSERTs of rows created outside a lease (the token column given
	// DEFAULT, no ON CONFLICT DO UPDATE: outsidelease.go), which it sends
	// without a token or guard.
	CreatesOutsideLease []*catalog.Table
	// Notes are "file:line:col: note: ..." lines about what the query
	// leaves untyped where sqlc does too (a cast to a type the schema does
	// not define): the query is generated with interface{} there.
	Notes []string
	// Refused is PostgreSQL's message for the query where the analysis
	// knows PostgreSQL refuses it ("operator does not exist: text +
	// integer"), which is generated as sqlc generates it, with a note;
	// "" otherwise. No typing of it is PostgreSQL's.
	Refused string
	// SqlcParamsFail is set, for an entry analysed with a database
	// (Options.Database), where sqlc v1.31.1's own reading of the
	// parameters fails (sqlcresolve.go): sqlc then takes them from the
	// database's answer alone.
	SqlcParamsFail bool
	// Alt is the statement read as sqlc v1.31.1 reads its functions in
	// FROM, where that gives other result columns than PostgreSQL's
	// (sqlcRangeFunc: SELECT * FROM f() of a RETURNS TABLE of several
	// columns is one record column f, sent as SELECT f FROM f();
	// SELECT * FROM CURRENT_DATE no column), nil where it does not or
	// where sqlc's reading fails (a column of f named in the select
	// list, which sqlc refuses). UseSqlcReading swaps the two.
	Alt *Query
	// SqlcSQL is SQL as sqlc v1.31.1's rewrite writes it where that
	// differs in its text only ($3* 2 for @w * 2: sqlcSwallowedText),
	// "" where it does not; UseSqlcReading takes it for a query that is
	// not a fenced write.
	SqlcSQL string
	// ReadsLastInsertID locates each read of the session's
	// LAST_INSERT_ID() in a MySQL statement (the call without an
	// argument, @@identity, @@last_insert_id): the value that a guarded
	// write sets to a fencing token (gen's vet note).
	ReadsLastInsertID []LastInsertIDRead
	// OptOut is set for a query annotated "-- @fence off: <reason>" that
	// writes fenced tables: it is generated without the guard (Fence is
	// nil), and vet lists it.
	OptOut *OptOut
}

// UseSqlcReading makes q the statement as sqlc v1.31.1 reads it (Alt)
// and writes it (SqlcSQL), for a configuration without
// postgresql_types; Alt is then PostgreSQL's reading, which fencegen vet
// compares with. It does nothing for a fenced write.
func (q *Query) UseSqlcReading() {
	if q.Fence != nil {
		return
	}
	if q.Alt != nil && q.Alt.Fence == nil {
		alt := q.Alt
		pg := *q
		pg.Alt = nil
		*q = *alt
		q.Alt = &pg
	}
	if q.SqlcSQL != "" {
		q.SQL = q.SqlcSQL
	}
}

// InSlice is one IN (sqlc.slice(name)) of a query: the parameter's name
// and number ($n, its place in Query.Params) and where sqlc.slice is
// written (1-based line and column in Query.File).
type InSlice struct {
	Name      string
	Number    int
	Line, Col int
}

// SliceMarker is the text the SQL of a query holds in place of an
// IN (sqlc.slice(name)) parameter, as sqlc writes it: /*SLICE:name*/?.
func SliceMarker(name string) string { return "/*SLICE:" + name + "*/?" }

// OptOut is a query's explicit opt-out from fencing.
type OptOut struct {
	Reason string
	// Tables are the fenced tables the query may write unguarded,
	// qualified names in order of first appearance: every fenced table
	// when Unknown is set.
	Tables []string
	// Named are the fenced tables the analysis found the query writing,
	// of Tables; Unknown is set when it also runs something whose writes
	// fencegen cannot tell (dynamic SQL, a statement it does not analyse):
	// the notes then say so once, instead of naming every fenced table.
	Named   []string
	Unknown bool
	// Line and Col locate the "-- @fence off:" comment.
	Line, Col int
}

// Param is a query parameter.
type Param struct {
	// ElemColumn is, for a MySQL IN (sqlc.slice(x)) list, the column
	// the list's elements are compared with: its overrides type them.
	ElemColumn *catalog.Column
	Number     int
	// Name is the parameter's name: given (@name, sqlc.arg) or taken from
	// the column it is compared with or assigned to.
	Name    string
	Type    catalog.Type
	NotNull bool
	// Named is set for a parameter written with a name (@name,
	// sqlc.arg, sqlc.narg, sqlc.slice).
	Named bool
	// Unnamed is set when neither the query nor a column names the
	// parameter: Name is then column_N, its field name in a Params struct
	// (Column1), and sqlc names it dollar_N as a method argument.
	Unnamed bool
	// Known is false when nothing in the query says the parameter's type.
	Known bool
	// Column is the column the type came from, if any.
	Column *catalog.Column
	Slice  bool
	// InList is set for a sqlc.slice(name) written as an element of an
	// IN (...) list: the SQL holds SliceMarker(name) there instead of $n
	// (see Query.InSlices). Type is the element type with one array
	// dimension, as for any slice, and the Go type a slice of the
	// element; database/sql output sends one parameter per element.
	InList bool
	// DBType is the parameter's type as sqlc spells it (see
	// catalog.Column.DBType), "" when unknown. A parameter that is no
	// table column but has a spelling gets a Column without Table that
	// carries it, for the emitter's override matching.
	DBType string
	// SqlcUntyped is set when the parameter is typed from a context sqlc
	// v1.31.1 does not type parameters from, so that sqlc declares it
	// interface{}: a bare boolean operand (AND, OR, NOT, WHEN), a
	// comparison or operator whose other side has no column (@p = '',
	// '%' || @p), a COALESCE without a column among its arguments. sqlc
	// types a parameter by its first such occurrence, and so does this.
	SqlcUntyped bool

	forceNull bool
	// loc is the first occurrence's offset; conflict is a second type the
	// query deduces for the parameter that PostgreSQL cannot reconcile
	// with the first.
	loc           int
	conflict      *catalog.Type
	strictlyTyped bool
	// setValue is set when the parameter was first typed as the whole
	// value of an UPDATE's SET entry (SET name = $1), which PostgreSQL
	// analyses after the WHERE clause and RETURNING (transformUpdateStmt):
	// a use there types it, and the SET entry is then an assignment.
	setValue bool
	// sqlcSettled is set once Sqlc and SqlcUntyped are the typing of the
	// use sqlc's walk reaches first (typeParam).
	sqlcSettled bool
	// Sqlc is sqlc v1.31.1's typing of the parameter where it is not
	// Type and NotNull (see SqlcType), nil where it is: the emitter
	// declares it unless the configuration sets postgresql_types.
	Sqlc *SqlcType
	// Uses are, for a MySQL named parameter used more than once, the
	// typings of its later typed uses (the parameter itself is its
	// first): sqlc makes each use a field of its Params struct and
	// refuses the query when two of them have different Go types
	// (codegen/golang/result.go, checkIncompatibleFieldTypes), which the
	// emitter checks. UseLine and UseCol locate the first use.
	Uses            []*Param
	UseLine, UseCol int
	// SqlcSlice is set for a sqlc.slice that sqlc v1.31.1 reads as one
	// (its IsSqlcSlice): database/sql output sends its elements one by
	// one in sqlc's method. A sqlc.slice that is a cast's argument
	// (sqlc.slice(ids)::uuid[]) is one value for sqlc, sent as one array.
	SqlcSlice bool
	// SqlcName is sqlc v1.31.1's name of the parameter where it is not
	// Name: -a for the operand @a - 1 that sqlc reads as @(a - 1) and
	// names after its flatten (sqlcFlattenName). sqlc's db and json tags
	// carry it; the Go names are Name's, which sqlc's equal but for a
	// method argument sqlc would name -a (which does not compile).
	SqlcName string
}

// spelled returns col, or for a value that is no table column but that
// sqlc spells (dbType), a Column without Table carrying the spelling: the
// emitter matches sqlc's db_type overrides against Column.DBType.
func spelled(col *catalog.Column, t catalog.Type, notNull bool, dbType string) *catalog.Column {
	if col != nil || dbType == "" {
		return col
	}
	return &catalog.Column{Type: t, DBType: dbType, NotNull: notNull}
}

// Column is a result column.
type Column struct {
	Name    string
	Type    catalog.Type
	NotNull bool
	Known   bool
	// Column is the table column this result is, if it is one unchanged.
	Column *catalog.Column
	// DBType is the column's type as sqlc spells it (see
	// catalog.Column.DBType), "" when unknown; as for Param, a Column
	// without Table carries it when the result is no table column.
	DBType string
	// unnamed is set for an expression without a name of its own (sqlc
	// calls it column_N; a view leaves it out).
	unnamed bool
	// sqlcName is the name sqlc gives the column of a select or
	// RETURNING list ("" for column_N; sqlcnames.go), set when sqlcNamed;
	// the query's own result columns take it (Name stays PostgreSQL's
	// inside the statement: a CTE's or subquery's columns).
	sqlcName  string
	sqlcNamed bool
	// guessed is set when Name may not be the name PostgreSQL gives the
	// column (column_N, COALESCE named after its column as sqlc does): a
	// star over it is not spelt out.
	guessed bool
	// SqlcAny is set when sqlc v1.31.1, analysing without a database,
	// answers interface{} for the column (sqlcany.go: COALESCE without a
	// column among its arguments, CASE without a cast or constant ELSE, a
	// call whose first overload by number of arguments in sqlc's
	// pg_catalog returns a type sqlc does not map, such as max(x) or
	// now(); through CTEs, subqueries in FROM and scalar subqueries). Type
	// stays PostgreSQL's; the emitter declares the column interface{}, as
	// sqlc does, and interface{} scans any value.
	SqlcAny bool
	// SqlcAnyNotNull is, where SqlcAny is set, the nullability sqlc
	// v1.31.1 gives the column all the same (a function call's is NOT
	// NULL): its database analysis keeps it and types the column from
	// the server's answer (gen's dbtypes.go).
	SqlcAnyNotNull bool
	// Sqlc is sqlc v1.31.1's typing of the column where it is not
	// Type and NotNull (see SqlcType), nil where it is: the emitter
	// declares it unless the configuration sets postgresql_types.
	Sqlc *SqlcType
	// IsToken is set when the column is a fenced table's token column.
	IsToken bool
	// Embed is set for the columns of sqlc.embed(table): they fill one
	// field of the table's model type in the result struct. EmbedName is
	// the name given to sqlc.embed (the table name or its alias).
	Embed     *catalog.Table
	EmbedName string
	// EmbedTarget is the position in the SELECT list of the sqlc.embed
	// the column comes from: two embeds of one table are two fields.
	EmbedTarget int
}

// sqlcType is sqlc's typing of c: Sqlc, or c's own.
func (c *Column) sqlcType() SqlcType {
	if c.Sqlc != nil {
		return *c.Sqlc
	}
	return SqlcType{Type: c.Type, NotNull: c.NotNull, Column: spelled(c.Column, c.Type, c.NotNull, c.DBType)}
}

// Fence describes the guard of a write to a fenced table.
type Fence struct {
	Table *catalog.Table
	// Column is the token column.
	Column string
	// Strict selects stored < presented instead of stored ≤ presented.
	Strict bool
	// Kind is "update", "delete", "insert" or "upsert" (INSERT ... ON
	// CONFLICT DO UPDATE, whose DO UPDATE branch is guarded).
	Kind string
	// TokenParam is the number of the token parameter ($n).
	TokenParam int
	// CTE names the data-modifying WITH entry that holds the fenced write,
	// "" when the write is the statement itself.
	CTE string
	// StoredSQL is set for Form guard.ByKey, a write pinned by its primary
	// key (at most one row): Query.SQL is then the guarded write alone, and StoredSQL reads
	// the stored token when the write touched nothing; StoredParams are the
	// numbers of the query's parameters it takes, in its $1.. order.
	StoredSQL    string
	StoredParams []int
	// ManyRows marks an upsert of many rows (several VALUES rows or a
	// SELECT): guarded all or nothing like an UPDATE of many rows, and
	// read as one (fenceimpl.Write); InsertTypes are the SQL types of its
	// columns.
	ManyRows    bool
	InsertTypes []string
	// setReturning marks an upsert of many rows whose one VALUES row
	// calls a set-returning function (analyzer.setReturningRow).
	setReturning bool
	// ConflictColumns are the columns of an upsert's ON CONFLICT ON
	// CONSTRAINT name.
	ConflictColumns []string
	// Form is the guard's form, which package guard decides after
	// analysis; the emitter switches on it.
	Form guard.Form
	// spec is what analysis hands the guard stage.
	spec guard.Spec
	// Sweep is set by "-- @fence sweep" on a fenced UPDATE or DELETE:
	// matching no row is not an error (no *fence.NotFoundError: :execrows
	// returns 0, :exec nil, :many no rows), since a sweep of stuck rows
	// often finds none; a stale token is reported as for any fenced write.
	Sweep bool
	// Loosens is set when the query is non-strict ("-- @fence
	// non-strict") on a strict table: the guard trigger of the table must
	// then be non-strict too, or it would refuse the query's writes.
	Loosens bool
	// MySQL is the guarded write of engine mysql (package mysqlguard),
	// whose form and parameter order the emitter reads; nil on PostgreSQL.
	MySQL *mysqlguard.Guarded
}

// File is the analysed queries of one query file.
type File struct {
	Name    string
	Queries []*Query
	// Notes are remarks on the file's statements that are not queries
	// ("file:line:col: note: ..."), for fencegen vet.
	Notes []string
	// SqlcDropped describes each annotated statement of the file that
	// sqlc v1.31.1 drops with its annotation, its MySQL converter having
	// no node for it (LOAD DATA, SET, CREATE INDEX, ...): "query
	// LoadStock (LOAD DATA, q.sql:2:1)". No query is generated for it.
	SqlcDropped []string
}

// statementKind names a statement by its first keywords, upper case:
// "LOAD DATA", "CREATE INDEX", "SET".
func statementKind(text []byte) string {
	words := strings.Fields(strings.ToUpper(string(text)))
	if len(words) == 0 {
		return "empty"
	}
	switch words[0] {
	case "CREATE", "DROP", "ALTER", "LOAD", "LOCK", "UNLOCK", "SHOW", "START", "RENAME", "FLUSH", "GRANT", "REVOKE":
		if len(words) > 1 && words[1] != "OR" {
			return words[0] + " " + strings.Trim(words[1], "(;")
		}
	}
	return strings.TrimRight(words[0], ";(")
}

// Options are the sqlc options that change what the analyzer accepts.
type Options struct {
	// StrictFunctionChecks is sqlc's strict_function_checks: a call of a
	// function neither the schema nor PostgreSQL's catalog has is an
	// error, at the call, instead of an untyped (interface{}) result.
	StrictFunctionChecks bool
	// LaxOrderBy is sqlc's strict_order_by: false: a column an ORDER BY
	// names that does not resolve is a note (PostgreSQL refuses the query,
	// sqlc generates it), not an error.
	LaxOrderBy bool
	// MySQLSchema is, for a MySQL configuration, what the write analysis
	// knows of the schema (views, triggers, routines, foreign keys, the
	// fenced tables): every write a MySQL statement may set off through
	// them is found (mysqlwrites.go). nil refuses every MySQL statement
	// that may write while a table is fenced.
	MySQLSchema *mysqlwrites.Schema
	// MySQL is set for a MySQL configuration (engine mysql): the
	// statements come from mysqlparse, their parameters are MySQL's
	// positional ? (numbered in text order by the parser), and the text
	// sent keeps them (mysql.go).
	MySQL bool
	// MySQLTypes is mysql_types (config.GoOptions.Types on a MySQL
	// entry): a parameter sqlc v1.31.1 does not read
	// (sqlparse.Param.SqlcUnread) is the method's like any other. Off,
	// the method leaves it out, as sqlc's does, and vet notes each (see
	// dropSqlcUnread); a write of a fenced table takes it whatever the
	// option.
	MySQLTypes bool
	// PGTypes is set for a PostgreSQL entry generated with
	// postgresql_types: an @name that starts an operand sqlc reads as
	// @(x) (@n - 1) is then numbered as the name, where the name stands,
	// not apart as sqlc numbers it (findSwallowed).
	PGTypes bool
	// GuardFunction reports whether the function defined at file:line is
	// a trigger function of fencegen's database-side guard, created by a
	// guard migration (guard.OwnedFunctions): the replay of the guard
	// migrations checks its text against the guard this fencegen writes,
	// so the token assignments of a required guard (it negates the token
	// it checked, its second trigger restores it) are not a trigger of
	// the team's replacing the token. nil: none is.
	GuardFunction func(file string, line int) bool
	// tokenRewriters are the triggers reported at their CREATE TRIGGER
	// (TokenRewriteTriggers), which a query's refusal leaves out.
	tokenRewriters map[*catalog.Trigger]bool
	// ParamGoType returns, for a parameter, the Go type the generated
	// method declares it with when a sqlc override (by column or by
	// db_type) makes it differ from the default mapping ("int64",
	// "database/sql.NullString", "*github.com/x/y.Code"), "" when no
	// override changes it. The MySQL guard uses it to decide whether a
	// parameter compared with a key column is a lookup of that key (an
	// int64 sent for a VARCHAR key compares as numbers). nil: no
	// override changes any parameter's type.
	ParamGoType func(p *Param) string
	// Database is set for a PostgreSQL entry sqlc analyses with a
	// database (sqlc's database.uri or managed, analyzer.database not
	// false): named parameters mixed with $n are numbered into the gaps
	// the $n leave, as sqlc's database path numbers them.
	Database bool
}

// Analyze analyses every annotated query of files against cat. All
// problems are returned together, in file and statement order.
//
// The queries are analysed concurrently (parallel.For): each reads the
// catalog and writes only its own statement's tree and analyzer; what
// depends on earlier queries (duplicate names) is decided afterwards, in
// order, so the result and the errors are those of one pass in order.
func Analyze(cat *catalog.Catalog, files []*sqlparse.File) ([]*File, diag.List) {
	return AnalyzeWith(cat, files, Options{})
}

// AnalyzeWith is Analyze with the options opts.
func AnalyzeWith(cat *catalog.Catalog, files []*sqlparse.File, opts Options) ([]*File, diag.List) {
	var errs diag.List
	var out []*File
	seen := map[string]*Query{}
	var fw *funcWrites // nil: no fenced table for a function to write
	if (len(cat.FencedTables()) > 0 || cat.FencesElsewhere()) && !opts.MySQL {
		fw = newFuncWrites(cat)
		// The schema's triggers that replace a fenced table's token are
		// errors at their own statements, first: the cause of every
		// write of the table's refusal.
		var terrs diag.List
		terrs, opts.tokenRewriters = TokenRewriteTriggers(cat, opts)
		errs = append(errs, terrs...)
		errs = append(errs, nonVolatileWriters(fw)...)
	}
	// Every annotated statement without an annotation problem is
	// analysed, even one whose name turns out to be a duplicate (its
	// result is then dropped).
	type job struct {
		f   *sqlparse.File
		st  *sqlparse.Stmt
		ann *Annotation
		q   *Query
		err error
	}
	var jobs []*job
	type fileAnns struct {
		anns      []*Annotation
		msgs      [][]locatedMsg
		jobs      []*job // by statement; nil when not analysed
		annotated bool
		prevEnd   int
		// dropped are notes of "-- name:" lines that sqlc drops: a
		// second one above a statement.
		dropped []string
		// skipped are the annotated statements sqlc drops with their
		// annotation (Stmt.SqlcSkips): File.SqlcDropped.
		skipped []string
	}
	perFile := make([]fileAnns, len(files))
	for fi, f := range files {
		fa := &perFile[fi]
		fa.anns = make([]*Annotation, len(f.Stmts))
		fa.msgs = make([][]locatedMsg, len(f.Stmts))
		fa.jobs = make([]*job, len(f.Stmts))
		for i, st := range f.Stmts {
			if st.SqlcSkips {
				// sqlc drops the statement with its annotation: said
				// (fencegen vet), and in the entry's error when no query
				// is left (a file whose one query is a LOAD DATA).
				lines := commentLinesOf(f.Src, max(st.Lead, fa.prevEnd), st.Start, opts.MySQL)
				fa.prevEnd = st.End + 1
				if ann, _ := parseAnnotation(lines); ann != nil {
					line, col := diag.Position(f.Src, st.Start)
					fa.skipped = append(fa.skipped, fmt.Sprintf("query %s (%s, %s:%d:%d)", ann.Name, statementKind(f.Src[st.Start:st.End]), f.Name, line, col))
					fa.dropped = append(fa.dropped, fmt.Sprintf("%s:%d:%d: note: query %s: sqlc v1.31.1 drops this %s statement with its annotation (its MySQL converter has no node for it), so no code is generated for it (as in sqlc)", f.Name, line, col, ann.Name, statementKind(f.Src[st.Start:st.End])))
				}
				continue
			}
			lines := commentLinesOf(f.Src, max(st.Lead, fa.prevEnd), st.Start, opts.MySQL)
			fa.prevEnd = st.End + 1
			fa.anns[i], fa.msgs[i] = parseAnnotation(lines)
			if ann := fa.anns[i]; ann != nil {
				// As sqlc, the first "-- name:" line above a statement
				// names it and a later one is dropped (parseAnnotation):
				// a note, as it is usually a query whose statement was
				// forgotten.
				for _, l := range lines {
					text := strings.TrimSpace(l.text)
					if m := nameLine.FindStringSubmatch(text); m != nil && l.line != ann.Line && strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(text, "--")), "name:") {
						fa.dropped = append(fa.dropped, fmt.Sprintf("%s:%d:%d: note: %q has no SQL statement of its own: the statement below is query %s, named by the first \"-- name:\" line above it, so no code is generated for %s (as in sqlc)", f.Name, l.line, l.col, text, ann.Name, m[1]))
					}
				}
			}
			if fa.anns[i] != nil {
				fa.annotated = true
				if len(fa.msgs[i]) == 0 {
					j := &job{f: f, st: st, ann: fa.anns[i]}
					fa.jobs[i] = j
					jobs = append(jobs, j)
				}
			}
		}
	}
	parallel.For(len(jobs), func(i int) {
		j := jobs[i]
		a := &analyzer{cat: cat, file: j.f, stmt: j.st, params: map[int]*Param{}, funcs: fw, opts: opts}
		j.q, j.err = a.query(j.ann)
		if j.err == nil && a.shapeDiffers && j.q.Fence == nil && readOnlySelect(j.st.Node) {
			// sqlc reads a function in FROM with other columns: the
			// statement read that way, where it reads so.
			b := &analyzer{cat: cat, file: j.f, stmt: j.st, params: map[int]*Param{}, funcs: fw, opts: opts, sqlcShapes: true}
			alt, err := b.query(j.ann)
			for _, e := range diag.As(err) {
				if strings.HasPrefix(e.Msg, "sqlc's reading of ") {
					// sqlc v1.31.1 generates this query with SQL that
					// PostgreSQL refuses: PostgreSQL's reading stays,
					// and vet says where the API differs from sqlc's.
					j.q.Notes = append(j.q.Notes, fmt.Sprintf("%s:%d:%d: note: query %s: %s, so the query is generated as PostgreSQL reads it, where sqlc v1.31.1 generates SQL that fails when run", e.File, e.Line, e.Col, j.q.Name, e.Msg))
					break
				}
			}
			if err == nil && alt.Fence == nil {
				for _, n := range j.q.Notes {
					if strings.Contains(n, ": "+a.server()+" refuses this query: ") {
						alt.Notes = append(alt.Notes, n)
					}
				}
				alt.SQL = b.markInSlices(alt.SQL)
				if alt.SqlcSQL != "" {
					alt.SqlcSQL = b.markInSlices(alt.SqlcSQL)
				}
				j.q.Alt = alt
			}
		}
		if j.err == nil {
			// The guard stage, after analysis.
			j.err = a.addGuard(j.q)
		}
		if j.err == nil && !opts.MySQL {
			// The guard parses the text: the IN (sqlc.slice) markers go in
			// last (the by-key stored-token statement keeps its own
			// numbering; an IN list there is refused, see
			// golang.InSliceRefusal).
			j.q.SQL = a.markInSlices(j.q.SQL)
			if j.q.SqlcSQL != "" {
				j.q.SqlcSQL = a.markInSlices(j.q.SqlcSQL)
			}
		}
	})
	for fi, f := range files {
		fa := &perFile[fi]
		af := &File{Name: f.Name}
		for i, st := range f.Stmts {
			ann, msgs := fa.anns[i], fa.msgs[i]
			for _, m := range msgs {
				errs.Add(f.Name, m.line, m.col, "%s", m.msg)
			}
			if ann == nil {
				// Like sqlc, statements without an annotation are not
				// queries: DDL, SET and the like (a file may be listed as
				// both schema and queries), every statement of a file
				// that has no annotation at all, and a SELECT, INSERT,
				// UPDATE or DELETE after an annotated query's statement
				// ("-- name: Get :one\nSELECT id FROM t;\nSELECT 2;"):
				// sqlc generates the first and drops the second. The
				// dropped DML is a note (fencegen vet): it is usually a
				// forgotten annotation.
				if !fa.annotated || !isDML(st.Node) {
					continue
				}
				line, col := diag.Position(f.Src, st.Start)
				af.Notes = append(af.Notes, fmt.Sprintf("%s:%d:%d: note: statement has no \"-- name: Name :command\" annotation above it, so no code is generated for it (as in sqlc)", f.Name, line, col))
				continue
			}
			for _, m := range ann.Near {
				if m.param != "" && usesParam(f.Src[st.Start:min(st.End+1, len(f.Src))], m.param) {
					continue
				}
				af.Notes = append(af.Notes, fmt.Sprintf("%s:%d:%d: note: query %s: %s", f.Name, m.line, m.col, ann.Name, m.msg))
			}
			if len(msgs) > 0 {
				continue
			}
			key := strings.ToLower(ann.Name[:1]) + ann.Name[1:]
			if prev, ok := seen[key]; ok {
				if prev.Name == ann.Name {
					errs.Add(f.Name, ann.Line, ann.NameCol, "duplicate query name %s (first defined at %s:%d)", ann.Name, prev.File, prev.Line)
				} else {
					errs.Add(f.Name, ann.Line, ann.NameCol, "query names %s and %s (%s:%d) differ only in the case of their first letter; their generated SQL constants would collide", ann.Name, prev.Name, prev.File, prev.Line)
				}
				continue
			}
			j := fa.jobs[i]
			if j.err != nil {
				errs = append(errs, diag.As(j.err)...)
				continue
			}
			seen[key] = j.q
			af.Queries = append(af.Queries, j.q)
		}
		af.Notes = append(af.Notes, fa.dropped...)
		af.SqlcDropped = fa.skipped
		// A trailing annotation with no statement after it (only blank
		// lines and comments to the end of the file): sqlc v1.31.1
		// generates the file's other queries and drops it without a
		// word, so fencegen does too, with a note (fencegen vet). A file
		// whose only annotation is such a one has no query, which is
		// the entry's "no queries contained in paths" error, as in sqlc.
		tailStart := min(max(fa.prevEnd, bytes.LastIndexByte(f.Src, ';')+1), len(f.Src))
		if tail := commentLinesOf(f.Src, tailStart, len(f.Src), opts.MySQL); len(tail) > 0 {
			if ann, _ := parseAnnotation(tail); ann != nil {
				af.Notes = append(af.Notes, fmt.Sprintf("%s:%d:%d: note: query %s has no SQL statement after its annotation, so no code is generated for it (as in sqlc)", f.Name, ann.Line, ann.Col, ann.Name))
			}
		}
		out = append(out, af)
	}
	return out, errs
}

// usesParam reports whether the statement text names the parameter
// @name (sqlc's named parameter), its name ending there.
func usesParam(stmt []byte, name string) bool {
	text := string(stmt)
	for i := strings.Index(text, "@"+name); i >= 0; {
		end := i + 1 + len(name)
		if end == len(text) || !isIdentByte(text[end]) {
			return true
		}
		j := strings.Index(text[end:], "@"+name)
		if j < 0 {
			break
		}
		i = end + j
	}
	return false
}

func isIdentByte(b byte) bool {
	return b == '_' || '0' <= b && b <= '9' || 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z'
}

// readOnlySelect reports whether n is a SELECT without a data-modifying
// WITH entry: the statements sqlc's reading of a function in FROM
// (Query.Alt) is taken for, where its star (one record column) is read
// by the caller only; in an INSERT ... SELECT it would be written as a
// row's columns, which PostgreSQL refuses.
func readOnlySelect(n sqlparse.Node) bool {
	s, ok := n.(*sqlparse.Select)
	if !ok {
		return false
	}
	if s.With != nil {
		for _, c := range s.With.CTEs {
			if _, ok := c.Query.(*sqlparse.Select); !ok {
				return false
			}
		}
	}
	return true
}

// isDML reports whether n is a SELECT, INSERT, UPDATE or DELETE.
func isDML(n sqlparse.Node) bool {
	switch n.(type) {
	case *sqlparse.Select, *sqlparse.Insert, *sqlparse.Update, *sqlparse.Delete:
		return true
	}
	return false
}

type analyzer struct {
	// refusals are the reasons PostgreSQL refuses the statement that the
	// analysis knows (noOperator): notes, or errors on a fenced write.
	refusals []refusal
	// eventsChecked: the event triggers that fire for the statement were
	// checked (eventTriggerWrites).
	eventsChecked bool
	// placeholders is Query.Placeholders (MySQL).
	placeholders []int
	// sqlcTODO is the MySQL expression sqlc reads as an ast.TODO that
	// expr is analysing for its references (its value is sqlc's: none).
	sqlcTODO sqlparse.Node
	// mysqlParams are a MySQL statement's placeholders in text order,
	// numbered (numberMySQLParams).
	mysqlParams []*sqlparse.Param
	// currentCTE names the WITH entry being analysed; cteFence is the
	// fenced write found in a data-modifying WITH entry, if any.
	currentCTE string
	cteFence   *Fence
	// pendingCTEs counts, by name, the entries of the WITH clauses
	// without RECURSIVE being analysed whose definition has not ended
	// (lookupRel).
	pendingCTEs map[string]int
	// cteColumns are Query.CTEColumns.
	cteColumns []*catalog.Column
	// strict is set while a parameter is typed by an assignment or an
	// equality with a column: a second, different deduction then is a
	// conflict PostgreSQL would refuse.
	strict bool
	// setValue is set while an UPDATE's SET value that is a parameter
	// itself is typed, and updateWhere while the UPDATE's WHERE clause
	// or RETURNING list is analysed, which PostgreSQL analyses before
	// the SET list (see Param.setValue).
	setValue, updateWhere bool
	// sqlcOperand is set while the operands of an operator are analysed
	// that sqlc types parameters in (one refers to a column, or the
	// operator is ||): see Param.SqlcUntyped.
	sqlcOperand bool
	// mysqlFuncArg is set while a MySQL function call's arguments are
	// analysed, up to the next operator: sqlc types a parameter there
	// by the call (its find_params.go parent), and one nested in a
	// COALESCE argument (CONCAT('%', COALESCE(?, name), '%')) not at all.
	mysqlFuncArg bool
	// sqlcCoalesce is a COALESCE compared with a column (col <
	// COALESCE(@p, -1)), and sqlcColumn that column's value: sqlc types
	// the COALESCE's parameters from the column (its parameter search
	// passes through COALESCE to the comparison).
	sqlcCoalesce *sqlparse.Coalesce
	// castCoalesce is a COALESCE that is the argument of a cast
	// (COALESCE(@at, now())::timestamptz), and castType sqlc's typing of
	// the cast: sqlc's parameter search passes through COALESCE to the
	// cast, so it types the COALESCE's parameters as the cast's type.
	castCoalesce *sqlparse.Coalesce
	castType     SqlcType
	// callCoalesces are the COALESCE arguments of the PostgreSQL
	// function call being analysed (lower(COALESCE(@e, email))): sqlc
	// declares their parameters interface{}.
	callCoalesces []*sqlparse.Coalesce
	// namingCoalesce is a COALESCE that is an operand of the comparison
	// being analysed, and namingColumn the name of that comparison's
	// first column (its left side's first): sqlc names a parameter among
	// the COALESCE's arguments after that column.
	namingCoalesce *sqlparse.Coalesce
	namingColumn   string
	sqlcColumn     value
	edits          []edit
	// inSlices are the query's IN (sqlc.slice(name)) lists (Query.InSlices).
	inSlices []InSlice
	opts     Options
	cat      *catalog.Catalog
	file     *sqlparse.File
	stmt     *sqlparse.Stmt
	params   map[int]*Param
	// namedFrom is the number the first named parameter (@name,
	// sqlc.arg) took when the statement mixes them with positional ones
	// ($n), 0 otherwise; firstNamed locates it.
	namedFrom, firstNamed int
	// posGap is the lowest n in 1..(number of distinct $n) that no $n of
	// the statement uses, 0 when they leave none (sqlc's validate.ParamRef).
	posGap int
	errs   diag.List
	ann    *Annotation
	// bareStar, when set, are the relations a bare * of RETURNING stands
	// for (DELETE ... USING: the target's only, as in sqlc).
	bareStar []*rel
	// optedOut are the fenced tables an opted-out query ("-- @fence off:")
	// writes without a guard; optedOutAny is set when it may write any
	// (refuseAnyFenced).
	optedOut    []string
	optedOutAny bool
	// funcs caches what user-defined functions write (funcwrites.go);
	// nil when the catalog has no fenced table.
	funcs *funcWrites
	// setCols are the columns the UPDATE being guarded sets, for the
	// foreign-key actions it sets off (hooks.go); nil otherwise.
	setCols []string
	// multi holds the columns of each SET (a, b) = (SELECT ...) subquery.
	multi map[*sqlparse.SubLink][]*Column
	// lenient holds what sqlc lets pass with interface{} (a cast to a type
	// the schema does not define): notes of the query, or errors in a
	// fenced write (see lenientf).
	lenient []softProblem
	// unchecked is set (a depth) while the analyser reads references
	// that sqlc v1.31.1 does not resolve (a JOIN's ON condition, the
	// arguments of a function in a select list): one to a column or
	// table that does not exist is a problem PostgreSQL refuses the
	// query for and sqlc generates it with; refused holds those (see
	// refusedf).
	unchecked int
	// swallowing are the operator expressions whose operator swallowed a
	// named parameter's @ (prefixAtOperators).
	swallowing map[*sqlparse.AExpr]bool
	// insertValue is set while compare types an INSERT ... VALUES
	// expression as its target column (the expression itself only).
	insertValue bool
	refused     []softProblem
	// rep is the write analysis of the statement (package writes), set
	// while the schema has a fenced table; errAt are the offsets errors
	// were reported at.
	rep   *writes.Report
	errAt map[int]bool
	// plainWrites locate (by their table's offset) the writes of a
	// fenced table that the type analysis accepts without the guard: an
	// INSERT of a row created outside a lease (outsidelease.go).
	plainWrites []int
	// sqlcShapes is set for a statement's second reading, as sqlc
	// v1.31.1 reads its functions in FROM (sqlcRangeFunc), which
	// shapeDiffers asks for: a function there then has sqlc's columns
	// (Query.Alt).
	sqlcShapes, shapeDiffers bool
	// sqlcEnds are, by start, the edits whose text sqlc's rewrite ends
	// elsewhere (sqlcSwallowedText), and where.
	sqlcEnds map[int]int
	// swallowers are the operands sqlc reads as @(x), each with the
	// @name parameter that starts it, and swallowedBy the same by
	// parameter (findSwallowed).
	swallowers  map[*sqlparse.AExpr]*sqlparse.Param
	swallowedBy map[*sqlparse.Param]*sqlparse.AExpr
	// sqlcNames are sqlc's names of the parameters, by number, where
	// they are not the name written (Param.SqlcName).
	sqlcNames map[int]string
	// sqlcCaseParents are the parameters sqlc types by what encloses the CASE
	// they stand in, by number, and sqlcOperands the operators among
	// those parents (sqlccase.go).
	sqlcCaseParents map[int]sqlcParent
	sqlcOperands    map[*sqlparse.AExpr]*sqlcOperand
	// sqlcFirstUse is, by number, the use of each parameter that sqlc's
	// walk (find_params.go) reaches first, which names and types it for
	// sqlc (typeParam); PostgreSQL only (findSqlcCaseParams).
	sqlcFirstUse map[int]*sqlparse.Param
	// sqlcNotSlice marks, by number, the sqlc.slice parameters sqlc reads
	// as one value (sqlcSlice).
	sqlcNotSlice map[int]bool
	// explain is set for EXPLAIN of a SELECT, INSERT, UPDATE or DELETE,
	// which sqlc v1.31.1 generates with the parameters of the statement
	// explained and no result column. planOnly is set while the type
	// analysis reads that statement: it adds no guard (EXPLAIN's text
	// cannot be wrapped) and refuses nothing for fenced tables, because
	// the write analysis (checkWrites, after it) judges what runs: the
	// statement's writes under ANALYZE, nothing without.
	explain, planOnly bool
	// wrapper is the statement that wraps the query analysed when
	// explain is set: "EXPLAIN", or a sqlparse.Wrapped's verb
	// ("DECLARE CURSOR", "COPY", "PREPARE"), whose query sqlc v1.31.1
	// generates as it generates EXPLAIN's statement: its parameters, no
	// result column; planOnly keeps the verdict the write analysis gives
	// the statement.
	wrapper string
	// dollarZeros is set for a query whose parameters are written $0,
	// numbered as sqlc v1.31.1 numbers them (dollarZero).
	dollarZeros bool
}

// softProblem is a problem sqlc lets pass: at loc (a file offset).
type softProblem struct {
	loc int
	msg string
	// how says how sqlc generates it, for a refused problem; "" is
	// "which does not check this reference".
	how string
}

// lenientf records a problem that sqlc lets pass, typing what it concerns
// as interface{}: a note of the query, or, in a query that writes a fenced
// table, an error (the guard is added only to statements fencegen fully
// understands).
func (a *analyzer) lenientf(loc int, format string, args ...any) {
	a.lenient = append(a.lenient, softProblem{loc: loc, msg: fmt.Sprintf(format, args...)})
}

// refusedf records a problem for which PostgreSQL refuses the query and
// sqlc v1.31.1 generates it: a note of the query, or, in a query that
// writes a fenced table, an error (the guard is added only to a
// statement PostgreSQL runs).
func (a *analyzer) refusedf(loc int, format string, args ...any) {
	a.refused = append(a.refused, softProblem{loc: loc, msg: fmt.Sprintf(format, args...)})
}

// refusedHowf is refusedf with how sqlc generates the query.
func (a *analyzer) refusedHowf(loc int, how, format string, args ...any) {
	a.refused = append(a.refused, softProblem{loc: loc, msg: fmt.Sprintf(format, args...), how: how})
}

// refErrorf reports a reference that does not resolve: an error, or,
// where sqlc does not resolve it (analyzer.unchecked), refusedf.
func (a *analyzer) refErrorf(loc int, format string, args ...any) {
	if a.unchecked > 0 {
		a.refusedf(loc, format, args...)
		return
	}
	a.errorf(loc, format, args...)
}

// settleLenient turns the lenient and refused problems into errors when
// q writes a fenced table, and into q.Notes otherwise.
func (a *analyzer) settleLenient(q *Query) {
	sort.SliceStable(a.refused, func(i, j int) bool { return a.refused[i].loc < a.refused[j].loc })
	// An expression analysed more than once (HAVING, a grouped
	// expression) reports its reference once.
	a.refused = slices.Compact(a.refused)
	for _, p := range a.refused {
		if a.sqlcShapes && q.Fence == nil {
			// sqlc's reading sends the statement's own text but for its
			// stars: what PostgreSQL refuses is the first reading's
			// (a reference into a VALUES list, which sqlc's reading
			// gives no columns, is one PostgreSQL resolves).
			continue
		}
		if q.Fence != nil {
			a.errorf(p.loc, "%s; query %s writes fenced table %s, and a fenced write is generated only when %s accepts it", p.msg, q.Name, q.Fence.Table.QualifiedName(), a.server())
			continue
		}
		line, col := diag.Position(a.file.Src, a.clampLoc(p.loc))
		how := p.how
		if how == "" {
			how = "which does not check this reference"
		}
		q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: query %s: %s refuses this query: %s; generated as sqlc generates it, %s", a.file.Name, line, col, q.Name, a.server(), p.msg, how))
	}
	sort.SliceStable(a.lenient, func(i, j int) bool { return a.lenient[i].loc < a.lenient[j].loc })
	for _, p := range a.lenient {
		if q.Fence != nil {
			a.errorf(p.loc, "%s; query %s writes fenced table %s, and fencegen adds the guard only to a statement whose every type it knows", p.msg, q.Name, q.Fence.Table.QualifiedName())
			continue
		}
		loc := p.loc
		if loc < a.stmt.Start || loc > a.stmt.End {
			loc = a.stmt.Start
		}
		line, col := diag.Position(a.file.Src, loc)
		q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: %s; typed interface{}, as sqlc does", a.file.Name, line, col, p.msg))
	}
}

// clampLoc is loc when it is in the statement, else the statement's
// start.
func (a *analyzer) clampLoc(loc int) int {
	if loc < a.stmt.Start || loc > a.stmt.End {
		return a.stmt.Start
	}
	return loc
}

// sqlcStmtErrorf reports an error that sqlc v1.31.1 raises without a
// position of its own, where sqlc reports it: on MySQL at the
// statement's sqlc position (sqlparse.Stmt.SqlcStart, read as
// diag.SqlcPosition reads it), elsewhere at the statement.
func (a *analyzer) sqlcStmtErrorf(format string, args ...any) {
	if !a.opts.MySQL {
		a.errorf(a.stmt.Start, format, args...)
		return
	}
	if a.errAt == nil {
		a.errAt = map[int]bool{}
	}
	a.errAt[a.stmt.Start] = true
	line, col := diag.SqlcPosition(a.file.Src, a.stmt.SqlcStart)
	a.errs.Add(a.file.Name, line, col, format, args...)
}

func (a *analyzer) errorf(loc int, format string, args ...any) {
	if loc < a.stmt.Start || loc > a.stmt.End {
		loc = a.stmt.Start
	}
	if a.errAt == nil {
		a.errAt = map[int]bool{}
	}
	a.errAt[loc] = true
	line, col := diag.Position(a.file.Src, loc)
	a.errs.Add(a.file.Name, line, col, format, args...)
}

// queryPrefix is "query <name>: ", which starts a message about the
// query being analysed, or "" outside one.
func (a *analyzer) queryPrefix() string {
	if a.ann == nil {
		return ""
	}
	return "query " + a.ann.Name + ": "
}

func (a *analyzer) query(ann *Annotation) (*Query, error) {
	a.ann = ann
	q := &Query{Name: ann.Name, Cmd: ann.Cmd, File: a.file.Name, Line: ann.Line, Col: ann.Col, Doc: ann.Doc,
		Lead: string(a.file.Src[a.stmt.Lead:a.stmt.Start])}
	if ex, ok := a.stmt.Node.(*sqlparse.Explain); ok {
		// The statement explained is analysed as the query, for its
		// parameters (a copy: the parsed file is shared).
		st := *a.stmt
		st.Node = ex.Query
		a.stmt, a.explain, a.planOnly, a.wrapper = &st, true, true, "EXPLAIN"
	}
	if w, ok := a.stmt.Node.(*sqlparse.Wrapped); ok {
		st := *a.stmt
		st.Node = w.Query
		a.stmt, a.explain, a.planOnly, a.wrapper = &st, true, true, w.Verb
	}
	if _, err := a.numberParams(); err != nil {
		return nil, err
	}
	a.findSqlcCaseParams()
	var mysqlRep *mysqlwrites.Report
	if a.opts.MySQL && len(a.cat.FencedTables()) > 0 {
		var refused bool
		if mysqlRep, refused = a.mysqlWrites(q); refused {
			return nil, a.errs
		}
	}
	if a.funcs != nil {
		// The write analysis reads the whole parse tree (checkWrites).
		a.rep = writes.Of(a.stmt, a.file.Src)
		a.offStrings(q)
		a.shadowingRelation(q)
	}
	switch n := a.stmt.Node.(type) {
	case *sqlparse.Select:
		// A VALUES statement keeps PostgreSQL's columns: sqlc's reading
		// (none, sqlcValues) would scan no column of the rows
		// PostgreSQL returns, which pgx and database/sql refuse.
		q.Columns = a.selectCols(n, nil)
		nameAsSqlc(q.Columns)
		if isValues(n) && !a.explain {
			line, col := diag.Position(a.file.Src, a.stmt.Start)
			q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: query %s is a VALUES statement, which sqlc v1.31.1 generates with no result column, so that its Scan fails on every row; generated with PostgreSQL's columns", a.file.Name, line, col, q.Name))
		}
	case *sqlparse.Insert:
		q.Columns = a.insert(nil, n, q)
		nameAsSqlc(q.Columns)
	case *sqlparse.Update:
		q.Columns = a.update(nil, n, q)
		nameAsSqlc(q.Columns)
	case *sqlparse.Delete:
		q.Columns = a.delete(nil, n, q)
		nameAsSqlc(q.Columns)
	case *sqlparse.Call:
		// CALL proc($1, ...): the procedure's signature types the
		// parameters.
		if n.Func != nil {
			a.funcCall(&scope{}, n.Func)
		}
	case *sqlparse.Truncate:
		for _, t := range n.Tables {
			tb := a.cat.Table(t.Schema, t.Name)
			if tb == nil {
				continue
			}
			if tb.Fence != nil {
				a.refuseFenced(t.Loc, tb, "TRUNCATE of fenced table %s cannot be guarded by a fencing token: it empties the table without reading any row's stored token, so a stale holder would erase a newer holder's writes; delete the rows with a fenced DELETE (or mark them with a fenced UPDATE of a tombstone column)", tb.QualifiedName())
			}
		}
	case *sqlparse.Merge:
		// sqlc v1.31.1 does not read a MERGE's parameters: it generates a
		// method that takes none and leaves @name and sqlc.arg(name) in
		// the text, so every call fails (or, as @ is also PostgreSQL's
		// absolute-value operator, @id reads a column). A configuration
		// sqlc generates, fencegen generates (issue 23): the same method,
		// with a note at the first parameter that vet prints. A MERGE
		// that writes a fenced table is refused by checkWrites.
		if a.stmt.Raw != nil {
			if locs := writes.ParamLocs(a.stmt.Raw); len(locs) > 0 {
				line, col := diag.Position(a.file.Src, a.clampLoc(locs[0]))
				q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: query %s is a MERGE with parameters, which sqlc v1.31.1 does not read: generated as sqlc generates it, a method that takes no arguments with the parameters left in the text, so PostgreSQL refuses every call (or reads @ as its absolute-value operator); write its UPDATE and INSERT as their own queries (or one INSERT ... ON CONFLICT DO UPDATE)", a.file.Name, line, col, q.Name))
			}
		}
		// What it sets off, its WITH list and its calls: checkWrites.
		tb := a.cat.Table(n.Table.Schema, n.Table.Name)
		if tb != nil && tb.Fence != nil && !mergeDoesNothing(a.stmt.Raw) {
			a.refuseFenced(n.Loc, tb, "MERGE into fenced table %s cannot be guarded by a fencing token yet: its WHEN branches update, insert and delete rows that fencegen cannot lock and check in one guard; write the UPDATE, INSERT and DELETE as separate queries", tb.QualifiedName())
		}
	case *sqlparse.Copy:
		// COPY ... PROGRAM and what COPY FROM sets off: checkWrites.
		if !n.From {
			break // COPY ... TO: a read
		}
		tb := a.cat.Table(n.Table.Schema, n.Table.Name)
		if tb != nil && tb.Fence != nil {
			a.refuseFenced(n.Loc, tb, "COPY into fenced table %s cannot be guarded by a fencing token: COPY FROM loads rows as they are, so the token column is not set and nothing checks a stored token; load the rows with a fenced INSERT (:copyfrom or :batchexec)", tb.QualifiedName())
		}
	case *sqlparse.SetSearchPath:
		// A session setting: it writes no row.
	case *sqlparse.Unknown:
		// A statement kind the analyzer does not model: refused unless it
		// writes no table row, while the schema has a fenced table
		// (sound.go).
		if a.funcs != nil {
			a.unmodelled(q, n)
		}
	default:
		// DDL in a query file runs as it is; while the schema has a
		// fenced table, only if it leaves fenced tables alone (sound.go).
		if a.funcs != nil {
			a.queryDDL(q, n)
		}
	}
	a.typeSqlcCaseParams()
	a.typeSqlcSubqueryParams()
	a.lastInsertIDReads(q)
	if a.explain {
		// sqlc's EXPLAIN: no result column (see checkCmd), no guard.
		q.Columns, a.planOnly = nil, false
	}
	if a.cteFence != nil {
		if q.Fence != nil {
			a.errorf(a.stmt.Start, "query %s writes fenced tables both in its WITH clause (%s) and in its main statement; fencegen guards one fenced write per statement: split it", q.Name, a.cteFence.CTE)
		} else {
			q.Fence = a.cteFence
		}
	}
	if a.rep != nil {
		// Every write the parse tree holds, at any depth (sound.go).
		a.checkWrites(q, a.rep)
	}
	if a.funcs != nil && a.stmt.Raw != nil && writes.FiresEventTriggers(a.stmt.Raw) {
		// A statement that is not a schema statement to sqlparse but
		// fires event triggers (SELECT INTO, REFRESH MATERIALIZED VIEW).
		a.eventTriggerWrites(q, "runs a statement ("+writes.CommandTag(a.stmt.Raw)+") for which PostgreSQL fires")
	}
	// Writes hidden in user-defined functions and procedures the query
	// calls (funcwrites.go).
	a.checkFuncWrites(q)
	// Writes hidden in views read and in operators, casts and domains
	// (hooks.go).
	a.checkTextWrites(q)
	a.noteReplicationRole(q)
	a.noteSearchPath(q)
	a.settleLenient(q)
	if len(a.errs) > 0 {
		return nil, a.errs
	}
	if ann.OptOut != "" {
		if q.Fence != nil {
			a.optOutTable(q.Fence.Table)
			q.Fence = nil
		}
		if len(a.optedOut) == 0 && !a.optedOutAny {
			a.errs.Add(a.file.Name, ann.OptOutLine, ann.OptOutCol, "query %s: @fence off applies to writes to a fenced table, and this query writes none; drop the annotation", q.Name)
			return nil, a.errs
		}
		q.OptOut = &OptOut{Reason: ann.OptOut, Tables: a.optedOut, Named: a.optedOut, Unknown: a.optedOutAny, Line: ann.OptOutLine, Col: ann.OptOutCol}
		if a.optedOutAny {
			q.OptOut.Tables = slices.Clone(a.optedOut)
			for _, t := range a.cat.FencedTables() {
				if n := t.QualifiedName(); !slices.Contains(q.OptOut.Tables, n) {
					q.OptOut.Tables = append(q.OptOut.Tables, n)
				}
			}
		}
	}
	if q.Fence != nil {
		a.checkCurrentOf(q)
		if len(a.errs) > 0 {
			return nil, a.errs
		}
	}
	if ann.Sweep {
		switch {
		case q.Fence == nil || q.Fence.Kind != "update" && q.Fence.Kind != "delete":
			a.errs.Add(a.file.Name, ann.SweepLine, ann.SweepCol, "query %s: @fence sweep applies to a fenced UPDATE or DELETE (a sweep that may match no row), and this query is none", q.Name)
			return nil, a.errs
		case q.Cmd == CmdOne || q.Cmd == CmdBatchOne:
			a.errs.Add(a.file.Name, ann.SweepLine, ann.SweepCol, "query %s: @fence sweep with %s, which returns one row; a sweep is :exec, :execrows, :execresult or :many (or their batch forms)", q.Name, q.Cmd)
			return nil, a.errs
		}
		q.Fence.Sweep = true
	}
	if q.Fence == nil && (ann.Strict || ann.NonStrict) {
		a.errs.Add(a.file.Name, ann.Line, ann.Col, "query %s: @fence applies to writes to a fenced table, and this query writes none", q.Name)
		return nil, a.errs
	}
	a.checkCmd(q)
	if len(a.errs) > 0 {
		return nil, a.errs
	}
	a.dropSqlcUnread(q)
	nums := slices.Sorted(maps.Keys(a.params))
	if a.explain && (a.wrapper == "COPY" || a.wrapper == "PREPARE") && len(nums) > 0 {
		// sqlc v1.31.1 reads the wrapped query's parameters as the
		// statement's; PostgreSQL gives the statement none (a PREPARE's
		// $n are the prepared statement's), so the driver refuses the
		// arguments of every call.
		line, col := diag.Position(a.file.Src, a.stmt.Start)
		q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: query %s is a %s whose query has parameters, which sqlc v1.31.1 generates as the statement's; PostgreSQL binds no parameter to a %s (the statement takes none), so every call fails (pgx: mismatched param and argument count); generated as sqlc generates it: write the values into the query, or run the query itself", a.file.Name, line, col, q.Name, a.wrapper, a.wrapper))
	}
	if a.dollarZeros {
		// sqlc v1.31.1 generates it; PostgreSQL refuses it at every
		// call ("there is no parameter $0"). Issue 23: generated as
		// sqlc generates it, with a note, unless it writes a fenced
		// table, whose guard is added only to a statement PostgreSQL
		// runs.
		if q.Fence != nil || a.cteFence != nil || q.OptOut != nil {
			a.errorf(a.stmt.Start, "query %s: $0 is no parameter: PostgreSQL numbers them from $1 and refuses $0 (\"there is no parameter $0\"), which sqlc generates; this query writes a fenced table: number its parameters from $1", q.Name)
			return nil, a.errs
		}
		line, col := diag.Position(a.file.Src, a.stmt.Start)
		q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: query %s writes $0, which sqlc v1.31.1 generates as a parameter of its own for each $0; PostgreSQL numbers parameters from $1 and answers every call with \"there is no parameter $0\" (SQLSTATE 42P02); generated as sqlc generates it: number the parameters from $1", a.file.Name, line, col, q.Name))
	}
	if a.posGap > 0 && a.namedFrom > 0 && !a.opts.Database {
		// sqlc v1.31.1 without a database checks the $n before it numbers
		// the named parameters, and refuses a gap; with one (database:
		// uri), it numbers them into the gaps, and so does fencegen.
		a.errorf(a.firstNamed, "query %s: parameter $%d is missing: sqlc v1.31.1 refuses a gap in the $n (\"could not determine data type of parameter $%d\") unless it analyses with a database (database: uri), which numbers the named parameters into the gaps; number the $n without gaps, or use one kind", q.Name, a.posGap, a.posGap)
		return nil, a.errs
	}
	for i, n := range nums {
		if n != i+1 {
			a.errorf(a.stmt.Start, "query %s: parameter $%d is missing (parameters must be numbered $1..$%d without gaps)", q.Name, i+1, nums[len(nums)-1])
			return nil, a.errs
		}
		p := a.params[n]
		if p.conflict != nil {
			// PostgreSQL gives a parameter one type, and refuses the
			// query when two uses need two ("inconsistent types deduced
			// for parameter", or, where it typed the parameter from the
			// other use first, "column ... is of type bool but
			// expression is of type bigint"). sqlc v1.31.1 generates
			// the query, the parameter typed from its first use: so
			// does fencegen, with a note, except on a fenced write,
			// whose guard is added only to a statement PostgreSQL runs.
			msg := fmt.Sprintf("query %s: PostgreSQL refuses this query: parameter $%d is used as %s here and as %s elsewhere, and a parameter has one type; cast it where it is used (e.g. $%d::%s)", q.Name, n, p.Type, *p.conflict, n, p.Type)
			if a.opts.MySQL {
				// MySQL binds each ? on its own and converts the value to
				// the type each use needs; the method's argument is typed
				// from one use, as sqlc types it.
				name := p.Name
				if name == "" {
					name = fmt.Sprintf("%d", n)
				}
				msg = fmt.Sprintf("query %s: parameter %s is used as %s here and as %s elsewhere: the method takes one Go value for both, and MySQL converts it to the other use's type", q.Name, name, p.Type, *p.conflict)
				if q.Fence != nil {
					a.errorf(p.loc, "%s; query %s writes fenced table %s, and fencegen guards a write only when each parameter has one type: give each use its own parameter (sqlc.arg(a), sqlc.arg(b))", msg, q.Name, q.Fence.Table.QualifiedName())
					return nil, a.errs
				}
				line, col := diag.Position(a.file.Src, a.clampLoc(p.loc))
				q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: %s; generated as sqlc generates it, typed %s from its first use", a.file.Name, line, col, msg, p.Type))
			} else if q.Fence != nil {
				a.errorf(p.loc, "%s; query %s writes fenced table %s, and a fenced write is generated only when %s accepts it", msg, q.Name, q.Fence.Table.QualifiedName(), a.server())
				return nil, a.errs
			} else {
				line, col := diag.Position(a.file.Src, a.clampLoc(p.loc))
				// sqlc's first use is the first its walk reaches
				// (typeParam), which need not be PostgreSQL's.
				typed := fmt.Sprintf("typed %s", p.Type)
				if p.Sqlc != nil && p.Sqlc.Any {
					typed = "untyped (interface{})"
				} else if p.Sqlc != nil {
					t := p.Sqlc.Type
					if p.Sqlc.Slice {
						t.ArrayDims++
					}
					typed = fmt.Sprintf("typed %s", t)
				}
				q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: %s; generated as sqlc generates it, $%d %s from its first use in sqlc's reading", a.file.Name, line, col, msg, n, typed))
			}
		}
		if p.Name == "" {
			p.Name, p.Unnamed = fmt.Sprintf("column_%d", n), true
		}
		if !p.Known {
			p.Type = catalog.Type{Name: "any"}
		}
		p.SqlcName = a.sqlcNames[n]
		p.SqlcSlice = p.Slice && (a.opts.MySQL || a.sqlcSlice(p))
		q.Params = append(q.Params, p)
	}
	for _, r := range a.refusals {
		// sqlc v1.31.1 generates the statement; PostgreSQL refuses it
		// when it is prepared. Its types are no one's: vet names none.
		msg := fmt.Sprintf("query %s: PostgreSQL refuses this query: %s", q.Name, r.msg)
		if q.Fence != nil {
			a.errorf(r.loc, "%s; query %s writes fenced table %s, and a fenced write is generated only when %s accepts it", msg, q.Name, q.Fence.Table.QualifiedName(), a.server())
			return nil, a.errs
		}
		if q.Refused == "" {
			q.Refused = r.msg
		}
		line, col := diag.Position(a.file.Src, a.clampLoc(r.loc))
		q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: %s; generated as sqlc generates it", a.file.Name, line, col, msg))
	}
	if a.opts.Database && len(q.Params) > 0 {
		q.SqlcParamsFail = a.sqlcParamsFail()
	}
	// A hand-written comparison of the token column: its parameter is
	// the method's token (tokencmp.go).
	a.unifyTokenComparisons(q)
	if len(a.errs) > 0 {
		return nil, a.errs
	}
	for _, p := range q.Params {
		p.Column = spelled(p.Column, p.Type, p.NotNull, p.DBType)
	}
	for _, c := range q.Columns {
		c.Column = spelled(c.Column, c.Type, c.NotNull, c.DBType)
	}
	sqlText := a.rewrite(false)
	q.SQL = sqlText // IN (sqlc.slice) lists marked after the guard stage
	if len(a.sqlcEnds) > 0 {
		q.SqlcSQL = a.rewrite(true)
	}
	q.InSlices = a.inSlices
	q.Placeholders = a.placeholders
	q.CTEColumns = a.cteColumns
	if q.Fence != nil {
		q.Fence.TokenParam = len(q.Params) + 1
		if (q.Fence.Kind == "update" || q.Fence.Kind == "delete") && len(q.Fence.Table.PrimaryKey) == 0 && a.opts.MySQL {
			a.errorf(a.stmt.Start, "query %s: fenced table %s has no PRIMARY KEY; on MySQL fencegen guards an UPDATE or DELETE of a fenced table only when the table has one: the guard's by-key form and its read of the stored token look rows up by it, and the all-or-nothing form is not built for a table without one; give it one in the schema (PRIMARY KEY in CREATE TABLE, or ALTER TABLE %s ADD PRIMARY KEY (...); a UNIQUE NOT NULL key can become it)", q.Name, q.Fence.Table.QualifiedName(), q.Fence.Table.QualifiedName())
			return nil, a.errs
		}
		if d := q.Fence.Table.KeysInDoubt(); d != nil && (q.Fence.Kind == "update" || q.Fence.Kind == "delete") && a.opts.MySQL {
			a.errorf(a.stmt.Start, "query %s: the primary key of fenced table %s may not be the one fencegen read: %s:%d:%d: %s; the guard of an UPDATE or DELETE looks rows up by the primary key, so fencegen refuses it rather than guard it on a key the server may not have; write the key change as MariaDB and MySQL both run it (ALTER TABLE %s DROP PRIMARY KEY, ADD PRIMARY KEY (...))", q.Name, q.Fence.Table.QualifiedName(), d.File, d.Line, d.Col, d.Msg, q.Fence.Table.QualifiedName())
			return nil, a.errs
		}
		if (q.Fence.Kind == "update" || q.Fence.Kind == "delete") && len(q.Fence.Table.PrimaryKey) == 0 {
			a.errorf(a.stmt.Start, "query %s: fenced table %s has no PRIMARY KEY; fencegen locks and writes the rows a fenced %s matches by key, so that the write is all or nothing: give it one in the schema (PRIMARY KEY in CREATE TABLE, or ALTER TABLE %s ADD PRIMARY KEY (...))", q.Name, q.Fence.Table.QualifiedName(), strings.ToUpper(q.Fence.Kind), q.Fence.Table.QualifiedName())
			return nil, a.errs
		}
		// What the guard stage needs (see addGuard).
		q.Fence.spec = guard.Spec{
			Table: q.Fence.Table.QualifiedName(), Name: q.Fence.Table.Name, Column: q.Fence.Column, Key: q.Fence.Table.PrimaryKey,
			Param: q.Fence.TokenParam, Strict: q.Fence.Strict,
			Columns: len(q.Columns), CTE: q.Fence.CTE, Inherited: len(a.cat.Children(q.Fence.Table)) > 0,
			InsertTypes: q.Fence.InsertTypes, ConflictColumns: q.Fence.ConflictColumns, SetReturningRow: q.Fence.setReturning,
			// A batch item is read from one result set: it keeps a
			// one-statement form.
			Batch: IsBatch(q.Cmd),
		}
	}
	if a.mysqlFenceHandedOver(q, mysqlRep) {
		return nil, a.errs
	}
	return q, nil
}

// addGuard runs the guard stage on an analysed query that writes a fenced
// table: package guard decides the form and rewrites q.SQL; a write it
// cannot guard is an error at the statement.
func (a *analyzer) addGuard(q *Query) error {
	if q.Fence == nil {
		return nil
	}
	if a.opts.MySQL {
		// MySQL's guard stage (mysqlguard.go).
		if err := mysqlGuardStage(q, a.opts.MySQLSchema, a.opts.ParamGoType); err != nil {
			a.errorf(a.stmt.Start, "query %s: cannot add the fencing guard: %v", q.Name, err)
			return a.errs
		}
		return nil
	}
	g, err := guard.Rewrite(q.SQL, q.Fence.spec)
	if err != nil {
		a.errorf(a.stmt.Start, "query %s: cannot add the fencing guard: %v", q.Name, err)
		return a.errs
	}
	if a.rulesRefuseForm(q, g.Form) {
		return a.errs
	}
	q.SQL, q.Fence.Form, q.Fence.StoredSQL, q.Fence.StoredParams = g.SQL, g.Form, g.Stored, g.StoredParams
	return nil
}

// rulesRefuseForm refuses, at the statement, a guarded write whose form
// PostgreSQL cannot run on the fenced table because of the table's DO ALSO
// rules (its DO INSTEAD ones are refused by fencedRewrites), so that no
// generated method fails on every call (issue 24):
//   - every form but ByKey and Store puts the write in a WITH entry, and
//     PostgreSQL's rewriter (RewriteQuery, rewriteHandler.c) accepts on a
//     data-modifying WITH entry only a rule set that leaves exactly one
//     query: a DO ALSO rule, conditional or not, fails with "DO ALSO rules
//     are not supported for data-modifying statements in WITH";
//   - an upsert fails on any table with INSERT or UPDATE rules ("INSERT
//     with ON CONFLICT clause cannot be used with table that has INSERT or
//     UPDATE rules"), guarded or not.
func (a *analyzer) rulesRefuseForm(q *Query, form guard.Form) bool {
	f := q.Fence
	if form == guard.ByKey || form == guard.Store {
		return false
	}
	events := []string{strings.ToUpper(f.Kind)}
	if f.Kind == "upsert" {
		events = []string{"INSERT", "UPDATE"}
	}
	i := slices.IndexFunc(f.Table.Rules, func(r *catalog.Rule) bool { return r.Fires() && !r.Instead && slices.Contains(events, r.Event) })
	if i < 0 {
		return false
	}
	r := f.Table.Rules[i]
	if f.Kind == "upsert" {
		// Unguarded, PostgreSQL refuses it too: no opt-out.
		a.errorf(a.stmt.Start, "query %s: INSERT ... ON CONFLICT into fenced table %s, whose rule %s (%s:%d) is ON %s: PostgreSQL refuses an upsert on a table with INSERT or UPDATE rules (\"INSERT with ON CONFLICT clause cannot be used with table that has INSERT or UPDATE rules\"), so every call would fail; write the INSERT and the UPDATE by key as their own queries, or replace the rule with an AFTER trigger",
			q.Name, f.Table.QualifiedName(), r.Name, r.File, r.Line, r.Event)
		return true
	}
	verb := strings.ToUpper(f.Kind)
	how := "write the " + verb + " by the table's whole primary key (" + strings.Join(f.Table.PrimaryKey, ", ") + "), as its own statement without WITH and not as a batch item (the guard then needs no WITH)"
	if verb == "INSERT" {
		how = "write the INSERT as its own statement, without WITH"
	}
	refuse := a.refuseFenced
	if form == guard.InWith {
		// The user's own WITH entry: PostgreSQL refuses it unguarded too.
		refuse = func(loc int, _ *catalog.Table, format string, args ...any) { a.errorf(loc, format, args...) }
	}
	refuse(a.stmt.Start, f.Table, "query %s writes fenced table %s, whose rule %s (%s:%d) is DO ALSO ON %s: the guard (%s) runs the %s as a WITH entry, and PostgreSQL refuses a DO ALSO rule there (\"DO ALSO rules are not supported for data-modifying statements in WITH\"), so every call would fail; %s, or replace the rule with an AFTER trigger",
		q.Name, f.Table.QualifiedName(), r.Name, r.File, r.Line, r.Event, form, verb, how)
	return true
}

// optOutHint ends every refusal of a write to a fenced table: the way out
// when the write must stay unguarded.
const optOutHint = "; or, if this write may skip the guard, say why above the query with \"-- @fence off: <reason>\""

// refuseFenced reports a write to fenced table t that fencegen cannot
// guard, at loc: an error whose message (format) says why and what to do,
// or, in a query annotated "-- @fence off: <reason>", no error but an
// opt-out that vet lists.
func (a *analyzer) refuseFenced(loc int, t *catalog.Table, format string, args ...any) {
	if a.planOnly {
		return // under EXPLAIN: checkWrites judges
	}
	if a.ann != nil && a.ann.OptOut != "" {
		a.optOutTable(t)
		return
	}
	a.errorf(loc, format+optOutHint, args...)
}

// optOutTable records that the opted-out query writes fenced table t.
func (a *analyzer) optOutTable(t *catalog.Table) {
	name := t.QualifiedName()
	if !slices.Contains(a.optedOut, name) {
		a.optedOut = append(a.optedOut, name)
	}
}

var currentOf = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bcurrent\s+of\b`) })

// checkCurrentOf refuses a fenced UPDATE or DELETE ... WHERE CURRENT OF
// cursor: the guard locks and re-checks the rows a WHERE condition
// matches, and a cursor position is no condition it can repeat.
func (a *analyzer) checkCurrentOf(q *Query) {
	var where sqlparse.Node
	switch n := a.stmt.Node.(type) {
	case *sqlparse.Update:
		where = n.Where
	case *sqlparse.Delete:
		where = n.Where
	}
	co, ok := where.(*sqlparse.CurrentOf)
	if !ok {
		return
	}
	loc := a.stmt.Start
	if m := currentOf().FindAllIndex(a.file.Src[a.stmt.Start:a.stmt.End], -1); len(m) > 0 {
		loc += m[len(m)-1][0]
	}
	a.errorf(loc, "query %s: WHERE CURRENT OF cannot be fenced: the guard re-checks the rows a WHERE condition matches, and cursor %s's position is none; fetch the row's key with the cursor and write WHERE %s = ...", q.Name, co.Cursor, strings.Join(q.Fence.Table.PrimaryKey, ", "))
}

// noRowOutcome is what a call of a :one or :many query whose statement
// returns no row gets.
func noRowOutcome(cmd string) string {
	if cmd == CmdOne || cmd == CmdBatchOne {
		return "every call fails (no rows in result set)"
	}
	return "every call returns no row"
}

func (a *analyzer) checkCmd(q *Query) {
	// A SELECT returns rows even with no columns (SELECT FROM t).
	_, isSelect := a.stmt.Node.(*sqlparse.Select)
	returns := len(q.Columns) > 0 || isSelect || a.explain
	// A fenced UPDATE or DELETE in a batch: each item runs the guarded
	// statement and reports its own outcome (golang's batch.go). Other
	// guarded shapes are not generated as batches yet.
	if IsBatch(q.Cmd) && q.Fence != nil &&
		q.Fence.Kind != "insert" && q.Fence.Kind != "update" && q.Fence.Kind != "delete" && q.Fence.Kind != "upsert" {
		a.errs.Add(a.file.Name, q.Line, q.Col, "query %s: %s of a fenced %s on %s is not generated yet: its per-item result is not read in a batch; use :exec, :one or :many", q.Name, q.Cmd, q.Fence.Kind, q.Fence.Table.QualifiedName())
		return
	}
	if q.Cmd == CmdExecLastID && q.Fence != nil && !a.opts.MySQL {
		// On MySQL the guard stage decides (mysqlGuardStage): an INSERT
		// that stores the token returns the driver's last-insert id.
		a.errs.Add(a.file.Name, q.Line, a.ann.CmdCol, "query %s: :execlastid is not generated for a fenced write: PostgreSQL has no last-insert-id (database/sql's LastInsertId fails when run); use RETURNING with :one", q.Name)
		return
	}
	switch q.Cmd {
	case CmdOne, CmdMany, CmdBatchOne, CmdBatchMany:
		if a.explain && (a.wrapper == "COPY" || a.wrapper == "PREPARE") {
			line, col := diag.Position(a.file.Src, a.stmt.Start)
			q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: query %s is a %s with %s, which sqlc v1.31.1 generates with a row type of no fields; %s returns no row to the DBTX, so %s; generated as sqlc generates it: use :exec", a.file.Name, line, col, q.Name, a.wrapper, q.Cmd, a.wrapper, noRowOutcome(q.Cmd)))
		} else if a.explain && a.wrapper == "DECLARE CURSOR" {
			// DECLARE returns no row: it opens the cursor, which FETCH
			// reads.
			line, col := diag.Position(a.file.Src, a.stmt.Start)
			q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: query %s is a DECLARE CURSOR with %s, which sqlc v1.31.1 generates with a row type of no fields; DECLARE returns no row, so %s; generated as sqlc generates it: use :exec, and read the rows with FETCH", a.file.Name, line, col, q.Name, q.Cmd, noRowOutcome(q.Cmd)))
		} else if a.explain {
			// sqlc v1.31.1 reads no column of EXPLAIN: its row type has
			// no field, and pgx and database/sql refuse a Scan into
			// fewer destinations than the result's one column.
			line, col := diag.Position(a.file.Src, a.stmt.Start)
			q.Notes = append(q.Notes, fmt.Sprintf("%s:%d:%d: note: query %s is an EXPLAIN with %s, which sqlc v1.31.1 generates with a row type of no fields, so every call fails when it scans the plan's column (QUERY PLAN); generated as sqlc generates it: use :exec, or run EXPLAIN through the DBTX to read the plan", a.file.Name, line, col, q.Name, q.Cmd))
		}
		if !returns {
			// About the statement: reported where sqlc reports it.
			line, col := diag.Position(a.file.Src, sqlcStmtPos(a.file.Src, a.stmt.Lead, a.stmt.Start))
			advice := "add RETURNING, or use :exec"
			if a.opts.MySQL {
				advice = "MySQL returns no rows from a write: use :exec, :execrows, :execresult or :execlastid"
			}
			a.errs.Add(a.file.Name, line, col, "query %s: %s needs a statement that returns rows (%s)", q.Name, q.Cmd, advice)
		}
	case CmdCopyFrom:
		ins, ok := a.stmt.Node.(*sqlparse.Insert)
		if !ok || q.InsertTable == nil || ins.Select == nil || len(ins.Select.Values) != 1 || len(ins.Columns) == 0 {
			a.errs.Add(a.file.Name, q.Line, q.Col, "query %s: :copyfrom needs INSERT INTO table (columns) VALUES (one row of parameters)", q.Name)
			return
		}
		for i, v := range ins.Select.Values[0] {
			p, ok := v.(*sqlparse.Param)
			if !ok || p.Number != i+1 {
				a.errorf(v.Pos(), "query %s: :copyfrom sends each row's values as they are: VALUES must hold only the parameters $1, $2, ... in order", q.Name)
				return
			}
		}
		if len(ins.Returning) > 0 || ins.OnConflict != nil {
			a.errs.Add(a.file.Name, q.Line, q.Col, "query %s: :copyfrom uses COPY, which has no RETURNING or ON CONFLICT", q.Name)
		}
		for _, c := range ins.Columns {
			q.InsertColumns = append(q.InsertColumns, c.Name)
		}

	}
}

// edit replaces src[start:end] (file offsets) with text in the statement
// sent to PostgreSQL.
type edit struct {
	start, end int
	text       string
}

// rewrite applies the edits to the statement's text: named parameters
// become $n, sqlc.embed(t) becomes t's column list. With sqlc, an edit
// that sqlcEnds lists (by its start) ends there instead (Query.SqlcSQL).
func (a *analyzer) rewrite(sqlc bool) string {
	edits := append([]edit(nil), a.edits...)
	sort.Slice(edits, func(i, j int) bool { return edits[i].start > edits[j].start })
	text := []byte(string(a.file.Src[a.stmt.Start:a.stmt.End]))
	for _, e := range edits {
		end := e.end
		if x, ok := a.sqlcEnds[e.start]; ok && sqlc && x > end {
			end = x
		}
		s, t := e.start-a.stmt.Start, end-a.stmt.Start
		if s < 0 || t > len(text) || s > t {
			continue
		}
		text = append(text[:s], append([]byte(e.text), text[t:]...)...)
	}
	return strings.TrimSpace(string(text))
}

// server names the database server the entry's queries run on, for
// messages: "PostgreSQL", or "MariaDB/MySQL" for engine mysql.
func (a *analyzer) server() string {
	if a.opts.MySQL {
		return "MariaDB/MySQL"
	}
	return "PostgreSQL"
}

// mergeDoesNothing reports whether raw is a MERGE whose every WHEN
// clause is DO NOTHING: PostgreSQL changes no row of its target and
// fires none of its triggers (they fire for the actions a MERGE
// specifies, and DO NOTHING is none). False without a parse tree.
func mergeDoesNothing(raw *pg.Node) bool {
	m := raw.GetMergeStmt()
	if m == nil || len(m.MergeWhenClauses) == 0 {
		return false
	}
	for _, n := range m.MergeWhenClauses {
		if wc := n.GetMergeWhenClause(); wc == nil || wc.CommandType != pg.CmdType_CMD_NOTHING {
			return false
		}
	}
	return true
}
