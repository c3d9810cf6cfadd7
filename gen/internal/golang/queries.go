package golang

import (
	"fmt"
	"go/token"
	"path"
	"reflect"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/dave/jennifer/jen"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/config"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/guard"
	"github.com/fencegen/fencegen/gen/internal/guard/mysqlguard"
)

// signature is a method's parameter and result lists.
type signature struct {
	params  []jen.Code
	results []jen.Code
	// args are the expressions passed to pgx, in $n order.
	args []jen.Code
	// result is the Go type of one result row, if any.
	result     jen.Code
	resultName string
	scalar     bool
	cols       []resultField
	// rowArg and rowType are, for :copyfrom and :batch* queries with
	// parameters, the name of the slice parameter and its element type.
	rowArg  string
	rowType jen.Code
	// retName is the variable a result row is scanned into: i for a
	// struct, for one column the column's name as sqlc names it
	// (scalarRetName).
	retName string
	// argNames are the method's parameter names.
	argNames []string
}

type resultField struct {
	name string
	typ  goType
	// column is the SQL name, for struct tags; col the table column, if
	// any, for go_struct_tag overrides.
	column string
	col    *catalog.Column
	// sqlType and notNull are the value's type (nil when unknown) and
	// nullability, for go_struct_tag of db_type overrides.
	sqlType *catalog.Type
	notNull bool
	// embed lists the model's field names when the field is a
	// sqlc.embed(table) of the model type, and embedTypes their Go types.
	embed      []string
	embedTypes []goType
}

func lowerFirst(s string) string {
	// sqlc's sdk.LowerTitle: unicode.ToLower of the first rune (ÜberQuery
	// gives überQuery).
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToLower(r)) + s[n:]
}

func (e *emitter) paramLimit() int {
	if e.opts.QueryParameterLimit != nil {
		return *e.opts.QueryParameterLimit
	}
	return 1
}

// knownType is p's type, nil when nothing in the query says it.
func knownType(p *analyze.Param) *catalog.Type {
	if !p.Known {
		return nil
	}
	return &p.Type
}

func (e *emitter) paramType(p *analyze.Param) goType {
	if p.Known && p.Sqlc != nil && !e.types.pgTypes {
		g := goType{name: "interface{}"}
		if !p.Sqlc.Any {
			g = e.types.goTypeOf(p.Sqlc.Column, p.Sqlc.Type, p.Sqlc.NotNull)
		}
		if p.Sqlc.Slice {
			// sqlc's sqlc.slice: a slice of its element's type.
			g.slices++
		}
		return g
	}
	if !p.Known || p.SqlcUntyped {
		return goType{name: "interface{}"}
	}
	if p.InList && p.Type.ArrayDims == 1 && (p.ElemColumn != nil || !p.NotNull && !e.types.pgTypes) {
		// An IN (sqlc.slice(x)) list: sqlc v1.31.1 types its elements as
		// the column compared, nullable when it is ([]sql.NullInt64);
		// postgresql_types declares them NOT NULL (a NULL element
		// matches nothing).
		g := e.types.goTypeOf(p.ElemColumn, p.Type.Elem(), p.NotNull || e.types.pgTypes)
		g.slices++
		return g
	}
	return e.types.goTypeOf(p.Column, p.Type, p.NotNull)
}

// resultType is the Go type of result column c: interface{} where sqlc
// v1.31.1 answers it (analyze.Column.SqlcAny), else its declared
// typing's (declared).
func (e *emitter) resultType(c *analyze.Column) goType {
	if c.SqlcAny || c.Sqlc != nil && c.Sqlc.Any && !e.types.pgTypes {
		return goType{name: "interface{}"}
	}
	col, t, notNull := declared(e.types.pgTypes, c)
	return e.types.goTypeOf(col, t, notNull)
}

// declared is the column (for overrides), type and nullability the API
// declares result column c with: sqlc v1.31.1's (analyze.Column.Sqlc)
// unless pgTypes (postgresql_types), PostgreSQL's then.
func declared(pgTypes bool, c *analyze.Column) (*catalog.Column, catalog.Type, bool) {
	if c.Sqlc != nil && !pgTypes {
		return c.Sqlc.Column, c.Sqlc.Type, c.Sqlc.NotNull
	}
	if c.Sqlc != nil && c.Sqlc.CTE && (c.Column == nil || c.Column.Table == nil) {
		// A WITH entry's column: column overrides match it as sqlc's
		// do (analyze.SqlcType.CTE), with PostgreSQL's typing.
		col := &catalog.Column{Name: c.Sqlc.Column.Name, Table: c.Sqlc.Column.Table, Type: c.Type, NotNull: c.NotNull, DBType: c.DBType}
		if c.Column != nil {
			col.DBType = c.Column.DBType
		}
		return col, c.Type, c.NotNull
	}
	return c.Column, c.Type, c.NotNull
}

// argName is the name of q's parameter p as the method's only
// parameter argument: sqlc's (namer.argName), or dollar_N for a parameter
// that neither its query nor a column names (sqlc's paramName), escaped
// (escapeArg).
func (e *emitter) argName(q *analyze.Query, p *analyze.Param) string {
	if p.Unnamed {
		return fmt.Sprintf("dollar_%d", p.Number)
	}
	n := e.names.argName(p.Name)
	if token.IsKeyword(n) || n == "q" {
		n += "_" // sqlc's escape
	}
	if e.importElems(q)[n] {
		// As sqlc (replaceConflictedArg): the last element of a path the
		// file imports (time, uuid) gives arg and the name (argTime).
		n = argConflictName(n)
	}
	return e.escapeArg(q, n)
}

// argConflictName is sqlc's rename of an argument named as an import:
// "arg_" and the name, camel-cased as its json tags are (toCamelCase:
// time is argTime).
func argConflictName(n string) string {
	var b strings.Builder
	b.WriteString("arg")
	for _, p := range strings.Split(n, "_") {
		if p == "id" {
			b.WriteString("ID")
		} else {
			b.WriteString(titleWords(p))
		}
	}
	return b.String()
}

// useModel notes that a query returns t's model (usedModels).
func (e *emitter) useModel(t *catalog.Table) {
	unlock := e.lock()
	e.usedModels[t] = true
	unlock()
}

// modelUsed reports whether a query returns t's model (usedModels).
func (e *emitter) modelUsed(t *catalog.Table) bool {
	unlock := e.lock()
	defer unlock()
	return e.usedModels[t]
}

// importElems are the last elements of the import paths of the file
// that declares q's method (context, time, uuid, pgtype, ...), as far as
// sqlc's renaming of arguments (argName, sqlc's replaceConflictedArg)
// needs them; inQuerier, those of the querier file. sqlc imports in a
// query file the packages of its queries' parameter types (a Params
// struct's fields included) and result types (a row struct's fields, not
// a model's), database/sql or pgconn for :execresult, fmt with
// wrap_errors, and with database/sql strings for a sqlc.slice and
// lib/pq for a slice other than []byte among the parameters (but a
// sqlc.slice) or the result columns (a model's or an embedded one's
// included: it scans them through pq.Array); in the batch file (:batch*
// queries, which no query file declares) the same but pq and strings,
// with errors and pgx's; in the copyfrom file (:copyfrom methods) only
// the packages of single arguments, with io, fmt, atomic, mysql and
// mysqltsv for MySQL; in the querier file the packages of the types the
// interface spells: a single result column's (not a batch method's),
// each argument's (not a Params struct's fields) and :execresult's.
func (e *emitter) importElems(q *analyze.Query) map[string]bool {
	const batchFile, copyfromFile = "\x00batch", "\x00copyfrom"
	file := q.File
	switch {
	case e.inQuerier:
		file = ""
	case isBatch(q.Cmd):
		file = batchFile
	case q.Cmd == ":copyfrom":
		file = copyfromFile
	}
	unlock := e.lock()
	m, ok := e.argImports[file]
	unlock()
	if ok {
		return m
	}
	m = map[string]bool{"context": true}
	var add func(t goType)
	add = func(t goType) {
		if t.pkg != "" {
			m[path.Base(importPath(t.pkg))] = true
		}
		for _, a := range t.args {
			add(a)
		}
	}
	slice := func(t goType) bool {
		s := t.String()
		return strings.HasPrefix(s, "[]") && s != "[]byte"
	}
	pq := false
	for _, f := range e.in.Files {
		for _, q := range f.Queries {
			switch file {
			case "":
			case batchFile:
				if !isBatch(q.Cmd) {
					continue
				}
			case copyfromFile:
				if q.Cmd == ":copyfrom" && !e.useParamsStruct(q) {
					for _, p := range q.Params {
						add(e.paramType(p))
					}
				}
				continue
			default:
				if f.Name != file || isBatch(q.Cmd) {
					continue
				}
			}
			structArg := e.useParamsStruct(q)
			for _, p := range q.Params {
				t := e.paramType(p)
				if file != "" || !structArg {
					add(t)
				}
				pq = pq || !p.SqlcSlice && slice(t)
				if p.SqlcSlice && file != "" && e.types.stdlib() {
					m["strings"] = true
				}
			}
			embed := false
			for _, c := range q.Columns {
				embed = embed || c.Embed != nil
			}
			single := len(q.Columns) == 1 && !embed
			for _, c := range q.Columns {
				var t goType
				if c.Embed == nil {
					t = e.resultType(c)
				} else {
					t = e.types.goTypeOf(c.Column, c.Type, c.NotNull)
				}
				pq = pq || slice(t)
				// A model's fields are declared in the models file, an
				// embedded model's too.
				if c.Embed == nil && (single && !(file == "" && isBatch(q.Cmd)) || file != "" && !single && e.matchModel(q) == "") {
					add(t)
				}
			}
			if q.Cmd == ":execresult" {
				if e.types.stdlib() {
					m["sql"] = true
				} else {
					m["pgconn"] = true
				}
			}
		}
	}
	switch file {
	case "":
	case batchFile:
		m["errors"] = true
		if e.types.pgxV4() {
			m["v4"] = true
		} else {
			m["v5"] = true
		}
	case copyfromFile:
		if e.types.mysql() {
			for _, n := range []string{"io", "fmt", "atomic", "mysql", "mysqltsv"} {
				m[n] = true
			}
		}
	default:
		if e.opts.WrapErrors {
			m["fmt"] = true
		}
		if pq && e.types.stdlib() {
			m["pq"] = true
		}
	}
	unlock = e.lock()
	defer unlock()
	if prev, ok := e.argImports[file]; ok {
		// Another file's rendering got there first, with the same.
		return prev
	}
	if e.argImports == nil {
		e.argImports = map[string]map[string]bool{}
	}
	e.argImports[file] = m
	return m
}

// argNames are the names of q's parameters as the method's arguments: one
// parameter is argName's; several (query_parameter_limit above 1) are,
// as in sqlc, the fields of the Params struct they would have, with the
// first letter lower-cased (UserID: userID, ID: iD, an unnamed
// parameter's Column2: column2), escaped.
func (e *emitter) argNames(q *analyze.Query) []string {
	if len(q.Params) == 1 {
		return []string{e.argName(q, q.Params[0])}
	}
	names := make([]string, len(q.Params))
	for i, p := range q.Params {
		// An unnamed parameter's field is Column<N> (column2).
		names[i] = e.escapeArg(q, lowerFirst(e.names.structName(p.Name)))
	}
	return uniqueNames(names)
}

// escapeArg appends "_" to an argument name n of q's method that the
// method's code cannot take: a keyword or plainArgReserved (db too with
// emit_methods_with_db_argument; pq with database/sql where the file
// imports lib/pq, whose array arguments the body passes through pq.Array:
// one argument is argPq already, as sqlc renames it, and this is for
// several, which sqlc keeps as pq in code that does not compile) and, in
// a fenced or bulk method or one that expands an IN (sqlc.slice(x))
// list, whose bodies use more names, reserved, batchLocals, sliceLocals
// and the packages the files import (a bulk method that is not fenced
// has sqlc's body, which refers to no package its file does not import:
// only those, importElems). Elsewhere a name that is a package's (uuid,
// time) is kept, as sqlc keeps it: the body does not refer to it. The
// querier's methods have no body: only the first escapes apply there.
func (e *emitter) escapeArg(q *analyze.Query, n string) string {
	switch {
	case token.IsKeyword(n), plainArgReserved(q.Cmd, n),
		n == "db" && e.opts.EmitMethodsWithDBArgument,
		n == "pq" && e.types.stdlib() && e.importElems(q)["pq"]:
	case e.inQuerier:
		return n
	case e.expandsInSlices(q) && sliceLocals[n], e.resultPackages(q)[n]:
	case q.Fence != nil || isBulk(q.Cmd) || e.expandsInSlices(q):
		pkg := e.importsPackage(n)
		if q.Fence == nil && isBulk(q.Cmd) && !e.expandsInSlices(q) {
			pkg = e.importElems(q)[n]
		}
		if !reserved[n] && !pkg && !(q.Cmd != ":copyfrom" && batchLocals[n]) {
			return n
		}
	default:
		return n
	}
	return n + "_"
}

// importsPackage reports whether n is the name of a package that the
// generated files may import: imported, an override's package, or with
// database/sql output stdlibImported.
func (e *emitter) importsPackage(n string) bool {
	if e.types.mysql() && postgresImported[n] {
		// MySQL output imports none of these (uuid only by an
		// override): sqlc's name stands (query Uuid's constant uuid).
		return e.overridePackages()[n]
	}
	return imported[n] || e.overridePackages()[n] || e.types.stdlib() && stdlibImported[n]
}

// postgresImported are the names of imported that only PostgreSQL's
// types bring in.
var postgresImported = map[string]bool{"pgtype": true, "pgx": true, "pgconn": true, "netip": true, "net": true, "uuid": true, "pq": true, "pqtype": true}

// overridePackages are the package names that overrides import, as
// newFile imports them.
func (e *emitter) overridePackages() map[string]bool {
	if e.overridePkgs == nil {
		e.overridePkgs = map[string]bool{}
		for _, o := range e.types.overrides {
			if o.goType.pkg != "" {
				e.overridePkgs[o.importName()] = true
			}
		}
	}
	return e.overridePkgs
}

// uniqueNames gives every field a distinct Go name, suffixing _2, _3
// to repeats as sqlc does.
func uniqueNames(names []string) []string {
	seen := map[string]int{}
	out := make([]string, len(names))
	for i, n := range names {
		seen[n]++
		if seen[n] > 1 {
			out[i] = fmt.Sprintf("%s_%d", n, seen[n])
		} else {
			out[i] = n
		}
	}
	return out
}

func (e *emitter) signature(q *analyze.Query) signature {
	var s signature
	s.params = []jen.Code{jen.Id("ctx").Qual("context", "Context")}
	if e.opts.EmitMethodsWithDBArgument {
		s.params = append(s.params, jen.Id("db").Id("DBTX"))
	}
	if isBulk(q.Cmd) {
		// :copyfrom and :batch* take one slice: a row of parameters per
		// element.
		switch {
		case e.useParamsStruct(q):
			s.rowArg, s.rowType = "arg", jen.Id(q.Name+"Params")
			if e.opts.EmitParamsStructPointers {
				s.rowType = jen.Op("*").Id(q.Name + "Params")
			}
		case len(q.Params) == 1:
			s.rowArg, s.rowType = e.argName(q, q.Params[0]), e.paramType(q.Params[0]).code()
		}
		if s.rowArg != "" {
			s.params = append(s.params, jen.Id(s.rowArg).Index().Add(s.rowType))
			s.argNames = append(s.argNames, s.rowArg)
		}
	} else if e.useParamsStruct(q) {
		typ := jen.Id(q.Name + "Params")
		if e.opts.EmitParamsStructPointers {
			typ = jen.Op("*").Id(q.Name + "Params")
		}
		s.params = append(s.params, jen.Id("arg").Add(typ))
		s.argNames = append(s.argNames, "arg")
		for i, n := range e.paramFields(q) {
			s.args = append(s.args, e.paramArg(jen.Id("arg").Dot(n), q.Params[i]))
		}
	} else {
		names := e.argNames(q)
		s.argNames = append(s.argNames, names...)
		for i, p := range q.Params {
			s.params = append(s.params, jen.Id(names[i]).Add(e.paramType(p).code()))
			s.args = append(s.args, e.paramArg(jen.Id(names[i]), p))
		}
	}
	if q.Fence != nil {
		s.argNames = append(s.argNames, "token")
		s.params = append(s.params, jen.Id("token").Qual(fencePkg, "Token"))
		s.args = append(s.args, jen.Int64().Call(jen.Id("token")))
	}
	// Results.
	hasEmbed := false
	for _, c := range q.Columns {
		hasEmbed = hasEmbed || c.Embed != nil
	}
	s.retName = "i"
	if len(q.Columns) == 1 && !hasEmbed {
		c := q.Columns[0]
		gt := e.resultType(c)
		s.result, s.scalar = gt.code(), true
		s.retName = e.scalarRetName(q, c.Name, s.argNames)
		s.cols = []resultField{{name: c.Name, typ: gt, column: c.Name}}
	} else if len(q.Columns) > 0 || returnsRows(q.Cmd) {
		// Several columns, or none at all (SELECT FROM t): a struct, as
		// sqlc (an empty one for no column).
		if t := e.matchModel(q); t != "" && !hasEmbed {
			s.resultName = t
			if returnsRows(q.Cmd) {
				e.useModel(q.Columns[0].Column.Table)
			}
		} else {
			s.resultName = q.Name + "Row"
		}
		var fields []resultField
		for i := 0; i < len(q.Columns); i++ {
			c := q.Columns[i]
			if c.Embed == nil {
				col, t, notNull := declared(e.types.pgTypes, c)
				f := resultField{name: e.names.structName(c.Name), typ: e.resultType(c), column: c.Name, col: col, notNull: notNull}
				if (c.Known || c.Sqlc != nil && !e.types.pgTypes) && !c.SqlcAny && (c.Sqlc == nil || !c.Sqlc.Any || e.types.pgTypes) {
					f.sqlType = &t
				}
				fields = append(fields, f)
				continue
			}
			model := e.models[c.Embed]
			f := resultField{name: model, typ: goType{name: model}, column: embedTagName(model)}
			if returnsRows(q.Cmd) {
				e.useModel(c.Embed)
			}
			for ; i < len(q.Columns) && q.Columns[i].Embed == c.Embed && q.Columns[i].EmbedName == c.EmbedName && q.Columns[i].EmbedTarget == c.EmbedTarget; i++ {
				ec := q.Columns[i]
				f.embed = append(f.embed, e.names.structName(ec.Name))
				f.embedTypes = append(f.embedTypes, e.types.goTypeOf(ec.Column, ec.Type, ec.NotNull))
			}
			i--
			fields = append(fields, f)
		}
		names := make([]string, len(fields))
		for i, f := range fields {
			names[i] = f.name
		}
		for i, n := range uniqueNames(names) {
			if n != fields[i].name {
				// As sqlc, a repeated field's tags name it as its Go
				// name does: id_2 for ID_2.
				fields[i].column += n[len(fields[i].name):]
			}
			fields[i].name = n
		}
		s.cols = fields
		s.result = jen.Id(s.resultName)
		if e.opts.EmitResultStructPointers {
			s.result = jen.Op("*").Id(s.resultName)
		}
	}
	switch q.Cmd {
	case ":one":
		s.results = []jen.Code{s.result, jen.Error()}
	case ":many":
		s.results = []jen.Code{jen.Index().Add(s.result), jen.Error()}
	case ":exec":
		s.results = []jen.Code{jen.Error()}
	case ":execrows", ":execlastid":
		s.results = []jen.Code{jen.Int64(), jen.Error()}
	case ":execresult":
		if e.types.stdlib() {
			s.results = []jen.Code{jen.Qual(sqlPkg, "Result"), jen.Error()}
		} else {
			s.results = []jen.Code{jen.Qual(e.types.pgconnPath(), "CommandTag"), jen.Error()}
		}
	case ":copyfrom":
		s.results = []jen.Code{jen.Int64(), jen.Error()}
	case ":batchexec", ":batchmany", ":batchone":
		s.results = []jen.Code{jen.Op("*").Id(q.Name + "BatchResults")}
	}
	return s
}

// scalarRetName is the variable that a one-column result is scanned
// into, as sqlc names it: the column's name ("$" made "_", a Go keyword
// or q suffixed with "_"), for :one suffixed with "_2" until it is no
// parameter's name (var uuid uuid.UUID, as sqlc). A name that would not
// compile in the method's body (a local such as err or rows, a package
// the body uses after the declaration: fmt with wrap_errors, pq, any in a
// fenced method; the fencing token) is i, as for a struct: sqlc's code
// would not compile there.
func (e *emitter) scalarRetName(q *analyze.Query, column string, args []string) string {
	name := strings.ReplaceAll(column, "$", "_")
	if name == "" {
		name = "column_1"
	}
	if token.IsKeyword(name) || name == "q" {
		name += "_"
	}
	if q.Cmd == ":one" {
		for slices.Contains(args, name) {
			name += "_2"
		}
	}
	// A fenced method declares it before it sends the constants.
	fencedConst := q.Fence != nil && (slices.Contains(args, name) || name == e.sqlConstName(q) || name == storedConstName(q))
	if !token.IsIdentifier(name) || usesLocal(q, name) || e.importsPackage(name) && (name == "fmt" || name == "pq" || q.Fence != nil) || usedAfterScan[name] || fencedConst {
		return "i"
	}
	return name
}

// usedAfterScan are the predeclared identifiers a method's body may use
// after the result's variable is declared.
var usedAfterScan = map[string]bool{"append": true, "nil": true, "true": true, "false": true, "len": true}

// methodLocals are the names that the generated methods' bodies declare
// or use besides their parameters.
var methodLocals = map[string]bool{
	"ctx": true, "q": true, "db": true, "row": true, "rows": true, "err": true, "items": true,
}

// bodyLocals are the names that some methods' bodies declare besides
// methodLocals: a batch's (b, t, f, found), an IN (sqlc.slice) list's
// (query, queryParams) and a fenced method's (all of them, and token).
// A plain method's result may take them, as in sqlc (var t
// interface{} for SELECT t FROM f() AS t).
var bodyLocals = map[string]bool{"query": true, "queryParams": true, "b": true, "t": true, "f": true, "found": true, "token": true}

// usesLocal reports whether q's method body may declare name.
func usesLocal(q *analyze.Query, name string) bool {
	if methodLocals[name] {
		return true
	}
	if !bodyLocals[name] {
		return false
	}
	switch name {
	case "query", "queryParams":
		return q.Fence != nil || len(q.InSlices) > 0
	}
	return q.Fence != nil || strings.HasPrefix(q.Cmd, ":batch")
}

// returnsRows reports whether a command hands result rows to the caller
// (and so needs a row type); :exec and friends discard a RETURNING list.
func returnsRows(cmd string) bool {
	switch cmd {
	case ":one", ":many", ":batchone", ":batchmany":
		return true
	}
	return false
}

// isBulk reports whether a command takes a slice of parameter rows.
// isBatch reports whether cmd is a :batch* command, whose methods sqlc
// declares in the batch file.
func isBatch(cmd string) bool {
	return isBulk(cmd) && cmd != ":copyfrom"
}

func isBulk(cmd string) bool {
	switch cmd {
	case ":copyfrom", ":batchexec", ":batchmany", ":batchone":
		return true
	}
	return false
}

// matchModel returns the model struct name when the result columns are
// one table's columns with the model's field names and types, in order:
// sqlc v1.31.1 (buildQueries) reuses a struct whose every field has the
// column's StructName (so a rename counts: name AS full_name is the
// model's field FullName under rename: {name: FullName}), the column's
// Go type, and the column's table.
func (e *emitter) matchModel(q *analyze.Query) string {
	if len(q.Columns) == 0 {
		return ""
	}
	table, _, _ := declared(e.types.pgTypes, q.Columns[0])
	if table == nil || table.Table == nil {
		return ""
	}
	t := table.Table
	if len(t.Columns) != len(q.Columns) {
		return ""
	}
	for i, c := range q.Columns {
		col, _, notNull := declared(e.types.pgTypes, c)
		mc := t.Columns[i]
		modelNotNull := mc.NotNull
		if mc.Sqlc != nil && !e.types.pgTypes {
			modelNotNull = mc.Sqlc.NotNull
		}
		if col == mc {
			if notNull != modelNotNull || e.names.structName(c.Name) != e.names.structName(mc.Name) {
				return ""
			}
			continue
		}
		// Another column of the same table read under the model field's
		// name (b AS a): sqlc compares names and Go types only.
		if col == nil || col.Table != t || e.names.structName(c.Name) != e.names.structName(mc.Name) ||
			!reflect.DeepEqual(e.resultType(c), e.types.modelType(mc)) {
			return ""
		}
	}
	return e.models[t]
}

// sqlConstName is the unexported constant that holds a query's SQL: the
// query name with a lower-case first letter, plus "Query" when that would be
// a Go keyword or shadow a predeclared identifier the generated code uses.
//
// With emit_exported_queries the constant is exported: the query's name
// with its first letter upper-cased (sqlc's strings.Title), so that query
// addExperience has constant AddExperience.
func (e *emitter) sqlConstName(q *analyze.Query) string {
	if e.opts.EmitExportedQueries {
		return titleWords(q.Name)
	}
	n := lowerFirst(q.Name)
	if e.declaredAfterUse(q, n) {
		return n // sqlc's name, which its method body compiles with
	}
	if token.IsKeyword(n) || predeclared[n] && !unusedPredeclared[n] || reserved[n] || e.importsPackage(n) || analyze.IsBatch(q.Cmd) && batchLocals[n] {
		n += "Query"
	}
	return n
}

// declaredAfterUse are the locals that the method of a query that is
// neither fenced nor a batch declares in the statement that uses the SQL
// constant, or after it (row := q.db.QueryRow(ctx, row, id); var i T): a
// short variable declaration's names are in scope only after it, so a
// constant of that name still means the constant there, and sqlc's name
// (query I's constant is i) compiles as sqlc writes it.
var declaredAfterUse = map[string]bool{"err": true, "rows": true, "row": true, "items": true, "i": true, "result": true}

// declaredAfterUse reports whether n, the name of q's SQL constant, is
// one of the declaredAfterUse locals where that holds for every function
// that uses the constant: q is neither fenced nor a batch, and, with
// emit_prepared_queries, n is not err, which Prepare declares before it
// prepares the statements (sqlc's code does not compile there).
func (e *emitter) declaredAfterUse(q *analyze.Query, n string) bool {
	if q.Fence != nil || analyze.IsBatch(q.Cmd) || !declaredAfterUse[n] {
		return false
	}
	return n != "err" || !e.opts.EmitPreparedQueries
}

// resultPackages are the names of the packages q's method's body
// refers to in declaring its result, a single column's type (var i
// time.Time, var items []uuid.UUID), by the names they are imported
// under.
func (e *emitter) resultPackages(q *analyze.Query) map[string]bool {
	if len(q.Columns) != 1 || q.Columns[0].Embed != nil {
		return nil
	}
	out := map[string]bool{}
	var walk func(t goType)
	walk = func(t goType) {
		if t.pkg != "" {
			out[e.qualifier(t.pkg)] = true
		}
		for _, a := range t.args {
			walk(a)
		}
	}
	walk(e.resultType(q.Columns[0]))
	return out
}

// qualifier is the name the generated files refer to the package at
// importPath by: an override's alias, or its package name.
func (e *emitter) qualifier(importPath string) string {
	for _, o := range e.types.overrides {
		if o.goType.pkg == importPath {
			return o.importName()
		}
	}
	return packageName(importPath)
}

// unusedPredeclared are the predeclared identifiers generated code never
// refers to: a query's SQL constant may take one of those names, as in
// sqlc (a query Any has constant any).
var unusedPredeclared = map[string]bool{
	"any": true, "cap": true, "clear": true, "close": true, "complex": true, "copy": true, "delete": true,
	"imag": true, "max": true, "min": true, "panic": true, "print": true, "println": true, "real": true,
	"recover": true, "iota": true, "comparable": true, "complex64": true, "complex128": true, "uintptr": true,
}

// sliceLocals are the names the expansion of IN (sqlc.slice(x)) lists
// uses (inSliceExpansion).
var sliceLocals = map[string]bool{"query": true, "queryParams": true, "placeholders": true, "k": true, "strings": true, "strconv": true, "len": true}

// predeclared are Go's predeclared identifiers (The Go Programming Language
// Specification, "Predeclared identifiers").
var predeclared = map[string]bool{
	"any": true, "bool": true, "byte": true, "comparable": true, "complex64": true, "complex128": true,
	"error": true, "float32": true, "float64": true, "int": true, "int8": true, "int16": true,
	"int32": true, "int64": true, "rune": true, "string": true, "uint": true, "uint8": true,
	"uint16": true, "uint32": true, "uint64": true, "uintptr": true, "true": true, "false": true,
	"iota": true, "nil": true, "append": true, "cap": true, "clear": true, "close": true,
	"complex": true, "copy": true, "delete": true, "imag": true, "len": true, "make": true,
	"max": true, "min": true, "new": true, "panic": true, "print": true, "println": true,
	"real": true, "recover": true,
}

// imported are the package names generated files may import.
var imported = map[string]bool{
	"fmt": true, "errors": true, "context": true, "pgtype": true, "pgx": true, "pgconn": true, "fence": true, "fenceimpl": true,
	"netip": true, "net": true, "driver": true, "json": true, "time": true, "uuid": true,
}

// stdlibImported are the further package names database/sql output may
// import.
var stdlibImported = map[string]bool{"sql": true, "pq": true, "pqtype": true}

func (e *emitter) sqlConst(f *jen.File, q *analyze.Query) {
	text, _ := sqlcText(q, e.types.mysql())
	sqlText(f, e.sqlConstName(q), "-- name: "+q.Name+" "+q.Cmd+"\n"+text+"\n")
}

// isFenceFlag reports whether comment text c (after "--") is an @fence
// annotation, which a fenced or opted-out method's doc states in words.
func isFenceFlag(c string) bool {
	c = strings.TrimSpace(c)
	return len(c) >= len("@fence") && strings.EqualFold(c[:len("@fence")], "@fence")
}

// sqlcText is q's statement text and comment lines as sqlc makes them of
// the text from the previous statement's semicolon to the statement's
// end (q.Lead and q.SQL), trimmed of surrounding space: every line that
// starts with "--" is a comment line (the text after the "--"), except
// "-- name:" lines, which are dropped (and "/* name: ... */"), and so is
// a one-line /* ... */
// (without its delimiters; not the /*+ optimizer hints); the other lines,
// blank ones included, are the text. @fence lines are left out, and the
// guard's first line stays in the text. A comment line inside the statement
// goes to the comments as well, which does not change what it means.
// sqlc also takes a line starting with # for a comment (the text after
// the "#"), as it is on MySQL (mysql set), where fencegen does too; in
// PostgreSQL # may be the XOR operator, and fencegen keeps the line in
// the text.
func sqlcText(q *analyze.Query, mysql bool) (string, []string) {
	var lines, comments []string
	for _, l := range strings.Split(strings.TrimSpace(q.Lead+q.SQL), "\n") {
		l = strings.TrimSuffix(l, "\r")
		switch {
		case strings.HasPrefix(l, "-- name:"), strings.HasPrefix(l, "/* name:") && strings.HasSuffix(l, "*/"),
			strings.HasPrefix(l, "# name:"): // MySQL's # comment (only the annotation: # is an operator in PostgreSQL)
		case strings.HasPrefix(l, guard.CommentPrefix):
			lines = append(lines, l) // a fenced write's guard says what it is in the text sent
		case strings.HasPrefix(l, "--") && isFenceFlag(strings.TrimPrefix(l, "--")):
			// fencegen's own annotation: the method's doc says it.
		case strings.HasPrefix(l, "--"):
			comments = append(comments, strings.TrimPrefix(l, "--"))
		case mysql && strings.HasPrefix(l, "#"):
			if isFenceFlag(strings.TrimPrefix(l, "#")) {
				continue
			}
			comments = append(comments, strings.TrimPrefix(l, "#"))
		case strings.HasPrefix(l, "/*") && strings.HasSuffix(l, "*/") && !strings.HasPrefix(l, "/*+") && len(l) >= 4:
			if isFenceFlag(strings.TrimSuffix(strings.TrimPrefix(l, "/*"), "*/")) {
				continue
			}
			comments = append(comments, strings.TrimSuffix(strings.TrimPrefix(l, "/*"), "*/"))
		default:
			lines = append(lines, l)
		}
	}
	return strings.Join(lines, "\n"), comments
}

// sqlText declares const name = text as a raw string literal, each
// backquote of the text written as sqlc escapes it: the literal closed,
// + "`" +, and opened again.
func sqlText(f *jen.File, name, text string) {
	f.Const().Id(name).Op("=").Id("`" + strings.ReplaceAll(text, "`", "` + \"`\" + `") + "`")
	f.Line()
}

// useParamsStruct reports whether a query's parameters travel in a
// <Name>Params struct rather than as separate arguments.
func (e *emitter) useParamsStruct(q *analyze.Query) bool {
	if isBulk(q.Cmd) && len(q.Params) > 1 {
		// One argument carries a slice of rows: several parameters must
		// travel together.
		return true
	}
	limit := e.paramLimit()
	// sqlc counts a MySQL named parameter once per placeholder (its
	// query.Params; columnsToStruct merges the fields afterwards), so a
	// name used twice travels in the struct, as one field.
	n := max(len(q.Params), len(q.Placeholders))
	return n > limit || (limit == 0 && n > 0)
}

// paramFields returns the Go names of the fields of q's <Name>Params
// struct, one per parameter in order: distinct, as uniqueNames makes them.
func (e *emitter) paramFields(q *analyze.Query) []string {
	names := make([]string, len(q.Params))
	for i, p := range q.Params {
		names[i] = e.names.structName(p.Name)
	}
	out := uniqueNames(names)
	// As sqlc (columnsToStruct, UniqueFields): a named parameter
	// (@name, sqlc.arg) whose name an earlier parameter of the same Go
	// type has is that field, passed for both.
	first := map[string]int{}
	for i, p := range q.Params {
		j, ok := first[names[i]]
		if !ok {
			first[names[i]] = i
		} else if p.Named && sameGoType(e.paramType(p), e.paramType(q.Params[j])) {
			out[i] = out[j]
		}
	}
	return out
}

// checkNamedParamTypes refuses, as sqlc v1.31.1 does, a MySQL query
// that uses a named parameter twice with different Go types (id =
// sqlc.arg(p) OR bio = sqlc.arg(p) on a BIGINT NOT NULL and a nullable
// TEXT column): sqlc sends each use as a field of its own, of one name,
// and fails with "named param P has incompatible types: <later>,
// <first>" (codegen/golang/result.go, checkIncompatibleFieldTypes). A
// use sqlc types interface{} takes the other's type there, and never
// conflicts. Each such query is an error at the parameter's first use.
func (e *emitter) checkNamedParamTypes(queries []*analyze.Query) error {
	var errs diag.List
	for _, q := range queries {
		for _, p := range q.Params {
			if len(p.Uses) == 0 {
				continue
			}
			first := e.paramType(p)
			if first.name == "interface{}" {
				continue
			}
			for _, u := range p.Uses {
				if t := e.paramType(u); t.name != "interface{}" && !sameGoType(t, first) {
					errs.Add(q.File, p.UseLine, p.UseCol, "query %s: named param %s has incompatible types: %s, %s (sqlc sends each use of a MySQL named parameter as a field of its own, and refuses the query): use one name per type, or cast the parameter", q.Name, e.names.structName(p.Name), sqlcTypeString(t), sqlcTypeString(first))
					break
				}
			}
		}
	}
	return errs.Err()
}

// sqlcTypeString is t as sqlc's messages print a Go type: its package's
// name, not its path (sql.NullString).
func sqlcTypeString(t goType) string {
	if t.pkg != "" {
		t.pkg = path.Base(t.pkg)
	}
	return t.String()
}

// sameGoType reports whether a and b are one Go type.
func sameGoType(a, b goType) bool {
	return a.pkg == b.pkg && a.name == b.name && a.pointer == b.pointer && a.inner == b.inner && a.slices == b.slices && slices.EqualFunc(a.args, b.args, sameGoType)
}

// structs emits a query's Params and Row structs, when it has them.
func (e *emitter) structs(f *jen.File, q *analyze.Query, sig signature) {
	if e.useParamsStruct(q) {
		var fields []jen.Code
		emitted := map[string]bool{}
		for i, n := range e.paramFields(q) {
			p := q.Params[i]
			if emitted[n] {
				continue // one field for both (paramFields)
			}
			emitted[n] = true
			tag := p.Name
			if p.SqlcName != "" {
				tag = p.SqlcName // -a for @a - 1, as sqlc
			}
			tag += n[len(e.names.structName(p.Name)):] // id_2 for ID_2, as sqlc
			fields = append(fields, jen.Id(n).Add(e.paramType(p).code()).Tag(e.tags(tag, p.Column, knownType(p), p.NotNull)))
		}
		f.Type().Id(q.Name + "Params").Add(structOf(fields))
		f.Line()
	}
	if sig.resultName == q.Name+"Row" && returnsRows(q.Cmd) {
		var fields []jen.Code
		for _, c := range sig.cols {
			fields = append(fields, jen.Id(c.name).Add(c.typ.code()).Tag(e.tags(c.column, c.col, c.sqlType, c.notNull)))
		}
		f.Type().Id(sig.resultName).Add(structOf(fields))
		f.Line()
	}
}

// docLines are the comment lines above a query's method, each the text
// after its "//", as sqlc writes them: the query's own comment lines, and
// with emit_sql_as_comment its name when it has none ("//Name", as sqlc),
// an empty line and the statement sent, indented.
func (e *emitter) docLines(q *analyze.Query) []string {
	text, doc := sqlcText(q, e.types.mysql())
	if !e.opts.EmitSQLAsComment {
		return doc
	}
	out := doc
	if len(out) == 0 {
		out = append(out, q.Name)
	}
	out = append(out, "")
	for _, l := range strings.Split(text, "\n") {
		out = append(out, "  "+strings.TrimRight(l, " \t\r"))
	}
	return out
}

func (e *emitter) doc(f *jen.File, q *analyze.Query) {
	doc := e.docLines(q)
	for _, d := range doc {
		f.Comment("//" + d)
	}
	if q.Fence != nil {
		if len(doc) > 0 {
			f.Comment("//")
		}
		for _, l := range strings.Split(fenceDoc(q, e.noRowsName()), "\n") {
			f.Comment(l)
		}
	}
	if q.OptOut != nil {
		if len(doc) > 0 {
			f.Comment("//")
		}
		var text string
		switch o := q.OptOut; {
		case o.Unknown && len(o.Named) == 0:
			text = fmt.Sprintf("%s may write any fenced table (fencegen cannot tell which) without the fencing guard and takes no token (@fence off: %s).",
				q.Name, o.Reason)
		case o.Unknown:
			text = fmt.Sprintf("%s writes fenced table %s, and may write any other (fencegen cannot tell which), without the fencing guard and takes no token (@fence off: %s).",
				q.Name, strings.Join(o.Named, ", "), o.Reason)
		default:
			text = fmt.Sprintf("%s writes fenced table %s without the fencing guard and takes no token (@fence off: %s).",
				q.Name, strings.Join(o.Named, ", "), o.Reason)
		}
		for _, l := range strings.Split(wrap(text, 76), "\n") {
			f.Comment(l)
		}
	}
}

func (e *emitter) dbExpr() *jen.Statement {
	if e.opts.EmitMethodsWithDBArgument {
		return jen.Id("db")
	}
	return jen.Id("q").Dot("db")
}

// storedConstName names the constant of a by-key fenced write's
// stored-token query.
func storedConstName(q *analyze.Query) string { return "fenceStored" + q.Name }

// constOnly emits what sqlc's pgx templates write for a query that has
// no method there (:execlastid, Skipped): its SQL constant and, when its
// parameters make one, its params struct.
func (e *emitter) constOnly(f *jen.File, q *analyze.Query) {
	e.sqlConst(f, q)
	e.structs(f, q, e.signature(q))
}

// query emits a :one, :many, :exec, :execrows or :execresult query.
func (e *emitter) query(f *jen.File, q *analyze.Query) {
	sig := e.signature(q)
	e.sqlConst(f, q)
	if q.Fence != nil && q.Fence.Form == guard.ByKey {
		sqlText(f, storedConstName(q), "-- name: "+q.Name+" "+q.Cmd+" (stored token, sent only when the write touched no row)\n"+q.Fence.StoredSQL+"\n")
	}
	g := mysqlGuarded(q)
	if g != nil {
		e.mysqlStoredConst(f, q, g)
	}
	e.structs(f, q, sig)
	e.doc(f, q)
	recv := jen.Id("q").Op("*").Id("Queries")
	body := e.tokenCheck(q, sig)
	if g != nil && g.Form != mysqlguard.Store && e.expandsInSlices(q) {
		// engine mysql: every copy of a list's marker in the guarded text.
		body = append(body, e.mysqlSliceExpansion(q, sig, g.Params, e.sqlConstName(q), "query", "queryParams")...)
	} else {
		body = append(body, e.inSliceExpansion(q, sig)...)
	}
	if g != nil {
		// engine mysql: the guarded statement's `?` in its own order.
		if guarded := mysqlArgs(sig, g.Params); g.Form == mysqlguard.Store {
			body = append(body, e.plainBody(q, guarded, e.dbExpr())...)
		} else {
			body = append(body, e.mysqlFencedBody(q, g, guarded, sig, e.dbExpr())...)
		}
	} else if q.Fence != nil && q.Fence.Form != guard.Store {
		body = append(body, e.fencedBody(q, sig, e.dbExpr())...)
	} else {
		body = append(body, e.plainBody(q, sig, e.dbExpr())...)
	}
	f.Func().Params(recv).Id(q.Name).Params(sig.params...).Params(sig.results...).Block(body...)
	f.Line()
}

func fenceDoc(q *analyze.Query, noRows string) string {
	col := q.Fence.Table.QualifiedName() + "." + q.Fence.Column
	rule := "refuses to touch rows whose stored fencing token is greater than token"
	if q.Fence.Strict {
		rule = "refuses to touch rows whose stored fencing token is not lower than token (strict: at most one write per row per lease)"
	}
	trips := "One round trip."
	if q.Fence.Form == guard.ByKey {
		trips = "One round trip when it writes; when it writes nothing, a second reads the stored token."
	}
	var text string
	if isBulk(q.Cmd) && q.Fence.Form == guard.InWith {
		noRow := ""
		if q.Cmd == ":batchone" {
			noRow = "; an item whose statement returns no row gets pgx.ErrNoRows"
		}
		text = fmt.Sprintf("%s is fenced on %s: in every item of the batch, its WITH entry %s %s, all or nothing, under the one token given for the whole batch. "+
			"Each item reports its own outcome to the callback, as the statement would alone: its own result (no rows is not an error: the main query decides what it means%s), "+
			"or a *fence.StaleError (errors.Is fence.ErrStaleToken) when the rows the entry matched hold a newer token; then nothing of that item is written.",
			q.Name, col, q.Fence.CTE, rule, noRow)
		return wrap(sweepDoc(q, text)+invalidTokenDoc, 76)
	}
	if isBulk(q.Cmd) && q.Fence.Form != guard.Store {
		verb := "writes"
		if q.Fence.Kind == "delete" {
			verb = "deletes"
		}
		text = fmt.Sprintf("%s is fenced on %s: every item of the batch %s, and %s under the one token given for the whole batch. "+
			"Each item reports its own outcome to the callback: nil, a *fence.StaleError (errors.Is fence.ErrStaleToken) when the rows it matched hold a newer token, "+
			"a *fence.NotFoundError (errors.Is fence.ErrNotFound) when it matched no row, or a *fence.ConcurrentChangeError (errors.Is fence.ErrConcurrentChange) "+
			"when concurrent transactions changed its rows (nothing written; a batch is not retried).", q.Name, col, rule, verb)
		return wrap(sweepDoc(q, text)+invalidTokenDoc, 76)
	}
	if q.Fence.Form == guard.InWith {
		noRow := ""
		if q.Cmd == ":one" {
			noRow = "; with no row it returns " + noRows + ", as any :one"
		}
		text = fmt.Sprintf("%s is fenced on %s: its WITH entry %s %s, all or nothing. "+
			"It returns the statement's own result (no rows is not an error: the main query decides what it means%s), "+
			"or a *fence.StaleError (errors.Is fence.ErrStaleToken) when the rows the entry matched hold a newer token; "+
			"then nothing is written, the main query's writes included. One round trip.", q.Name, col, q.Fence.CTE, rule, noRow)
		return wrap(sweepDoc(q, text)+invalidTokenDoc, 76)
	}
	if g := mysqlGuarded(q); g != nil {
		return wrap(sweepDoc(q, mysqlFenceDoc(q, g, col, rule))+invalidTokenDoc, 76)
	}
	switch {
	case q.Fence.Form == guard.Store:
		text = fmt.Sprintf("%s stores token in %s.", q.Name, col)
	case q.Fence.Form == guard.Upsert:
		text = fmt.Sprintf("%s stores token in %s. On a conflict, its DO UPDATE %s, and stores token. "+
			"It returns a *fence.StaleError (errors.Is fence.ErrStaleToken) when the existing row holds a newer token. One round trip.", q.Name, col, rule)
	case q.Fence.Form == guard.UpsertMany:
		text = fmt.Sprintf("%s stores token in %s. It inserts all its rows or none: the existing rows they conflict with are locked first, "+
			"and if any holds a token that token does not beat, nothing is written and it returns a *fence.StaleError (errors.Is fence.ErrStaleToken) "+
			"saying how many; otherwise each conflicting row is updated and stores token. One round trip.", q.Name, col)
	case q.Fence.Kind == "delete":
		text = fmt.Sprintf("%s is fenced on %s: it %s. "+
			"It returns a *fence.StaleError (errors.Is fence.ErrStaleToken) when the rows it matched hold a newer token, "+
			"and a *fence.NotFoundError (errors.Is fence.ErrNotFound) when it matched no row. %s", q.Name, col, rule, trips)
	default:
		text = fmt.Sprintf("%s is fenced on %s: it %s, and stores token in the rows it writes. "+
			"It returns a *fence.StaleError (errors.Is fence.ErrStaleToken) when the rows it matched hold a newer token, "+
			"and a *fence.NotFoundError (errors.Is fence.ErrNotFound) when it matched no row. %s", q.Name, col, rule, trips)
	}
	return wrap(sweepDoc(q, text)+invalidTokenDoc, 76)
}

// sweepDoc is text, the documentation of q's fenced write, said of a
// sweep (analyze.Fence.Sweep) when q is one: matching no row is no error.
func sweepDoc(q *analyze.Query, text string) string {
	if !q.Fence.Sweep {
		return text
	}
	for _, nf := range []string{", and a *fence.NotFoundError (errors.Is fence.ErrNotFound) when it matched no row.", ", a *fence.NotFoundError (errors.Is fence.ErrNotFound) when it matched no row,"} {
		text = strings.Replace(text, nf, map[bool]string{true: ".", false: ","}[strings.HasSuffix(nf, ".")], 1)
	}
	return text + " It is a sweep (@fence sweep): matching no row is not an error (0 rows written)."
}

// invalidTokenDoc ends the documentation of every method that takes a
// token (tokenCheck).
const invalidTokenDoc = " A token below 1, which no lease mints, is refused before anything is sent: a *fence.InvalidTokenError (errors.Is fence.ErrInvalidToken)."

// wrap breaks text into lines of at most width bytes at spaces.
func wrap(text string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(text) {
		if i > 0 {
			if n+1+len(w) > width {
				b.WriteByte('\n')
				n = 0
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}

func (e *emitter) callArgs(q *analyze.Query, sig signature) []jen.Code {
	if e.expandsInSlices(q) {
		return []jen.Code{jen.Id("ctx"), jen.Id("query"), jen.Id("queryParams").Op("...")}
	}
	prefix := []jen.Code{jen.Id("ctx"), jen.Id(e.sqlConstName(q))}
	if len(q.Placeholders) > 0 {
		// MySQL: a parameter is sent for each of its placeholders.
		var args []jen.Code
		for _, n := range q.Placeholders {
			if n-1 < len(sig.args) {
				args = append(args, sig.args[n-1])
			}
		}
		return sqlcList(prefix, args)
	}
	if q.Fence != nil && len(sig.args) > 0 && len(sig.args) <= 4 {
		// The fencing token follows sqlc's arguments on their line, so
		// that the call differs from sqlc's by the token alone.
		return append(prefix, sig.args...)
	}
	return sqlcList(prefix, sig.args)
}

// expandsInSlices reports whether q's method builds its SQL text when
// run: database/sql output of a query with IN (sqlc.slice(name)) lists.
func (e *emitter) expandsInSlices(q *analyze.Query) bool {
	return e.types.stdlib() && len(q.InSlices) > 0
}

// paramArg is the expression passed for parameter p whose Go value is
// expr: in pq.Array for a database/sql array (arrayArg), except for an
// IN (sqlc.slice) list, whose elements go one by one.
func (e *emitter) paramArg(expr *jen.Statement, p *analyze.Param) jen.Code {
	if p.InList && e.types.stdlib() {
		return expr
	}
	return e.arrayArg(expr, e.paramType(p))
}

// inSliceExpansion is the start of the method of a query with
// IN (sqlc.slice(name)) lists in database/sql output: it builds query, the
// SQL text, and queryParams, the parameters, that callArgs passes. As in
// sqlc's output the text holds analyze.SliceMarker(name) for each list;
// unlike sqlc's (which writes ?, a MySQL placeholder, and for PostgreSQL
// leaves $n, so that a list of other than one element fails when run),
// each marker becomes $n for the first element (n the parameter's
// number: every other parameter keeps its number) and $m, $m+1, ... for
// the others, numbered after all the statement's other parameters, the
// fencing token's included. An empty list sends NULL as $n, so that
// IN (...) matches nothing and NOT IN (...) is NULL, as sqlc's NULL.
func (e *emitter) inSliceExpansion(q *analyze.Query, sig signature) []jen.Code {
	if !e.expandsInSlices(q) {
		return nil
	}
	list := map[int]jen.Code{}
	for i, p := range q.Params {
		if p.InList && i < len(sig.args) {
			list[p.Number] = sig.args[i]
		}
	}
	appendParam := func(v jen.Code) jen.Code {
		return jen.Id("queryParams").Op("=").Append(jen.Id("queryParams"), v)
	}
	body := []jen.Code{
		jen.Id("query").Op(":=").Id(e.sqlConstName(q)),
		jen.Var().Id("queryParams").Index().Interface(),
	}
	if e.types.mysql() {
		return append(body, e.mysqlInSlices(q, sig, appendParam)...)
	}
	for i, a := range sig.args {
		if i >= len(q.Params) || !q.Params[i].InList {
			body = append(body, appendParam(a))
			continue
		}
		body = append(body, jen.If(jen.Len(jen.Add(a)).Op(">").Lit(0)).Block(
			appendParam(jen.Add(a).Index(jen.Lit(0))),
		).Else().Block(
			appendParam(jen.Nil()),
		))
	}
	seen := map[string]bool{}
	for _, s := range q.InSlices {
		if seen[s.Name] {
			continue // ReplaceAll below replaced every use
		}
		seen[s.Name] = true
		x := list[s.Number]
		body = append(body, jen.Block(
			jen.Id("placeholders").Op(":=").Lit(fmt.Sprintf("$%d", s.Number)),
			jen.For(jen.Id("k").Op(":=").Lit(1), jen.Id("k").Op("<").Len(jen.Add(x)), jen.Id("k").Op("++")).Block(
				appendParam(jen.Add(x).Index(jen.Id("k"))),
				jen.Id("placeholders").Op("+=").Lit(",$").Op("+").Qual("strconv", "Itoa").Call(jen.Len(jen.Id("queryParams"))),
			),
			jen.Id("query").Op("=").Qual("strings", "ReplaceAll").Call(jen.Id("query"), jen.Lit(analyze.SliceMarker(s.Name)), jen.Id("placeholders")),
		))
	}
	return body
}

// scanDests returns &i.Field for each result column (or &i for a
// scalar), each in pq.Array for a slice in database/sql output.
func (e *emitter) scanDests(sig signature) []jen.Code {
	if sig.scalar {
		return []jen.Code{e.arrayArg(jen.Op("&").Id(sig.retName), sig.cols[0].typ)}
	}
	var out []jen.Code
	for _, c := range sig.cols {
		if c.embed != nil {
			for k, sub := range c.embed {
				out = append(out, e.arrayArg(jen.Op("&").Id("i").Dot(c.name).Dot(sub), c.embedTypes[k]))
			}
			continue
		}
		out = append(out, e.arrayArg(jen.Op("&").Id("i").Dot(c.name), c.typ))
	}
	return out
}

// itemsDecl declares the items slice a :many or :batchmany result
// collects: nil, or empty with emit_empty_slices.
func (e *emitter) itemsDecl(sig signature) jen.Code {
	if e.opts.EmitEmptySlices {
		return jen.Id("items").Op(":=").Index().Add(sig.result).Values()
	}
	return jen.Var().Id("items").Index().Add(sig.result)
}

// fenceMode is the fence.Mode of q's guard: fence.Strict or
// fence.NonStrict.
func fenceMode(q *analyze.Query) jen.Code {
	if q.Fence.Strict {
		return jen.Qual(fencePkg, "Strict")
	}
	return jen.Qual(fencePkg, "NonStrict")
}

// newItem declares the variable a result row is scanned into, as sqlc
// does: var <retName> <type>, the struct itself with
// emit_result_struct_pointers (retValue passes its address).
func (e *emitter) newItem(sig signature) jen.Code {
	if e.opts.EmitResultStructPointers && !sig.scalar {
		return jen.Var().Id(sig.retName).Id(sig.resultName)
	}
	return jen.Var().Id(sig.retName).Add(sig.result)
}

// retValue is the scanned row as the method returns it: its variable, or
// its address with emit_result_struct_pointers.
func (e *emitter) retValue(sig signature) *jen.Statement {
	if e.opts.EmitResultStructPointers && !sig.scalar {
		return jen.Op("&").Id(sig.retName)
	}
	return jen.Id(sig.retName)
}

// retZero is a :batchone's result for an item read after Close, as sqlc
// passes it: nil with emit_result_struct_pointers, else the variable.
func (e *emitter) retZero(sig signature) *jen.Statement {
	if e.opts.EmitResultStructPointers && !sig.scalar {
		return jen.Nil()
	}
	return jen.Id(sig.retName)
}

// triggerTables are the fenced tables q writes, when it is generated in a
// form that no guarded reader of package fenceimpl reads (those map the
// database-side guard's SQLSTATE themselves): an opted-out query, a fenced
// INSERT, a :copyfrom, a batch of them. Nil when q writes no fenced table.
func triggerTables(q *analyze.Query) []string {
	var tables []string
	if q.OptOut != nil {
		tables = append(tables, q.OptOut.Tables...)
	}
	if q.Fence != nil && !slices.Contains(tables, q.Fence.Table.QualifiedName()) {
		tables = append(tables, q.Fence.Table.QualifiedName())
	}
	return tables
}

// triggerErr returns a function that wraps an error expression of q's
// generated code in fenceimpl.TriggerError, which reports the database-side
// guard's SQLSTATE (fenceimpl.SQLState) as a *fence.StaleError, when q writes
// a fenced table; otherwise the expression is left as it is.
func triggerErr(q *analyze.Query) func(err jen.Code) jen.Code {
	tables := triggerTables(q)
	if len(tables) == 0 {
		return func(err jen.Code) jen.Code { return err }
	}
	return func(err jen.Code) jen.Code {
		args := []jen.Code{jen.Lit(q.Name), err}
		for _, t := range tables {
			args = append(args, jen.Lit(t))
		}
		return jen.Qual(fenceImplPkg, "TriggerError").Call(args...)
	}
}

func (e *emitter) plainBody(q *analyze.Query, sig signature, db *jen.Statement) []jen.Code {
	call := e.callArgs(q, sig)
	trigger := triggerErr(q)
	// wrapOnly is a non-nil error as returned: with wrap_errors in
	// fmt.Errorf("query <Name>: %w"), as sqlc does; alone for a Scan
	// error, which the guard never raises. wrap maps it by triggerErr too.
	// wrapIfErr wraps err in place when it is not nil.
	wrapOnly := func(err jen.Code) jen.Code {
		if e.opts.WrapErrors {
			return jen.Qual("fmt", "Errorf").Call(jen.Lit("query "+q.Name+": %w"), err)
		}
		return err
	}
	wrap := func(err jen.Code) jen.Code { return trigger(wrapOnly(err)) }
	wrapIfErr := jen.Null()
	if e.opts.WrapErrors {
		wrapIfErr = jen.If(jen.Err().Op("!=").Nil()).Block(jen.Err().Op("=").Add(wrapOnly(jen.Err())))
	}
	exec := func() *jen.Statement { return e.call(db, "Exec", q, true, call) }
	switch q.Cmd {
	case ":exec":
		if e.opts.WrapErrors && !e.types.stdlib() {
			// sqlc's pgx template returns the wrapped error, then nil.
			return []jen.Code{
				jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(exec()),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(wrap(jen.Err()))),
				jen.Return(jen.Nil()),
			}
		}
		return []jen.Code{
			jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(exec()),
			wrapIfErr,
			jen.Return(trigger(jen.Err())),
		}
	case ":execlastid":
		// database/sql only (see Skipped), as sqlc writes it; PostgreSQL's
		// drivers return an error from LastInsertId.
		return []jen.Code{
			jen.List(jen.Id("result"), jen.Err()).Op(":=").Add(exec()),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Lit(0), wrap(jen.Err()))),
			jen.Return(jen.Id("result").Dot("LastInsertId").Call()),
		}
	case ":execrows":
		if e.types.stdlib() {
			// database/sql's RowsAffected returns its own error.
			return []jen.Code{
				jen.List(jen.Id("result"), jen.Err()).Op(":=").Add(exec()),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Lit(0), wrap(jen.Err()))),
				jen.Return(jen.Id("result").Dot("RowsAffected").Call()),
			}
		}
		return []jen.Code{
			jen.List(jen.Id("result"), jen.Err()).Op(":=").Add(exec()),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Lit(0), wrap(jen.Err()))),
			jen.Return(jen.Id("result").Dot("RowsAffected").Call(), jen.Nil()),
		}
	case ":execresult":
		if len(triggerTables(q)) == 0 && !e.opts.WrapErrors {
			return []jen.Code{jen.Return(exec())}
		}
		return []jen.Code{
			jen.List(jen.Id("result"), jen.Err()).Op(":=").Add(exec()),
			wrapIfErr,
			jen.Return(jen.Id("result"), trigger(jen.Err())),
		}
	case ":one":
		return []jen.Code{
			jen.Id("row").Op(":=").Add(e.call(db, "QueryRow", q, true, call)),
			e.newItem(sig),
			jen.Err().Op(":=").Id("row").Dot("Scan").Call(sqlcList(nil, e.scanDests(sig))...),
			wrapIfErr,
			jen.Return(e.retValue(sig), trigger(jen.Err())),
		}
	case ":many":
		body := []jen.Code{
			jen.List(jen.Id("rows"), jen.Err()).Op(":=").Add(e.call(db, "Query", q, true, call)),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), wrap(jen.Err()))),
			jen.Defer().Id("rows").Dot("Close").Call(),
			e.itemsDecl(sig),
			jen.For(jen.Id("rows").Dot("Next").Call()).Block(
				e.newItem(sig),
				jen.If(jen.Err().Op(":=").Id("rows").Dot("Scan").Call(sqlcList(nil, e.scanDests(sig))...), jen.Err().Op("!=").Nil()).Block(
					jen.Return(jen.Nil(), wrapOnly(jen.Err())),
				),
				jen.Id("items").Op("=").Append(jen.Id("items"), e.retValue(sig)),
			),
		}
		if e.types.stdlib() {
			// database/sql reports some errors only from Close.
			body = append(body, jen.If(jen.Err().Op(":=").Id("rows").Dot("Close").Call(), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), wrap(jen.Err())),
			))
		}
		return append(body,
			jen.If(jen.Err().Op(":=").Id("rows").Dot("Err").Call(), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), wrap(jen.Err())),
			),
			jen.Return(jen.Id("items"), jen.Nil()),
		)
	}
	return []jen.Code{jen.Panic(jen.Lit("fencegen: unsupported command " + q.Cmd))}
}

// fencedBody runs the guarded statement built by package guard through
// the runtime reader of its form (guard.Form.Reader: fenceimpl.Write and
// its kin), which tells apart rows written, rows refused (stale token) and
// no row matched; see package fenceimpl.
func (e *emitter) fencedBody(q *analyze.Query, sig signature, db *jen.Statement) []jen.Code {
	mode := fenceMode(q)
	run := jen.Func().Params().Params(jen.Qual(fenceImplPkg, "Rows"), jen.Error()).Block(
		jen.Return(e.rows(e.call(db, "Query", q, true, e.callArgs(q, sig)))),
	)
	// The reader and the leading guard columns of each row are the form's
	// (guard.Form.Reader, guard.Form.Leading).
	writeFunc := q.Fence.Form.Reader()
	write := func(scan jen.Code) *jen.Statement {
		return jen.Qual(fenceImplPkg, writeFunc).Call(
			jen.Lit(q.Name), jen.Lit(q.Fence.Table.QualifiedName()), mode, jen.Id("token"),
			jen.Lit(len(q.Columns)), run, scan,
		)
	}
	var prefix []jen.Code
	for range q.Fence.Form.Leading() {
		prefix = append(prefix, jen.Nil())
	}
	if q.Fence.Form == guard.ByKey {
		var args []jen.Code
		for _, n := range q.Fence.StoredParams {
			switch {
			case n == q.Fence.TokenParam:
				args = append(args, jen.Int64().Call(jen.Id("token")))
			case n-1 < len(sig.args):
				args = append(args, sig.args[n-1])
			}
		}
		stored := jen.Func().Params(jen.Id("ctx").Qual("context", "Context")).Params(jen.Qual(fenceImplPkg, "Rows"), jen.Error()).Block(
			jen.Return(e.rows(e.call(db, "Query", q, false, append([]jen.Code{jen.Id("ctx"), jen.Id(storedConstName(q))}, args...)))),
		)
		write = func(scan jen.Code) *jen.Statement {
			return jen.Qual(fenceImplPkg, writeFunc).Call(
				jen.Id("ctx"), jen.Lit(q.Name), jen.Lit(q.Fence.Table.QualifiedName()), mode, jen.Id("token"),
				run, scan, stored,
			)
		}
	}
	if q.Fence.Sweep {
		// A sweep: no row matched is 0 rows, not an error.
		read := write
		write = func(scan jen.Code) *jen.Statement { return jen.Qual(fenceImplPkg, "Swept").Call(read(scan)) }
	}
	dests := append(prefix, e.scanDests(sig)...)
	switch q.Cmd {
	case ":one":
		return []jen.Code{
			e.newItem(sig),
			jen.Id("found").Op(":=").False(),
			jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(write(scanFirst(dests, len(e.scanDests(sig))))),
			e.cteNoRow(q),
			jen.Return(e.retValue(sig), jen.Err()),
		}
	case ":many":
		return []jen.Code{
			e.itemsDecl(sig),
			jen.If(jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(write(e.scanAppend(sig, dests, len(e.scanDests(sig))))), jen.Err().Op("!=").Nil()).Block(
				jen.Return(jen.Nil(), jen.Err()),
			),
			jen.Return(jen.Id("items"), jen.Nil()),
		}
	case ":execrows":
		return []jen.Code{jen.Return(write(jen.Nil()))}
	case ":execresult":
		// The statement sent is the guarded form, whose own command tag
		// would say SELECT: the tag says what the write did, as
		// PostgreSQL's would for the statement as written.
		if e.types.stdlib() {
			// The rows the write touched, as the statement as written
			// would report them through database/sql.
			return []jen.Code{
				jen.List(jen.Id("n"), jen.Err()).Op(":=").Add(write(jen.Nil())),
				jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Nil(), jen.Err())),
				jen.Return(jen.Qual(fenceImplPkg, "Result").Call(jen.Id("n")), jen.Nil()),
			}
		}
		verb := map[string]string{"update": "UPDATE %d", "delete": "DELETE %d", "upsert": "INSERT 0 %d"}[q.Fence.Kind]
		tag := jen.Qual(e.types.pgconnPath(), "NewCommandTag")
		if e.types.pgxV4() {
			// pgx/v4's pgconn.CommandTag is the tag's bytes.
			tag = jen.Qual(e.types.pgconnPath(), "CommandTag")
		}
		return []jen.Code{
			jen.List(jen.Id("n"), jen.Err()).Op(":=").Add(write(jen.Nil())),
			jen.If(jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Qual(e.types.pgconnPath(), "CommandTag").Values(), jen.Err())),
			jen.Return(tag.Call(jen.Qual("fmt", "Sprintf").Call(jen.Lit(verb), jen.Id("n"))), jen.Nil()),
		}
	}
	return []jen.Code{
		jen.List(jen.Id("_"), jen.Err()).Op(":=").Add(write(jen.Nil())),
		jen.Return(jen.Err()),
	}
}

// scanFirst is the scan callback of a fenced :one or :batchone: the first
// row's columns go to dests and set found; later rows are ignored. n is
// the number of sqlc's destinations among dests (sqlcListOf).
func scanFirst(dests []jen.Code, n int) jen.Code {
	return jen.Func().Params(jen.Id("rows").Qual(fenceImplPkg, "Rows")).Error().Block(
		jen.If(jen.Id("found")).Block(jen.Return(jen.Nil())),
		jen.Id("found").Op("=").True(),
		jen.Return(jen.Id("rows").Dot("Scan").Call(sqlcListOf(nil, dests, n)...)),
	)
}

// scanAppend is the scan callback of a fenced :many or :batchmany: each
// row's columns go to dests, the fields of a new item appended to items.
func (e *emitter) scanAppend(sig signature, dests []jen.Code, n int) jen.Code {
	return jen.Func().Params(jen.Id("rows").Qual(fenceImplPkg, "Rows")).Error().Block(
		e.newItem(sig),
		jen.If(jen.Err().Op(":=").Id("rows").Dot("Scan").Call(sqlcListOf(nil, dests, n)...), jen.Err().Op("!=").Nil()).Block(jen.Return(jen.Err())),
		jen.Id("items").Op("=").Append(jen.Id("items"), e.retValue(sig)),
		jen.Return(jen.Nil()),
	)
}

// cteNoRow makes a :one (or a :batchone item) whose fenced write sits in
// WITH report a statement that returned no row as any :one does, with
// pgx.ErrNoRows: fenceimpl.WriteInCTE accepts no rows, since the write may have
// written rows that the main query filtered out, so it is not a
// *fence.NotFoundError.
func (e *emitter) cteNoRow(q *analyze.Query) jen.Code {
	if q.Fence.Form != guard.InWith {
		// A fenced :one that matched no row: a *fence.NotFoundError that
		// is also pgx.ErrNoRows, which is what sqlc's :one returns, so
		// that code written against sqlc keeps working.
		return jen.If(jen.Qual("errors", "Is").Call(jen.Err(), jen.Qual(fencePkg, "ErrNotFound"))).Block(
			jen.Err().Op("=").Qual("fmt", "Errorf").Call(jen.Lit("%w (%w)"), jen.Err(), e.errNoRows()),
		)
	}
	return jen.If(jen.Err().Op("==").Nil().Op("&&").Op("!").Id("found")).Block(
		jen.Err().Op("=").Add(e.errNoRows()),
	)
}

// errNoRows is the driver's no-rows error: pgx.ErrNoRows, or
// sql.ErrNoRows for database/sql.
func (e *emitter) errNoRows() *jen.Statement {
	if e.types.stdlib() {
		return jen.Qual(sqlPkg, "ErrNoRows")
	}
	return jen.Qual(e.types.pgxPath(), "ErrNoRows")
}

// noRowsName is errNoRows as the documentation names it.
func (e *emitter) noRowsName() string {
	if e.types.stdlib() {
		return "sql.ErrNoRows"
	}
	return "pgx.ErrNoRows"
}

// rows is a query call's (rows, error) as package fenceimpl reads them:
// pgx.Rows as they are, *sql.Rows through fenceimpl.SQLRows.
func (e *emitter) rows(call *jen.Statement) jen.Code {
	if e.types.stdlib() {
		return jen.Qual(fenceImplPkg, "SQLRows").Call(call)
	}
	return call
}

// ParamGoType returns, for the Go options opts of a package over cat, a
// function that gives the Go type the generated method declares a
// parameter with (goType's String: "int64", "database/sql.NullString")
// when sqlc's overrides make it differ from the default mapping, and ""
// when they do not (analyze.Options.ParamGoType). It is safe for
// concurrent use.
func ParamGoType(cat *catalog.Catalog, opts config.GoOptions) func(p *analyze.Param) string {
	mapper := func(opts config.GoOptions) *emitter {
		in := Input{Catalog: cat, Options: opts}
		e := &emitter{in: in, opts: opts, names: namerFor(opts)}
		e.types = newTypeMapper(in, e.names, opts.Types())
		return e
	}
	over := mapper(opts)
	plain := opts
	plain.Overrides = nil
	def := mapper(plain)
	return func(p *analyze.Param) string {
		g := over.paramType(p).String()
		if g == def.paramType(p).String() {
			return ""
		}
		return g
	}
}
