package catalog

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// Update applies one schema statement of file f to the catalog. Statements
// that do not change the catalog (GRANT, SET, CREATE INDEX, ...) are
// skipped. Problems are added to c.Errors with their location.
func (c *Catalog) Update(f *sqlparse.File, s *sqlparse.Stmt) {
	u := &updater{c: c, f: f, s: s}
	switch n := s.Node.(type) {
	case *sqlparse.CreateTable:
		u.createTable(n)
	case *sqlparse.AlterTable:
		u.alterTable(n)
	case *sqlparse.Rename:
		u.rename(n)
	case *sqlparse.Comment:
		u.comment(n)
	case *sqlparse.CreateEnum:
		u.createEnum(n)
	case *sqlparse.AlterEnum:
		u.alterEnum(n)
	case *sqlparse.Sequence:
		u.sequence(n)
	case *sqlparse.CreateSchema:
		if c.Schema(n.Name) == nil {
			c.Schemas = append(c.Schemas, &Schema{Name: n.Name})
		} else if !n.IfNotExists {
			u.errorf(-1, ErrExists, "schema %q already exists", n.Name)
		}
	case *sqlparse.Drop:
		u.drop(n)
	case *sqlparse.CreateView:
		u.createView(n)
	case *sqlparse.CreateFunction:
		u.createFunction(n)
	case *sqlparse.AlterObjectSchema:
		u.setSchema(n)
	case *sqlparse.CreateComposite:
		if s := u.newType(n.Type); s != nil {
			ut := &UserType{Schema: s.Name, Name: n.Type.Name, Kind: "composite"}
			for _, d := range n.Columns {
				ut.Columns = append(ut.Columns, u.column(d, nil))
			}
			s.Types = append(s.Types, ut)
		}
	case *sqlparse.CreateRange:
		if s := u.newType(n.Type); s != nil {
			s.Types = append(s.Types, &UserType{Schema: s.Name, Name: n.Type.Name, Kind: "range"})
		}
	case *sqlparse.CreateDomain:
		if s := u.newType(n.Type); s != nil {
			base, ok := u.c.ResolveType(n.Base)
			if !ok {
				u.errorf(n.Base.Loc, ErrNotFound, "type %q does not exist", base.String())
			}
			s.Types = append(s.Types, &UserType{Schema: s.Name, Name: n.Type.Name, Kind: "domain", Base: base,
				NotNull: n.NotNull || u.c.DomainNotNull(n.Base)})
		}
	}
}

type updater struct {
	c *Catalog
	f *sqlparse.File
	s *sqlparse.Stmt
}

func (u *updater) pos(loc int) (int, int) {
	if loc < 0 || loc < u.s.Start || loc > u.s.End {
		loc = u.s.Start
	}
	return diag.Position(u.f.Src, loc)
}

func (u *updater) errorf(loc int, sentinel error, format string, args ...any) {
	line, col := u.pos(loc)
	u.c.Errors.AddErr(&diag.Error{File: u.f.Name, Line: line, Col: col, Err: sentinel, Msg: fmt.Sprintf(format, args...)})
}

func (u *updater) schemaFor(name string, loc int) *Schema {
	s := u.c.Schema(name)
	if s == nil && name == "pg_temp" {
		// The session's temporary schema always exists.
		s = &Schema{Name: name}
		u.c.Schemas = append(u.c.Schemas, s)
	}
	if s == nil {
		u.errorf(loc, ErrNotFound, "schema %q does not exist", name)
	}
	return s
}

func (u *updater) table(n sqlparse.Name) *Table {
	t := u.c.Table(n.Schema, n.Name)
	if t == nil {
		u.errorf(n.Loc, ErrNotFound, "relation %q does not exist", n.String())
	}
	return t
}

// userTable is table for statements that change the table: the system
// catalogs are not changed.
func (u *updater) userTable(n sqlparse.Name, missingOK bool) *Table {
	t := u.c.Table(n.Schema, n.Name)
	if t == nil || t.IsSystem() {
		if !missingOK && t == nil {
			u.errorf(n.Loc, ErrNotFound, "relation %q does not exist", n.String())
		}
		return nil
	}
	return t
}

// newType returns the schema a new type goes in, or nil after reporting
// that the schema does not exist or the name is taken.
func (u *updater) newType(n sqlparse.Name) *Schema {
	s := u.schemaFor(n.Schema, n.Loc)
	if s == nil {
		return nil
	}
	if u.c.Enum(s.Name, n.Name) != nil || u.c.UserType(s.Name, n.Name) != nil {
		u.errorf(n.Loc, ErrExists, "type %q already exists", n.String())
		return nil
	}
	return s
}

func (u *updater) column(d *sqlparse.ColumnDef, t *Table) *Column {
	typ, ok := u.c.ResolveType(d.Type)
	if !ok {
		loc := d.Loc
		if d.Type != nil {
			loc = d.Type.Loc
		}
		u.errorf(loc, ErrNotFound, "type %q does not exist", typ.String())
	}
	notNull := d.NotNull || d.PrimaryKey || u.c.DomainNotNull(d.Type)
	return &Column{Name: d.Name, Type: typ, NotNull: notNull, HasDefault: d.HasDefault, Sequence: d.Serial,
		Generated: d.Generated, Identity: d.Identity, Table: t}
}

func (u *updater) createTable(n *sqlparse.CreateTable) {
	s := u.schemaFor(n.Table.Schema, n.Table.Loc)
	if s == nil {
		return
	}
	if s.table(n.Table.Name) != nil {
		if !n.IfNotExists {
			u.errorf(n.Table.Loc, ErrExists, "relation %q already exists", n.Table.String())
		}
		return
	}
	line, col := u.pos(n.Table.Loc)
	t := &Table{Schema: s.Name, Name: n.Table.Name, File: u.f.Name, Line: line, Col: col}
	var likeKeys [][]string // primary keys copied by INCLUDING INDEXES
	for i, like := range n.LikeTables {
		if src := u.table(like); src != nil {
			for _, c := range src.Columns {
				cc := *c
				cc.Table = t
				t.Columns = append(t.Columns, &cc)
			}
			opts := n.LikeOptions[i]
			// INCLUDING COMMENTS copies the column comments, the fence
			// mark among them (a mark from the configuration is not a
			// comment, and is not copied).
			if f := src.Fence; opts&sqlparse.LikeComments != 0 && f != nil && f.From == nil && f.Source == "comment" {
				t.Fence = &Fence{Column: f.Column, Strict: f.Strict, Source: "comment", File: u.f.Name, Line: line, Col: col}
			}
			if opts&sqlparse.LikeIndexes != 0 && len(src.PrimaryKey) > 0 {
				likeKeys = append(likeKeys, src.PrimaryKey)
			}
		}
	}
	inherited := map[string]bool{}
	for _, parent := range n.Inherits {
		if p := u.table(parent); p != nil {
			t.parents = append(t.parents, p)
			for _, c := range p.Columns {
				inherited[c.Name] = true
				if t.Column(c.Name) == nil {
					cc := *c
					cc.Table = t
					t.Columns = append(t.Columns, &cc)
				}
			}
		}
	}
	t.Partitioned = n.PartitionBy
	if n.PartitionOf && len(t.parents) > 0 {
		u.c.attach(t.parents[0], t)
	}
	declared := map[string]bool{}
	for _, d := range n.Columns {
		if existing := t.Column(d.Name); existing != nil && !declared[d.Name] {
			// PARTITION OF / INHERITS may restate a column with constraints.
			if d.Type == nil {
				existing.NotNull = existing.NotNull || d.NotNull
				continue
			}
			// PostgreSQL merges an inherited column declared again with
			// the same type.
			if inherited[d.Name] {
				declared[d.Name] = true
				if typ, _ := u.c.ResolveType(d.Type); typ.String() != existing.Type.String() {
					u.errorf(d.Loc, ErrExists, "column %q has a type conflict: %s versus %s", d.Name, existing.Type, typ)
					continue
				}
				existing.NotNull = existing.NotNull || d.NotNull || d.PrimaryKey
				existing.HasDefault = existing.HasDefault || d.HasDefault
				if d.PrimaryKey {
					t.PrimaryKey = append(t.PrimaryKey, d.Name)
				}
				continue
			}
			u.errorf(d.Loc, ErrExists, "column %q specified more than once", d.Name)
			continue
		} else if existing != nil {
			u.errorf(d.Loc, ErrExists, "column %q specified more than once", d.Name)
			continue
		}
		declared[d.Name] = true
		t.Columns = append(t.Columns, u.column(d, t))
		if d.PrimaryKey {
			t.PrimaryKey = append(t.PrimaryKey, d.Name)
		}
	}
	for _, k := range n.PrimaryKey {
		if c := t.Column(k); c != nil {
			c.NotNull = true
			t.PrimaryKey = append(t.PrimaryKey, k)
		}
	}
	if p := t.partitionOf; p != nil && len(t.PrimaryKey) == 0 {
		t.PrimaryKey = slices.Clone(p.PrimaryKey)
	}
	if len(t.PrimaryKey) == 0 && len(likeKeys) > 0 {
		t.PrimaryKey = slices.Clone(likeKeys[0])
		u.c.addKey(t, "", t.PrimaryKey, true)
	}
	// CREATE TABLE merges constraints on the same columns into one, named
	// by the first name given, primary if either is (PostgreSQL source,
	// transformIndexConstraints).
	var keys []sqlparse.KeyConstraint
	for _, k := range n.Keys {
		i := slices.IndexFunc(keys, func(x sqlparse.KeyConstraint) bool { return slices.Equal(x.Columns, k.Columns) })
		if i < 0 {
			keys = append(keys, *k)
			continue
		}
		if keys[i].Name == "" {
			keys[i].Name = k.Name
		}
		keys[i].Primary = keys[i].Primary || k.Primary
	}
	for _, k := range keys {
		u.c.addKey(t, k.Name, k.Columns, k.Primary)
	}
	for _, fk := range n.ForeignKeys {
		u.addForeignKey(t, fk, n.Table.Name)
	}
	s.Tables = append(s.Tables, t)
}

// addForeignKey records fk of t (self names t while CREATE TABLE t is
// being built, so that a table can refer to itself). A missing parent is
// PostgreSQL's error, not reported here.
func (u *updater) addForeignKey(t *Table, fk *sqlparse.ForeignKey, self string) {
	var parent *Table
	if fk.Parent.Schema == "" && fk.Parent.Name == self {
		parent = t
	} else {
		parent = u.table(fk.Parent)
	}
	if parent == nil {
		return
	}
	t.foreignKeys = append(t.foreignKeys, foreignKey{columns: fk.Columns, refs: fk.Refs, parent: parent, onDelete: fk.OnDelete, onUpdate: fk.OnUpdate})
}

// attach makes child a partition of parent (PARTITION OF, ATTACH
// PARTITION): PostgreSQL gives every partition the partitioned table's
// primary key (PostgreSQL docs, 5.11.2.3 "Limitations": a unique
// constraint on a partitioned table includes the partition key, so it is
// unique across partitions).
func (c *Catalog) attach(parent, child *Table) {
	if !slices.Contains(child.parents, parent) {
		child.parents = append(child.parents, parent)
	}
	child.partitionOf = parent
	if len(child.PrimaryKey) == 0 {
		child.PrimaryKey = slices.Clone(parent.PrimaryKey)
	}
	// Each PRIMARY KEY and UNIQUE constraint of the partitioned table
	// gets a partition of its own, named as for the partition, unless the
	// partition has one on the same columns already (ATTACH PARTITION
	// attaches that one). PostgreSQL clones them in index OID order,
	// unknown here: they go by name.
	for _, name := range slices.Sorted(maps.Keys(parent.keys)) {
		k := parent.keys[name]
		if !child.hasKey(k.columns) {
			c.addKey(child, "", k.columns, k.primary)
		}
	}
}

// hasKey reports whether t has a PRIMARY KEY or UNIQUE constraint on
// columns.
func (t *Table) hasKey(columns []string) bool {
	for _, x := range t.keys {
		if slices.Equal(x.columns, columns) {
			return true
		}
	}
	return false
}

// FencedDescendants returns the fenced tables among t's partitions and
// inheritance children, at any depth: a write named on t can write their
// rows.
func (c *Catalog) FencedDescendants(t *Table) []*Table {
	var out []*Table
	seen := map[*Table]bool{t: true}
	var walk func(*Table)
	walk = func(p *Table) {
		for _, ch := range c.children(p) {
			if seen[ch] {
				continue
			}
			seen[ch] = true
			if ch.Fence != nil {
				out = append(out, ch)
			}
			walk(ch)
		}
	}
	walk(t)
	return out
}

// Children returns the tables that inherit from t and are not its
// partitions: INHERITS children, whose rows share no primary key with t's,
// so a key of t can match one row in t and one in each child.
func (c *Catalog) Children(t *Table) []*Table {
	var out []*Table
	for _, x := range c.children(t) {
		if x.partitionOf != t {
			out = append(out, x)
		}
	}
	return out
}

func (u *updater) alterTable(n *sqlparse.AlterTable) {
	t := u.userTable(n.Table, n.MissingOK)
	if t == nil {
		return
	}
	for _, cmd := range n.Cmds {
		u.alterCmd(t, cmd)
	}
}

// children returns the tables that inherit from t.
func (c *Catalog) children(t *Table) []*Table {
	var out []*Table
	for _, s := range c.Schemas {
		for _, x := range s.Tables {
			if slices.Contains(x.parents, t) {
				out = append(out, x)
			}
		}
	}
	return out
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

func (u *updater) rename(n *sqlparse.Rename) {
	switch n.Kind {
	case "table", "view", "materialized view", "sequence":
		if n.Subname != "" {
			// ALTER TABLE ... RENAME COLUMN arrives with the column kind.
			break
		}
		if t := u.userTable(n.Target, n.MissingOK); t != nil {
			t.Name = n.NewName
		}
		return
	}
	switch n.Kind {
	case "constraint":
		// ALTER TABLE t RENAME CONSTRAINT old TO new (CHECK and FOREIGN
		// KEY constraints are not modelled).
		if t := u.userTable(n.Target, n.MissingOK); t != nil {
			t.renameKey(n.Subname, n.NewName)
		}
	case "index":
		// ALTER INDEX old RENAME TO new renames a PRIMARY KEY or UNIQUE
		// constraint with its index.
		for _, s := range u.c.Schemas {
			if n.Target.Schema != "" && s.Name != n.Target.Schema {
				continue
			}
			for _, t := range s.Tables {
				if t.renameKey(n.Target.Name, n.NewName) {
					return
				}
			}
		}
	case "column":
		t := u.userTable(n.Target, n.MissingOK)
		if t == nil {
			return
		}
		c := t.Column(n.Subname)
		if c == nil {
			u.errorf(n.Loc, ErrNotFound, "column %q of relation %q does not exist", n.Subname, t.Name)
			return
		}
		if t.Fence != nil && t.Fence.Column == c.Name {
			t.Fence.Column = n.NewName
		}
		c.Name = n.NewName
	case "type":
		if e := u.c.Enum(n.Target.Schema, n.Target.Name); e != nil {
			old := Type{Schema: e.Schema, Name: e.Name}
			e.Name = n.NewName
			u.c.retype(old, Type{Schema: e.Schema, Name: e.Name})
		} else if ut := u.c.UserType(n.Target.Schema, n.Target.Name); ut != nil {
			old := Type{Schema: ut.Schema, Name: ut.Name}
			ut.Name = n.NewName
			u.c.retype(old, Type{Schema: ut.Schema, Name: ut.Name})
		}
	case "schema":
		// ALTER SCHEMA old RENAME TO new carries the old name as Subname.
		old := n.Subname
		if old == "" {
			old = n.Target.Name
		}
		if old == "" {
			return
		}
		s := u.c.Schema(old)
		if s == nil {
			u.errorf(n.Loc, ErrNotFound, "schema %q does not exist", old)
			return
		}
		s.Name = n.NewName
		for _, t := range s.Tables {
			t.Schema = n.NewName
		}
		for _, e := range s.Enums {
			u.c.retype(Type{Schema: old, Name: e.Name}, Type{Schema: n.NewName, Name: e.Name})
			e.Schema = n.NewName
		}
		for _, f := range s.Funcs {
			f.Schema = n.NewName
		}
		for _, ut := range s.Types {
			u.c.retype(Type{Schema: old, Name: ut.Name}, Type{Schema: n.NewName, Name: ut.Name})
			ut.Schema = n.NewName
		}
	}
}

// setSchema applies ALTER TABLE / VIEW / TYPE ... SET SCHEMA: the object
// moves to the other schema, and columns of a moved type follow it.
func (u *updater) setSchema(n *sqlparse.AlterObjectSchema) {
	switch n.Kind {
	case "table", "view", "materialized view", "foreign_table", "sequence":
		t := u.userTable(n.Target, n.MissingOK)
		if t == nil {
			return
		}
		to := u.schemaFor(n.NewSchema, n.Loc)
		if to == nil || to.Name == t.Schema {
			return
		}
		if to.table(t.Name) != nil {
			u.errorf(n.Loc, ErrExists, "relation %q already exists in schema %q", t.Name, to.Name)
			return
		}
		if from := u.c.Schema(t.Schema); from != nil {
			from.Tables = slices.DeleteFunc(from.Tables, func(x *Table) bool { return x == t })
		}
		t.Schema = to.Name
		to.Tables = append(to.Tables, t)
	case "type":
		e := u.c.Enum(n.Target.Schema, n.Target.Name)
		ut := u.c.UserType(n.Target.Schema, n.Target.Name)
		if e == nil && ut == nil {
			if !n.MissingOK {
				u.errorf(n.Loc, ErrNotFound, "type %q does not exist", n.Target.String())
			}
			return
		}
		to := u.schemaFor(n.NewSchema, n.Loc)
		if to == nil {
			return
		}
		if u.c.Enum(to.Name, n.Target.Name) != nil || u.c.UserType(to.Name, n.Target.Name) != nil {
			u.errorf(n.Loc, ErrExists, "type %q already exists in schema %q", n.Target.Name, to.Name)
			return
		}
		if e != nil {
			from := u.c.Schema(e.Schema)
			from.Enums = slices.DeleteFunc(from.Enums, func(x *Enum) bool { return x == e })
			u.c.retype(Type{Schema: e.Schema, Name: e.Name}, Type{Schema: to.Name, Name: e.Name})
			e.Schema = to.Name
			to.Enums = append(to.Enums, e)
			return
		}
		from := u.c.Schema(ut.Schema)
		from.Types = slices.DeleteFunc(from.Types, func(x *UserType) bool { return x == ut })
		u.c.retype(Type{Schema: ut.Schema, Name: ut.Name}, Type{Schema: to.Name, Name: ut.Name})
		ut.Schema = to.Name
		to.Types = append(to.Types, ut)
	}
}

// retype replaces every column of type old with type nu, keeping arrays.
func (c *Catalog) retype(old, nu Type) {
	for _, s := range c.Schemas {
		for _, t := range s.Tables {
			for _, col := range t.Columns {
				if col.Type.Schema == old.Schema && col.Type.Name == old.Name {
					col.Type.Schema, col.Type.Name = nu.Schema, nu.Name
				}
			}
		}
	}
}

func (u *updater) comment(n *sqlparse.Comment) {
	switch n.Kind {
	case "column":
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
		marked, strict, err := ParseFenceComment(n.Text)
		if err != nil {
			u.errorf(n.Loc, ErrFence, "%v", err)
			return
		}
		if marked {
			line, col := u.pos(n.Loc)
			u.c.MarkFence(t, c.Name, strict, "comment", u.f.Name, line, col)
		} else if t.Fence != nil && t.Fence.Column == c.Name && t.Fence.Source == "comment" {
			t.Fence = nil // COMMENT ... IS NULL or a new comment removes the mark
		}
	case "table", "view", "materialized view":
		if t := u.userTable(n.Target, false); t != nil {
			t.Comment = n.Text
		}
	case "type":
		if e := u.c.Enum(n.Target.Schema, n.Target.Name); e != nil {
			e.Comment = n.Text
		}
	}
}

func (u *updater) createEnum(n *sqlparse.CreateEnum) {
	s := u.schemaFor(n.Type.Schema, n.Type.Loc)
	if s == nil {
		return
	}
	if u.c.Enum(s.Name, n.Type.Name) != nil {
		u.errorf(n.Type.Loc, ErrExists, "type %q already exists", n.Type.String())
		return
	}
	s.Enums = append(s.Enums, &Enum{Schema: s.Name, Name: n.Type.Name, Values: slices.Clone(n.Values)})
}

func (u *updater) alterEnum(n *sqlparse.AlterEnum) {
	e := u.c.Enum(n.Type.Schema, n.Type.Name)
	if e == nil {
		u.errorf(n.Type.Loc, ErrNotFound, "type %q does not exist", n.Type.String())
		return
	}
	if n.OldValue != "" {
		i := slices.Index(e.Values, n.OldValue)
		if i < 0 {
			u.errorf(-1, ErrNotFound, "%q is not an existing enum label", n.OldValue)
			return
		}
		e.Values[i] = n.NewValue
		return
	}
	if slices.Contains(e.Values, n.NewValue) {
		if !n.IfNotExists {
			u.errorf(-1, ErrExists, "enum label %q already exists", n.NewValue)
		}
		return
	}
	switch {
	case n.Before != "":
		i := slices.Index(e.Values, n.Before)
		if i < 0 {
			u.errorf(-1, ErrNotFound, "%q is not an existing enum label", n.Before)
			return
		}
		e.Values = slices.Insert(e.Values, i, n.NewValue)
	case n.After != "":
		i := slices.Index(e.Values, n.After)
		if i < 0 {
			u.errorf(-1, ErrNotFound, "%q is not an existing enum label", n.After)
			return
		}
		e.Values = slices.Insert(e.Values, i+1, n.NewValue)
	default:
		e.Values = append(e.Values, n.NewValue)
	}
}

func (u *updater) drop(n *sqlparse.Drop) {
	for _, name := range n.Names {
		switch n.Kind {
		case "table", "view", "materialized view", "sequence":
			s := u.c.Schema(name.Schema)
			if s != nil {
				if i := slices.IndexFunc(s.Tables, func(t *Table) bool { return t.Name == name.Name }); i >= 0 {
					u.c.dropOwnedSequences(s.Tables[i], "")
					s.Tables = slices.Delete(s.Tables, i, i+1)
					continue
				}
			}
			if !n.MissingOK {
				u.errorf(name.Loc, ErrNotFound, "%s %q does not exist", n.Kind, name.String())
			}
		case "type":
			s := u.c.Schema(name.Schema)
			if s != nil {
				if i := slices.IndexFunc(s.Enums, func(e *Enum) bool { return e.Name == name.Name }); i >= 0 {
					s.Enums = slices.Delete(s.Enums, i, i+1)
					continue
				}
				if i := slices.IndexFunc(s.Types, func(e *UserType) bool { return e.Name == name.Name }); i >= 0 {
					s.Types = slices.Delete(s.Types, i, i+1)
					continue
				}
			}
		case "schema":
			if i := slices.IndexFunc(u.c.Schemas, func(s *Schema) bool { return s.Name == name.Name }); i >= 0 {
				u.c.Schemas = slices.Delete(u.c.Schemas, i, i+1)
			}
		case "function":
			if s := u.c.Schema(name.Schema); s != nil {
				s.Funcs = slices.DeleteFunc(s.Funcs, func(f *Func) bool { return f.Name == name.Name })
			}
		}
	}
}

// sequence applies CREATE SEQUENCE and ALTER SEQUENCE ... OWNED BY.
func (u *updater) sequence(n *sqlparse.Sequence) {
	var seq *Table
	if n.Create {
		s := u.schemaFor(n.Name.Schema, n.Name.Loc)
		if s == nil {
			return
		}
		if s.table(n.Name.Name) != nil {
			if !n.IfNotExists {
				u.errorf(n.Name.Loc, ErrExists, "relation %q already exists", n.Name.String())
			}
			return
		}
		seq = NewSequence(s.Name, n.Name.Name)
		seq.File = u.f.Name
		seq.Line, seq.Col = u.pos(n.Name.Loc)
		s.Tables = append(s.Tables, seq)
	} else {
		seq = u.userTable(n.Name, n.MissingOK)
		if seq == nil {
			return
		}
		if !seq.IsSequence {
			u.errorf(n.Name.Loc, ErrNotFound, "%q is not a sequence", n.Name.String())
			return
		}
	}
	switch {
	case n.OwnedByNone:
		seq.OwnedBy = nil
	case len(n.OwnedBy) >= 2:
		parts := n.OwnedBy
		tn := sqlparse.Name{Name: parts[len(parts)-2], Loc: n.Name.Loc}
		if len(parts) >= 3 {
			tn.Schema = parts[len(parts)-3]
		}
		t := u.userTable(tn, false)
		if t == nil {
			return
		}
		c := t.Column(parts[len(parts)-1])
		if c == nil {
			u.errorf(n.Name.Loc, ErrNotFound, "column %q of relation %q does not exist", parts[len(parts)-1], t.Name)
			return
		}
		seq.OwnedBy = c
	}
}

// dropOwnedSequences drops the sequences owned by column of t, or by any
// column of t when column is "", as PostgreSQL does when the column or
// the table is dropped.
func (c *Catalog) dropOwnedSequences(t *Table, column string) {
	for _, s := range c.Schemas {
		s.Tables = slices.DeleteFunc(s.Tables, func(x *Table) bool {
			return x.IsSequence && x.OwnedBy != nil && x.OwnedBy.Table == t && (column == "" || x.OwnedBy.Name == column)
		})
	}
}

// ViewColumns is set by the analyzer so that views get their columns from
// their queries without an import cycle.
var ViewColumns func(c *Catalog, f *sqlparse.File, s *sqlparse.Stmt, q *sqlparse.Select) ([]*Column, diag.List)

func (u *updater) createView(n *sqlparse.CreateView) {
	s := u.schemaFor(n.View.Schema, n.View.Loc)
	if s == nil || n.Query == nil {
		return
	}
	if i := slices.IndexFunc(s.Tables, func(t *Table) bool { return t.Name == n.View.Name }); i >= 0 {
		if !n.Replace {
			u.errorf(n.View.Loc, ErrExists, "relation %q already exists", n.View.String())
			return
		}
		s.Tables = slices.Delete(s.Tables, i, i+1)
	}
	line, col := u.pos(n.View.Loc)
	t := &Table{Schema: s.Name, Name: n.View.Name, IsView: true, File: u.f.Name, Line: line, Col: col}
	if ViewColumns != nil {
		cols, errs := ViewColumns(u.c, u.f, u.s, n.Query)
		u.c.Errors = append(u.c.Errors, errs...)
		for i, c := range cols {
			cc := *c
			cc.Table = t
			if i < len(n.Columns) {
				cc.Name = n.Columns[i]
			}
			if cc.Name == "" {
				continue // an unnamed expression (?column?)
			}
			t.Columns = append(t.Columns, &cc)
		}
	}
	s.Tables = append(s.Tables, t)
}

func (u *updater) createFunction(n *sqlparse.CreateFunction) {
	s := u.c.Schema(n.Func.Schema)
	if s == nil {
		return
	}
	f := &Func{Schema: s.Name, Name: n.Func.Name, ArgNames: n.ArgNames, Procedure: n.Procedure,
		Language: strings.ToLower(n.Language), Body: n.Body, File: u.f.Name}
	f.Line, _ = u.pos(n.Loc)
	for _, a := range n.ArgTypes {
		t, _ := u.c.ResolveType(a)
		f.ArgTypes = append(f.ArgTypes, t)
	}
	if n.ReturnType != nil {
		t, _ := u.c.ResolveType(n.ReturnType)
		f.ReturnType = &t
		f.ReturnsSet = n.ReturnType.Setof
	}
	for _, d := range n.ReturnsTable {
		f.ReturnsTable = append(f.ReturnsTable, u.column(d, nil))
		f.ReturnsSet = true
	}
	if len(n.OutParams) > 0 && !n.Procedure {
		// A function with OUT (or INOUT) parameters returns its single OUT
		// parameter's type, or a record of them (RETURNS may be left out,
		// or say the same: RETURNS int, RETURNS record, RETURNS SETOF
		// record). Its columns in FROM are the OUT parameters.
		for _, d := range n.OutParams {
			f.ReturnsTable = append(f.ReturnsTable, u.column(d, nil))
		}
		t := Type{Schema: "pg_catalog", Name: "record"}
		if len(f.ReturnsTable) == 1 {
			t = f.ReturnsTable[0].Type
		}
		f.ReturnType = &t
	}
	// CREATE OR REPLACE of the same signature replaces the function (its
	// body may no longer write what the old one wrote).
	if i := slices.IndexFunc(s.Funcs, func(g *Func) bool {
		return g.Name == f.Name && g.Procedure == f.Procedure && slices.Equal(g.ArgTypes, f.ArgTypes)
	}); i >= 0 {
		s.Funcs[i] = f
		return
	}
	s.Funcs = append(s.Funcs, f)
}
