package catalog

// COMMENT ON, and the fencing-token mark read from column comments.

import (
	"fmt"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/diag"
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
		line, col := u.pos(n.Loc)
		c.commentAt = &diag.Error{File: u.f.Name, Line: line, Col: col}
		marked, mode, err := ParseFenceMark(n.Text)
		if err != nil {
			u.errorf(n.Loc, ErrFence, "%v", err)
			return
		}
		if marked {
			u.c.MarkFence(t, c.Name, mode == "strict", "comment", u.f.Name, line, col)
			if t.Fence != nil && t.Fence.Column == c.Name {
				t.Fence.Required = mode == "required"
				t.Fence.resetAck = u.ackReset()
			}
		} else if t.Fence != nil && t.Fence.Column == c.Name && t.Fence.Source == "comment" {
			t.Fence = nil // COMMENT ... IS NULL or a new comment removes the mark
		}
	case "table", "view", "materialized view", "foreign_table", "sequence":
		if t := u.userTable(n.Target, false); t != nil {
			t.Comment = n.Text
			if n.Kind == "table" && looksLikeMark(n.Text) {
				u.errorf(n.Loc, ErrFence, "%s", misplacedMark(t))
			}
		}
	case "type":
		if e := u.c.Enum(n.Target.Schema, n.Target.Name); e != nil {
			e.Comment = n.Text
		} else if ut := u.c.UserType(n.Target.Schema, n.Target.Name); ut != nil {
			ut.Comment = n.Text
		}
	}
}

// looksLikeMark reports whether a comment holds what reads as a fencing
// token mark, however spelt (the patterns ParseFenceMark reads).
func looksLikeMark(text string) bool {
	return anyMark().MatchString(text) || nearMark().MatchString(text)
}

// misplacedMark explains a fencing token mark written in a table's comment,
// which fences nothing: PostgreSQL keeps the comment, and fencegen reads
// the mark from a column's. It names the columns that could hold the token.
func misplacedMark(t *Table) string {
	msg := fmt.Sprintf("the fencing token mark is in the comment of table %s, where it fences nothing: it goes on the token column, as in COMMENT ON COLUMN %s.<column> IS 'fencegen:token'", t.QualifiedName(), t.QualifiedName())
	var fits []string
	for _, c := range t.Columns {
		if !c.Type.IsArray() && c.Type.Schema == "pg_catalog" && (c.Type.Name == "int8" || c.Type.Name == "int4") && c.NotNull && !c.Generated && !c.Identity && !c.Sequence {
			fits = append(fits, c.Name)
		}
	}
	switch len(fits) {
	case 0:
		msg += "; the table has no column that can hold it: add one, BIGINT NOT NULL DEFAULT 0"
	default:
		msg += fmt.Sprintf("; columns that can hold it: %s", strings.Join(fits, ", "))
	}
	return msg
}
