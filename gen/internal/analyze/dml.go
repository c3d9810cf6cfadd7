package analyze

import (
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// target resolves the table an INSERT, UPDATE or DELETE writes.
func (a *analyzer) target(sc *scope, n sqlparse.Name) *catalog.Table {
	t := a.cat.Table(n.Schema, n.Name)
	if t == nil {
		a.errorf(n.Loc, "relation %q does not exist", n.String())
		return nil
	}
	if t.IsView {
		a.errorf(n.Loc, "cannot write to view %s", t.QualifiedName())
	}
	return t
}

// fence records the guard of a write to a fenced table. q is nil for a
// write inside a CTE, which the analyzer refuses for fenced tables for now.
func (a *analyzer) fence(q *Query, t *catalog.Table, kind string, loc int) {
	if t == nil || t.Fence == nil {
		return
	}
	if q == nil {
		a.errorf(loc, "a data-modifying WITH clause that writes fenced table %s cannot be guarded yet; write it as its own query", t.QualifiedName())
		return
	}
	strict := t.Fence.Strict
	if a.ann.Strict {
		strict = true
	}
	if a.ann.NonStrict {
		strict = false
	}
	q.Fence = &Fence{Table: t, Column: t.Fence.Column, Strict: strict, Kind: kind}
}

func (a *analyzer) insert(n *sqlparse.Insert, q *Query) []*Column {
	sc := &scope{}
	a.with(sc, n.With)
	t := a.target(sc, n.Table)
	if t == nil {
		return nil
	}
	if q != nil {
		q.InsertTable = t
	}
	var cols []*catalog.Column
	if len(n.Columns) == 0 {
		for _, c := range t.Columns {
			if !c.Generated {
				cols = append(cols, c)
			}
		}
	}
	for _, ct := range n.Columns {
		c := t.Column(ct.Name)
		if c == nil {
			a.errorf(ct.Loc, "column %q of relation %q does not exist", ct.Name, t.Name)
			cols = append(cols, nil) // keeps the count for the VALUES check
			continue
		}
		if t.Fence != nil && c.Name == t.Fence.Column {
			a.errorf(ct.Loc, "INSERT sets fencing token column %s.%s by hand; fencegen stores the presented token itself: drop the column from the INSERT", t.QualifiedName(), c.Name)
			cols = append(cols, nil)
			continue
		}
		cols = append(cols, c)
	}
	if n.Select != nil {
		if len(n.Select.Values) > 0 {
			for _, row := range n.Select.Values {
				if len(row) != len(cols) && len(n.Columns) > 0 {
					loc := n.Loc
					if len(row) > 0 {
						loc = row[0].Pos()
					}
					if len(row) > len(cols) {
						a.errorf(loc, "INSERT has more expressions than target columns")
					} else {
						a.errorf(loc, "INSERT has more target columns than expressions")
					}
					continue
				}
				for i, e := range row {
					if i < len(cols) && cols[i] != nil {
						c := cols[i]
						a.compare(sc, e, value{Name: c.Name, Type: c.Type, NotNull: c.NotNull, Known: true, Column: c})
					}
				}
			}
		} else {
			sel := a.selectCols(n.Select, sc)
			if len(sel) != len(cols) && len(n.Columns) > 0 {
				a.errorf(n.Loc, "INSERT has %d target columns but the query returns %d", len(cols), len(sel))
			}
		}
	}
	rs := &scope{parent: nil, ctes: sc.ctes}
	rs.rels = []*rel{tableRel(t, n.Alias)}
	if oc := n.OnConflict; oc != nil {
		ex := tableRel(t, "excluded")
		cs := &scope{rels: []*rel{tableRel(t, n.Alias), ex}, ctes: sc.ctes}
		for _, s := range oc.Set {
			c := t.Column(s.Name)
			if c == nil {
				a.errorf(s.Loc, "column %q of relation %q does not exist", s.Name, t.Name)
				continue
			}
			if t.Fence != nil && c.Name == t.Fence.Column {
				a.errorf(s.Loc, "ON CONFLICT DO UPDATE sets fencing token column %s.%s by hand; fencegen stores the presented token itself", t.QualifiedName(), c.Name)
			}
			a.compare(cs, s.Expr, value{Name: c.Name, Type: c.Type, NotNull: c.NotNull, Known: true, Column: c})
		}
		if oc.Where != nil {
			a.boolExpr(cs, oc.Where)
		}
		if t.Fence != nil && oc.DoUpdate {
			a.errorf(oc.Loc, "INSERT ... ON CONFLICT DO UPDATE on fenced table %s is not guarded yet; write the insert and the guarded update as separate queries", t.QualifiedName())
		}
	}
	a.fence(q, t, "insert", n.Loc)
	return a.targets(rs, n.Returning)
}

func (a *analyzer) update(n *sqlparse.Update, q *Query) []*Column {
	sc := &scope{}
	a.with(sc, n.With)
	t := a.target(sc, n.Table)
	if t == nil {
		return nil
	}
	sc.rels = []*rel{tableRel(t, n.Alias)}
	a.addFrom(sc, n.From)
	for _, s := range n.Set {
		c := t.Column(s.Name)
		if c == nil {
			a.errorf(s.Loc, "column %q of relation %q does not exist", s.Name, t.Name)
			continue
		}
		if t.Fence != nil && c.Name == t.Fence.Column {
			a.errorf(s.Loc, "UPDATE sets fencing token column %s.%s by hand; fencegen stores the presented token itself: drop the assignment", t.QualifiedName(), c.Name)
			continue
		}
		a.compare(sc, s.Expr, value{Name: c.Name, Type: c.Type, NotNull: c.NotNull, Known: true, Column: c})
	}
	if n.Where != nil {
		a.boolExpr(sc, n.Where)
	}
	a.fence(q, t, "update", n.Loc)
	return a.targets(sc, n.Returning)
}

func (a *analyzer) delete(n *sqlparse.Delete, q *Query) []*Column {
	sc := &scope{}
	a.with(sc, n.With)
	t := a.target(sc, n.Table)
	if t == nil {
		return nil
	}
	sc.rels = []*rel{tableRel(t, n.Alias)}
	a.addFrom(sc, n.Using)
	if n.Where != nil {
		a.boolExpr(sc, n.Where)
	}
	a.fence(q, t, "delete", n.Loc)
	return a.targets(sc, n.Returning)
}
