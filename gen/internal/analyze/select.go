package analyze

// SELECT, WITH and set operations (PostgreSQL docs, 7.2-7.8).

import (
	"fmt"
	"strconv"

	"github.com/fencegen/fencegen/gen/internal/catalog"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

func (a *analyzer) with(sc *scope, w *sqlparse.With) {
	if w == nil {
		return
	}
	if sc.ctes == nil {
		sc.ctes = map[string]*rel{}
	}
	// The WITH entry this clause is inside, if any: a write's own WITH
	// clause (WITH w AS (WITH src AS (...) UPDATE ...)) must not make the
	// analyser forget that the write is entry w.
	outer := a.currentCTE
	if !w.Recursive {
		// An entry referenced before its definition ends (by itself, or
		// by an earlier one): lookupRel.
		if a.pendingCTEs == nil {
			a.pendingCTEs = map[string]int{}
		}
		for _, cte := range w.CTEs {
			a.pendingCTEs[cte.Name]++
		}
	}
	for _, cte := range w.CTEs {
		r := &rel{name: cte.Name}
		var cols []*Column
		switch q := cte.Query.(type) {
		case *sqlparse.Select:
			if w.Recursive && q.SetOp != "" {
				// Type a recursive CTE from its non-recursive term.
				cols = a.selectCols(q.Left, &scope{parent: sc.parent, ctes: sc.ctes})
				sc.ctes[cte.Name] = colsRel(cte.Name, cols, cte.Columns)
				a.selectCols(q.Right, &scope{parent: sc.parent, ctes: sc.ctes})
			} else {
				cols = a.sqlcValues(q, a.selectCols(q, &scope{parent: sc.parent, ctes: sc.ctes}))
			}
		case *sqlparse.Insert:
			a.currentCTE = cte.Name
			cols = a.insert(sc, q, nil)
		case *sqlparse.Update:
			a.currentCTE = cte.Name
			cols = a.update(sc, q, nil)
		case *sqlparse.Delete:
			a.currentCTE = cte.Name
			cols = a.delete(sc, q, nil)
		}
		a.currentCTE = outer
		if !w.Recursive {
			a.pendingCTEs[cte.Name]--
		}
		r = colsRel(cte.Name, cols, cte.Columns)
		r.cols = append(r.cols, a.searchCycleCols(sc, cte)...)
		// A CTE is not its base table: a star over it gets a row struct
		// of its own (as in sqlc), never the table's model. sqlc's column
		// overrides match a CTE's column as a column of a table named
		// after the CTE, in the default schema, under the CTE's column
		// name (its query catalog sets each column's table to the CTE):
		// "cte.id" and "*.id" apply to it, "bar.id" of the table it reads
		// does not.
		cteTable := &catalog.Table{Name: cte.Name}
		for i := range r.cols {
			c := &r.cols[i]
			if sq := sqlcOf(*c); !sq.Any && !informationSchema(sq.Column) {
				col := &catalog.Column{Name: c.Name, Type: sq.Type, NotNull: sq.NotNull, Table: cteTable}
				if sq.Column != nil {
					col.DBType = sq.Column.DBType
				}
				c.sqlc = &SqlcType{Type: sq.Type, NotNull: sq.NotNull, Column: col, CTE: true}
				a.cteColumns = append(a.cteColumns, col)
			}
			c.Column = nil
		}
		sc.ctes[cte.Name] = r
	}
}

// searchCycleCols are the columns a recursive CTE's SEARCH and CYCLE
// clauses add to its own, in that order (PostgreSQL docs, 7.8.2.1
// "Search Order" and 7.8.2.2 "Cycle Detection"): SEARCH's sequence
// column, a record for BREADTH FIRST and an array of records for DEPTH
// FIRST; CYCLE's mark, boolean unless TO and DEFAULT give its values
// (then their common type), and its path, an array of records. PostgreSQL
// sets each of them on every row.
func (a *analyzer) searchCycleCols(sc *scope, cte *sqlparse.CTE) []value {
	var out []value
	if s := cte.Search; s != nil {
		t := builtin("record")
		if !s.BreadthFirst {
			t.ArrayDims = 1
		}
		out = append(out, value{Name: s.Column, Type: t, NotNull: true, Known: true})
	}
	if c := cte.Cycle; c != nil {
		mark := value{Type: builtin("bool"), NotNull: true, Known: true}
		if c.MarkValue != nil {
			es := []sqlparse.Node{c.MarkValue, c.MarkDefault}
			t, ok := a.commonType(es, []value{a.expr(sc, es[0]), a.expr(sc, es[1])})
			mark = value{Type: t, NotNull: true, Known: ok}
		}
		mark.Name = c.Mark
		path := builtin("record")
		path.ArrayDims = 1
		out = append(out, mark, value{Name: c.Path, Type: path, NotNull: true, Known: true})
	}
	return out
}

func colsRel(name string, cols []*Column, aliases []string) *rel {
	r := &rel{name: name}
	for i, c := range cols {
		v := value{Name: c.Name, Type: c.Type, NotNull: c.NotNull, Known: c.Known, Column: c.Column, DBType: c.DBType, guessed: c.guessed, sqlcAny: c.SqlcAny, sqlc: c.Sqlc}
		if i < len(aliases) {
			v.Name, v.guessed = aliases[i], false
		}
		r.cols = append(r.cols, v)
	}
	return r
}

// selectCols analyses a SELECT in a new scope under parent and returns its
// result columns.
func (a *analyzer) selectCols(s *sqlparse.Select, parent *scope) []*Column {
	if s == nil {
		return nil
	}
	sc := &scope{parent: parent}
	if parent != nil {
		sc.ctes = parent.ctes
	}
	if s.With != nil {
		sc.ctes = copyCTEs(sc.ctes)
		a.with(sc, s.With)
	}
	if s.SetOp != "" {
		left := a.selectCols(s.Left, sc)
		// sqlc reads a set operation's columns from its left side
		// alone: it resolves no reference of the right side, nor of the
		// ORDER BY below.
		a.unchecked++
		right := a.selectCols(s.Right, sc)
		a.unchecked--
		for i := range left {
			if i < len(right) {
				// sqlc types a set operation's columns by its left side
				// alone.
				sq := left[i].sqlcType()
				if !left[i].Known && right[i].Known {
					left[i].Type, left[i].Known = right[i].Type, true
				}
				left[i].NotNull = left[i].NotNull && right[i].NotNull
				if sq.Type != left[i].Type || sq.NotNull != left[i].NotNull || left[i].Sqlc != nil {
					left[i].Sqlc = &sq
				}
				// Like sqlc, the left side's columns keep their table
				// link, so SELECT * FROM t UNION ... reuses t's model.
			}
		}
		// ORDER BY of a UNION, INTERSECT or EXCEPT sorts its output
		// columns (PostgreSQL docs, 7.5 "Sorting Rows").
		osc := &scope{rels: []*rel{colsRel("", left, nil)}, parent: sc.parent, ctes: sc.ctes}
		a.unchecked++
		for _, o := range s.OrderBy {
			a.ordinalInList(o, left)
			a.sortKey(osc, o, left)
		}
		a.unchecked--
		a.limit(sc, s)
		return left
	}
	if len(s.Values) > 0 {
		var cols []*Column
		for i, v := range s.Values[0] {
			val := a.expr(sc, v)
			cols = append(cols, &Column{Name: fmt.Sprintf("column%d", i+1), Type: val.Type, NotNull: val.NotNull, Known: val.Known})
		}
		for _, row := range s.Values[1:] {
			for _, v := range row {
				a.expr(sc, v)
			}
		}
		return cols
	}
	a.addFrom(sc, s.From)
	if s.Where != nil {
		a.uncheckedWhere(sc, s.Where)
	}
	sc.grouped = plainGroupBy(s.GroupBy)
	// GROUP BY reads input columns; a bare name that is none may name an
	// output column, and an integer constant is an output column's
	// position (PostgreSQL docs, SELECT, "GROUP BY Clause"). The output
	// columns are known after the list, so those names wait.
	var groupByOutput []*sqlparse.ColumnRef
	for _, g := range s.GroupBy {
		if isOrdinal(g) {
			continue
		}
		if cr := bareName(g); cr != nil && !a.resolves(sc, cr) {
			groupByOutput = append(groupByOutput, cr)
			continue
		}
		// sqlc resolves a GROUP BY item that is a column reference,
		// no reference in any other (findColumnForNode).
		_, col := g.(*sqlparse.ColumnRef)
		if !col {
			a.unchecked++
		}
		a.expr(sc, g)
		if !col {
			a.unchecked--
		}
	}
	// MySQL's HAVING may name a select-list alias (HAVING recent_posts
	// > 0), which MySQL resolves after the input columns: such a
	// condition is read after the list, the aliases no input column
	// names in scope.
	havingAliases := a.opts.MySQL && s.Having != nil && a.havingNamesAlias(sc, s)
	if s.Having != nil && !havingAliases {
		a.uncheckedWhere(sc, s.Having)
	}
	for _, w := range s.Windows {
		a.window(sc, w)
	}
	cols := a.targets(sc, s.Targets)
	if havingAliases {
		r := &rel{}
		for _, c := range cols {
			if c.Name == "" || a.resolves(sc, &sqlparse.ColumnRef{Fields: []string{c.Name}}) {
				continue
			}
			r.cols = append(r.cols, value{Name: c.Name, Type: c.Type, NotNull: c.NotNull, Known: c.Known, Column: c.Column, DBType: c.DBType, sqlcAny: c.SqlcAny, sqlc: c.Sqlc})
		}
		hs := &scope{parent: sc.parent, ctes: sc.ctes, grouped: sc.grouped, rels: append(append([]*rel{}, sc.rels...), r)}
		a.uncheckedWhere(hs, s.Having)
	}
	for _, cr := range groupByOutput {
		if !hasOutput(cols, cr.Fields[0]) {
			a.expr(sc, cr) // reports the missing column
		}
	}
	// DISTINCT ON and ORDER BY may name output columns: a bare name is an
	// output column's first, an integer constant its position, any other
	// expression reads the input columns (PostgreSQL docs, 7.5 "Sorting
	// Rows", and SELECT, "DISTINCT Clause").
	outScope := &scope{rels: []*rel{colsRel("", cols, nil)}, parent: sc.parent, ctes: sc.ctes}
	osc := &scope{rels: sc.rels, parent: outScope, ctes: sc.ctes}
	// sqlc resolves no reference of DISTINCT ON.
	a.unchecked++
	for _, o := range s.DistinctOn {
		a.sortKey(osc, o, cols)
	}
	a.unchecked--
	for _, o := range s.OrderBy {
		a.ordinalInList(o, cols)
		a.sortKey(osc, o, cols)
	}
	a.limit(sc, s)
	return cols
}

// ordinalInList records, as a refusal of the query, an ORDER BY item
// that is a position outside the select list cols (ORDER BY 2 of one
// column), which PostgreSQL refuses and sqlc generates. Not recorded
// where a column is sqlc.embed's, which stands for several.
func (a *analyzer) ordinalInList(o sqlparse.Node, cols []*Column) {
	if sb, ok := o.(*sqlparse.SortBy); ok {
		o = sb.Expr
	}
	c, ok := o.(*sqlparse.Const)
	if a.opts.MySQL || !ok || c.Kind != "int" {
		return
	}
	for _, col := range cols {
		if col.Embed != nil {
			return
		}
	}
	if n, err := strconv.Atoi(c.Value); err == nil && (n < 1 || n > len(cols)) {
		a.refusals = append(a.refusals, refusal{loc: c.Loc, msg: fmt.Sprintf("ORDER BY position %d is not in select list", n)})
	}
}

// sortKey analyses an ORDER BY or DISTINCT ON item in osc, the input
// scope under the output columns cols.
func (a *analyzer) sortKey(osc *scope, o sqlparse.Node, cols []*Column) {
	if sb, ok := o.(*sqlparse.SortBy); ok {
		o = sb.Expr
	}
	if isOrdinal(o) {
		return
	}
	if cr := bareName(o); cr != nil && hasOutput(cols, cr.Fields[0]) {
		return
	}
	_, col := o.(*sqlparse.ColumnRef)
	if a.opts.LaxOrderBy || !col {
		// strict_order_by: false: sqlc does not check the references;
		// nor those of an item that is no column reference
		// (findColumnForNode).
		a.unchecked++
		defer func() { a.unchecked-- }()
	}
	a.expr(osc, o)
}

// window analyses a window definition: OVER (...) or WINDOW w AS (...).
func (a *analyzer) window(sc *scope, w *sqlparse.WindowDef) {
	if w == nil {
		return
	}
	for _, p := range w.PartitionBy {
		a.expr(sc, p)
	}
	for _, o := range w.OrderBy {
		a.expr(sc, o)
	}
	for _, x := range []sqlparse.Node{w.Start, w.End} {
		if p, ok := x.(*sqlparse.Param); ok {
			// ROWS/GROUPS offsets are bigint; a RANGE offset, typed by the
			// ordering column, is left to the cast.
			a.typeParam(p, known("int8", true), "")
		} else if x != nil {
			a.expr(sc, x)
		}
	}
}

// isOrdinal reports whether n is an integer constant: in ORDER BY, GROUP
// BY and DISTINCT ON, an output column's position.
func isOrdinal(n sqlparse.Node) bool {
	c, ok := n.(*sqlparse.Const)
	return ok && c.Kind == "int"
}

// bareName returns n if it is an unqualified column name.
func bareName(n sqlparse.Node) *sqlparse.ColumnRef {
	if cr, ok := n.(*sqlparse.ColumnRef); ok && len(cr.Fields) == 1 && cr.Fields[0] != "*" {
		return cr
	}
	return nil
}

func hasOutput(cols []*Column, name string) bool {
	for _, c := range cols {
		if c.Name == name {
			return true
		}
	}
	return false
}

// resolves reports whether ref names a column in sc, without reporting
// anything.
func (a *analyzer) resolves(sc *scope, ref *sqlparse.ColumnRef) bool {
	saved := len(a.errs)
	_, ok := a.column(sc, ref)
	a.errs = a.errs[:saved]
	return ok
}

func copyCTEs(m map[string]*rel) map[string]*rel {
	out := map[string]*rel{}
	for k, v := range m {
		out[k] = v
	}
	return out
}

func (a *analyzer) limit(sc *scope, s *sqlparse.Select) {
	if p, ok := s.Limit.(*sqlparse.Param); ok {
		a.typeParam(p, spelledAs(known("int4", true), "integer"), "limit")
	} else if s.Limit != nil {
		a.expr(sc, s.Limit)
	}
	if p, ok := s.Offset.(*sqlparse.Param); ok {
		a.typeParam(p, spelledAs(known("int4", true), "integer"), "offset")
	} else if s.Offset != nil {
		a.expr(sc, s.Offset)
	}
}

// plainGroupBy reports whether a GROUP BY list groups by expressions
// only: no GROUPING SETS, ROLLUP, CUBE or (), whose empty grouping set
// makes a group of no rows when the input is empty.
func plainGroupBy(items []sqlparse.Node) bool {
	if len(items) == 0 {
		return false
	}
	for _, g := range items {
		switch g.(type) {
		case *sqlparse.ColumnRef, *sqlparse.Const, *sqlparse.FuncCall, *sqlparse.AExpr, *sqlparse.TypeCast:
		default:
			return false
		}
	}
	return true
}

// uncheckedWhere analyses a WHERE or HAVING condition, whose references
// sqlc v1.31.1 resolves only where a parameter needs one's type
// (aexpr): one that does not resolve elsewhere (WHERE deleted_at IS NULL
// after a migration dropped the column) is a problem PostgreSQL refuses
// the query for and sqlc generates it with (refusedf).
func (a *analyzer) uncheckedWhere(sc *scope, cond sqlparse.Node) {
	a.unchecked++
	a.boolExpr(sc, cond)
	a.unchecked--
}

// havingNamesAlias reports whether s's HAVING names, as a bare column, a
// select-list alias that no column in scope sc has.
func (a *analyzer) havingNamesAlias(sc *scope, s *sqlparse.Select) bool {
	aliases := map[string]bool{}
	for _, t := range s.Targets {
		if t.Name != "" {
			aliases[t.Name] = true
		}
	}
	found := false
	walk(s.Having, func(n sqlparse.Node) {
		if cr, ok := n.(*sqlparse.ColumnRef); ok && len(cr.Fields) == 1 && aliases[cr.Fields[0]] && !a.resolves(sc, cr) {
			found = true
		}
	})
	return found
}

// informationSchema reports whether col is a column of a view of
// information_schema, which sqlc declares interface{} through a CTE as
// anywhere (the emitter's sqlcDomain).
func informationSchema(col *catalog.Column) bool {
	return col != nil && col.Table != nil && col.Table.Schema == "information_schema"
}
