package analyze

// sqlc's interface{} answers. sqlc v1.31.1 without a database types a
// result column from the syntax of its expression
// (internal/compiler/output_columns.go), and says interface{} (DataType
// "any", or a type name its Go mapping does not list) where that syntax
// does not give a type. interface{} scans any value, so where sqlc answers
// it, fencegen declares the column interface{} too (Column.SqlcAny) and
// keeps sqlc's API;
// where sqlc answers a concrete type that PostgreSQL does not return
// (abs(-17.4) as int64), fencegen keeps PostgreSQL's type (docs/sqlc.md).

import (
	"sort"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/catalog/pgcatalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// sqlcAnyTarget reports whether sqlc answers interface{} for the result
// column of select-list (or RETURNING) expression e, whose value is v.
// sqlc types a column reference, a cast, a constant other than NULL, AND,
// OR and NOT, a comparison or arithmetic operator, EXISTS and a scalar
// subquery, and by their own rules COALESCE, CASE and function calls;
// anything else is interface{} for it: x || y, j->>'k', LIKE, BETWEEN,
// IS NULL, IS TRUE, ARRAY[...], ARRAY(SELECT ...), x = ANY (SELECT ...),
// GREATEST, a[1], CURRENT_DATE, COLLATE, a bare parameter.
func (a *analyzer) sqlcAnyTarget(e sqlparse.Node, v value) bool {
	if sqlparse.IsSqlcTODO(e) {
		return true // sqlc's MySQL ast.TODO
	}
	switch n := e.(type) {
	case *sqlparse.ColumnRef, *sqlparse.Coalesce, *sqlparse.FuncCall, *sqlparse.Case:
		return v.sqlcAny
	case *sqlparse.SubLink:
		switch n.Kind {
		case "EXISTS":
			return false
		case "ANY", "ALL", "ARRAY":
			return true
		}
		// A scalar subquery is its first column, as sqlc types it.
		return v.sqlcAny
	case *sqlparse.TypeCast, *sqlparse.BoolExpr:
		return false
	case *sqlparse.NullTest:
		// sqlc's MySQL parser converts x IS [NOT] NULL to a BoolExpr,
		// which sqlc types bool NOT NULL (output_columns.go); its
		// PostgreSQL NullTest is interface{}.
		return !a.opts.MySQL
	case *sqlparse.Const:
		return sqlcAnyCase(n) // typed as a constant ELSE is
	case *sqlparse.AExpr:
		// sqlc's operator lists (internal/sql/lang/operator.go): a
		// comparison is bool, arithmetic int, any other operator (and
		// LIKE, BETWEEN, which it names after themselves) interface{}.
		return !sqlcComparisonOps[n.SqlcName()] && !sqlcMathOps[n.SqlcName()]
	}
	return true
}

var sqlcComparisonOps = map[string]bool{">": true, "<": true, "<=": true, ">=": true, "=": true, "<>": true, "!=": true}

var sqlcMathOps = map[string]bool{
	"+": true, "-": true, "*": true, "/": true, "%": true, "^": true, "|/": true, "||/": true, "!": true,
	"!!": true, "@": true, "&": true, "|": true, "#": true, "~": true, "<<": true, ">>": true,
}

// sqlcAnyCoalesce reports whether sqlc answers interface{} for
// COALESCE(args): it types COALESCE from the first argument that is a
// column reference, and answers interface{} without one
// (coalesce(sum(x), 0)). vals are the arguments' values.
func sqlcAnyCoalesce(args []sqlparse.Node, vals []value) bool {
	for i, x := range args {
		if cr, ok := x.(*sqlparse.ColumnRef); ok && cr.Fields[len(cr.Fields)-1] != "*" {
			return vals[i].sqlcAny
		}
	}
	return true
}

// sqlcAnyCase reports whether sqlc answers interface{} for a CASE with
// ELSE els: sqlc types CASE from its ELSE only, when that is a cast or a
// string, integer, float or boolean constant.
func sqlcAnyCase(els sqlparse.Node) bool {
	switch n := els.(type) {
	case *sqlparse.TypeCast:
		return false
	case *sqlparse.Const:
		switch n.Kind {
		case "int", "float", "string", "bool":
			return false
		}
	}
	return true
}

// sqlcAnyCall reports whether sqlc answers interface{} for a call of f as
// a result column. sqlc takes the first function of its pg_catalog, then
// of the schema, whose input arguments take the call's number of
// arguments (catalog.ResolveFuncCall), whatever their types, and answers
// interface{} when there is none, or when that function's return type is
// one its Go mapping does not list (sqlcFunc.code): max(x) and min(x) find
// max(anyarray), percentile_disc(0.5) WITHIN GROUP (...) percentile_disc
// (double precision[]) returning anyarray, now() timestamp with time zone,
// a spelling the mapping does not have.
func (a *analyzer) sqlcAnyCall(f *sqlparse.FuncCall) bool {
	name := strings.ToLower(f.Func.Name)
	n := len(f.Args)
	if fn := sqlcFuncOf(name); fn != nil {
		switch sqlcFuncAt(fn.code, n) {
		case 't':
			return false
		case 'a':
			return true
		}
	}
	for _, fn := range a.cat.Funcs(f.Func.Schema, f.Func.Name) {
		if len(fn.ArgTypes) < n {
			continue
		}
		if fn.ReturnType == nil {
			// RETURNS TABLE or SETOF a table: sqlc's return type is
			// record or the table's name, neither of which it maps.
			return true
		}
		return sqlcUnmappedUser(*fn.ReturnType)
	}
	for _, fn := range pgcatalog.Funcs(name) {
		if fn.Extension != "" {
			// An extension's function, which sqlc has after CREATE
			// EXTENSION: fencegen's type stands.
			return false
		}
	}
	// A built-in sqlc's pg_catalog does not have (a newer server's), or a
	// function nobody declares: sqlc answers interface{}.
	return true
}

// sqlcResolvesCall reports whether sqlc v1.31.1's ResolveFuncCall
// finds the function f calls: one of its pg_catalog's taking as many
// arguments, the schema's own, or an extension's. A call it resolves is
// NOT NULL as a result column (output_columns.go), one it does not
// (concat, whose VARIADIC "any" its pg_catalog lacks) nullable.
func (a *analyzer) sqlcResolvesCall(f *sqlparse.FuncCall) bool {
	name := strings.ToLower(f.Func.Name)
	n := len(f.Args)
	if fn := sqlcFuncOf(name); fn != nil {
		switch sqlcFuncAt(fn.code, n) {
		case 't', 'a':
			return true
		}
	}
	for _, fn := range a.cat.Funcs(f.Func.Schema, f.Func.Name) {
		if len(fn.ArgTypes) >= n {
			return true
		}
	}
	for _, fn := range pgcatalog.Funcs(name) {
		if fn.Extension != "" {
			return true
		}
	}
	return false
}

// sqlcFunc is what sqlc v1.31.1 answers for calls of one function of its
// pg_catalog (internal/engine/postgresql/pg_catalog.go), from
// sqlcfuncs_gen.go; sqlcFuncTable holds them.
type sqlcFunc struct {
	// name is the function's name in lower case.
	name string
	// code is sqlc's Go type for a call with n arguments: character n is
	// 't' when the first overload that takes n arguments (sqlc's
	// ResolveFuncCall) returns a type sqlc's postgresType
	// (internal/codegen/golang/postgresql_type.go) maps, 'a' when it
	// returns one sqlc answers interface{} for (polymorphic, arrays,
	// record, ...), '.' when none takes n; a final '+' repeats the
	// character before it for every larger n.
	code string
	// types is, when code has a 't', the return type sqlc declares for a
	// call with n arguments (element n, the type name as sqlc's
	// pg_catalog spells it; "" where code's character is not 't'); a
	// final "+" repeats the element before it for every larger n.
	types []string
	// params is how sqlc types a parameter passed as argument i of a call
	// with n arguments: element n of the "|"-separated list ("" where no
	// overload takes n) holds one ","-separated type per argument, the
	// first overload's declared type (Args[i], as sqlc's
	// resolveCatalogRefs reads it) where sqlc's postgresType maps it, "?"
	// where sqlc answers interface{}. A list of sqlcFuncMaxArgs+1
	// elements is a variadic function's: its last one is repeated.
	params string
	// from is, when the function's first overload in pg_catalog.go's
	// order returns a type sqlc's postgresType maps, that type's name:
	// sqlc's one column of the function in FROM (its sourceTables takes
	// the first function of the name, whatever its arguments); "" is
	// interface{} there.
	from string
}

// sqlcFuncOf is the entry of sqlcFuncTable for the lower-case name, nil
// when sqlc's pg_catalog has no function of that name (a binary search:
// the table is sorted by name).
func sqlcFuncOf(name string) *sqlcFunc {
	i := sort.Search(len(sqlcFuncTable), func(i int) bool { return sqlcFuncTable[i].name >= name })
	if i < len(sqlcFuncTable) && sqlcFuncTable[i].name == name {
		return &sqlcFuncTable[i]
	}
	return nil
}

// sqlcFuncAt is the character of a sqlcFunc code for n arguments.
func sqlcFuncAt(code string, n int) byte {
	if strings.HasSuffix(code, "+") {
		body := code[:len(code)-1]
		if n >= len(body)-1 {
			return body[len(body)-1]
		}
		return body[n]
	}
	if n < len(code) {
		return code[n]
	}
	return '.'
}

// sqlcUnmappedUser reports whether sqlc answers interface{} for a
// user-defined function declared to return t: a polymorphic type or
// record (sqlc's Go mapping lists neither).
func sqlcUnmappedUser(t catalog.Type) bool {
	name := strings.TrimPrefix(t.Name, "pg_catalog.")
	return name == "record" || strings.HasPrefix(name, "any")
}

// SqlcType is how sqlc v1.31.1, analysing without a database, types a
// result column where that is not how PostgreSQL types it
// (Column.Type and Column.NotNull): sqlc types a result column from the
// syntax of its select-list expression (internal/compiler/
// output_columns.go), so sum(bigint) is int64 (the first one-argument
// sum of its pg_catalog returns bigint), x + 1 is int (int4), NULLIF(a,
// b) bool, every function call and scalar subquery of a NOT NULL column
// NOT NULL. The emitter declares this type unless the configuration sets
// postgresql_types; the guard and the SQL sent never use it.
type SqlcType struct {
	Type    catalog.Type
	NotNull bool
	// Any is set where sqlc declares interface{} and PostgreSQL's type
	// is declared with postgresql_types (a view's upper(name) column).
	Any bool
	// Column is the table column sqlc takes the type from (its column
	// overrides apply), or a Column without Table carrying sqlc's
	// spelling of the type for db_type overrides (see spelled); nil when
	// sqlc has neither.
	Column *catalog.Column
	// CTE is set when Column is a WITH entry's column as sqlc's column
	// overrides match it (a Table named after the entry, in no schema),
	// not a catalog column: the emitter matches column overrides with it
	// under postgresql_types too.
	CTE bool
	// Slice is set for a parameter sqlc reads as a sqlc.slice (its
	// IsSqlcSlice): Type, NotNull and Column are those of one element,
	// and the Go type a slice of the element's (sqlc's goType: []
	// before the column's override, or before sql.NullInt16 for a
	// nullable column's elements, []interface{} where Any).
	Slice bool
}

// sqlcTyping returns SqlcType for t, notNull and col, or nil when v
// types the value the same way (same type, nullability and column).
func sqlcTyping(v value, t catalog.Type, notNull bool, col *catalog.Column) *SqlcType {
	own := spelled(v.Column, v.Type, v.NotNull, v.DBType)
	if v.Known && v.Type == t && v.NotNull == notNull && (col == own || col != nil && own != nil && col.Table == nil && own.Table == nil && col.DBType == own.DBType) {
		return nil
	}
	return &SqlcType{Type: t, NotNull: notNull, Column: col}
}

// sqlcOf is sqlc's typing of v as a result column: v.sqlc, or v itself.
func sqlcOf(v value) SqlcType {
	if v.sqlc != nil {
		return *v.sqlc
	}
	return SqlcType{Type: v.Type, NotNull: v.NotNull, Column: spelled(v.Column, v.Type, v.NotNull, v.DBType)}
}

// sqlcNamed is the type sqlc's pg_catalog names name ("bigint",
// "double precision", "integer").
func (a *analyzer) sqlcNamed(name string) (catalog.Type, bool) {
	t, ok := a.cat.ResolveType(&sqlparse.TypeName{Name: name})
	return t, ok
}

// sqlcFuncType is sqlc's return type for a call of the built-in name
// with n arguments (sqlcFunc.types), "" when it has none that it maps.
func sqlcFuncType(name string, n int) string {
	var r []string
	if fn := sqlcFuncOf(name); fn != nil {
		r = fn.types
	}
	if len(r) > 0 && r[len(r)-1] == "+" {
		body := r[:len(r)-1]
		if n >= len(body)-1 {
			return body[len(body)-1]
		}
		return body[n]
	}
	if n < len(r) {
		return r[n]
	}
	return ""
}

// sqlcCall is sqlc's typing of a call of f as a result column, whose
// value (PostgreSQL's typing) is v: the return type of the first
// overload of its pg_catalog that takes the call's number of arguments,
// NOT NULL (sqlc's ResolveFuncCall; no PostgreSQL function of its
// catalog has ReturnTypeNullable). A function of the schema is typed by
// its declaration, as fencegen types it, and NOT NULL likewise.
func (a *analyzer) sqlcCall(f *sqlparse.FuncCall, v value) *SqlcType {
	name := strings.ToLower(f.Func.Name)
	if f.Func.Schema != "" && f.Func.Schema != "pg_catalog" {
		return nil
	}
	if ret := sqlcFuncType(name, len(f.Args)); ret != "" {
		t, ok := a.sqlcNamed(ret)
		if !ok {
			return nil
		}
		return sqlcTyping(v, t, true, spelled(nil, t, true, ret))
	}
	return nil
}

// sqlcConst is sqlc's typing of a constant of kind as a CASE's ELSE:
// a string is text, an integer int (int4), a float float (float8), a
// boolean bool, all NOT NULL; ok is false for NULL.
func sqlcConst(kind string) (t catalog.Type, spelling string, ok bool) {
	switch kind {
	case "string":
		return builtin("text"), "text", true
	case "int":
		return builtin("int4"), "int", true
	case "float":
		return builtin("float8"), "float", true
	case "bool":
		return builtin("bool"), "bool", true
	}
	return catalog.Type{}, "", false
}

// sqlcTarget is sqlc's typing of the result column of select-list (or
// RETURNING) expression e, whose value is v, where it is not v's own:
// nil where sqlc agrees, or answers interface{} (Column.SqlcAny).
func (a *analyzer) sqlcTarget(e sqlparse.Node, v value) *SqlcType {
	if sqlparse.IsSqlcTODO(e) {
		return nil // sqlc's MySQL ast.TODO: interface{}
	}
	switch n := e.(type) {
	case *sqlparse.ColumnRef, *sqlparse.FuncCall, *sqlparse.Coalesce, *sqlparse.Case:
		return v.sqlc
	case *sqlparse.SubLink:
		if n.Kind == "" || n.Kind == "EXPR" {
			return v.sqlc
		}
	case *sqlparse.TypeCast:
		// NOT NULL unless it casts the NULL literal, whatever it casts
		// (sqlc.narg(x)::int is int32).
		c, isConst := n.Arg.(*sqlparse.Const)
		if !v.Known {
			return nil
		}
		notNull := !isConst || c.Kind != "null"
		return sqlcTyping(v, v.Type, notNull, spelled(v.Column, v.Type, notNull, v.DBType))
	case *sqlparse.Const:
		// 1.5 is float (float64) for sqlc, numeric for PostgreSQL.
		if t, spelling, ok := sqlcConst(n.Kind); ok {
			return sqlcTyping(v, t, true, spelled(nil, t, true, spelling))
		}
	case *sqlparse.AExpr:
		switch {
		case sqlcComparisonOps[n.SqlcName()]:
			return sqlcTyping(v, builtin("bool"), true, nil)
		case sqlcMathOps[n.SqlcName()]:
			t := builtin("int4")
			return sqlcTyping(v, t, true, spelled(nil, t, true, "int"))
		}
	}
	return nil
}

// sqlcCase is sqlc's typing of a CASE with ELSE els whose value is v:
// the ELSE's cast type (NOT NULL) or constant type (NOT NULL), whatever
// the THEN branches are.
func (a *analyzer) sqlcCase(els sqlparse.Node, v value) *SqlcType {
	switch n := els.(type) {
	case *sqlparse.TypeCast:
		t, ok := a.cat.ResolveType(n.Type)
		if !ok {
			return nil
		}
		return sqlcTyping(v, t, true, spelled(nil, t, true, typeSpelling(n.Type)))
	case *sqlparse.Const:
		if t, spelling, ok := sqlcConst(n.Kind); ok {
			return sqlcTyping(v, t, true, spelled(nil, t, true, spelling))
		}
	}
	return nil
}

// sqlcCoalesce is sqlc's typing of COALESCE(args), whose arguments'
// values are vals and own value v: the first column reference's type and
// column, NOT NULL when a constant or a NOT NULL column is among the
// arguments (other arguments, a function call among them, count for
// nothing).
func sqlcCoalesce(args []sqlparse.Node, vals []value, v value) *SqlcType {
	var first *SqlcType
	notNull := false
	for i, x := range args {
		switch n := x.(type) {
		case *sqlparse.Const:
			notNull = true
		case *sqlparse.ColumnRef:
			if n.Fields[len(n.Fields)-1] == "*" || !vals[i].Known {
				continue
			}
			c := sqlcOf(vals[i])
			if vals[i].nulled && vals[i].sqlc == nil {
				// sqlc reads the column's own nullability here, not
				// the outer join's (its table-required check skips
				// COALESCE).
				c.NotNull = true
			}
			if first == nil {
				first = &c
			}
			notNull = notNull || c.NotNull
		}
	}
	if first == nil {
		return nil
	}
	return sqlcTyping(v, first.Type, notNull, first.Column)
}

// sqlcFuncParam is sqlc's typing of a parameter passed as the argument at
// position i (not by name) of a call of the built-in name with n
// arguments: the type the first overload of sqlc's pg_catalog taking n
// arguments declares at position i, spelt as declared, NOT NULL; Any
// where sqlc's Go mapping lacks that type (upper(@s): its first overload
// takes anymultirange), and where no overload takes n arguments (sqlc
// then synthesises arguments of type any). ok is false for a function
// sqlc's catalog does not have.
func (a *analyzer) sqlcFuncParam(name string, n, i int) (SqlcType, bool) {
	fn := sqlcFuncOf(name)
	if fn == nil {
		return SqlcType{}, false
	}
	per := strings.Split(fn.params, "|")
	var types string
	switch {
	case n < len(per):
		types = per[n]
	case len(per) == sqlcFuncMaxArgs+1:
		types = per[len(per)-1]
	}
	// NOT NULL even where interface{} (resolve.go's FuncCall: an
	// argument is NOT NULL, the synthesised "any" ones too), which the
	// database analysis keeps with the server's type.
	ts := strings.Split(types, ",")
	if types == "" || i >= len(ts) || ts[i] == "?" {
		return SqlcType{Any: true, NotNull: true}, true
	}
	t, ok := a.sqlcNamed(ts[i])
	if !ok {
		return SqlcType{Any: true, NotNull: true}, true
	}
	return SqlcType{Type: t, NotNull: true, Column: spelled(nil, t, true, ts[i])}, true
}

// sqlcFuncMaxArgs is the largest number of arguments sqlcFunc.params
// lists a call for (sqlcfuncs_gen.go's max).
const sqlcFuncMaxArgs = 16
