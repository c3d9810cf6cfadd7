package catalog

// ALTER TABLE and its actions.

import (
	"slices"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

func (u *updater) alterTable(n *sqlparse.AlterTable) {
	t := u.userTable(n.Table, n.MissingOK)
	if t == nil {
		return
	}
	for _, cmd := range n.Cmds {
		u.alterCmd(t, cmd)
	}
}

// alterCmd applies one ALTER TABLE action to t and, as PostgreSQL does for
// column changes, to the tables inheriting from it.
func (u *updater) alterCmd(t *Table, cmd *sqlparse.AlterCmd) {
	switch cmd.Kind {
	case sqlparse.AlterAddColumn, sqlparse.AlterDropColumn, sqlparse.AlterColumnType, sqlparse.AlterSetNotNull:
		for _, ch := range u.c.children(t) {
			if cmd.Kind == sqlparse.AlterAddColumn && ch.Column(cmd.Column) != nil ||
				cmd.Kind != sqlparse.AlterAddColumn && ch.Column(cmd.Column) == nil {
				continue
			}
			u.alterCmd(ch, cmd)
		}
	case sqlparse.AlterAttachPartition, sqlparse.AlterDetachPartition, sqlparse.AlterInherit, sqlparse.AlterNoInherit:
		other := u.userTable(cmd.Other, false)
		if other == nil {
			return
		}
		switch cmd.Kind {
		case sqlparse.AlterAttachPartition:
			u.c.attach(t, other)
		case sqlparse.AlterDetachPartition:
			other.parents = slices.DeleteFunc(other.parents, func(p *Table) bool { return p == t })
			other.partitionOf = nil
		case sqlparse.AlterInherit:
			if !slices.Contains(t.parents, other) {
				t.parents = append(t.parents, other)
			}
		case sqlparse.AlterNoInherit:
			t.parents = slices.DeleteFunc(t.parents, func(p *Table) bool { return p == other })
		}
		return
	}
	switch cmd.Kind {
	case sqlparse.AlterAddColumn:
		if cmd.Def == nil {
			return
		}
		if t.Column(cmd.Def.Name) != nil {
			if !cmd.MissingOK {
				u.errorf(cmd.Loc, ErrExists, "column %q of relation %q already exists", cmd.Def.Name, t.Name)
			}
			return
		}
		t.Columns = append(t.Columns, u.column(cmd.Def, t))
	case sqlparse.AlterDropColumn:
		i := slices.IndexFunc(t.Columns, func(c *Column) bool { return c.Name == cmd.Column })
		if i < 0 {
			if !cmd.MissingOK {
				u.errorf(cmd.Loc, ErrNotFound, "column %q of relation %q does not exist", cmd.Column, t.Name)
			}
			return
		}
		u.c.dropOwnedSequences(t, cmd.Column)
		t.Columns = slices.Delete(t.Columns, i, i+1)
		if t.Fence != nil && t.Fence.Column == cmd.Column {
			t.Fence = nil
		}
	case sqlparse.AlterColumnType, sqlparse.AlterSetNotNull, sqlparse.AlterDropNotNull:
		c := t.Column(cmd.Column)
		if c == nil {
			u.errorf(cmd.Loc, ErrNotFound, "column %q of relation %q does not exist", cmd.Column, t.Name)
			return
		}
		switch cmd.Kind {
		case sqlparse.AlterColumnType:
			typ, ok := u.c.ResolveType(cmd.Type)
			if !ok {
				u.errorf(cmd.Loc, ErrNotFound, "type %q does not exist", typ.String())
			}
			c.Type = typ
		case sqlparse.AlterSetNotNull:
			c.NotNull = true
		case sqlparse.AlterDropNotNull:
			c.NotNull = false
		}
	case sqlparse.AlterAddPrimaryKey:
		for _, k := range cmd.Keys {
			if c := t.Column(k); c != nil {
				c.NotNull = true
				t.PrimaryKey = append(t.PrimaryKey, k)
			}
		}
		if cmd.Key != nil {
			u.c.addKey(t, cmd.Key.Name, cmd.Key.Columns, true)
		}
	case sqlparse.AlterAddUnique:
		u.c.addKey(t, cmd.Key.Name, cmd.Key.Columns, false)
	case sqlparse.AlterAddForeignKey:
		u.addForeignKey(t, cmd.FK, "")
	}
}
