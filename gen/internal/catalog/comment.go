package catalog

// COMMENT ON, and the fencing-token mark read from column comments.

import (
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

func (u *updater) comment(n *sqlparse.Comment) {
	switch n.Kind {
	case "column":
		if u.c.Table(n.Target.Schema, n.Target.Name) == nil {
			// A composite type's field (PostgreSQL docs, COMMENT: "column
			// of a table, view, composite type or foreign table").
			if ut := u.c.UserType(n.Target.Schema, n.Target.Name); ut != nil && ut.Kind == "composite" {
				for _, c := range ut.Columns {
					if c.Name == n.Column {
						c.Comment = n.Text
						return
					}
				}
				u.errorf(n.Loc, ErrNotFound, "column %q of relation %q does not exist", n.Column, ut.Name)
				return
			}
		}
		t := u.userTable(n.Target, false)
		if t == nil {
			return
		}
		c := t.Column(n.Column)
		if c == nil {
			u.errorf(n.Loc, ErrNotFound, "column %q of relation %q does not exist", n.Column, t.Name)
			return
		}
		c.Comment = n.Text
		marked, mode, err := ParseFenceMark(n.Text)
		if err != nil {
			u.errorf(n.Loc, ErrFence, "%v", err)
			return
		}
		if marked {
			line, col := u.pos(n.Loc)
			u.c.MarkFence(t, c.Name, mode == "strict", "comment", u.f.Name, line, col)
			if t.Fence != nil && t.Fence.Column == c.Name {
				t.Fence.Required = mode == "required"
			}
		} else if t.Fence != nil && t.Fence.Column == c.Name && t.Fence.Source == "comment" {
			t.Fence = nil // COMMENT ... IS NULL or a new comment removes the mark
		}
	case "table", "view", "materialized view", "foreign_table", "sequence":
		if t := u.userTable(n.Target, false); t != nil {
			t.Comment = n.Text
		}
	case "type":
		if e := u.c.Enum(n.Target.Schema, n.Target.Name); e != nil {
			e.Comment = n.Text
		} else if ut := u.c.UserType(n.Target.Schema, n.Target.Name); ut != nil {
			ut.Comment = n.Text
		}
	}
}
