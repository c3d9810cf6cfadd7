package analyze

// FROM items and joins (PostgreSQL docs, 7.2.1 "The FROM Clause").

import (
	"slices"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

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
		cp.outer = true
		cp.cols = make([]value, len(r.cols))
		for j, c := range r.cols {
			if r.subquery && c.sqlc == nil && !c.nulled {
				sq := sqlcOf(c)
				c.sqlc = &sq
			}
			c.NotNull, c.nulled = false, c.NotNull || c.nulled
			if c.sqlc != nil && !r.subquery {
				// sqlc nulls the outer join's columns too.
				sq := *c.sqlc
				sq.NotNull = false
				c.sqlc = &sq
			}
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
				r.renamedCols = r.renamedCols || r.cols[i].Name != al
				r.cols[i].Name, r.cols[i].oneOut = al, false
			}
		}
		// TABLESAMPLE's built-in methods take a real percentage,
		// REPEATABLE a double seed; sqlc leaves a parameter there
		// untyped.
		for _, x := range n.Sample {
			a.compare(sc, x, value{Type: builtin("float4"), NotNull: true, Known: true, sqlcUntyped: true})
		}
		if n.Seed != nil {
			a.compare(sc, n.Seed, value{Type: builtin("float8"), NotNull: true, Known: true, sqlcUntyped: true})
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
			merged.usingMerged = true
			if a.sqlcShapes && n.Alias != "" {
				// sqlc spells the star's columns by their tables, which
				// the join's alias hides from PostgreSQL.
				a.errorf(n.Loc, "sqlc's reading of a star over the aliased join %s is refused by PostgreSQL", n.Alias)
			}
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
			// sqlc does not resolve the ON condition's references
			// (unless a parameter needs one's type).
			a.unchecked++
			a.expr(inner, n.On)
			a.unchecked--
		}
		return all
	case *sqlparse.RangeSubselect:
		inner := sc
		if !n.Lateral {
			inner = &scope{parent: sc.parent, ctes: sc.ctes}
		}
		cols := a.sqlcValues(n.Query, a.selectCols(n.Query, inner))
		r := &rel{name: n.Alias, subquery: true}
		for i, c := range cols {
			v := value{Name: c.Name, Type: c.Type, NotNull: c.NotNull, Known: c.Known, Column: c.Column, DBType: c.DBType, guessed: c.guessed, sqlcAny: c.SqlcAny, sqlc: c.Sqlc}
			if i < len(n.ColAliases) {
				r.renamedCols = r.renamedCols || v.Name != n.ColAliases[i]
				v.Name, v.guessed = n.ColAliases[i], false
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
					a.lenientf(d.Type.Loc, "type %q does not exist", t.String())
				}
				r.cols = append(r.cols, value{Name: d.Name, Type: t, NotNull: d.NotNull, Known: ok})
			}
		}
		if n.Ordinality {
			r.cols = append(r.cols, value{Name: "ordinality", Type: builtin("int8"), NotNull: true, Known: true})
		}
		for i, al := range n.ColAliases {
			if i < len(r.cols) {
				r.cols[i].Name, r.cols[i].oneOut = al, false
			} else if len(n.Funcs) == 1 {
				// More aliases than known columns: a function returning
				// record; its columns' types are unknown.
				r.cols = append(r.cols, value{Name: al})
			}
		}
		r.scalar = len(n.Funcs) == 1 && len(r.cols) == 1 && !n.Ordinality && len(n.ColDefs) == 0
		if r.name == "" && len(n.Funcs) > 0 {
			if f, ok := n.Funcs[0].(*sqlparse.FuncCall); ok {
				r.name = f.Func.Name
			} else if len(r.cols) > 0 {
				r.name = r.cols[0].Name
			}
		}
		a.sqlcFromShape(sc, n, r)
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
