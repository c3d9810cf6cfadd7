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
	case *sqlparse.Const:
		return sqlcAnyCase(n) // typed as a constant ELSE is
	case *sqlparse.AExpr:
		// sqlc's operator lists (internal/sql/lang/operator.go): a
		// comparison is bool, arithmetic int, any other operator (and
		// LIKE, BETWEEN, which it names after themselves) interface{}.
		return !sqlcComparisonOps[n.Op] && !sqlcMathOps[n.Op]
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
// one its Go mapping does not list (sqlcFuncs): max(x) and min(x) find
// max(anyarray), percentile_disc(0.5) WITHIN GROUP (...) percentile_disc
// (double precision[]) returning anyarray, now() timestamp with time zone,
// a spelling the mapping does not have.
func (a *analyzer) sqlcAnyCall(f *sqlparse.FuncCall) bool {
	name := strings.ToLower(f.Func.Name)
	n := len(f.Args)
	if code, ok := sqlcFuncs[name]; ok {
		switch sqlcFuncAt(code, n) {
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

// sqlcFuncAt is the character of a sqlcFuncs code for n arguments.
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
