package analyze

// sqlc's naming and typing of a MySQL parameter beside a subquery. sqlc
// v1.31.1 types a parameter by its nearest enclosing operator, function
// call, cast or select-list entry (find_params.go's parent), and for an
// operator by the first column reference in its left operand, else in
// its right one, searched through the whole operand, a subquery's select
// list, FROM and WHERE included (resolve.go's A_Expr, astutils.Search).
// It looks that column up in every table the statement names, not in
// the scope the reference stands in (sqlcStatementTables), and types the
// parameter as the column itself, with the column's own nullability:
//
//	(SELECT COALESCE(SUM(i.size), 0) FROM items i ...) <= ?   size, the column's type
//	(SELECT i.name FROM items i ... LIMIT 1) = ?               name, NOT NULL if the column is
//	(SELECT COUNT(*) FROM owners) > ?                          no column: dollar_1 interface{}
//
// A parameter tested by IN (SELECT ...) with no enclosing operator,
// call, cast or list entry (WHERE ? IN (SELECT ...), also under AND, OR
// and NOT) has no parent at all in sqlc's walk (its In node sets none
// when it holds a subquery): interface{}, unnamed. Where sqlc's lookup
// fails (no such column, an ambiguous one), sqlc refuses the query and
// fencegen's typing stands.

import (
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// typeSqlcSubqueryParams names and types, for a MySQL statement, the
// parameters that are an operand of an operator whose other operand
// holds a subquery, and those tested by a parentless IN (SELECT ...), as
// sqlc does (see the top of this file).
func (a *analyzer) typeSqlcSubqueryParams() {
	if !a.opts.MySQL {
		return
	}
	type state struct {
		parent sqlparse.Node // sqlc's parent, nil for none
		direct any           // the node immediately above
	}
	first := map[int]bool{}
	type typing struct {
		name string
		sq   SqlcType
	}
	found := map[int]typing{}
	var tables []sqlcTableRef
	var aliases map[string]*catalog.Table
	loaded := false
	inSqlcOrder(a.stmt.Node, state{}, func(n any, s state) state {
		next := state{parent: s.parent, direct: n}
		switch n := n.(type) {
		case *sqlparse.AExpr, *sqlparse.FuncCall, *sqlparse.TypeCast, *sqlparse.Coalesce, *sqlparse.MinMax:
			next.parent = n.(sqlparse.Node)
		case *sqlparse.Target:
			// A list entry is a parent of its own; recorded as a
			// non-operator so that nothing under it is retyped here.
			next.parent = targetParent{n}
		case *sqlparse.Param:
			if first[n.Number] {
				break
			}
			first[n.Number] = true
			var t typing
			switch {
			case s.parent == nil:
				sl, ok := s.direct.(*sqlparse.SubLink)
				if !ok || sl.Kind != "ANY" || sl.Op != "=" || sl.SqlcTODO || sl.Test != sqlparse.Node(n) {
					return next
				}
				t = typing{sq: SqlcType{Any: true}}
			default:
				e, ok := s.parent.(*sqlparse.AExpr)
				if !ok || e.SqlcTODO || e.Left != sqlparse.Node(n) && e.Right != sqlparse.Node(n) {
					return next
				}
				switch e.Kind {
				case "in", "not in", "between", "not between", "any", "all", "nullif":
					return next
				}
				if !holdsSubquery(e.Left) && !holdsSubquery(e.Right) || holdsSqlcTODO(e) {
					return next
				}
				ref, star := sqlcSearchRef(e.Left)
				if ref == nil && !star {
					ref, star = sqlcSearchRef(e.Right)
				}
				if star {
					return next
				}
				if ref == nil {
					t = typing{sq: SqlcType{Any: true}}
					break
				}
				if !loaded {
					tables, aliases = a.sqlcStatementTables()
					loaded = true
				}
				col, _, ok := sqlcLookup(ref, tables, aliases)
				if !ok || col == nil {
					return next // sqlc refuses the query
				}
				t = typing{name: ref.Fields[len(ref.Fields)-1], sq: SqlcType{Type: col.Type, NotNull: col.SqlcNotNull(), Column: col}}
			}
			found[n.Number] = t
		}
		return next
	})
	for num, t := range found {
		p := a.params[num]
		if p == nil {
			continue
		}
		if !p.Named {
			p.Name = t.name
		}
		sq := t.sq
		p.Sqlc, p.SqlcUntyped = nil, sq.Any
		sq.NotNull = sq.NotNull && !p.forceNull
		if !p.Known && !sq.Any {
			p.Type, p.Known, p.NotNull, p.Column, p.DBType = sq.Type, true, sq.NotNull, sq.Column, sq.Column.DBType
			continue
		}
		if !sq.Any && (sq.Type != p.Type || sq.NotNull != p.NotNull || sq.Column != p.Column) {
			p.Sqlc = &sq
		}
	}
}

// targetParent stands for a select-list or SET entry as sqlc's parent.
type targetParent struct{ *sqlparse.Target }

func (t targetParent) Pos() int { return t.Loc }

// holdsSubquery reports whether e holds a subquery.
func holdsSubquery(e sqlparse.Node) bool {
	found := false
	walk(e, func(n sqlparse.Node) {
		if _, ok := n.(*sqlparse.SubLink); ok {
			found = true
		}
	})
	return found
}

// holdsSqlcTODO reports whether e holds an expression sqlc's MySQL
// converter does not read (an ast.TODO, whose inside sqlc never sees).
func holdsSqlcTODO(e sqlparse.Node) bool {
	found := false
	walk(e, func(n sqlparse.Node) {
		found = found || sqlparse.IsSqlcTODO(n)
	})
	return found
}

// sqlcSearchRef is the first column reference under e in sqlc's walk
// order (astutils.Search), nil for none; star is set when that first
// reference is a t.* (which sqlc's lookup does not read as fencegen
// does).
func sqlcSearchRef(e sqlparse.Node) (ref *sqlparse.ColumnRef, star bool) {
	if e == nil {
		return nil, false
	}
	inSqlcOrder(e, struct{}{}, func(n any, s struct{}) struct{} {
		if r, ok := n.(*sqlparse.ColumnRef); ok && ref == nil && !star {
			if r.Fields[len(r.Fields)-1] == "*" {
				star = true
			} else {
				ref = r
			}
		}
		return s
	})
	return ref, star
}
