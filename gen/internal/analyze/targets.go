package analyze

// Select lists and RETURNING lists: result columns (PostgreSQL docs, 7.3
// "Select Lists").

import (
	"fmt"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

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
