package catalog

// CREATE VIEW, CREATE MATERIALIZED VIEW and CREATE TABLE AS.

import (
	"slices"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// ColumnGenerator types the output columns of a query for the catalog, so
// that a view gets the columns of its query (the shape of sqlc's
// columnGenerator in internal/sql/catalog). The analyzer implements it;
// the catalog cannot import the analyzer. OutputColumns returns one column
// per output column of q, in order, with Name "" for an unnamed expression
// (?column?), and the problems found, located in f.
type ColumnGenerator interface {
	OutputColumns(c *Catalog, f *sqlparse.File, s *sqlparse.Stmt, q *sqlparse.Select) ([]*Column, diag.List)
}

func (u *updater) createView(n *sqlparse.CreateView) {
	if n.OnCommitDrop {
		return // a table dropped when its transaction ends leaves nothing
	}
	s := u.schemaFor(n.View.Schema, n.View.Loc)
	if s == nil || n.Query == nil {
		return
	}
	var old *Table
	if i := slices.IndexFunc(s.Tables, func(t *Table) bool { return t.Name == n.View.Name }); i >= 0 {
		if n.IfNotExists {
			return
		}
		if !n.Replace {
			u.errorf(n.View.Loc, ErrExists, "relation %q already exists", n.View.String())
			return
		}
		old = s.Tables[i]
		s.Tables = slices.Delete(s.Tables, i, i+1)
	}
	line, col := u.pos(n.View.Loc)
	// CREATE TABLE ... AS makes a table; its columns come from the query
	// all the same.
	t := &Table{Schema: s.Name, Name: n.View.Name, IsView: !n.AsTable, Temp: n.Temp, File: u.f.Name, Line: line, Col: col}
	if t.IsView && !n.AsTable && u.s.Raw != nil && u.s.Raw.GetViewStmt() != nil {
		// CREATE VIEW (not MATERIALIZED): the relation an automatically
		// updatable view writes, bound now as PostgreSQL binds it.
		t.ViewRead = true
		if n.Base != nil {
			t.Base, t.BaseOnly = u.c.Table(n.Base.Schema, n.Base.Name), n.BaseOnly
			if t.Base == nil {
				t.ViewRead = false // a relation the schema does not define
			}
		}
	}
	if t.IsView {
		for _, r := range n.Refs {
			if rt := u.c.Table(r.Schema, r.Name); rt != nil && rt != old && !slices.Contains(t.refs, rt) {
				t.refs = append(t.refs, rt)
			}
		}
	}
	if old != nil && old.IsView {
		// CREATE OR REPLACE VIEW keeps the view's triggers and rules
		// (PostgreSQL replaces its query only), and the views over it
		// depend on it still.
		t.Triggers, t.Rules, t.Former = old.Triggers, old.Rules, old.Former
		// Its columns' defaults (ALTER VIEW ... SET DEFAULT) and its
		// policies stay too; its query is the new one (hook).
		for _, h := range old.Hooks {
			if h.Kind != "view" {
				t.Hooks = append(t.Hooks, h)
			}
		}
		u.c.replaceRefs(old, t)
	}
	if u.c.columns != nil {
		cols, errs := u.c.columns.OutputColumns(u.c, u.f, u.s, n.Query)
		u.c.Errors = append(u.c.Errors, errs...)
		for i, c := range cols {
			cc := *c
			cc.Table = t
			if i < len(n.Columns) {
				cc.Name, cc.NameGuessed = n.Columns[i], false
			}
			if cc.Name == "" {
				t.UnnamedColumns = true
				t.Unnamed = append(t.Unnamed, UnnamedColumn{At: i, Column: &cc})
				continue // an unnamed expression (?column?)
			}
			t.Columns = append(t.Columns, &cc)
		}
	}
	s.Tables = append(s.Tables, t)
	u.created = t
}

// ViewBase returns the relation a write of view v reaches when no INSTEAD
// OF trigger or DO INSTEAD rule takes it (PostgreSQL docs, CREATE VIEW,
// "Updatable Views"): its base relation and whether the write is of it
// alone (FROM ONLY). known is false when fencegen cannot tell: a view whose
// query it did not read (a table turned into a view by a _RETURN rule, a
// system view), or whose base relation has since been dropped. A nil
// relation with known set means the view writes no base relation.
func (c *Catalog) ViewBase(v *Table) (base *Table, only, known bool) {
	if !v.ViewRead {
		return nil, false, false
	}
	if v.Base == nil {
		return nil, false, true
	}
	if c.Table(v.Base.Schema, v.Base.Name) != v.Base {
		return nil, false, false // dropped (DROP ... CASCADE leaves the view here)
	}
	return v.Base, v.BaseOnly, true
}
