package analyze

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// value is what the analyzer knows of an expression.
type value struct {
	Name    string
	Type    catalog.Type
	NotNull bool
	Known   bool
	Column  *catalog.Column
	// merged is set on a column of a joined relation that JOIN ... USING
	// or NATURAL JOIN merged with its namesake on the other side: an
	// unqualified reference or star means the merged column instead
	// (PostgreSQL docs, 7.2.1.1 "Joined Tables"); t.col still reaches it.
	merged bool
}

func builtin(name string) catalog.Type { return catalog.Type{Schema: "pg_catalog", Name: name} }

func known(name string, notNull bool) value {
	return value{Type: builtin(name), NotNull: notNull, Known: true}
}

// columnValue is what a reference to column c is.
func columnValue(c *catalog.Column) value {
	return value{Name: c.Name, Type: c.Type, NotNull: c.NotNull, Known: true, Column: c}
}

// rel is a relation visible in a scope: a table, a CTE, a subquery.
type rel struct {
	name  string
	table *catalog.Table
	cols  []value
	// unresolved marks a relation that does not exist: it was reported
	// once, and references to its columns are not reported again.
	unresolved bool
}

type scope struct {
	rels   []*rel
	parent *scope
	ctes   map[string]*rel
}

func (s *scope) cte(name string) *rel {
	for x := s; x != nil; x = x.parent {
		if r, ok := x.ctes[name]; ok {
			return r
		}
	}
	return nil
}

func tableRel(t *catalog.Table, alias string) *rel {
	r := &rel{name: t.Name, table: t}
	if alias != "" {
		r.name = alias
	}
	for _, c := range t.Columns {
		r.cols = append(r.cols, columnValue(c))
	}
	return r
}

// lookupTable resolves a table name in FROM: a CTE first, then the catalog.
func (a *analyzer) lookupRel(sc *scope, n sqlparse.Name, alias string) *rel {
	if n.Schema == "" {
		if r := sc.cte(n.Name); r != nil {
			cp := *r
			if alias != "" {
				cp.name = alias
			}
			return &cp
		}
	}
	t := a.cat.Table(n.Schema, n.Name)
	if t == nil {
		a.errorf(n.Loc, "relation %q does not exist", n.String())
		name := n.Name
		if alias != "" {
			name = alias
		}
		return &rel{name: name, unresolved: true}
	}
	return tableRel(t, alias)
}

// column resolves a column reference in sc and its parents.
func (a *analyzer) column(sc *scope, ref *sqlparse.ColumnRef) (value, bool) {
	f := ref.Fields
	var qual, name string
	switch len(f) {
	case 1:
		name = f[0]
	case 2:
		qual, name = f[0], f[1]
	default:
		qual, name = f[len(f)-2], f[len(f)-1]
	}
	for x := sc; x != nil; x = x.parent {
		var found []value
		for _, r := range x.rels {
			if qual != "" && r.name != qual {
				continue
			}
			if r.unresolved {
				// Already reported: the column may well be there.
				return value{}, false
			}
			for _, c := range r.cols {
				if c.Name == name && (qual != "" || !c.merged) {
					found = append(found, c)
				}
			}
		}
		if len(found) == 0 {
			if typ, ok := catalog.SystemColumns[name]; ok {
				// System columns exist on every table, outside SELECT *.
				for _, r := range x.rels {
					if r.table != nil && (qual == "" || r.name == qual) {
						found = append(found, value{Name: name, Type: typ, NotNull: true, Known: true})
					}
				}
			}
		}
		if len(found) > 1 && qual == "" {
			a.errorf(ref.Loc, "column reference %q is ambiguous", name)
			return value{}, false
		}
		if len(found) >= 1 {
			return found[0], true
		}
		if qual != "" {
			for _, r := range x.rels {
				if r.name == qual {
					a.errorf(ref.Loc, "column %q does not exist in %s", name, qual)
					return value{}, false
				}
			}
		}
	}
	if qual != "" {
		a.errorf(ref.Loc, "missing FROM-clause entry for table %q", qual)
	} else {
		a.errorf(ref.Loc, "column %q does not exist", name)
	}
	return value{}, false
}

// addFrom adds FROM items to sc, marking the nullable side of outer joins.
func (a *analyzer) addFrom(sc *scope, items []sqlparse.Node) {
	for _, it := range items {
		sc.rels = append(sc.rels, a.fromItem(sc, it)...)
	}
}

func nullable(rs []*rel) []*rel {
	out := make([]*rel, len(rs))
	for i, r := range rs {
		cp := *r
		cp.cols = make([]value, len(r.cols))
		for j, c := range r.cols {
			c.NotNull = false
			cp.cols[j] = c
		}
		out[i] = &cp
	}
	return out
}

func (a *analyzer) fromItem(sc *scope, it sqlparse.Node) []*rel {
	switch n := it.(type) {
	case *sqlparse.RangeVar:
		r := a.lookupRel(sc, n.Name, n.Alias)
		if r == nil {
			return nil
		}
		for i, al := range n.ColAliases {
			if i < len(r.cols) {
				r.cols[i].Name = al
			}
		}
		return []*rel{r}
	case *sqlparse.Join:
		left := a.fromItem(sc, n.Left)
		// A LATERAL subquery or a function on the right sees the left side.
		rsc := &scope{rels: append(append([]*rel{}, sc.rels...), left...), parent: sc.parent, ctes: sc.ctes}
		right := a.fromItem(rsc, n.Right)
		var merged *rel
		if n.Natural || len(n.Using) > 0 {
			merged, left, right = a.mergeJoinColumns(n, left, right)
		}
		switch n.Type {
		case "LEFT":
			right = nullable(right)
		case "RIGHT":
			left = nullable(left)
		case "FULL":
			left, right = nullable(left), nullable(right)
		}
		all := append(left, right...)
		if merged != nil {
			all = append([]*rel{merged}, all...)
		}
		if n.On != nil {
			inner := &scope{rels: append(append([]*rel{}, sc.rels...), all...), parent: sc.parent, ctes: sc.ctes}
			a.expr(inner, n.On)
		}
		return all
	case *sqlparse.RangeSubselect:
		inner := sc
		if !n.Lateral {
			inner = &scope{parent: sc.parent, ctes: sc.ctes}
		}
		cols := a.selectCols(n.Query, inner)
		r := &rel{name: n.Alias}
		for i, c := range cols {
			v := value{Name: c.Name, Type: c.Type, NotNull: c.NotNull, Known: c.Known, Column: c.Column}
			if i < len(n.ColAliases) {
				v.Name = n.ColAliases[i]
			}
			r.cols = append(r.cols, v)
		}
		return []*rel{r}
	case *sqlparse.RangeFunction:
		r := &rel{name: n.Alias}
		for _, fe := range n.Funcs {
			r.cols = append(r.cols, a.rangeFuncCols(sc, fe, n.Alias, len(n.Funcs) == 1 && len(n.ColAliases) <= 1)...)
		}
		if len(n.ColDefs) > 0 {
			// AS t(a int, b text): the column definition list says it all.
			r.cols = nil
			for _, d := range n.ColDefs {
				t, ok := a.cat.ResolveType(d.Type)
				if !ok {
					a.errorf(d.Type.Loc, "type %q does not exist", t.String())
				}
				r.cols = append(r.cols, value{Name: d.Name, Type: t, NotNull: d.NotNull, Known: ok})
			}
		}
		if n.Ordinality {
			r.cols = append(r.cols, value{Name: "ordinality", Type: builtin("int8"), NotNull: true, Known: true})
		}
		for i, al := range n.ColAliases {
			if i < len(r.cols) {
				r.cols[i].Name = al
			} else if len(n.Funcs) == 1 {
				// More aliases than known columns: a function returning
				// record; its columns' types are unknown.
				r.cols = append(r.cols, value{Name: al})
			}
		}
		if r.name == "" && len(n.Funcs) > 0 {
			if f, ok := n.Funcs[0].(*sqlparse.FuncCall); ok {
				r.name = f.Func.Name
			} else if len(r.cols) > 0 {
				r.name = r.cols[0].Name
			}
		}
		return []*rel{r}
	}
	return nil
}

// mergeJoinColumns applies JOIN ... USING (cols) and NATURAL JOIN, before
// the outer join nulls a side: each joined column appears once, first, in
// the returned relation of its own, which only unqualified references
// reach, and its two sides (in the returned copies of left and right) are
// hidden from unqualified references and stars. The merged column is the
// left side's for INNER and LEFT joins, the right side's for RIGHT, and
// COALESCE of both for FULL: NOT NULL only when both sides' columns are
// (a row of either side alone keeps its own value).
func (a *analyzer) mergeJoinColumns(n *sqlparse.Join, left, right []*rel) (*rel, []*rel, []*rel) {
	names := n.Using
	if n.Natural {
		names = nil
		for _, l := range visibleCols(left) {
			for _, r := range visibleCols(right) {
				if l.Name == r.Name && !slices.Contains(names, l.Name) {
					names = append(names, l.Name)
				}
			}
		}
	}
	// The sides are copied so that hiding a column does not change a
	// relation shared with another scope.
	left, right = copyRels(left), copyRels(right)
	merged := &rel{}
	for _, name := range names {
		l, ok := a.usingSide(left, name, "left", n.Loc)
		if !ok {
			continue
		}
		r, ok := a.usingSide(right, name, "right", n.Loc)
		if !ok {
			continue
		}
		v := *l
		switch n.Type {
		case "RIGHT":
			v = *r
		case "FULL":
			v.NotNull = l.NotNull && r.NotNull
			v.Column = nil
			if !v.Known {
				v.Type, v.Known = r.Type, r.Known
			}
		}
		v.Name, v.merged = name, false
		l.merged, r.merged = true, true
		merged.cols = append(merged.cols, v)
	}
	return merged, left, right
}

func visibleCols(rs []*rel) []value {
	var out []value
	for _, r := range rs {
		for _, c := range r.cols {
			if !c.merged {
				out = append(out, c)
			}
		}
	}
	return out
}

func copyRels(rs []*rel) []*rel {
	out := make([]*rel, len(rs))
	for i, r := range rs {
		cp := *r
		cp.cols = slices.Clone(r.cols)
		out[i] = &cp
	}
	return out
}

// usingSide finds the one column named name that an unqualified reference
// reaches on one side of a USING join.
func (a *analyzer) usingSide(rs []*rel, name, side string, loc int) (*value, bool) {
	var found *value
	for _, r := range rs {
		if r.unresolved {
			return nil, false
		}
		for i := range r.cols {
			if c := &r.cols[i]; c.Name == name && !c.merged {
				if found != nil {
					a.errorf(loc, "common column name %q appears more than once in %s table", name, side)
					return nil, false
				}
				found = c
			}
		}
	}
	if found == nil {
		a.errorf(loc, "column %q specified in USING clause does not exist in %s table", name, side)
		return nil, false
	}
	return found, true
}

func (a *analyzer) with(sc *scope, w *sqlparse.With) {
	if w == nil {
		return
	}
	if sc.ctes == nil {
		sc.ctes = map[string]*rel{}
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
				cols = a.selectCols(q, &scope{parent: sc.parent, ctes: sc.ctes})
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
		a.currentCTE = ""
		r = colsRel(cte.Name, cols, cte.Columns)
		// A CTE is not its base table: a star over it gets a row struct
		// of its own (as in sqlc), never the table's model.
		for i := range r.cols {
			r.cols[i].Column = nil
		}
		sc.ctes[cte.Name] = r
	}
}

func colsRel(name string, cols []*Column, aliases []string) *rel {
	r := &rel{name: name}
	for i, c := range cols {
		v := value{Name: c.Name, Type: c.Type, NotNull: c.NotNull, Known: c.Known, Column: c.Column}
		if i < len(aliases) {
			v.Name = aliases[i]
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
		right := a.selectCols(s.Right, sc)
		for i := range left {
			if i < len(right) {
				if !left[i].Known && right[i].Known {
					left[i].Type, left[i].Known = right[i].Type, true
				}
				left[i].NotNull = left[i].NotNull && right[i].NotNull
				// Like sqlc, the left side's columns keep their table
				// link, so SELECT * FROM t UNION ... reuses t's model.
			}
		}
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
		a.boolExpr(sc, s.Where)
	}
	for _, g := range s.GroupBy {
		a.expr(sc, g)
	}
	if s.Having != nil {
		a.boolExpr(sc, s.Having)
	}
	cols := a.targets(sc, s.Targets)
	// ORDER BY may name output columns.
	// An expression there reads the input columns first (PostgreSQL docs,
	// SELECT, "ORDER BY Clause": only a bare name may be an output
	// column), so a name that is both is not ambiguous.
	outScope := &scope{rels: []*rel{colsRel("", cols, nil)}, parent: sc.parent, ctes: sc.ctes}
	osc := &scope{rels: sc.rels, parent: outScope, ctes: sc.ctes}
	for _, o := range s.OrderBy {
		if sb, ok := o.(*sqlparse.SortBy); ok {
			if cr, ok := sb.Expr.(*sqlparse.ColumnRef); ok && len(cr.Fields) == 1 {
				found := false
				for _, c := range cols {
					if c.Name == cr.Fields[0] {
						found = true
					}
				}
				if found {
					continue
				}
			}
			a.expr(osc, sb.Expr)
		}
	}
	a.limit(sc, s)
	return cols
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
		a.typeParam(p.Number, known("int4", true), "limit")
	} else if s.Limit != nil {
		a.expr(sc, s.Limit)
	}
	if p, ok := s.Offset.(*sqlparse.Param); ok {
		a.typeParam(p.Number, known("int4", true), "offset")
	} else if s.Offset != nil {
		a.expr(sc, s.Offset)
	}
}

// targets types a SELECT or RETURNING list, expanding stars.
func (a *analyzer) targets(sc *scope, ts []*sqlparse.Target) []*Column {
	var cols []*Column
	for i, t := range ts {
		if em, ok := t.Expr.(*sqlparse.Embed); ok {
			var r *rel
			for _, x := range sc.rels {
				if x.name == em.Table {
					r = x
				}
			}
			if r == nil || r.table == nil || r.table.IsSequence {
				a.errorf(em.Loc, "sqlc.embed(%s): no table named %s in FROM", em.Table, em.Table)
				continue
			}
			var list []string
			for _, c := range r.cols {
				col := a.resultColumn(c, c.Name)
				col.Embed, col.EmbedName = r.table, em.Table
				cols = append(cols, col)
				list = append(list, sqlparse.QuoteIdent(em.Table)+"."+sqlparse.QuoteIdent(c.Name))
			}
			a.edits = append(a.edits, edit{em.Loc, em.End, strings.Join(list, ", ")})
			continue
		}
		if cr, ok := t.Expr.(*sqlparse.ColumnRef); ok && cr.Fields[len(cr.Fields)-1] == "*" {
			qual := ""
			if len(cr.Fields) > 1 {
				qual = cr.Fields[len(cr.Fields)-2]
			}
			matched := false
			var list []string
			for _, r := range sc.rels {
				if qual != "" && r.name != qual {
					continue
				}
				matched = true
				for _, c := range r.cols {
					if c.merged && qual == "" {
						continue
					}
					cols = append(cols, a.resultColumn(c, c.Name))
					if r.name != "" {
						list = append(list, sqlparse.QuoteIdent(r.name)+"."+sqlparse.QuoteIdent(c.Name))
					} else {
						list = append(list, sqlparse.QuoteIdent(c.Name))
					}
				}
			}
			if a.spellStar && qual == "" && len(list) > 0 {
				a.edits = append(a.edits, edit{cr.Loc, cr.Loc + 1, strings.Join(list, ", ")})
			}
			if !matched {
				a.errorf(cr.Loc, "missing FROM-clause entry for table %q", qual)
			}
			continue
		}
		v := a.expr(sc, t.Expr)
		name := t.Name
		if name == "" {
			name = v.Name
		}
		unnamed := name == ""
		if unnamed {
			name = fmt.Sprintf("column_%d", i+1)
		}
		col := a.resultColumn(v, name)
		col.unnamed = unnamed
		cols = append(cols, col)
	}
	return cols
}

func (a *analyzer) resultColumn(v value, name string) *Column {
	c := &Column{Name: name, Type: v.Type, NotNull: v.NotNull, Known: v.Known, Column: v.Column}
	if !v.Known {
		c.Type = catalog.Type{Name: "any"}
	}
	if v.Column != nil && v.Column.Table != nil && v.Column.Table.Fence != nil && v.Column.Table.Fence.Column == v.Column.Name {
		c.IsToken = true
	}
	return c
}

func (a *analyzer) boolExpr(sc *scope, e sqlparse.Node) {
	if p, ok := e.(*sqlparse.Param); ok {
		a.typeParam(p.Number, known("bool", true), "")
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
		case "int":
			return known("int4", true)
		case "float":
			return known("numeric", true)
		case "string":
			return known("text", true)
		case "bool":
			return known("bool", true)
		case "bitstring":
			return known("varbit", true)
		}
		return value{}
	case *sqlparse.TypeCast:
		t, ok := a.cat.ResolveType(n.Type)
		if !ok {
			a.errorf(n.Type.Loc, "type %q does not exist", t.String())
		}
		target := value{Type: t, NotNull: true, Known: true}
		if p, isParam := n.Arg.(*sqlparse.Param); isParam {
			a.typeParam(p.Number, target, "")
			pr := a.param(p.Number)
			return value{Name: pr.Name, Type: t, NotNull: pr.NotNull, Known: true}
		}
		inner := a.expr(sc, n.Arg)
		name := inner.Name
		if name == "" || inner.Column == nil {
			name = strings.TrimPrefix(t.Name, "pg_catalog.")
			if inner.Name != "" {
				name = inner.Name
			}
		}
		_, isNull := n.Arg.(*sqlparse.Const)
		notNull := inner.NotNull
		if isNull && n.Arg.(*sqlparse.Const).Kind != "null" {
			notNull = true
		}
		return value{Name: name, Type: t, NotNull: notNull, Known: true}
	case *sqlparse.AExpr:
		return a.aexpr(sc, n)
	case *sqlparse.BoolExpr:
		for _, x := range n.Args {
			a.boolExpr(sc, x)
		}
		return known("bool", true)
	case *sqlparse.NullTest:
		a.expr(sc, n.Arg)
		return known("bool", true)
	case *sqlparse.BooleanTest:
		a.boolExpr(sc, n.Arg)
		return known("bool", true)
	case *sqlparse.FuncCall:
		return a.funcCall(sc, n)
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
				a.compare(sc, n.Test, value{Type: cols[0].Type, NotNull: cols[0].NotNull, Known: cols[0].Known, Column: cols[0].Column})
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
				return value{Name: cols[0].Name, Type: cols[0].Type, Known: cols[0].Known}
			}
		}
		return value{}
	case *sqlparse.Case:
		base := a.expr(sc, n.Arg)
		out := value{Name: "case", NotNull: n.Else != nil}
		var results []sqlparse.Node
		for _, w := range n.Whens {
			if n.Arg != nil {
				a.compare(sc, w.Cond, base)
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
				a.typeParam(p.Number, value{Type: out.Type, NotNull: branchNotNull, Known: true}, "")
			}
		}
		return out
	case *sqlparse.Coalesce:
		// sqlc names COALESCE after the first column among its arguments.
		out := value{Name: "coalesce"}
		walk(n, func(x sqlparse.Node) {
			if cr, ok := x.(*sqlparse.ColumnRef); ok && out.Name == "coalesce" && cr.Fields[len(cr.Fields)-1] != "*" {
				out.Name = cr.Fields[len(cr.Fields)-1]
			}
		})
		vals := make([]value, len(n.Args))
		for i, x := range n.Args {
			vals[i] = a.expr(sc, x)
			if !out.Known && vals[i].Known {
				out.Type, out.Known = vals[i].Type, true
			}
			if vals[i].NotNull {
				out.NotNull = true
			}
		}
		for i, x := range n.Args {
			if p, ok := x.(*sqlparse.Param); ok && out.Known && !vals[i].Known {
				a.typeParam(p.Number, value{Type: out.Type, NotNull: true, Known: true}, "")
			}
		}
		return out
	case *sqlparse.MinMax:
		out := value{Name: strings.ToLower(n.Op), NotNull: true}
		for _, x := range n.Args {
			v := a.expr(sc, x)
			if !out.Known && v.Known {
				out.Type, out.Known = v.Type, true
			}
			out.NotNull = out.NotNull && v.NotNull
		}
		for _, x := range n.Args {
			if p, ok := x.(*sqlparse.Param); ok && out.Known {
				a.typeParam(p.Number, value{Type: out.Type, NotNull: true, Known: true}, "")
			}
		}
		return out
	case *sqlparse.ArrayExpr:
		out := value{Name: "array", NotNull: true}
		for _, x := range n.Elems {
			v := a.expr(sc, x)
			if !out.Known && v.Known {
				out.Type, out.Known = v.Type, true
				out.Type.ArrayDims++
			}
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
			if f == "" && v.Type.ArrayDims > 0 && !n.Slice {
				v.Type.ArrayDims--
				v.NotNull = false
				v.Column = nil
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

// compare types e against other, the value it is compared with or
// assigned to; a parameter takes other's type.
func (a *analyzer) compare(sc *scope, e sqlparse.Node, other value) value {
	if p, ok := e.(*sqlparse.Param); ok {
		a.typeParam(p.Number, other, other.Name)
		return a.expr(sc, e)
	}
	if r, ok := e.(*sqlparse.RowExpr); ok {
		for _, x := range r.Args {
			a.compare(sc, x, other)
		}
		return value{}
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
	switch n.Kind {
	case "in", "not in":
		if r, ok := n.Right.(*sqlparse.RowExpr); ok {
			for _, x := range r.Args {
				if p, ok := x.(*sqlparse.Param); ok && p.Slice {
					// sqlc generates this too, and it fails when run.
					a.errorf(p.Loc, "IN (sqlc.slice(%s)): with PostgreSQL sqlc.slice is one array parameter, and IN (...) would compare with the array as a single value; write = ANY(sqlc.slice(%s)) (or <> ALL for NOT IN)", p.Name, p.Name)
					return known("bool", true)
				}
			}
		}
		left := a.expr(sc, n.Left)
		a.compare(sc, n.Right, left)
		if p, ok := n.Left.(*sqlparse.Param); ok {
			if r, ok := n.Right.(*sqlparse.RowExpr); ok && len(r.Args) > 0 {
				a.typeParam(p.Number, a.expr(sc, r.Args[0]), "")
			}
		}
		return known("bool", true)
	case "between", "not between":
		left := a.expr(sc, n.Left)
		a.compare(sc, n.Right, left)
		return known("bool", true)
	case "any", "all":
		left := a.expr(sc, n.Left)
		if p, ok := n.Right.(*sqlparse.Param); ok && left.Known {
			arr := left
			arr.Type.ArrayDims++
			arr.NotNull = true
			a.typeParam(p.Number, arr, pluralHint(left.Name))
		}
		right := a.expr(sc, n.Right)
		if p, ok := n.Left.(*sqlparse.Param); ok && right.Known {
			el := right
			el.Type = right.Type.Elem()
			a.typeParam(p.Number, el, "")
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
		v.Name, v.Column = "", nil
		if n.Op == "-" || n.Op == "+" {
			v.NotNull = true // as sqlc types arithmetic
		}
		return v
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
			a.strictly(func() { left = a.compare(sc, n.Left, a.paramSource(sc, n.Right, right)) })
		} else {
			left = a.compare(sc, n.Left, a.paramSource(sc, n.Right, right))
		}
	default:
		left = a.expr(sc, n.Left)
		if _, col := n.Left.(*sqlparse.ColumnRef); equality && col && rp {
			a.strictly(func() { right = a.compare(sc, n.Right, a.paramSource(sc, n.Left, left)) })
		} else {
			right = a.compare(sc, n.Right, a.paramSource(sc, n.Left, left))
		}
	}
	notNull := left.NotNull && right.NotNull
	if comparisonOps[n.Op] || n.Kind == "like" || n.Kind == "ilike" || n.Kind == "similar" || n.Kind == "distinct" || n.Kind == "not distinct" {
		return known("bool", notNull || n.Kind == "distinct" || n.Kind == "not distinct")
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
	out.Name, out.Column, out.NotNull = "", nil, notNull
	if arithmeticOps[n.Op] {
		// sqlc types arithmetic as NOT NULL whatever its operands.
		out.NotNull = true
	}
	return out
}

func pluralHint(name string) string {
	if name == "" {
		return ""
	}
	return name + "s"
}

// paramSource is what a parameter compared with expression e (of value v)
// takes its name and type from. Like sqlc, when e is a function call or an
// operator expression over a column (lower(name) = $1, data->>'k' = $1),
// the parameter is named and typed after that column.
func (a *analyzer) paramSource(sc *scope, e sqlparse.Node, v value) value {
	switch e.(type) {
	case *sqlparse.FuncCall, *sqlparse.AExpr:
	default:
		return v
	}
	var ref *sqlparse.ColumnRef
	walk(e, func(n sqlparse.Node) {
		if cr, ok := n.(*sqlparse.ColumnRef); ok && ref == nil && cr.Fields[len(cr.Fields)-1] != "*" {
			ref = cr
		}
	})
	if ref == nil {
		return v
	}
	saved := len(a.errs)
	c, ok := a.column(sc, ref)
	a.errs = a.errs[:saved]
	if !ok || !c.Known {
		return v
	}
	return c
}
