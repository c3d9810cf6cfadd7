package analyze

// sqlc's naming and typing of a parameter inside a CASE (issue 23).
// sqlc v1.31.1 types a parameter by its nearest enclosing operator,
// function call, cast or select-list entry (internal/compiler
// find_params.go, the visitor's parent); a CASE, like AND, OR, NOT,
// COALESCE, IS NULL and a subquery, is none of them, so a parameter
// anywhere in a CASE (its operand, a WHEN, a THEN, the ELSE) is named
// and typed by what encloses the CASE (resolve.go):
//   - an operator (=, <, ||, IN, IS DISTINCT FROM, ...): the first column
//     reference in its left operand, else in its right one, the CASE's
//     own included; named after that column and nullable as it is; with
//     no column, text (nullable) for || and interface{} otherwise,
//     unnamed;
//   - a cast (CASE ... END::int): the cast's type, NOT NULL, unnamed;
//   - a function call: interface{}, unnamed (sqlc types the call's own
//     arguments only);
//   - a select-list or RETURNING entry AS alias: the column alias of the
//     statement's first table, named alias;
//   - nothing (WHERE CASE $1 WHEN ... END, INSERT ... VALUES (CASE ...)):
//     interface{}, unnamed.
// A named parameter keeps its name, and sqlc.narg stays nullable. An
// UPDATE's or ON CONFLICT's SET column is typed where SET is analysed
// (dml.go, sqlcAssignedParams). PostgreSQL's typing stays the
// parameter's Type, which postgresql_types declares.

import (
	"strings"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// sqlcParent is where sqlc's walk (find_params.go) finds a parameter.
type sqlcParent struct {
	// node is the nearest enclosing *AExpr, *FuncCall or *TypeCast, or
	// target the nearest select-list or SET entry; both nil for none.
	node   sqlparse.Node
	target *sqlparse.Target
	// viaCase is set when a CASE stands between node and the parameter.
	viaCase bool
}

// sqlcOperand is what sqlc types a parameter under operator n from
// (sqlcCaseParams): the first column reference either side, resolved
// where the operator is analysed (aexpr).
type sqlcOperand struct {
	done, hasRef, ok bool
	col              value
}

// findSqlcCaseParams records, for a PostgreSQL statement, the
// parameters whose first use as sqlc walks the statement stands in a
// CASE below its sqlc parent, and the operators among those parents,
// whose column aexpr resolves.
func (a *analyzer) findSqlcCaseParams() {
	selectList := map[*sqlparse.Target]bool{}
	first := map[int]bool{}
	inSqlcOrder(a.stmt.Node, sqlcParent{}, func(n any, s sqlcParent) sqlcParent {
		var list []*sqlparse.Target
		switch n := n.(type) {
		case *sqlparse.Select:
			list = n.Targets
		case *sqlparse.Insert:
			list = n.Returning
		case *sqlparse.Update:
			list = n.Returning
		case *sqlparse.Delete:
			list = n.Returning
		}
		for _, t := range list {
			selectList[t] = true
		}
		switch n := n.(type) {
		case *sqlparse.AExpr:
			return sqlcParent{node: n}
		case *sqlparse.FuncCall:
			return sqlcParent{node: n}
		case *sqlparse.TypeCast:
			return sqlcParent{node: n}
		case *sqlparse.Target:
			return sqlcParent{target: n}
		case *sqlparse.Case:
			s.viaCase = true
		case *sqlparse.Param:
			if first[n.Number] {
				break
			}
			first[n.Number] = true
			if !s.viaCase {
				break
			}
			if s.target != nil && !selectList[s.target] {
				break // SET: dml.go
			}
			if a.sqlcCaseParents == nil {
				a.sqlcCaseParents = map[int]sqlcParent{}
			}
			a.sqlcCaseParents[n.Number] = s
			if op, ok := s.node.(*sqlparse.AExpr); ok {
				if a.sqlcOperands == nil {
					a.sqlcOperands = map[*sqlparse.AExpr]*sqlcOperand{}
				}
				a.sqlcOperands[op] = &sqlcOperand{}
			}
		}
		return s
	})
}

// resolveSqlcOperand resolves, for an operator findSqlcCaseParams
// recorded, the column sqlc types its CASE's parameters from.
func (a *analyzer) resolveSqlcOperand(sc *scope, n *sqlparse.AExpr) {
	o := a.sqlcOperands[n]
	if o == nil || o.done {
		return
	}
	o.done = true
	o.hasRef = sqlcFirstRef(n) != nil
	o.col, o.ok = a.sqlcFirstColumn(sc, n)
}

// typeSqlcCaseParams names and types the parameters findSqlcCaseParams
// recorded as sqlc does (see the top of this file). A parameter whose
// parent sqlc cannot resolve (a column it does not find, an operator the
// analysis did not reach) keeps fencegen's typing.
func (a *analyzer) typeSqlcCaseParams() {
	for num, s := range a.sqlcCaseParents {
		p := a.params[num]
		if p == nil {
			continue
		}
		name, sq, ok := a.sqlcCaseTyping(s)
		if !ok {
			continue
		}
		if !p.Named {
			p.Name = name
		}
		p.Sqlc, p.SqlcUntyped = nil, sq.Any
		sq.NotNull = sq.NotNull && !p.forceNull
		if !p.Known && !sq.Any {
			// Nothing else types it (MySQL's CASE ? WHEN ...): sqlc's
			// type is the parameter's.
			p.Type, p.Known, p.NotNull, p.Column = sq.Type, true, sq.NotNull, sq.Column
			continue
		}
		if !sq.Any && (sq.Type != p.Type || sq.NotNull != p.NotNull || sq.Column != p.Column) {
			p.Sqlc = &sq
		}
	}
}

// sqlcCaseTyping is the name and typing sqlc gives a parameter in a
// CASE under parent s; ok is false where fencegen's typing stands.
func (a *analyzer) sqlcCaseTyping(s sqlcParent) (string, SqlcType, bool) {
	anyType := SqlcType{Any: true}
	if t := s.target; t != nil {
		tb := a.sqlcDefaultTable()
		if t.Name == "" || tb == nil {
			return "", SqlcType{}, false // sqlc refuses the query
		}
		c := tb.Column(t.Name)
		if c == nil {
			return "", SqlcType{}, false
		}
		return c.Name, SqlcType{Type: c.Type, NotNull: c.SqlcNotNull(), Column: c}, true
	}
	switch n := s.node.(type) {
	case nil:
		return "", anyType, true
	case *sqlparse.AExpr:
		o := a.sqlcOperands[n]
		switch {
		case o == nil || !o.done:
			return "", SqlcType{}, false
		case a.opts.MySQL && (strings.HasSuffix(n.Kind, "in") || strings.HasSuffix(n.Kind, "between")):
			// sqlc's MySQL reading has IN and BETWEEN nodes of their
			// own (In, BetweenExpr), typed by rules of their own.
			return "", SqlcType{}, false
		case o.ok:
			return o.col.Name, *sqlcColumnParam(o.col), true
		case o.hasRef:
			return "", SqlcType{}, false
		case n.Op == "||":
			t := builtin("text")
			return "", SqlcType{Type: t, Column: spelled(nil, t, false, "text")}, true
		}
		return "", anyType, true
	case *sqlparse.TypeCast:
		t, ok := a.cat.ResolveType(n.Type)
		if !ok {
			return "", SqlcType{}, false
		}
		return "", SqlcType{Type: t, NotNull: true, Column: spelled(nil, t, true, typeSpelling(n.Type))}, true
	case *sqlparse.FuncCall:
		for _, fn := range a.cat.Funcs(n.Func.Schema, n.Func.Name) {
			if fn.ReturnType == nil || a.cat.Table(fn.ReturnType.Schema, fn.ReturnType.Name) != nil {
				// A function returning rows of a table: sqlc reads
				// the table's columns and drops the parameter.
				return "", SqlcType{}, false
			}
		}
		return "", anyType, true
	}
	return "", SqlcType{}, false
}

// sqlcDefaultTable is the table sqlc names a select-list parameter's
// column in (resolve.go's defaultTable): the first table of the
// catalog the statement names, as sqlc walks it; nil for none.
func (a *analyzer) sqlcDefaultTable() *catalog.Table {
	switch n := a.stmt.Node.(type) {
	case *sqlparse.Insert:
		return a.cat.Table(n.Table.Schema, n.Table.Name)
	case *sqlparse.Update:
		return a.cat.Table(n.Table.Schema, n.Table.Name)
	case *sqlparse.Delete:
		return a.cat.Table(n.Table.Schema, n.Table.Name)
	}
	var t *catalog.Table
	inSqlcOrder(a.stmt.Node, struct{}{}, func(n any, s struct{}) struct{} {
		if rv, ok := n.(*sqlparse.RangeVar); ok && t == nil {
			t = a.cat.Table(rv.Name.Schema, rv.Name.Name)
		}
		return s
	})
	return t
}
