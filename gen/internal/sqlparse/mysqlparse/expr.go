package mysqlparse

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"
	"github.com/pingcap/tidb/pkg/parser/types"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// exprLoc is n's offset in the file, or the statement's start when TiDB
// gives none.
func (c *converter) exprLoc(n ast.Node) int {
	if n == nil {
		return c.start
	}
	if p := n.OriginTextPosition(); p > 0 && p < len(c.src) {
		return p
	}
	return c.start
}

// closingParen returns the offset just past the parenthesis that closes
// the first '(' at or after loc (quotes skipped), or loc when there is
// none.
func (c *converter) closingParen(loc int) int {
	depth := 0
	for i := loc; i < len(c.src) && i < c.end; i++ {
		switch ch := c.src[i]; ch {
		case '\'', '"', '`':
			j := i + 1
			for j < len(c.src) && c.src[j] != ch {
				if c.src[j] == '\\' && ch != '`' {
					j++
				}
				j++
			}
			i = j
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return loc
}

// sqlcOpName is o's name as sqlc v1.31.1's MySQL converter spells it
// (dolphin's opToName), when it differs from opName's: sqlc types an
// operator's result by that name (a comparison bool, arithmetic int,
// others interface{}), so / ("div"), & ("bitand"), | ("bitor") and <=>
// ("nulleq") are interface{} there, DIV ("/") and ^ ("#") int. "" when
// it is opName's.
func sqlcOpName(o opcode.Op) string {
	var name string
	switch o {
	case opcode.EQ:
		name = "="
	case opcode.GE:
		name = ">="
	case opcode.GT:
		name = ">"
	case opcode.IntDiv:
		name = "/"
	case opcode.LE:
		name = "<="
	case opcode.LT:
		name = "<"
	case opcode.LeftShift:
		name = "<<"
	case opcode.LogicAnd:
		name = "&"
	case opcode.LogicOr:
		name = "|"
	case opcode.Minus:
		name = "-"
	case opcode.Mod:
		name = "%"
	case opcode.Mul:
		name = "*"
	case opcode.NE:
		name = "!="
	case opcode.Not:
		name = "!"
	case opcode.Plus:
		name = "+"
	case opcode.Regexp:
		name = "~"
	case opcode.RightShift:
		name = ">>"
	case opcode.Xor:
		name = "#"
	default:
		name = o.String()
	}
	if name == opName(o) {
		return ""
	}
	return name
}

func opName(o opcode.Op) string {
	switch o {
	case opcode.EQ:
		return "="
	case opcode.GE:
		return ">="
	case opcode.GT:
		return ">"
	case opcode.LE:
		return "<="
	case opcode.LT:
		return "<"
	case opcode.NE:
		return "<>"
	case opcode.Plus:
		return "+"
	case opcode.Minus:
		return "-"
	case opcode.Mul:
		return "*"
	case opcode.Div:
		return "/"
	case opcode.IntDiv:
		return "/"
	case opcode.Mod:
		return "%"
	case opcode.And:
		return "&"
	case opcode.Or:
		return "|"
	case opcode.Xor:
		return "#"
	case opcode.LeftShift:
		return "<<"
	case opcode.RightShift:
		return ">>"
	case opcode.NullEQ:
		return "<=>"
	}
	return o.String()
}

// expr converts an expression; nil stays nil.
func (c *converter) expr(n ast.ExprNode) sqlparse.Node {
	if n == nil {
		return nil
	}
	loc := c.exprLoc(n)
	switch n := n.(type) {
	case *ast.ParenthesesExpr:
		return c.expr(n.Expr)
	case *ast.ColumnNameExpr:
		var fields []string
		// sqlc folds MySQL's identifiers to lower case (TiDB's
		// ColumnName.String()); so do the catalog's names.
		if n.Name.Schema.O != "" {
			fields = append(fields, n.Name.Schema.L)
		}
		if n.Name.Table.O != "" {
			fields = append(fields, n.Name.Table.L)
		}
		return &sqlparse.ColumnRef{Fields: append(fields, n.Name.Name.L), Loc: loc}
	case *ast.ValuesExpr:
		// VALUES(col) of ON DUPLICATE KEY UPDATE: a call of VALUES, as
		// MySQL's function list has it, so that col is resolved.
		return &sqlparse.FuncCall{Func: sqlparse.Name{Name: "values", Loc: loc}, Args: []sqlparse.Node{c.expr(n.Column)}, Loc: loc}
	case *driver.ParamMarkerExpr:
		p := &sqlparse.Param{Loc: n.Offset, End: n.Offset + 1, SqlcUnread: c.unread > 0}
		c.params = append(c.params, p)
		return p
	case *driver.ValueExpr:
		k := &sqlparse.Const{Loc: loc}
		switch n.Kind() {
		case driver.KindNull:
			k.Kind = "null"
		case driver.KindInt64, driver.KindUint64:
			k.Kind, k.Value = "int", fmt.Sprint(n.GetValue())
		case driver.KindFloat64, driver.KindFloat32, driver.KindMysqlDecimal:
			k.Kind, k.Value = "float", fmt.Sprint(n.GetValue())
		case driver.KindString, driver.KindBytes:
			k.Kind, k.Value = "string", n.GetString()
		default:
			k.Kind = "string"
		}
		return k
	case *ast.BinaryOperationExpr:
		switch n.Op {
		case opcode.LogicAnd, opcode.LogicOr:
			op := "AND"
			if n.Op == opcode.LogicOr {
				op = "OR"
			}
			return &sqlparse.BoolExpr{Op: op, Args: []sqlparse.Node{c.expr(n.L), c.expr(n.R)}, Loc: loc}
		}
		return &sqlparse.AExpr{Kind: "op", Op: opName(n.Op), SqlcOp: sqlcOpName(n.Op), Left: c.expr(n.L), Right: c.expr(n.R), Loc: loc}
	case *ast.UnaryOperationExpr:
		c.unread++
		defer func() { c.unread-- }()
		switch n.Op {
		case opcode.Not, opcode.Not2:
			return &sqlparse.BoolExpr{Op: "NOT", Args: []sqlparse.Node{c.expr(n.V)}, Loc: loc, SqlcTODO: true}
		case opcode.Minus:
			if k, ok := c.expr(n.V).(*sqlparse.Const); ok && (k.Kind == "int" || k.Kind == "float") {
				k.Value = "-" + k.Value
				return k
			}
		}
		return &sqlparse.AExpr{Kind: "op", Op: opName(n.Op), SqlcOp: sqlcOpName(n.Op), Right: c.expr(n.V), Loc: loc, SqlcTODO: true}
	case *ast.PatternInExpr:
		if n.Sel != nil {
			sub, _ := n.Sel.(*ast.SubqueryExpr)
			sl := &sqlparse.SubLink{Kind: "ANY", Test: c.expr(n.Expr), Op: "=", Loc: loc}
			if sub != nil {
				sl.Query = c.resultSet(sub.Query)
			}
			if n.Not {
				return &sqlparse.BoolExpr{Op: "NOT", Args: []sqlparse.Node{sl}, Loc: loc}
			}
			return sl
		}
		kind := "in"
		if n.Not {
			kind = "not in"
		}
		op := "="
		if n.Not {
			op = "<>"
		}
		r := &sqlparse.RowExpr{Loc: loc}
		// sqlc v1.31.1 types a parameter that is an element of the
		// list by the column on the left (resolve.go's ast.In case), and
		// drops it when the left is neither a column nor a parameter:
		// LOWER(name) IN (?, ?) has no parameter in sqlc's method.
		left := unparen(n.Expr)
		_, col := left.(*ast.ColumnNameExpr)
		_, par := left.(*driver.ParamMarkerExpr)
		for _, v := range n.List {
			from := len(c.params)
			r.Args = append(r.Args, c.expr(v))
			if col || par {
				continue
			}
			// The parameters whose parent in sqlc's search is the IN:
			// the element itself, or one in a COALESCE that is it (a
			// COALESCE is no parent there).
			v = unparen(v)
			markDropped(c.params[from:], v, "IN")
		}
		return &sqlparse.AExpr{Kind: kind, Op: op, Left: c.expr(n.Expr), Right: r, Loc: loc}
	case *ast.BetweenExpr:
		kind := "between"
		if n.Not {
			kind = "not between"
		}
		from := len(c.params)
		out := &sqlparse.AExpr{Kind: kind, Op: "BETWEEN", Left: c.expr(n.Expr), Right: &sqlparse.RowExpr{Args: []sqlparse.Node{c.expr(n.Left), c.expr(n.Right)}, Loc: loc}, Loc: loc}
		if _, col := unparen(n.Expr).(*ast.ColumnNameExpr); !col {
			// sqlc v1.31.1 types the parameters whose parent is the
			// BETWEEN by the column it tests, and drops them when it
			// tests none (resolve.go's ast.BetweenExpr case).
			for _, e := range []ast.ExprNode{n.Expr, n.Left, n.Right} {
				markDropped(c.params[from:], e, "BETWEEN")
			}
		}
		return out
	case *ast.PatternLikeOrIlikeExpr:
		kind, op := "like", "~~"
		if !n.IsLike {
			kind, op = "ilike", "~~*"
		}
		if n.Not {
			op = "!" + op
		}
		return &sqlparse.AExpr{Kind: kind, Op: op, Left: c.expr(n.Expr), Right: c.expr(n.Pattern), Loc: loc}
	case *ast.PatternRegexpExpr:
		c.unread++
		defer func() { c.unread-- }()
		return &sqlparse.AExpr{Kind: "op", Op: "~", Left: c.expr(n.Expr), Right: c.expr(n.Pattern), Loc: loc, SqlcTODO: true}
	case *ast.IsNullExpr:
		return &sqlparse.NullTest{Arg: c.expr(n.Expr), Not: n.Not, Loc: loc}
	case *ast.IsTruthExpr:
		c.unread++
		defer func() { c.unread-- }()
		return &sqlparse.BooleanTest{Arg: c.expr(n.Expr), Loc: loc, SqlcTODO: true}
	case *ast.CaseExpr:
		ce := &sqlparse.Case{Arg: c.expr(n.Value), Else: c.expr(n.ElseClause), Loc: loc}
		for _, w := range n.WhenClauses {
			ce.Whens = append(ce.Whens, &sqlparse.When{Cond: c.expr(w.Expr), Result: c.expr(w.Result)})
		}
		return ce
	case *ast.SubqueryExpr:
		return &sqlparse.SubLink{Kind: "EXPR", Query: c.resultSet(n.Query), Loc: loc}
	case *ast.ExistsSubqueryExpr:
		sl := &sqlparse.SubLink{Kind: "EXISTS", Loc: loc}
		if sub, ok := n.Sel.(*ast.SubqueryExpr); ok {
			sl.Query = c.resultSet(sub.Query)
		}
		if n.Not {
			return &sqlparse.BoolExpr{Op: "NOT", Args: []sqlparse.Node{sl}, Loc: loc}
		}
		return sl
	case *ast.CompareSubqueryExpr:
		c.unread++
		defer func() { c.unread-- }()
		kind := "ANY"
		if n.All {
			kind = "ALL"
		}
		sl := &sqlparse.SubLink{Kind: kind, Test: c.expr(n.L), Op: opName(n.Op), Loc: loc, SqlcTODO: true}
		if sub, ok := n.R.(*ast.SubqueryExpr); ok {
			sl.Query = c.resultSet(sub.Query)
		}
		return sl
	case *ast.RowExpr:
		c.unread++
		defer func() { c.unread-- }()
		r := &sqlparse.RowExpr{Loc: loc, SqlcTODO: true}
		for _, v := range n.Values {
			r.Args = append(r.Args, c.expr(v))
		}
		return r
	case *ast.DefaultExpr:
		return &sqlparse.Default{Loc: loc}
	case *ast.FuncCastExpr:
		return &sqlparse.TypeCast{Arg: c.expr(n.Expr), Type: castType(n), Loc: loc}
	case *ast.AggregateFuncExpr:
		f := &sqlparse.FuncCall{Func: sqlparse.Name{Name: strings.ToLower(n.F), Loc: loc}, Distinct: n.Distinct, MySQLAggregate: true, Loc: loc}
		for _, a := range n.Args {
			// As sqlc reads TiDB's tree: an argument 1 (what TiDB
			// makes of COUNT(*)) is the star.
			if v, ok := a.(*driver.ValueExpr); ok && v.Kind() == driver.KindInt64 && v.GetInt64() == 1 {
				f.Star = true
				continue
			}
			f.Args = append(f.Args, c.expr(a))
		}
		if n.Order != nil {
			c.sqlcUnread(func() { f.AggOrder = c.orderBy(n.Order) })
		}
		f.ArgNames = make([]string, len(f.Args))
		return f
	case *ast.WindowFuncExpr:
		c.unread++
		defer func() { c.unread-- }()
		f := &sqlparse.FuncCall{Func: sqlparse.Name{Name: strings.ToLower(n.Name), Loc: loc}, Distinct: n.Distinct, Over: true, Loc: loc}
		for _, a := range n.Args {
			f.Args = append(f.Args, c.expr(a))
		}
		f.ArgNames = make([]string, len(f.Args))
		// The OVER clause's parameters are sent too (its typing is
		// not modelled: they are interface{}).
		f.Window = c.window(&n.Spec)
		return f
	case *ast.FuncCallExpr:
		return c.funcCall(n, loc)
	case *ast.SetCollationExpr, *ast.VariableExpr:
		// sqlc v1.31.1 reads neither x of x COLLATE c nor the value
		// assigned by @v := x (its VariableExpr keeps the name only).
		c.unread++
		defer func() { c.unread-- }()
	}
	return c.unknown(n, loc)
}

// paramCollector collects the ? of an unmodelled statement or
// expression, numbered with the others.
type paramCollector struct {
	c      *converter
	params []*sqlparse.Param
}

func (v *paramCollector) Enter(n ast.Node) (ast.Node, bool) {
	if f, ok := n.(*ast.FuncCallExpr); ok && strings.EqualFold(f.Schema.O, "sqlc") {
		// sqlc.arg(x) and its kin: named parameters here too.
		if p, ok := v.c.funcCall(f, v.c.exprLoc(f)).(*sqlparse.Param); ok {
			v.params = append(v.params, p)
		}
		return n, true
	}
	if p, ok := n.(*driver.ParamMarkerExpr); ok {
		sp := &sqlparse.Param{Loc: p.Offset, End: p.Offset + 1, SqlcUnread: v.c.unread > 0}
		v.c.params = append(v.c.params, sp)
		v.params = append(v.params, sp)
	}
	return n, false
}

func (v *paramCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// castType is the type of CAST(x AS t) as sqlc names it: TiDB's name of
// the field type without its character set (types.TypeStr: CAST AS CHAR
// is var_string), CAST AS SIGNED and UNSIGNED bigint (sqlc's "bigint
// signed" and "bigint unsigned", both int64).
func castType(n *ast.FuncCastExpr) *sqlparse.TypeName {
	return &sqlparse.TypeName{Schema: Schema, Name: types.TypeStr(n.Tp.GetType()), Loc: -1}
}

func (c *converter) funcCall(n *ast.FuncCallExpr, loc int) sqlparse.Node {
	name := n.FnName.L
	if strings.EqualFold(n.Schema.O, "sqlc") {
		switch name {
		case "arg", "narg", "slice":
			p := &sqlparse.Param{Nullable: name == "narg", Slice: name == "slice", Loc: loc, End: c.closingParen(loc), SqlcUnread: c.unread > 0}
			if len(n.Args) == 1 {
				switch a := n.Args[0].(type) {
				case *ast.ColumnNameExpr:
					p.Name = a.Name.Name.L // sqlc folds a bare name to lower case
				case *driver.ValueExpr:
					p.Name = a.GetString()
				}
			}
			if p.Name == "" {
				// A malformed sqlc.arg: left a call, which the analysis
				// refuses (mysqlFuncCall).
				break
			}
			c.params = append(c.params, p)
			return p
		case "embed":
			if len(n.Args) == 1 {
				if a, ok := n.Args[0].(*ast.ColumnNameExpr); ok {
					return &sqlparse.Embed{Table: a.Name.Name.L, Loc: loc, End: c.closingParen(loc)}
				}
			}
		}
	}
	var args []sqlparse.Node
	for _, a := range n.Args {
		args = append(args, c.expr(a))
	}
	switch name {
	case "coalesce":
		if n.Schema.O == "" {
			return &sqlparse.Coalesce{Args: args, Loc: loc}
		}
	}
	return &sqlparse.FuncCall{Func: sqlparse.Name{Schema: n.Schema.O, Name: name, Loc: loc}, Args: args, ArgNames: make([]string, len(args)), Loc: loc}
}

// unparen is n without the parentheses around it (sqlc's converter drops
// them).
func unparen(n ast.ExprNode) ast.ExprNode {
	for {
		p, ok := n.(*ast.ParenthesesExpr)
		if !ok {
			return n
		}
		n = p.Expr
	}
}

// isParam reports whether n is a ? or a sqlc.arg, sqlc.narg or
// sqlc.slice (a parameter in sqlc's tree).
func isParam(n ast.ExprNode) bool {
	switch n := n.(type) {
	case *driver.ParamMarkerExpr:
		return true
	case *ast.FuncCallExpr:
		return strings.EqualFold(n.Schema.O, "sqlc") && (n.FnName.L == "arg" || n.FnName.L == "narg" || n.FnName.L == "slice")
	}
	return false
}

// markDropped sets SqlcDropped to where on the parameter of ps that n
// is, when n is a parameter (isParam), or on those that are arguments of
// a COALESCE that n is (a COALESCE is no parent in sqlc's parameter
// search, find_params.go).
func markDropped(ps []*sqlparse.Param, n ast.ExprNode, where string) {
	n = unparen(n)
	if f, ok := n.(*ast.FuncCallExpr); ok && f.Schema.O == "" && f.FnName.L == "coalesce" {
		for _, a := range f.Args {
			markDropped(ps, a, where)
		}
		return
	}
	if !isParam(n) {
		return
	}
	at := -1
	switch n := n.(type) {
	case *driver.ParamMarkerExpr:
		at = n.Offset
	default:
		at = n.OriginTextPosition()
	}
	for _, p := range ps {
		if p.Loc == at {
			p.SqlcDropped = where
		}
	}
}
