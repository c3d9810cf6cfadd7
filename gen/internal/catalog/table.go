package catalog

// CREATE TABLE: columns, keys, foreign keys, LIKE, INHERITS and partitions.

import (
	"maps"
	"slices"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

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
