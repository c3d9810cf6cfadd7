package analyze

// sqlc's naming and typing of a parameter by its parent (issue 23).
// sqlc v1.31.1 types a parameter by its nearest enclosing operator,
// function call, cast or select-list entry (internal/compiler
// find_params.go, the visitor's parent), the first use of each number
// in its walk deciding; a CASE, like AND, OR, NOT, COALESCE, GREATEST
// and LEAST (on PostgreSQL), IS NULL, a row and a subquery, is none of
// them, so a parameter anywhere under one is named and typed by what
// encloses it (resolve.go):
//   - an operator (=, <, ||, IN, BETWEEN, = ANY, IS DISTINCT FROM, ...):
//     the first column reference in its left operand, else in its right
//     one (a subquery's included), looked up by name in every table the
//     statement names (not a CTE: sqlcLookup); named after that column
//     and typed and nullable as it is ($1 = ANY(tags) is tags []string,
//     length(title) IN ($1, $2) title and title_2 string); with no
//     column, text (nullable) for || and interface{} otherwise,
//     unnamed; where the lookup fails sqlc refuses the query, and
//     fencegen's typing stands;
//   - a cast (CASE ... END::int, ARRAY[$1, $2]::text[]): the cast's
//     type, NOT NULL, unnamed;
//   - a function call it is no direct argument of: interface{}, unnamed
//     (sqlc types the call's own arguments only);
//   - a select-list or RETURNING entry AS alias: the column alias of the
//     statement's first table, named alias; a SET entry: its column;
//   - the number of the enclosing SELECT's LIMIT or OFFSET: limit or
//     offset, integer NOT NULL, wherever else the number is used;
//   - nothing (WHERE CASE $1 WHEN ... END, WHERE NOT $1, VALUES
//     (coalesce($1, 0))): interface{}, unnamed.
// A named parameter keeps its name, and sqlc.narg stays nullable. A
// direct argument of a call, a cast, an INSERT's value and an UPDATE's
// SET value keep the rules of their own analysis (funcs.go, expr.go,
// dml.go). On MySQL (sqlc's dolphin converter) IN and BETWEEN are nodes
// with rules of their own and VALUES(col) holds no column; there the
// operator rule applies to an unnamed parameter outside a CASE, and the
// CASE rules as before. PostgreSQL's typing stays the parameter's Type,
// which postgresql_types declares.

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
	// swallowed is set below an operand sqlc reads as @(x) (swallowedParam):
	// its @name parameter is typed by sqlcSwallowed, not here.
	swallowed bool
	// limit and offset are the numbers of the parameters that are the
	// enclosing SELECT's LIMIT and OFFSET, 0 for none: sqlc types every
	// use of those numbers below it as the LIMIT or OFFSET.
	limit, offset int
	// clause is "limit" or "offset" for a parameter sqlc types as the
	// LIMIT or OFFSET, and set is the table of a SET entry's column (an
	// UPDATE's, or an INSERT's for ON CONFLICT DO UPDATE SET).
	clause string
	set    *catalog.Table
}

// sqlcOperand is what sqlc types a parameter under operator n from
// (sqlcCaseParams): the first column reference either side, resolved
// where the operator is analysed (aexpr).
type sqlcOperand struct {
	done, hasRef, ok bool
	col              value
}

// findSqlcCaseParams records, for a PostgreSQL statement, the
// parameters sqlc v1.31.1 names and types by its parent (see the top of
// this file) rather than by a rule fencegen's analysis follows itself:
// those whose first use as sqlc walks the statement stands in a CASE
// below its parent, and those whose parent is an operator, a function
// call they are no direct argument of, a select-list entry or nothing.
// A direct argument of a call and a cast are typed where they are
// analysed (funcs.go, expr.go); an INSERT's value and an UPDATE's SET
// value, which sqlc reads before the rest (find_params.go's InsertStmt
// and UpdateStmt), in dml.go; a LIMIT and OFFSET in select.go. It
// records the operators among the parents, whose column aexpr resolves.
func (a *analyzer) findSqlcCaseParams() {
	selectList := map[*sqlparse.Target]bool{}
	setTable := map[*sqlparse.Target]*catalog.Table{}
	first := map[int]bool{}
	direct := map[*sqlparse.Param]bool{}
	firstUse := func(p *sqlparse.Param) {
		if a.opts.MySQL {
			return
		}
		if a.sqlcFirstUse == nil {
			a.sqlcFirstUse = map[int]*sqlparse.Param{}
		}
		if a.sqlcFirstUse[p.Number] == nil {
			a.sqlcFirstUse[p.Number] = p
		}
	}
	inSqlcOrder(a.stmt.Node, sqlcParent{}, func(n any, s sqlcParent) sqlcParent {
		var list []*sqlparse.Target
		if p, ok := n.(*sqlparse.Param); ok && !a.opts.MySQL && a.sqlcFirstUse[p.Number] == nil {
			// sqlc reads a sqlc.slice as one value where its first use's
			// parent is a cast, a LIMIT or OFFSET, or nothing
			// (resolve.go's TypeCast, limitCount, limitOffset and
			// default branches set no IsSqlcSlice): sqlcSlice.
			_, cast := s.node.(*sqlparse.TypeCast)
			if p.Slice && (cast || p.Number == s.limit || p.Number == s.offset || s.node == nil && s.target == nil) {
				if a.sqlcNotSlice == nil {
					a.sqlcNotSlice = map[int]bool{}
				}
				a.sqlcNotSlice[p.Number] = true
			}
			firstUse(p)
		}
		switch n := n.(type) {
		case *sqlparse.Select:
			list = n.Targets
			if p, ok := n.Limit.(*sqlparse.Param); ok {
				s.limit = p.Number
			}
			if p, ok := n.Offset.(*sqlparse.Param); ok {
				s.offset = p.Number
			}
			// LIMIT @n - 1: sqlc's parameter is the whole operand.
			if x, ok := n.Limit.(*sqlparse.AExpr); ok && a.swallowers[x] != nil {
				s.limit = a.swallowers[x].Number
			}
			if x, ok := n.Offset.(*sqlparse.AExpr); ok && a.swallowers[x] != nil {
				s.offset = a.swallowers[x].Number
			}
		case *sqlparse.Insert:
			list = n.Returning
			if tb := a.cat.Table(n.Table.Schema, n.Table.Name); tb != nil && n.OnConflict != nil {
				for _, t := range n.OnConflict.Set {
					setTable[t] = tb
				}
			}
			// sqlc reads an INSERT's parameter values (VALUES, or the
			// select list of INSERT ... SELECT) before anything else,
			// as the column each is inserted into.
			if sel := n.Select; sel != nil {
				rows := sel.Values
				if len(rows) == 0 && sel.SetOp == "" {
					var row []sqlparse.Node
					for _, t := range sel.Targets {
						row = append(row, t.Expr)
					}
					rows = [][]sqlparse.Node{row}
				}
				for _, row := range rows {
					for _, e := range row {
						if p, ok := e.(*sqlparse.Param); ok {
							first[p.Number] = true
							firstUse(p)
						} else if x, ok := e.(*sqlparse.AExpr); ok && a.swallowers[x] != nil {
							first[a.swallowers[x].Number] = true // dml.go
						}
					}
				}
			}
		case *sqlparse.Update:
			list = n.Returning
			if tb := a.cat.Table(n.Table.Schema, n.Table.Name); tb != nil {
				for _, t := range n.Set {
					setTable[t] = tb
				}
			}
			for _, t := range n.Set {
				if p, ok := t.Expr.(*sqlparse.Param); ok {
					first[p.Number] = true
					firstUse(p)
				}
			}
		case *sqlparse.Delete:
			list = n.Returning
		}
		for _, t := range list {
			selectList[t] = true
		}
		var swallowed *sqlparse.Param
		switch n := n.(type) {
		case *sqlparse.AExpr:
			if !a.opts.MySQL && a.swallowedParam(n) != nil {
				// sqlc reads @x - 1 as the prefix operator @ over x - 1
				// and puts the parameter in place of that whole operand
				// (findSwallowed): it is typed here, by the operand's
				// parent, as a parameter standing there; below an
				// operator sqlcSwallowed types it.
				if p := a.swallowers[n]; p != nil && !s.swallowed && !sqlcSwallowedParent(s, n) {
					swallowed = p
				}
				s.swallowed = true
				if swallowed == nil {
					return s
				}
				break
			}
			return sqlcParent{node: n, limit: s.limit, offset: s.offset}
		case *sqlparse.FuncCall:
			for _, x := range n.Args {
				if p, ok := x.(*sqlparse.Param); ok {
					direct[p] = true
				} else if x, ok := x.(*sqlparse.AExpr); ok && a.swallowers[x] != nil {
					direct[a.swallowers[x]] = true // funcs.go
				}
			}
			return sqlcParent{node: n, limit: s.limit, offset: s.offset}
		case *sqlparse.TypeCast:
			if p, ok := n.Arg.(*sqlparse.Param); ok {
				direct[p] = true
			}
			return sqlcParent{node: n, limit: s.limit, offset: s.offset}
		case *sqlparse.Target:
			return sqlcParent{target: n, limit: s.limit, offset: s.offset, set: setTable[n]}
		case *sqlparse.Case:
			s.viaCase = true
		}
		record := func(n *sqlparse.Param, s sqlcParent) {
			if first[n.Number] {
				return
			}
			first[n.Number] = true
			if n.SqlcUnread {
				return // MySQL: sqlc does not read it (mysql.go)
			}
			switch {
			case a.opts.MySQL:
				// MySQL's LIMIT: select.go; a SET entry: dml.go.
				s.set = nil
			case n.Number == s.limit:
				s.clause = "limit"
			case n.Number == s.offset:
				s.clause = "offset"
			}
			if s.clause == "" {
				if s.target != nil && !selectList[s.target] && (s.set == nil || !sqlcSetEntry(s.target)) {
					return // dml.go
				}
				if !s.viaCase && !a.sqlcParentTypes(s, direct[n]) {
					return
				}
				if !s.viaCase && a.opts.MySQL && n.Name != "" {
					// A MySQL named parameter is one ? per use, whose
					// typings sqlc merges (an untyped use gives way):
					// typeParam.
					return
				}
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
		switch n := n.(type) {
		case *sqlparse.Param:
			if !s.swallowed {
				record(n, s)
			} else {
				first[n.Number] = true // sqlcSwallowed, or above
			}
		case *sqlparse.AExpr:
			if swallowed != nil {
				// The operand's parameter, where the operand stands.
				ps := s
				ps.swallowed = false
				record(swallowed, ps)
			}
		}
		return s
	})
}

// sqlcSetEntry reports whether SET entry t is one sqlc types its
// parameters by as a column (find_params.go's ResTarget): not a
// composite's field (SET c.f = ...) nor one of a row's (SET (a, b) =
// (...)), which dml.go types.
func sqlcSetEntry(t *sqlparse.Target) bool {
	if len(t.Fields) > 0 {
		return false
	}
	_, row := t.Expr.(*sqlparse.RowExpr)
	return !row
}

// sqlcParentTypes reports whether a parameter not in a CASE, whose
// sqlc parent is s, is named and typed by that parent here: on
// PostgreSQL, when the parent is an operator, a call p is no direct
// argument of (directArg), a select-list entry, or nothing.
func (a *analyzer) sqlcParentTypes(s sqlcParent, directArg bool) bool {
	if a.opts.MySQL {
		// MySQL (sqlc's dolphin converter): an operator other than IN
		// and BETWEEN, which are nodes of their own there (In,
		// BetweenExpr), and not one it leaves unread (ast.TODO). A
		// COALESCE is no parent, as on PostgreSQL; GREATEST and LEAST
		// are calls.
		e, ok := s.node.(*sqlparse.AExpr)
		if !ok || s.target != nil || e.SqlcTODO {
			return false
		}
		switch e.Kind {
		case "in", "not in", "between", "not between":
			return false
		}
		return true
	}
	if s.target != nil {
		return true
	}
	switch s.node.(type) {
	case *sqlparse.AExpr, nil:
		return true
	case *sqlparse.FuncCall, *sqlparse.TypeCast:
		// A cast's own argument is typed in expr.go; one below it in
		// what is no parent for sqlc (ARRAY[$1]::text[], a row) takes
		// the cast's type (find_params.go's TypeCast parent).
		return !directArg
	}
	return false
}

// resolveSqlcOperand resolves, for an operator findSqlcCaseParams
// recorded, the column sqlc types its parameters from: the first column
// reference in its left operand, else in its right one, looked up by
// name in every table the statement names (sqlcLookup), as sqlc's
// resolveCatalogRefs looks it up, not in the scope it stands in.
func (a *analyzer) resolveSqlcOperand(n *sqlparse.AExpr) {
	o := a.sqlcOperands[n]
	if o == nil || o.done {
		return
	}
	o.done = true
	ref := sqlcFirstRef(n)
	if a.opts.MySQL {
		ref = mysqlSqlcFirstRef(n)
	}
	o.hasRef = ref != nil
	if ref == nil {
		return
	}
	tables, aliases := a.sqlcStatementTables()
	col, _, ok := sqlcLookup(ref, tables, aliases)
	if !ok || col == nil {
		return // sqlc refuses the query
	}
	o.col = columnValue(col)
	o.col.Name = ref.Fields[len(ref.Fields)-1]
	o.ok = true
}

// mysqlSqlcFirstRef is sqlcFirstRef as sqlc reads a MySQL operator:
// what its converter leaves unread (ast.TODO: VALUES(col) of ON
// DUPLICATE KEY UPDATE, the nodes marked SqlcTODO) holds no column.
func mysqlSqlcFirstRef(n *sqlparse.AExpr) *sqlparse.ColumnRef {
	var ref *sqlparse.ColumnRef
	for _, side := range []sqlparse.Node{n.Left, n.Right} {
		walkPruned(side, func(x sqlparse.Node) bool {
			if ref != nil || sqlparse.IsSqlcTODO(x) {
				return false
			}
			if f, ok := x.(*sqlparse.FuncCall); ok && f.Func.Schema == "" && strings.EqualFold(f.Func.Name, "values") {
				return false
			}
			if cr, ok := x.(*sqlparse.ColumnRef); ok && cr.Fields[len(cr.Fields)-1] != "*" {
				ref = cr
			}
			return true
		})
	}
	return ref
}

// sqlcColumnTyping is how sqlc types a parameter after column c: as the
// column, or a view's column as sqlc types it (catalog.Column.Sqlc).
func sqlcColumnTyping(c *catalog.Column) SqlcType {
	if t := c.Sqlc; t != nil {
		return SqlcType{Type: t.Type, NotNull: t.NotNull, Any: t.Any, Column: c}
	}
	return SqlcType{Type: c.Type, NotNull: c.SqlcNotNull(), Column: c}
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
		if a.sqlcSlice(p) {
			// sqlc.slice(x): a slice of what x is compared with, of its
			// nullability (SqlcType.Slice).
			sq.NotNull = sq.NotNull && !p.forceNull
			sq.Slice = true
			p.Sqlc, p.SqlcUntyped = &sq, false
			if !p.Known {
				p.Type, p.Known, p.NotNull = sq.Type, true, sq.NotNull
				p.Type.ArrayDims++
			}
			continue
		}
		if sq.Any {
			// interface{} for sqlc; PostgreSQL's typing, if any, stays
			// the parameter's, which postgresql_types declares.
			p.Sqlc = nil
			if p.Known && !p.SqlcUntyped {
				p.Sqlc = &sq
			}
			continue
		}
		p.Sqlc, p.SqlcUntyped = nil, false
		sq.NotNull = sq.NotNull && !p.forceNull
		if p.Slice && !sq.Any && sq.Type.ArrayDims == 0 {
			// sqlc.slice(x): a slice of what x is compared with.
			sq.Type.ArrayDims = 1
			sq.Column = nil
		}
		if !p.Known {
			// Nothing else types it (MySQL's CASE ? WHEN ...): sqlc's
			// type is the parameter's.
			p.Type, p.Known, p.NotNull, p.Column = sq.Type, true, sq.NotNull, sq.Column
			continue
		}
		if sq.Type != p.Type || sq.NotNull != p.NotNull || sq.Column != p.Column {
			p.Sqlc = &sq
		}
	}
}

// sqlcCaseTyping is the name and typing sqlc gives a parameter in a
// CASE under parent s; ok is false where fencegen's typing stands.
func (a *analyzer) sqlcCaseTyping(s sqlcParent) (string, SqlcType, bool) {
	anyType := SqlcType{Any: true}
	if s.clause != "" {
		// find_params.go's limitCount and limitOffset: "integer", NOT
		// NULL, named after the clause.
		t := builtin("int4")
		return s.clause, SqlcType{Type: t, NotNull: true, Column: spelled(nil, t, true, "integer")}, true
	}
	if t := s.target; t != nil && s.set != nil {
		c := s.set.Column(t.Name)
		if c == nil {
			return "", SqlcType{}, false
		}
		return c.Name, sqlcColumnTyping(c), true
	}
	if t := s.target; t != nil {
		tb := a.sqlcDefaultTable()
		if t.Name == "" || tb == nil {
			return "", SqlcType{}, false // sqlc refuses the query
		}
		c := tb.Column(t.Name)
		if c == nil {
			return "", SqlcType{}, false
		}
		return c.Name, sqlcColumnTyping(c), true
	}
	switch n := s.node.(type) {
	case nil:
		return "", anyType, true
	case *sqlparse.AExpr:
		o := a.sqlcOperands[n]
		if o != nil {
			a.resolveSqlcOperand(n)
		}
		switch {
		case o == nil || !o.done:
			return "", SqlcType{}, false
		case a.opts.MySQL && (strings.HasSuffix(n.Kind, "in") || strings.HasSuffix(n.Kind, "between")):
			// sqlc's MySQL reading has IN and BETWEEN nodes of their
			// own (In, BetweenExpr), typed by rules of their own.
			return "", SqlcType{}, false
		case o.ok:
			return o.col.Name, sqlcColumnTyping(o.col.Column), true
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

// swallowedParam is the @name parameter of an operand sqlc's parser
// reads as @(e): e an arithmetic operator (swallowedOps) whose leftmost
// operand, through such operators, is a parameter written @name in the
// query's text (sqlcSwallowed); nil for any other e.
func (a *analyzer) swallowedParam(e *sqlparse.AExpr) *sqlparse.Param {
	for x := sqlparse.Node(e); ; {
		op, ok := x.(*sqlparse.AExpr)
		if !ok || op.Left == nil || op.Kind != "op" || !swallowedOps[op.Op] {
			return nil
		}
		if p, ok := op.Left.(*sqlparse.Param); ok {
			if p.Loc < len(a.file.Src) && a.file.Src[p.Loc] == '@' {
				return p
			}
			return nil
		}
		x = op.Left
	}
}

// sqlcSwallowedParent reports whether sqlcSwallowed types the parameter
// of operand x (one sqlc reads as @(x)) under parent s: x is an operand
// of s's operator, which is no arithmetic one.
func sqlcSwallowedParent(s sqlcParent, x *sqlparse.AExpr) bool {
	n, ok := s.node.(*sqlparse.AExpr)
	if !ok || s.viaCase || s.target != nil || n.Left != x && n.Right != x {
		return false
	}
	return n.Kind == "op" && !(sqlcMathOps[n.Op] && n.Op != "||" && !sqlcComparisonOps[n.Op])
}
