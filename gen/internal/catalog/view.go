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
	if i := slices.IndexFunc(s.Tables, func(t *Table) bool { return t.Name == n.View.Name }); i >= 0 {
		if n.IfNotExists {
			return
		}
		if !n.Replace {
			u.errorf(n.View.Loc, ErrExists, "relation %q already exists", n.View.String())
			return
		}
		s.Tables = slices.Delete(s.Tables, i, i+1)
	}
	line, col := u.pos(n.View.Loc)
	// CREATE TABLE ... AS makes a table; its columns come from the query
	// all the same.
	t := &Table{Schema: s.Name, Name: n.View.Name, IsView: !n.AsTable, Temp: n.Temp, File: u.f.Name, Line: line, Col: col}
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
}
