package catalog

// CREATE TABLE: columns, keys, foreign keys, LIKE, INHERITS and partitions.

import (
	"fmt"
	"maps"
	"slices"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

func (u *updater) createTable(n *sqlparse.CreateTable) {
	if n.OnCommitDrop {
		return // a table dropped when its transaction ends leaves nothing
	}
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
	t := &Table{Schema: s.Name, Name: n.Table.Name, Temp: n.Temp, SqlcPublic: u.pathSchema(n.Table.Schema, s), File: u.f.Name, Line: line, Col: col}
	type seqCol struct {
		col  *Column
		name sqlparse.Name
	}
	var seqCols []seqCol // serial and identity columns, each with a sequence
	var likeKeys []key   // PRIMARY KEY and UNIQUE constraints copied by INCLUDING INDEXES
	for i, like := range n.LikeTables {
		src := u.table(like)
		if src == nil {
			continue
		}
		opts := n.LikeOptions[i]
		// LIKE copies names, types and NOT NULL; defaults, generation
		// expressions, identity and comments only when INCLUDING them
		// (PostgreSQL docs, CREATE TABLE, LIKE).
		for _, c := range src.Columns {
			cc := *c
			cc.Table = t
			if opts&sqlparse.LikeDefaults == 0 {
				cc.HasDefault, cc.Sequence = false, false
			}
			if opts&sqlparse.LikeGenerated == 0 {
				cc.Generated, cc.GeneratedVirtual = false, false
			}
			if opts&sqlparse.LikeIdentity == 0 {
				cc.Identity, cc.IdentityAlways = false, false
			}
			if opts&sqlparse.LikeComments == 0 {
				cc.Comment = ""
			}
			t.Columns = append(t.Columns, &cc)
			if cc.Identity {
				seqCols = append(seqCols, seqCol{col: &cc}) // a copied serial default shares src's sequence
			}
		}
		// INCLUDING COMMENTS copies the column comments, the fence
		// mark among them (a mark from the configuration is not a
		// comment, and is not copied).
		if f := src.Fence; opts&sqlparse.LikeComments != 0 && f != nil && f.From == nil && f.Source == "comment" {
			t.Fence = &Fence{Column: f.Column, Strict: f.Strict, Required: f.Required, Source: "comment", File: u.f.Name, Line: line, Col: col}
		}
		if opts&sqlparse.LikeIndexes != 0 {
			if len(src.indexes) > 0 || src.untrackedUnique {
				u.untracked(t, n.Table.Loc)
			}
			if d := src.keysDoubt; d != nil {
				// The copy's keys are the source's, as much in doubt.
				u.doubtKeys(t, n.Table.Loc, fmt.Sprintf("it copies the keys of table %s, which are in doubt after %s:%d:%d (%s)", src.Name, d.File, d.Line, d.Col, d.Msg))
			}
			for c, p := range src.keyPrefix {
				t.notePrefix([]string{c}, []int{p})
			}
			for _, name := range slices.Sorted(maps.Keys(src.keys)) {
				likeKeys = append(likeKeys, src.keys[name])
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
				if d.NotNull {
					existing.declareNotNull()
				}
				u.ownDefault(existing, d)
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
				if d.NotNull || d.PrimaryKey {
					existing.declareNotNull()
					// sqlc's catalog shares the column with the parents and
					// so makes theirs NOT NULL too: their API says so,
					// PostgreSQL's (postgresql_types) does not.
					for _, p := range t.parents {
						if pc := p.Column(d.Name); pc != nil && !pc.NotNull && pc.Sqlc == nil {
							pc.Sqlc = &ColumnTyping{Type: pc.Type, NotNull: true, DBType: pc.DBType}
						}
					}
				}
				u.ownDefault(existing, d)
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
		c := u.column(d, t)
		t.Columns = append(t.Columns, c)
		if d.Serial || d.Identity {
			seqCols = append(seqCols, seqCol{c, d.SequenceName})
		}
		if d.PrimaryKey {
			t.PrimaryKey = append(t.PrimaryKey, d.Name)
		}
	}
	for _, k := range n.PrimaryKey {
		if c := t.Column(k); c != nil {
			c.declareNotNull()
			if c.sqlcNullable && c.Identity {
				// sqlc applies CREATE TABLE's PRIMARY KEY (update.go's
				// identity typing).
				c.Sqlc, c.sqlcNullable = nil, false
			}
			t.PrimaryKey = append(t.PrimaryKey, k)
		}
	}
	if p := t.partitionOf; p != nil && len(t.PrimaryKey) == 0 {
		t.PrimaryKey = slices.Clone(p.PrimaryKey)
	}
	// CREATE TABLE merges constraints on the same columns into one, named
	// by the first name given, primary if either is (PostgreSQL source,
	// transformIndexConstraints).
	var keys []sqlparse.KeyConstraint
	for _, k := range n.Keys {
		if k.Columns == nil && k.Index == "" {
			// A unique key on an expression (MySQL 8's functional key
			// parts): not modelled.
			u.untracked(t, n.Table.Loc)
			continue
		}
		t.notePrefix(k.Columns, k.Prefix)
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
	primaries := 0
	for _, k := range keys {
		if k.Primary {
			if primaries++; primaries > 1 {
				u.refusef(n.Table.Loc, "multiple primary keys for table %q are not allowed", t.Name)
				continue
			}
		}
		if u.checkKey(t, k.Name, k.Columns, n.Table.Loc) {
			u.c.addKey(t, k.Name, k.Columns, k.Primary)
		}
	}
	// Keys copied by LIKE ... INCLUDING INDEXES come after the table's
	// own, named for it; a second primary key is PostgreSQL's error.
	for _, k := range likeKeys {
		switch {
		case t.hasKey(k.columns):
		case k.primary && len(t.PrimaryKey) > 0:
			u.refusef(n.Table.Loc, "multiple primary keys for table %q are not allowed", t.Name)
		default:
			u.c.addKeyTree(t, "", k.columns, k.primary, true)
		}
	}
	for _, fk := range n.ForeignKeys {
		u.addForeignKey(t, fk, n.Table.Name)
	}
	s.Tables = append(s.Tables, t)
	u.created = t
	for _, c := range seqCols {
		u.columnSequence(c.col, c.name)
	}
	u.c.bindForeignKeys(t)
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
	hadPrimary := len(child.PrimaryKey) > 0
	// Each PRIMARY KEY and UNIQUE constraint of the partitioned table
	// gets a partition of its own, named as for the partition, unless the
	// partition has one on the same columns already (ATTACH PARTITION
	// attaches that one). PostgreSQL clones them in index OID order,
	// unknown here: they go by name.
	for _, name := range slices.Sorted(maps.Keys(parent.keys)) {
		k := parent.keys[name]
		if !child.hasKey(k.columns) && !slices.ContainsFunc(k.columns, func(col string) bool { return child.Column(col) == nil }) {
			c.addKeyTree(child, "", k.columns, k.primary && !hadPrimary, true)
		}
	}
	if len(child.PrimaryKey) == 0 {
		child.PrimaryKey = slices.Clone(parent.PrimaryKey)
	}
	for _, fk := range parent.foreignKeys {
		c.cloneForeignKey(child, fk)
	}
}

// Descendants returns t's partitions and inheritance children at any
// depth, depth first.
func (c *Catalog) Descendants(t *Table) []*Table {
	return c.descendants(t, map[*Table]bool{t: true}, nil)
}

// FencedDescendants returns the fenced tables among t's partitions and
// inheritance children, at any depth: a write named on t can write their
// rows.
func (c *Catalog) FencedDescendants(t *Table) []*Table {
	var out []*Table
	for _, x := range c.descendants(t, map[*Table]bool{t: true}, nil) {
		if x.Fence != nil {
			out = append(out, x)
		}
	}
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

// ownDefault gives c, a column a partition or an inheritance child
// shares with its parents (CREATE TABLE ... PARTITION OF p (c DEFAULT
// 999), or INHERITS with c declared again), the DEFAULT d declares for
// it: the child's own, which an INSERT into the child uses (PostgreSQL
// docs, CREATE TABLE, "INHERITS" and "PARTITION OF"), located at d, for
// the fencing token column's checks (Catalog.Validate).
func (u *updater) ownDefault(c *Column, d *sqlparse.ColumnDef) {
	if !d.HasDefault {
		return
	}
	c.HasDefault = !d.DefaultNull || c.typmod
	c.Sequence = d.Serial
	c.defaultAtMost1 = d.DefaultAtMost1
	line, col := u.pos(d.Loc)
	c.changed, c.seq = &diag.Error{File: u.f.Name, Line: line, Col: col}, u.c.seq
}
