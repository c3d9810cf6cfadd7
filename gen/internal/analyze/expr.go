package analyze

// Expressions and operators (PostgreSQL docs, 4.2 "Value Expressions").

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/catalog/pgcatalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

func (a *analyzer) boolExpr(sc *scope, e sqlparse.Node) {
	if p, ok := e.(*sqlparse.Param); ok {
		v := known("bool", true)
		v.sqlcUntyped = true // sqlc types no parameter from a boolean context
		a.typeParam(p, v, "")
		return
	}
	a.expr(sc, e)
}

var arithmeticOps = map[string]bool{"+": true, "-": true, "*": true, "/": true, "%": true, "^": true}

var comparisonOps = map[string]bool{
	"=": true, "<>": true, "!=": true, "<": true, ">": true, "<=": true, ">=": true,
	"~": true, "~*": true, "!~": true, "!~*": true, "~~": true, "~~*": true, "!~~": true, "!~~*": true,
	"@>": true, "<@": true, "&&": true, "?": true, "?|": true, "?&": true, "@@": true,
}

// expr types an expression and, on the way, every parameter whose type the
// context gives away.
func (a *analyzer) expr(sc *scope, e sqlparse.Node) value {
	if a.opts.MySQL && !a.opts.MySQLTypes && e != a.sqlcTODO && sqlparse.IsSqlcTODO(e) {
		// sqlc v1.31.1 reads an ast.TODO here: no type, no name. The
		// expression is still analysed, for its references.
		outer := a.sqlcTODO
		a.sqlcTODO = e
		a.expr(sc, e)
		a.sqlcTODO = outer
		return value{}
	}
	if x, ok := e.(*sqlparse.AExpr); ok && a.swallowing[x] {
		// x's operator swallowed an @ (prefixAtOperators): sqlc sends
		// the text as it is and checks no reference in it.
		a.unchecked++
		defer func() { a.unchecked-- }()
	}
	switch n := e.(type) {
	case nil:
		return value{}
	case *sqlparse.ColumnRef:
		v, _ := a.column(sc, n)
		return v
	case *sqlparse.Param:
		p := a.param(n.Number)
		return value{Name: p.Name, Type: p.Type, NotNull: p.NotNull, Known: p.Known}
	case *sqlparse.Const:
		switch n.Kind {
		// sqlc spells constants' types int, float, text and bool.
		case "int":
			return spelledAs(known("int4", true), "int")
		case "float":
			// An integer too large for int4 is read as a float by the
			// parser; PostgreSQL types it int8 when it fits (make_const).
			if _, err := strconv.ParseInt(n.Value, 10, 64); err == nil {
				return spelledAs(known("int8", true), "float")
			}
			return spelledAs(known("numeric", true), "float")
		case "string":
			return spelledAs(known("text", true), "text")
		case "bool":
			return spelledAs(known("bool", true), "bool")
		case "bitstring":
			return known("varbit", true)
		}
		return value{}
	case *sqlparse.TypeCast:
		t, ok := a.cat.ResolveType(n.Type)
		if !ok {
			a.lenientf(n.Type.Loc, "type %q does not exist", t.String())
			if p, isParam := n.Arg.(*sqlparse.Param); isParam {
				return value{Name: a.param(p.Number).Name}
			}
			inner := a.expr(sc, n.Arg)
			return value{Name: inner.Name}
		}
		// sqlc spells a cast's type as written (::int8 is "int8",
		// ::bigint the parser's "pg_catalog.int8").
		spelling := typeSpelling(n.Type)
		target := value{Type: t, NotNull: true, Known: true, DBType: spelling}
		if p, isParam := n.Arg.(*sqlparse.Param); isParam {
			a.typeParam(p, target, "")
			pr := a.param(p.Number)
			return value{Name: pr.Name, Type: t, NotNull: pr.NotNull, Known: true, DBType: spelling}
		}
		if co, ok := n.Arg.(*sqlparse.Coalesce); ok {
			defer func(c *sqlparse.Coalesce, t SqlcType) { a.castCoalesce, a.castType = c, t }(a.castCoalesce, a.castType)
			a.castCoalesce, a.castType = co, SqlcType{Type: t, NotNull: true, Column: spelled(nil, t, true, spelling)}
		}
		inner := a.expr(sc, n.Arg)
		name := inner.Name
		if name == "" || inner.Column == nil {
			name = strings.TrimPrefix(t.Name, "pg_catalog.")
			if inner.Name != "" {
				name = inner.Name
			}
		}
		// Like sqlc, a cast is NOT NULL unless it casts the NULL literal:
		// x::text is how sqlc users ask for a string rather than a
		// pgtype.Text, and their code relies on it.
		c, isConst := n.Arg.(*sqlparse.Const)
		notNull := !isConst || c.Kind != "null"
		return value{Name: name, Type: t, NotNull: notNull, Known: true, DBType: spelling}
	case *sqlparse.AExpr:
		return a.aexpr(sc, n)
	case *sqlparse.BoolExpr:
		for _, x := range n.Args {
			a.boolExpr(sc, x)
		}
		// Like sqlc, AND, OR and NOT may be NULL (three-valued logic,
		// PostgreSQL docs 9.1), except NOT EXISTS (...).
		notExists := false
		if len(n.Args) == 1 && n.Op == "NOT" {
			sl, ok := n.Args[0].(*sqlparse.SubLink)
			notExists = ok && sl.Kind == "EXISTS"
		}
		return known("bool", notExists)
	case *sqlparse.NullTest:
		a.expr(sc, n.Arg)
		return known("bool", true)
	case *sqlparse.BooleanTest:
		a.boolExpr(sc, n.Arg)
		return known("bool", true)
	case *sqlparse.FuncCall:
		v := a.funcCall(sc, n)
		if a.opts.MySQL && len(a.cat.Funcs(n.Func.Schema, n.Func.Name)) == 0 {
			// mysqlFuncCall already types the call by sqlc's MySQL
			// catalog (SUM and AVG return any there: interface{}), not
			// by its pg_catalog.
			v.sqlcAny = !v.Known
		} else {
			v.sqlcAny = a.sqlcAnyCall(n)
			v.sqlc = a.sqlcCall(n, v)
		}
		// ORDER BY and FILTER of an aggregate, OVER (...) of a window
		// function: they read the same scope.
		for _, o := range n.AggOrder {
			a.expr(sc, o)
		}
		if n.Filter != nil {
			a.boolExpr(sc, n.Filter)
		}
		a.window(sc, n.Window)
		return v
	case *sqlparse.MultiColumn:
		// SET (a, b) = (SELECT x, y ...): the subquery is analysed once,
		// with its first column; it may return no row, so never NOT NULL.
		src := n.Source()
		cols, ok := a.multi[src]
		if !ok {
			cols = a.selectCols(src.Query, &scope{parent: sc, ctes: sc.ctes})
			if a.multi == nil {
				a.multi = map[*sqlparse.SubLink][]*Column{}
			}
			a.multi[src] = cols
		}
		if n.Column-1 < len(cols) {
			c := cols[n.Column-1]
			return value{Name: c.Name, Type: c.Type, Known: c.Known}
		}
		return value{}
	case *sqlparse.SubLink:
		inner := &scope{parent: sc, ctes: sc.ctes}
		cols := a.selectCols(n.Query, inner)
		switch n.Kind {
		case "EXISTS":
			return value{Name: "exists", Type: builtin("bool"), NotNull: true, Known: true}
		case "ANY", "ALL":
			if len(cols) > 0 {
				a.compare(sc, n.Test, value{Type: cols[0].Type, NotNull: cols[0].NotNull, Known: cols[0].Known, Column: cols[0].Column, DBType: cols[0].DBType})
			}
			return known("bool", true)
		case "ARRAY":
			if len(cols) > 0 {
				t := cols[0].Type
				t.ArrayDims++
				return value{Name: "array", Type: t, NotNull: true, Known: cols[0].Known}
			}
		default:
			if len(cols) > 0 {
				// NULL when the subquery returns no row, unless it always
				// returns one.
				v := value{Name: cols[0].Name, Type: cols[0].Type, Known: cols[0].Known, NotNull: cols[0].NotNull && oneRow(n.Query), sqlcAny: cols[0].SqlcAny, sqlcAnyNotNull: cols[0].SqlcAnyNotNull}
				// sqlc types a scalar subquery as its first column, NOT
				// NULL when that column is, whether or not a row comes.
				first := cols[0].sqlcType()
				v.sqlc = sqlcTyping(v, first.Type, first.NotNull, first.Column)
				return v
			}
		}
		return value{}
	case *sqlparse.Case:
		base := a.expr(sc, n.Arg)
		out := value{Name: "case", NotNull: n.Else != nil}
		var results []sqlparse.Node
		for _, w := range n.Whens {
			if n.Arg != nil {
				cv := a.compare(sc, w.Cond, base)
				if p, ok := n.Arg.(*sqlparse.Param); ok && !base.Known && cv.Known && !a.opts.MySQL {
					// CASE $1 WHEN ...: PostgreSQL types an operand of
					// unknown type as text (transformCaseExpr), whatever
					// the WHEN values are; sqlc, interface{} but where the
					// CASE is assigned (sqlcAssignedParams).
					a.typeParam(p, value{Type: builtin("text"), NotNull: true, Known: true, sqlcParam: &SqlcType{Any: true}}, "")
					base = a.expr(sc, n.Arg)
				}
			} else {
				a.boolExpr(sc, w.Cond)
			}
			results = append(results, w.Result)
		}
		if n.Else != nil {
			results = append(results, n.Else)
		}
		var vals []value
		for _, r := range results {
			v := a.expr(sc, r)
			vals = append(vals, v)
			if !out.Known && v.Known {
				out.Type, out.Known = v.Type, true
			}
			if !v.NotNull {
				out.NotNull = false
			}
		}
		// PostgreSQL weighs the ELSE first (transformCaseExpr: "the
		// default result is considered the most significant type").
		order, ordered := results, vals
		if n.Else != nil {
			last := len(results) - 1
			order = append([]sqlparse.Node{results[last]}, results[:last]...)
			ordered = append([]value{vals[last]}, vals[:last]...)
		}
		if t, ok := a.commonType(order, ordered); ok {
			out.Type, out.Known = t, true
		}
		// A parameter among the results takes their type, and may be NULL
		// when another result may (CASE WHEN @set THEN @v ELSE col END
		// assigns NULL to a nullable col).
		branchNotNull := true
		for i, r := range results {
			if _, ok := r.(*sqlparse.Param); !ok && vals[i].Known && !vals[i].NotNull {
				branchNotNull = false
			}
		}
		for i, r := range results {
			if p, ok := r.(*sqlparse.Param); ok && out.Known && !vals[i].Known {
				a.typeParam(p, value{Type: out.Type, NotNull: branchNotNull, Known: true}, "")
			}
		}
		// sqlc spells a CASE's type after its ELSE when that is a cast
		// or a constant.
		switch n.Else.(type) {
		case *sqlparse.TypeCast, *sqlparse.Const:
			out.DBType = vals[len(vals)-1].DBType
		}
		out.sqlcAny = sqlcAnyCase(n.Else)
		out.sqlc = a.sqlcCase(n.Else, out)
		return out
	case *sqlparse.Coalesce:
		// sqlc names COALESCE after the first column among its
		// arguments themselves (output_columns.go: a column reference
		// that is an argument; COALESCE(MAX(id), 0) is coalesce).
		out := value{Name: "coalesce"}
		for _, x := range n.Args {
			if cr, ok := x.(*sqlparse.ColumnRef); ok && out.Name == "coalesce" && cr.Fields[len(cr.Fields)-1] != "*" {
				out.Name = cr.Fields[len(cr.Fields)-1]
			}
		}
		vals := make([]value, len(n.Args))
		var first *value // the first column among the arguments
		for i, x := range n.Args {
			// sqlc resolves COALESCE's column arguments, not those
			// inside its other arguments (COALESCE(SUM(earned), 0)).
			_, col := x.(*sqlparse.ColumnRef)
			if !col {
				a.unchecked++
			}
			vals[i] = a.expr(sc, x)
			if !col {
				a.unchecked--
			}
			if !out.Known && vals[i].Known {
				out.Type, out.Known = vals[i].Type, true
			}
			if vals[i].NotNull {
				out.NotNull = true
			}
			if _, ok := x.(*sqlparse.ColumnRef); ok && first == nil && vals[i].Known {
				first = &vals[i]
			}
		}
		if first != nil {
			// As in sqlc, the result is that column's type, and is the
			// column for overrides (COALESCE(t.status, 'new') maps as
			// t.status does).
			out.Type, out.Column, out.DBType = first.Type, first.Column, first.DBType
		}
		if t, ok := a.commonType(n.Args, vals); ok && (!out.Known || t != out.Type) {
			// PostgreSQL's type where it is another (COALESCE(int2col,
			// int8col) is int8): the column's overrides no longer apply.
			out.Type, out.Known, out.Column, out.DBType = t, true, nil, ""
		}
		for i, x := range n.Args {
			if p, ok := x.(*sqlparse.Param); ok && out.Known && !vals[i].Known {
				src := value{Type: out.Type, NotNull: true, Known: true, sqlcUntyped: (first == nil || a.mysqlFuncArg) && !a.sqlcOperand}
				if a.sqlcCoalesce == n {
					// sqlc: the compared column's type, nullability and
					// overrides.
					src.sqlcParam = sqlcColumnParam(a.sqlcColumn)
				}
				if a.castCoalesce == n {
					// sqlc: the cast's type, as for @p::type; the
					// COALESCE's type with postgresql_types.
					ct := a.castType
					src.sqlcParam, src.sqlcUntyped = &ct, false
				}
				if slices.Contains(a.callCoalesces, n) {
					// lower(COALESCE(@e, email)): sqlc types a parameter by
					// the call it is nested in (find_params.go's parent),
					// and one that is not a direct argument of the call is
					// interface{} (resolve.go's addUnknownParam); the
					// COALESCE's type with postgresql_types.
					src.sqlcParam, src.sqlcUntyped = &SqlcType{Any: true}, false
				}
				hint := ""
				if a.namingCoalesce == n {
					hint = a.namingColumn // as sqlc names it
				}
				a.typeParam(p, src, hint)
			}
		}
		out.sqlcAny = sqlcAnyCoalesce(n.Args, vals)
		out.sqlc = sqlcCoalesce(n.Args, vals, out)
		return out
	case *sqlparse.MinMax:
		out := value{Name: strings.ToLower(n.Op), NotNull: true}
		vals := make([]value, len(n.Args))
		for i, x := range n.Args {
			v := a.expr(sc, x)
			vals[i] = v
			if !out.Known && v.Known {
				out.Type, out.Known = v.Type, true
			}
			out.NotNull = out.NotNull && v.NotNull
		}
		if t, ok := a.commonType(n.Args, vals); ok {
			out.Type, out.Known = t, true
		}
		for _, x := range n.Args {
			if p, ok := x.(*sqlparse.Param); ok && out.Known {
				a.typeParam(p, value{Type: out.Type, NotNull: true, Known: true}, "")
			}
		}
		return out
	case *sqlparse.ArrayExpr:
		out := value{Name: "array", NotNull: true}
		vals := make([]value, len(n.Elems))
		for i, x := range n.Elems {
			v := a.expr(sc, x)
			vals[i] = v
			if !out.Known && v.Known {
				out.Type, out.Known = v.Type, true
				out.Type.ArrayDims++
			}
		}
		if t, ok := a.commonType(n.Elems, vals); ok {
			out.Type, out.Known = t, true
			out.Type.ArrayDims++
		}
		return out
	case *sqlparse.RowExpr:
		for _, x := range n.Args {
			a.expr(sc, x)
		}
		return value{Name: "row", Type: builtin("record"), NotNull: true, Known: true}
	case *sqlparse.Indirection:
		v := a.expr(sc, n.Arg)
		for _, x := range n.Subscripts {
			a.subscript(sc, x, "")
		}
		for _, f := range n.Fields {
			switch {
			case f == "" && v.Type.ArrayDims > 0 && !n.Slice:
				v.Type.ArrayDims--
				v.NotNull = false
				v.Column = nil
			case f != "":
				v = a.fieldOf(v, f)
			}
		}
		return v
	case *sqlparse.SQLValueFunction:
		// Unnamed like sqlc (column_N); in FROM it is named after itself.
		return value{Type: builtin(n.Type), NotNull: true, Known: true}
	case *sqlparse.Collate:
		return a.expr(sc, n.Arg)
	case *sqlparse.SortBy:
		return a.expr(sc, n.Expr)
	case *sqlparse.Default:
		return value{}
	}
	return value{}
}

// sqlcSource is v, the other side of an operator, as the source of a
// parameter operand: untyped for sqlc unless the operator's operands
// refer to a column or it is || (analyzer.sqlcOperand).
func (a *analyzer) sqlcSource(v value) value {
	v.sqlcUntyped = !a.sqlcOperand
	return v
}

// sqlcOperandSource is v, the other side of operator n, as the source
// of a parameter operand, with sqlc's typing of that parameter where it
// is not v's (sqlc's resolveCatalogRefs): the first column reference in
// n's left operand, else in its right one, with that column's own
// nullability (COALESCE(bio, 'x') = @b is bio's type, nullable); with no
// column, text for || (nullable: '%' || @q is text NOT NULL for
// PostgreSQL), untyped otherwise (Param.SqlcUntyped).
func (a *analyzer) sqlcOperandSource(sc *scope, n *sqlparse.AExpr, v value) value {
	if _, col := n.Left.(*sqlparse.ColumnRef); col {
		// Typed from that column, as sqlc types it: sqlc's typing of a
		// view's column (date_trunc(...) AS day is interval) included.
		return v
	}
	if _, col := n.Right.(*sqlparse.ColumnRef); col {
		return v
	}
	v.sqlcParam = nil
	if c, ok := a.sqlcFirstColumn(sc, n); ok {
		v.sqlcParam = sqlcColumnParam(c)
		if _, isCase := n.Left.(*sqlparse.Case); isCase || isCaseNode(n.Right) {
			// CASE ... END = $1: sqlc names the parameter after the
			// column it types it from, the first one in the CASE
			// (resolve.go's A_Expr), not after the CASE.
			v.Name = c.Name
		}
		return v
	}
	if n.Op == "||" {
		t := builtin("text")
		v.sqlcParam = &SqlcType{Type: t, Column: spelled(nil, t, false, "text")}
	}
	return v
}

// sqlcColumnParam is sqlc's typing of a parameter typed from column
// value c: its type, its column (for overrides) and the column's own
// nullability, not an outer join's.
func sqlcColumnParam(c value) *SqlcType {
	notNull := c.NotNull || c.nulled
	if c.Column != nil {
		notNull = c.Column.SqlcNotNull()
	}
	return &SqlcType{Type: c.Type, NotNull: notNull, Column: spelled(c.Column, c.Type, notNull, c.DBType)}
}

// sqlcSwallowed types, as sqlc does, an @name parameter that starts an
// arithmetic operand of operator n (age > @min - 1). sqlc's parser reads
// @min - 1 as the prefix operator @ applied to min - 1 (prefix operators
// bind less tightly than + - * / % ^, PostgreSQL docs 4.1.6), and its
// rewrite puts the parameter in place of that whole operand: the
// parameter is then typed as n's first column, with its nullability,
// where fencegen, which parses the text it sends ($1 - 1), finds no
// column and leaves it untyped for sqlc.
func (a *analyzer) sqlcSwallowed(sc *scope, n *sqlparse.AExpr) {
	if n.Kind != "op" || sqlcMathOps[n.Op] && n.Op != "||" && !sqlcComparisonOps[n.Op] {
		return
	}
	for _, side := range []sqlparse.Node{n.Left, n.Right} {
		inner, ok := side.(*sqlparse.AExpr)
		if !ok {
			continue
		}
		p := a.swallowedParam(inner)
		if p == nil {
			continue
		}
		a.sqlcSwallowedText(p, inner)
		if c, ok := a.sqlcFirstColumn(sc, n); ok {
			a.sqlcSwallowedAs(p, c)
		}
	}
}

// sqlcSwallowedAs types, for sqlc, @name parameter p, which starts an
// operand sqlc reads as @(x), as sqlc types a parameter in x's place
// from column value c; a parameter PostgreSQL's reading leaves untyped
// keeps that.
func (a *analyzer) sqlcSwallowedAs(p *sqlparse.Param, c value) {
	a.sqlcSwallowedAsType(p, sqlcColumnParam(c))
}

// sqlcSwallowedAsType types, for sqlc, @name parameter p, which starts
// an operand sqlc reads as @(x), as sqlc types a parameter in x's place:
// sq, from the column beside it (sqlcSwallowedAs) or from the argument
// of the call x is a direct argument of (abs(@a - 1): sqlc's first abs
// taking one argument, bigint). A parameter PostgreSQL's reading leaves
// untyped keeps that.
func (a *analyzer) sqlcSwallowedAsType(p *sqlparse.Param, sq *SqlcType) {
	pr := a.param(p.Number)
	if !pr.Known {
		return
	}
	sq.NotNull = sq.NotNull && !pr.forceNull
	pr.Sqlc = sq
	if !a.opts.PGTypes {
		// sqlc's type, where sqlc's reading is the one generated.
		pr.SqlcUntyped = false
	}
}

// sqlcSwallowedText writes the text of @name parameter p, which starts
// the operand x that sqlc reads as @(x) (sqlcSwallowed), as sqlc's
// rewrite writes it: sqlc replaces as many bytes from the @ as "@" and
// every name and operator in x have together (its flatten: @w * 2 has
// "@*w", three bytes), so the blank after @w goes too: $3* 2
// (Query.SqlcSQL, the text of a configuration sqlc reads). Where
// those bytes are more than the parameter and blanks after it (@w*2,
// where sqlc's text loses the operator), the text stays PostgreSQL's.
func (a *analyzer) sqlcSwallowedText(p *sqlparse.Param, x sqlparse.Node) {
	n, ok := sqlcFlattenLen(x)
	if !ok {
		return
	}
	end := p.Loc + 1 + n
	if end <= p.End || end > len(a.file.Src) {
		return
	}
	for _, b := range a.file.Src[p.End:end] {
		if b != ' ' && b != '\t' {
			return
		}
	}
	if a.sqlcEnds == nil {
		a.sqlcEnds = map[int]int{}
	}
	a.sqlcEnds[p.Loc] = end
}

// sqlcFlattenLen is the length of the names and operators of x that
// sqlc's flatten joins (its parameter name of @x); false where x holds
// anything else than operators, column references, parameters and
// numbers, whose strings this does not model.
func sqlcFlattenLen(x sqlparse.Node) (int, bool) {
	switch n := x.(type) {
	case *sqlparse.AExpr:
		if n.Kind != "op" || !swallowedOps[n.Op] {
			return 0, false
		}
		total := len(n.Op)
		for _, side := range []sqlparse.Node{n.Left, n.Right} {
			if side == nil {
				continue
			}
			l, ok := sqlcFlattenLen(side)
			if !ok {
				return 0, false
			}
			total += l
		}
		return total, true
	case *sqlparse.Param:
		if n.Name == "" {
			return 0, false
		}
		return len(n.Name), true
	case *sqlparse.ColumnRef:
		total := 0
		for _, f := range n.Fields {
			total += len(f)
		}
		return total, true
	case *sqlparse.Const:
		return 0, n.Kind == "int" || n.Kind == "float"
	}
	return 0, false
}

// swallowedOps are the operators that bind more tightly than a prefix
// operator (PostgreSQL docs, 4.1.6 "Operator Precedence").
var swallowedOps = map[string]bool{"+": true, "-": true, "*": true, "/": true, "%": true, "^": true}

// sqlcFirstColumn is the column sqlc types a parameter in operator n
// from: the first column reference in its left operand, else in its
// right one (sqlc's resolveCatalogRefs), as the scope resolves it.
func (a *analyzer) sqlcFirstColumn(sc *scope, n *sqlparse.AExpr) (value, bool) {
	ref := sqlcFirstRef(n)
	if ref == nil {
		return value{}, false
	}
	// Resolved once more, quietly: the operand's own analysis reports a
	// reference that does not resolve.
	errs, refused := len(a.errs), len(a.refused)
	v, ok := a.column(sc, ref)
	a.errs, a.refused = a.errs[:errs], a.refused[:refused]
	return v, ok && v.Known
}

// sqlcFirstRef is the first column reference (not a star) in operator
// n's left operand, else in its right one, nil for none.
func sqlcFirstRef(n *sqlparse.AExpr) *sqlparse.ColumnRef {
	var ref *sqlparse.ColumnRef
	for _, side := range []sqlparse.Node{n.Left, n.Right} {
		walk(side, func(x sqlparse.Node) {
			if cr, ok := x.(*sqlparse.ColumnRef); ok && ref == nil && cr.Fields[len(cr.Fields)-1] != "*" {
				ref = cr
			}
		})
	}
	return ref
}

// refersToColumn reports whether e refers to a column anywhere in it.
func refersToColumn(e sqlparse.Node) bool {
	found := false
	walk(e, func(n sqlparse.Node) {
		if _, ok := n.(*sqlparse.ColumnRef); ok {
			found = true
		}
	})
	return found
}

// compare types e against other, the value it is compared with or
// assigned to; a parameter takes other's type.
func (a *analyzer) compare(sc *scope, e sqlparse.Node, other value) value {
	insertValue := a.insertValue
	a.insertValue = false
	if p, ok := e.(*sqlparse.Param); ok {
		a.typeParam(p, other, other.Name)
		return a.expr(sc, e)
	}
	if r, ok := e.(*sqlparse.RowExpr); ok {
		for _, x := range r.Args {
			a.compare(sc, x, other)
		}
		return value{}
	}
	if b, ok := e.(*sqlparse.BoolExpr); ok && other.Known && !other.sqlcUntyped {
		// active = NOT @archived: like sqlc, which types a parameter from
		// the column side of the comparison it is nested in when only AND,
		// OR and NOT stand between them.
		a.typeBoolOperands(b, other)
	}
	if c, ok := e.(*sqlparse.Case); ok && a.opts.MySQL && !insertValue && other.Known && other.Column != nil && !other.sqlcUntyped {
		// email = CASE WHEN @e = '' THEN NULL ELSE @e END, SET v = CASE ?
		// WHEN ... END: sqlc types a parameter by the nearest comparison,
		// function call, cast or assignment it is nested in (its
		// find_params.go parent), and a CASE is none of them: the ELSE's
		// @e and the ? are typed as the column compared or assigned.
		// Not in INSERT ... VALUES, where sqlc types only a parameter
		// that is the value itself.
		a.typeCaseOperands(c, other)
	}
	// Only the compared value itself is typed strictly, not what is nested
	// in it.
	old := a.strict
	a.strict = false
	v := a.expr(sc, e)
	a.strict = old
	return v
}

func (a *analyzer) aexpr(sc *scope, n *sqlparse.AExpr) value {
	a.resolveSqlcOperand(n)
	if a.unchecked > 0 && (isParam(n.Left) || isParam(n.Right)) {
		// sqlc resolves the other operand of a parameter, for the
		// parameter's type: a reference there that does not resolve
		// stays an error.
		saved := a.unchecked
		a.unchecked = 0
		defer func() { a.unchecked = saved }()
	}
	switch n.Kind {
	case "in", "not in":
		// An IN (sqlc.slice(x)) element is typed as any element of the
		// list (Param.InList): compare types it from the left side.
		left := a.expr(sc, n.Left)
		a.compare(sc, n.Right, left)
		if p, ok := n.Left.(*sqlparse.Param); ok {
			if r, ok := n.Right.(*sqlparse.RowExpr); ok && len(r.Args) > 0 {
				hint := ""
				if cr, ok := r.Args[0].(*sqlparse.ColumnRef); ok && a.opts.MySQL {
					// ? IN (foo.a, foo.b): sqlc's MySQL In names the
					// parameter after the list's first column
					// (resolve.go).
					hint = cr.Fields[len(cr.Fields)-1]
				}
				a.typeParam(p, a.expr(sc, r.Args[0]), hint)
			}
		}
		return known("bool", true)
	case "between", "not between":
		left := a.expr(sc, n.Left)
		if r, ok := n.Right.(*sqlparse.RowExpr); ok && a.opts.MySQL && len(r.Args) == 2 && left.Known {
			// sqlc names MySQL's BETWEEN ? AND ? from_<column> and
			// to_<column> (its BetweenExpr).
			for i, prefix := range []string{"from_", "to_"} {
				if p, ok := r.Args[i].(*sqlparse.Param); ok && left.Name != "" {
					a.typeParam(p, left, prefix+left.Name)
				}
			}
		}
		if a.opts.MySQL {
			a.compare(sc, n.Right, left)
			return known("bool", true)
		}
		// PostgreSQL's BETWEEN is sqlc's A_Expr: it names and types the
		// parameters after the first column the left operand holds
		// (length(title) BETWEEN $1 AND $2: title, title_2), and leaves
		// them unnamed and untyped when there is none (count(*)).
		defer func(old bool) { a.sqlcOperand = old }(a.sqlcOperand)
		a.sqlcOperand = refersToColumn(n.Left) || refersToColumn(n.Right)
		a.compare(sc, n.Right, a.sqlcOperandSource(sc, n, a.sqlcSource(a.paramSource(sc, n.Left, left))))
		return known("bool", true)
	case "any", "all":
		// sqlc types a parameter operand as the first column either side
		// refers to, array or not: age = ANY(@ages) is age's type.
		var sqlcCol *SqlcType
		if c, ok := a.sqlcFirstColumn(sc, n); ok {
			sqlcCol = sqlcColumnParam(c)
		}
		left := a.expr(sc, n.Left)
		if p, ok := n.Right.(*sqlparse.Param); ok && left.Known {
			arr := left
			arr.Type.ArrayDims++
			arr.NotNull = true
			arr.sqlcParam = sqlcCol
			a.typeParam(p, arr, pluralHint(left.Name))
		}
		right := a.expr(sc, n.Right)
		if p, ok := n.Left.(*sqlparse.Param); ok && right.Known {
			el := right
			el.Type = right.Type.Elem()
			el.sqlcParam = sqlcCol
			a.typeParam(p, el, "")
		}
		return known("bool", true)
	case "nullif":
		left := a.expr(sc, n.Left)
		a.compare(sc, n.Right, left)
		left.NotNull = false
		return left
	}
	// Prefix operators.
	if n.Left == nil {
		v := a.expr(sc, n.Right)
		v.Name, v.Column, v.DBType = "", nil, ""
		if n.Op == "-" || n.Op == "+" {
			v.NotNull = true // as sqlc types arithmetic
			v.DBType = "int" // and spells its type
		}
		return v
	}
	// (a, b) < ($1, $2): a row comparison compares member by member
	// (PostgreSQL docs, 9.25.5 "Row Constructor Comparison").
	if lr, ok := n.Left.(*sqlparse.RowExpr); ok && n.Kind == "op" {
		if rr, ok := n.Right.(*sqlparse.RowExpr); ok && len(lr.Args) == len(rr.Args) {
			for i := range lr.Args {
				a.aexpr(sc, &sqlparse.AExpr{Kind: n.Kind, Op: n.Op, Left: lr.Args[i], Right: rr.Args[i], Loc: n.Loc})
			}
			// sqlc types every parameter of a row comparison as the
			// first column of the whole: (name, age) > (@n, @a) makes
			// @a name's type.
			if c, ok := a.sqlcFirstColumn(sc, n); ok {
				for _, x := range append(append([]sqlparse.Node{}, lr.Args...), rr.Args...) {
					if p, ok := x.(*sqlparse.Param); ok && a.param(p.Number).Known {
						pr := a.param(p.Number)
						sq := sqlcColumnParam(c)
						sq.NotNull = sq.NotNull && !pr.forceNull
						if sq.Type != pr.Type || sq.NotNull != pr.NotNull || sq.Column != pr.Column {
							pr.Sqlc = sq
						}
					}
				}
			}
			return known("bool", true)
		}
	}
	// sqlc types a parameter in an operand from the first column either
	// side refers to, || from text, and leaves it untyped otherwise
	// (sqlc's resolveCatalogRefs).
	typed := refersToColumn(n.Left) || refersToColumn(n.Right) || n.Op == "||"
	defer func(old, funcArg bool) { a.sqlcOperand, a.mysqlFuncArg = old, funcArg }(a.sqlcOperand, a.mysqlFuncArg)
	a.sqlcOperand, a.mysqlFuncArg = typed, false
	for _, side := range []sqlparse.Node{n.Left, n.Right} {
		if co, ok := side.(*sqlparse.Coalesce); ok {
			if v, ok := a.sqlcFirstColumn(sc, n); ok {
				defer func(c *sqlparse.Coalesce, name string) { a.namingCoalesce, a.namingColumn = c, name }(a.namingCoalesce, a.namingColumn)
				a.namingCoalesce, a.namingColumn = co, v.Name
			}
			break
		}
	}
	// Evaluate the side that is not a parameter first, then type the
	// parameter from it.
	_, lp := n.Left.(*sqlparse.Param)
	_, rp := n.Right.(*sqlparse.Param)
	var left, right value
	equality := n.Kind == "op" && (n.Op == "=" || n.Op == "<>" || n.Op == "!=")
	switch {
	case lp && !rp:
		right = a.expr(sc, n.Right)
		if _, col := n.Right.(*sqlparse.ColumnRef); equality && col {
			a.strictly(func() {
				left = a.compare(sc, n.Left, a.sqlcOperandSource(sc, n, a.sqlcSource(a.paramSource(sc, n.Right, right))))
			})
		} else {
			left = a.compare(sc, n.Left, a.sqlcOperandSource(sc, n, a.sqlcSource(a.paramSource(sc, n.Right, right))))
		}
	default:
		left = a.expr(sc, n.Left)
		if _, col := n.Left.(*sqlparse.ColumnRef); equality && col && rp {
			a.strictly(func() {
				right = a.compare(sc, n.Right, a.sqlcOperandSource(sc, n, a.sqlcSource(a.paramSource(sc, n.Left, left))))
			})
		} else {
			if co, ok := n.Right.(*sqlparse.Coalesce); ok {
				if v, ok := a.sqlcFirstColumn(sc, n); ok {
					defer func(c *sqlparse.Coalesce, v value) { a.sqlcCoalesce, a.sqlcColumn = c, v }(a.sqlcCoalesce, a.sqlcColumn)
					a.sqlcCoalesce, a.sqlcColumn = co, v
				}
			}
			right = a.compare(sc, n.Right, a.sqlcOperandSource(sc, n, a.sqlcSource(a.paramSource(sc, n.Left, left))))
		}
	}
	a.sqlcSwallowed(sc, n)
	notNull := left.NotNull && right.NotNull
	if comparisonOps[n.Op] || n.Kind == "like" || n.Kind == "ilike" || n.Kind == "similar" || n.Kind == "distinct" || n.Kind == "not distinct" {
		return known("bool", notNull || n.Kind == "distinct" || n.Kind == "not distinct")
	}
	v, ok := a.operatorResult(n, left, right)
	if !ok {
		a.noOperator(n, left, right)
	}
	if ok {
		v.NotNull = notNull
		if arithmeticOps[n.Op] {
			// sqlc types arithmetic as NOT NULL whatever its operands,
			// and spells its type int.
			v.NotNull, v.DBType = true, "int"
		}
		return v
	}
	switch n.Op {
	case "||":
		if left.Known && left.Type.IsArray() {
			return value{Type: left.Type, NotNull: notNull, Known: true}
		}
		if left.Known && (left.Type.Name == "jsonb") {
			return value{Type: left.Type, NotNull: notNull, Known: true}
		}
		return known("text", notNull)
	case "->", "#>":
		return value{Type: left.Type, NotNull: false, Known: left.Known}
	case "->>", "#>>":
		return known("text", false)
	}
	out := left
	if !out.Known {
		out = right
	}
	// date - date is an integer, timestamp - timestamp an interval.
	if n.Op == "-" && left.Known && right.Known && left.Type == right.Type {
		switch left.Type.Name {
		case "date":
			out = known("int4", true)
		case "timestamp", "timestamptz":
			out = known("interval", true)
		}
	}
	out.Name, out.Column, out.NotNull, out.DBType = "", nil, notNull, ""
	if arithmeticOps[n.Op] {
		// sqlc types arithmetic as NOT NULL whatever its operands, and
		// spells its type int.
		out.NotNull, out.DBType = true, "int"
	}
	return out
}

// fieldOf is the value of field f of composite value v, (v).f: the
// field's type when v is a composite type or table row the catalog
// knows (PostgreSQL docs, 8.16.3 "Accessing Composite Types"), unknown
// otherwise. Like sqlc, the result has no name of its own (column_N), and
// it may be NULL.
func (a *analyzer) fieldOf(v value, f string) value {
	out := value{}
	if !v.Known || v.Type.ArrayDims > 0 {
		return out
	}
	var cols []*catalog.Column
	if ut := a.cat.UserType(v.Type.Schema, v.Type.Name); ut != nil && ut.Kind == "composite" {
		cols = ut.Columns
	} else if t := a.cat.Table(v.Type.Schema, v.Type.Name); t != nil && v.Type.Schema != "pg_catalog" {
		cols = t.Columns
	}
	for _, c := range cols {
		if c.Name == f {
			out.Type, out.Known = c.Type, true
		}
	}
	return out
}

// oneRow reports whether s always returns exactly one row: a SELECT
// whose list has an aggregate (not a window function) and no function
// that may return a set, and that has no GROUP BY, HAVING, LIMIT, OFFSET
// or set operation (PostgreSQL docs, 4.2.7
// "Aggregate Expressions": without GROUP BY the whole input is one
// group, which has a row even when the input has none).
func oneRow(s *sqlparse.Select) bool {
	if s == nil || s.SetOp != "" || len(s.Values) > 0 || len(s.GroupBy) > 0 || s.Having != nil || s.Limit != nil || s.Offset != nil {
		return false
	}
	agg, set := false, false
	for _, t := range s.Targets {
		// The calls inside subqueries are theirs.
		inner := map[*sqlparse.FuncCall]bool{}
		walk(t.Expr, func(n sqlparse.Node) {
			if sl, ok := n.(*sqlparse.SubLink); ok {
				walk(sl.Query, func(m sqlparse.Node) {
					if f, ok := m.(*sqlparse.FuncCall); ok {
						inner[f] = true
					}
				})
			}
		})
		walk(t.Expr, func(n sqlparse.Node) {
			f, ok := n.(*sqlparse.FuncCall)
			if !ok || f.Over || inner[f] {
				return
			}
			fns := pgcatalog.Funcs(strings.ToLower(f.Func.Name))
			if f.Func.Schema != "" && f.Func.Schema != "pg_catalog" || len(fns) == 0 {
				set = true // a function of the schema may return a set
			}
			for _, fn := range fns {
				switch {
				case fn.Kind == 'a':
					agg = true
				case fn.ReturnsSet:
					set = true // the list's set-returning function may make it no row
				}
			}
		})
	}
	return agg && !set
}

// operatorResult is the type of the binary operator expression n, whose
// operands have the values left and right, as PostgreSQL resolves the
// operator among the built-in ones of pg_operator (PostgreSQL docs, 10.2
// "Operators"): with one operand of unknown type (a string literal, NULL,
// an untyped parameter), an operator taking the other's type on both
// sides; else an exact match, then the candidates every operand casts to
// implicitly, by most exact matches and preferred types, as for function
// calls (resolveBuiltin). ok is false when no built-in operator takes the
// operands, or one of them has no known type (the caller then guesses).
func (a *analyzer) operatorResult(n *sqlparse.AExpr, left, right value) (value, bool) {
	if n.Kind != "op" {
		return value{}, false
	}
	args := []argInfo{{value: left, unknown: unknownOperand(n.Left, left)}, {value: right, unknown: unknownOperand(n.Right, right)}}
	for _, x := range args {
		if !x.unknown && (!x.Known || typeKey(x.Type) == "" && a.cat.Enum(x.Type.Schema, x.Type.Name) == nil) {
			return value{}, false
		}
	}
	// An extension's operators (hstore's text - text) are taken only when
	// no core operator takes the operands, as when it is not installed.
	for _, ext := range []bool{false, true} {
		if v, ok := a.resolveOperator(n.Op, args, ext); ok {
			return v, true
		}
	}
	return value{}, false
}

// resolveOperator resolves op among the built-in binary operators of
// pg_catalog (ext false) or of extensions (ext true); see operatorResult.
func (a *analyzer) resolveOperator(op string, args []argInfo, ext bool) (value, bool) {
	var cands []candidate
	for _, o := range pgcatalog.Operators(op) {
		if o.Left == "" || o.Right == "" || (o.Extension != "") != ext {
			continue
		}
		fn := &pgcatalog.Func{Name: op, Kind: 'f', Strict: true, Result: o.Result, Args: []string{o.Left, o.Right}}
		cands = append(cands, candidate{fn: fn, types: fn.Args, pos: []int{0, 1}})
	}
	if len(cands) == 0 {
		return value{}, false
	}
	var c *candidate
	if args[0].unknown != args[1].unknown {
		// 10.2 step 2.a: the unknown operand is taken as the other's type.
		k := typeKey(args[0].Type)
		if args[0].unknown {
			k = typeKey(args[1].Type)
		}
		for i := range cands {
			if cands[i].types[0] == k && cands[i].types[1] == k {
				c = &cands[i]
				break
			}
		}
	}
	if c == nil {
		r := a.resolveBuiltin(cands, args)
		for i, x := range args {
			if fit, _ := a.accepts(x, r.types[i]); !fit {
				return value{}, false
			}
		}
		c = &r
	}
	out := builtinResult(op, *c, args)
	if !out.Known {
		return value{}, false
	}
	out.Name, out.Column, out.DBType = "", nil, ""
	return out, true
}

// arithmeticTypes are the string (true) and numeric (false) types
// noOperator reads.
var arithmeticTypes = map[string]bool{
	"text": true, "varchar": true, "bpchar": true, "name": true,
	"int2": false, "int4": false, "int8": false, "numeric": false, "float4": false, "float8": false,
}

// noOperator records, as a refusal of the query, an arithmetic operator
// PostgreSQL has no operator for: operands of string types (text,
// varchar, bpchar, name), or of a string and a numeric type, none of
// unknown type ('1', NULL, an untyped parameter). PostgreSQL has no core
// arithmetic operator on them and casts neither category to the other
// implicitly, so it refuses the statement ("operator does not exist: text
// + integer"); not recorded when the schema creates an operator or a cast,
// which may supply one.
func (a *analyzer) noOperator(n *sqlparse.AExpr, left, right value) {
	if a.opts.MySQL || n.Kind != "op" || !arithmeticOps[n.Op] || unknownOperand(n.Left, left) || unknownOperand(n.Right, right) {
		return
	}
	str := 0
	for _, v := range []value{left, right} {
		isStr, ok := arithmeticTypes[v.Type.Name]
		if !v.Known || !ok || v.Type.IsArray() || v.Type.Schema != "" && v.Type.Schema != "pg_catalog" {
			return
		}
		if isStr {
			str++
		}
	}
	if str == 0 {
		return
	}
	for _, h := range a.cat.Hooks {
		if h.Kind == "operator" || h.Kind == "cast" {
			return
		}
	}
	a.refusals = append(a.refusals, refusal{loc: n.Loc, msg: fmt.Sprintf("operator does not exist: %s %s %s", formatType(left.Type.Name), n.Op, formatType(right.Type.Name))})
}

// refusal is a reason PostgreSQL refuses the statement, found by the
// analysis, at loc.
type refusal struct {
	loc int
	msg string
}

// unknownOperand reports whether e, of value v, has PostgreSQL's type
// unknown: a string literal, NULL, or a parameter nothing typed.
func unknownOperand(e sqlparse.Node, v value) bool {
	switch x := e.(type) {
	case *sqlparse.Const:
		return x.Kind == "string" || x.Kind == "null"
	case *sqlparse.Param:
		return !v.Known
	}
	return false
}

// commonType is the one type PostgreSQL resolves for the expressions es,
// of values vals, where a construct needs one (PostgreSQL docs, 10.5
// "UNION, CASE, and Related Constructs"): their type when they all have
// it; text when all are of unknown type (string literals, NULL, untyped
// parameters); else, the unknown ones aside, the first type, replaced by
// each later one it casts to implicitly while that one does not cast back,
// until a preferred type is chosen. ok is false when an expression has no
// type fencegen knows, the types are of several categories, or one does
// not cast implicitly to the choice.
func (a *analyzer) commonType(es []sqlparse.Node, vals []value) (catalog.Type, bool) {
	var ts []catalog.Type
	for i, v := range vals {
		if unknownOperand(es[i], v) {
			continue
		}
		if !v.Known || typeKey(v.Type) == "" {
			return catalog.Type{}, false
		}
		ts = append(ts, v.Type)
	}
	if len(ts) == 0 {
		return builtin("text"), len(vals) > 0
	}
	return commonOf(ts)
}

// commonOf is commonType for the known types ts (at least one), in order.
func commonOf(ts []catalog.Type) (catalog.Type, bool) {
	cand := ts[0]
	same := true
	for _, t := range ts[1:] {
		same = same && t == cand
	}
	if same {
		return cand, true
	}
	cat := func(t catalog.Type) byte {
		c, _ := declCategory(typeKey(t))
		return c
	}
	implicit := func(from, to catalog.Type) bool {
		if from == to {
			return true
		}
		if from.IsArray() || to.IsArray() {
			return false
		}
		c, ok := pgcatalog.Cast(typeKey(from), typeKey(to))
		return ok && c == 'i'
	}
	for _, t := range ts[1:] {
		if cat(t) != cat(cand) {
			return catalog.Type{}, false
		}
	}
	for _, t := range ts[1:] {
		if _, pref := declCategory(typeKey(cand)); pref {
			break
		}
		if implicit(cand, t) && !implicit(t, cand) {
			cand = t
		}
	}
	for _, t := range ts {
		if !implicit(t, cand) {
			return catalog.Type{}, false
		}
	}
	return cand, true
}

// typeBoolOperands types the parameters that are operands of b, or of the
// AND, OR and NOT in it, as v.
func (a *analyzer) typeBoolOperands(b *sqlparse.BoolExpr, v value) {
	for _, x := range b.Args {
		switch x := x.(type) {
		case *sqlparse.Param:
			a.typeParam(x, v, v.Name)
		case *sqlparse.BoolExpr:
			a.typeBoolOperands(x, v)
		}
	}
}

// typeCaseOperands types the parameters of CASE c that sqlc types from
// the comparison or assignment c is an operand of, as v: its operand,
// WHEN conditions and results that are parameters, or are reached from
// it through nested CASE, AND, OR and NOT only.
func (a *analyzer) typeCaseOperands(c *sqlparse.Case, v value) {
	var visit func(x sqlparse.Node)
	visit = func(x sqlparse.Node) {
		switch x := x.(type) {
		case *sqlparse.Param:
			a.typeParam(x, v, v.Name)
		case *sqlparse.BoolExpr:
			for _, y := range x.Args {
				visit(y)
			}
		case *sqlparse.Case:
			visit(x.Arg)
			for _, w := range x.Whens {
				visit(w.Cond)
				visit(w.Result)
			}
			visit(x.Else)
		}
	}
	visit(c)
}

// isParam reports whether e is a parameter ($n, @name, sqlc.arg).
func isParam(e sqlparse.Node) bool {
	_, ok := e.(*sqlparse.Param)
	return ok
}

func isCaseNode(e sqlparse.Node) bool {
	_, ok := e.(*sqlparse.Case)
	return ok
}
