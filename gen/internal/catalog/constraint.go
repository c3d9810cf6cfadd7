package catalog

// PRIMARY KEY, UNIQUE and FOREIGN KEY constraints: the names PostgreSQL
// gives them, and how they follow ALTER TABLE, RENAME and DROP.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// key is a PRIMARY KEY or UNIQUE constraint.
type key struct {
	columns []string
	primary bool
}

// foreignKey is a FOREIGN KEY constraint of a table: its columns refer to
// refs of parent (its primary key when refs is empty).
type foreignKey struct {
	name          string
	columns, refs []string
	// parent is nil while the referenced table does not exist: sqlc does
	// not check a REFERENCES target, and schemas refer to tables made by
	// another tool or by a later file. parentName names it then, and the
	// table's creation binds the key (bindForeignKeys).
	parent             *Table
	parentName         sqlparse.Name
	onDelete, onUpdate byte
	// clone is set for a partition's copy of its partitioned table's key
	// (PostgreSQL clones them under the same name): Cascades follows the
	// original only.
	clone bool
	// file, line and col locate the constraint, for notes.
	file      string
	line, col int
}

// ConstraintColumns returns the columns of t's PRIMARY KEY or UNIQUE
// constraint named name (as ON CONFLICT ON CONSTRAINT names it), or nil.
func (t *Table) ConstraintColumns(name string) []string { return t.keys[name].columns }

// addKey records a PRIMARY KEY or UNIQUE constraint of t and returns its
// name, named as PostgreSQL names it when the statement does not
// (PostgreSQL source, ChooseConstraintName, ChooseRelationName and
// makeObjectName: <table>_pkey, <table>_<columns>_key, each part shortened
// so that the name fits in 63 bytes, and a number after the label, pkey1,
// pkey2, ..., while the name is taken in the schema: a constraint's index
// is a relation, and its name must not be another constraint's either).
func (c *Catalog) addKey(t *Table, name string, columns []string, primary bool) string {
	if name == "" {
		label, name2 := "key", strings.Join(columns, "_")
		if primary {
			label, name2 = "pkey", ""
		}
		name = chooseName(t.Name, name2, label, func(n string) bool {
			return c.relationNameTaken(t, n) || c.constraintNameTaken(t, n)
		})
	}
	if t.keys == nil {
		t.keys = map[string]key{}
	}
	t.keys[name] = key{columns: columns, primary: primary}
	return name
}

// addKeyTree adds a PRIMARY KEY or UNIQUE constraint to t and, as
// PostgreSQL does for a partitioned table, to each of its partitions that
// has none on the same columns (named as for the partition), unless
// recurse is unset (ALTER TABLE ONLY, as pg_dump writes it: the
// partitions' own keys follow). A primary key makes its columns NOT NULL.
func (c *Catalog) addKeyTree(t *Table, name string, columns []string, primary, recurse bool) {
	c.addKey(t, name, columns, primary)
	if primary {
		t.PrimaryKey = slices.Clone(columns)
		for _, k := range columns {
			if col := t.Column(k); col != nil {
				col.declareNotNull()
			}
		}
	}
	if !recurse {
		return
	}
	for _, ch := range c.partitions(t) {
		if !ch.hasKey(columns) {
			c.addKeyTree(ch, "", columns, primary && len(ch.PrimaryKey) == 0, true)
		}
	}
}

// checkKey reports whether a PRIMARY KEY or UNIQUE constraint of t on
// columns, named name ("" for PostgreSQL's choice), can be made, after
// noting PostgreSQL's error at loc if not (see refusef).
func (u *updater) checkKey(t *Table, name string, columns []string, loc int) bool {
	for _, col := range columns {
		if t.Column(col) == nil {
			u.refusef(loc, "column %q named in key does not exist", col)
			return false
		}
	}
	if name != "" && u.c.relationNameTaken(t, name) {
		u.refusef(loc, "relation %q already exists", name)
		return false
	}
	return true
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

// renameConstraint renames t's constraint (or a key's index) old to new,
// and reports whether t has one named old.
func (t *Table) renameConstraint(old, new string) bool {
	if k, ok := t.keys[old]; ok {
		delete(t.keys, old)
		t.keys[new] = k
		return true
	}
	for i := range t.foreignKeys {
		if t.foreignKeys[i].name == old {
			t.foreignKeys[i].name = new
			return true
		}
	}
	return false
}

// relationNameTaken reports whether name is a relation of t's schema: a
// table, view or sequence, t itself, or a constraint's index.
//
// MySQL and MariaDB name a key (an index) per table, apart from tables:
// for a MySQL table only t's own keys and indexes take a name, so that a
// table swapped in (RENAME TABLE a TO a_old, b TO a) keeps keys named as
// a_old's.
func (c *Catalog) relationNameTaken(t *Table, name string) bool {
	has := func(x *Table) bool {
		_, key := x.keys[name]
		_, index := x.indexes[name]
		return key || index
	}
	if c.isMySQL {
		return has(t)
	}
	if t.Name == name {
		return true
	}
	if has(t) {
		return true
	}
	if s := c.Schema(t.Schema); s != nil {
		return slices.ContainsFunc(s.Tables, func(x *Table) bool { return x.Name == name || has(x) })
	}
	return false
}

// constraintNameTaken reports whether name is a constraint of a table of
// t's schema (PostgreSQL source, ConstraintNameExists: constraint names
// are unique per schema when PostgreSQL chooses them).
func (c *Catalog) constraintNameTaken(t *Table, name string) bool {
	has := func(x *Table) bool {
		if _, ok := x.keys[name]; ok {
			return true
		}
		return slices.ContainsFunc(x.foreignKeys, func(fk foreignKey) bool { return fk.name == name })
	}
	if has(t) {
		return true
	}
	if s := c.Schema(t.Schema); s != nil {
		return slices.ContainsFunc(s.Tables, has)
	}
	return false
}

// chooseName is PostgreSQL's ChooseRelationName: objectName(name1, name2,
// label), with label numbered label1, label2, ... while taken reports the
// name taken.
func chooseName(name1, name2, label string, taken func(string) bool) string {
	name := objectName(name1, name2, label)
	for pass := 1; taken(name); pass++ {
		name = objectName(name1, name2, fmt.Sprintf("%s%d", label, pass))
	}
	return name
}

// objectName is PostgreSQL's makeObjectName: name1[_name2]_label, the
// longer of name1 and name2 shortened first until it fits in 63 bytes.
func objectName(name1, name2, label string) string {
	const max = 63
	avail := max - len(label) - 1
	if name2 != "" {
		avail--
	}
	n1, n2 := len(name1), len(name2)
	for n1+n2 > avail {
		if n1 > n2 {
			n1--
		} else {
			n2--
		}
	}
	out := name1[:n1]
	if name2 != "" {
		out += "_" + name2[:n2]
	}
	return out + "_" + label
}

// addForeignKey records fk of t (self names t while CREATE TABLE t is
// being built, so that a table can refer to itself), named <table>_<columns>_fkey
// when the statement does not name it (PostgreSQL source,
// ChooseForeignKeyConstraintNameAddition). Like sqlc, a parent that does
// not exist is no error: the key waits for the table (bindForeignKeys),
// and Validate notes it if it never comes.
func (u *updater) addForeignKey(t *Table, fk *sqlparse.ForeignKey, self string) {
	for _, col := range fk.Columns {
		if t.Column(col) == nil {
			u.refusef(fk.Parent.Loc, "column %q referenced in foreign key constraint does not exist", col)
			return
		}
	}
	name := fk.Name
	if name != "" && slices.ContainsFunc(t.foreignKeys, func(k foreignKey) bool { return k.name == name }) {
		u.refusef(fk.Parent.Loc, "constraint %q for relation %q already exists", name, t.Name)
		return
	}
	if name == "" {
		name2 := strings.Join(fk.Columns, "_")
		name = chooseName(t.Name, name2, "fkey", func(n string) bool { return u.c.constraintNameTaken(t, n) })
	}
	k := foreignKey{name: name, columns: slices.Clone(fk.Columns), refs: slices.Clone(fk.Refs), parentName: fk.Parent,
		onDelete: fk.OnDelete, onUpdate: fk.OnUpdate, file: u.f.Name}
	k.line, k.col = u.pos(fk.Parent.Loc)
	parent := t
	if fk.Parent.Schema != "" || fk.Parent.Name != self {
		parent = u.c.Table(fk.Parent.Schema, fk.Parent.Name)
	}
	if parent != nil && !parent.IsSystem() {
		for _, col := range fk.Refs {
			if parent.Column(col) == nil {
				u.refusef(fk.Parent.Loc, "column %q referenced in foreign key constraint does not exist", col)
				return
			}
		}
		k.bind(parent)
	}
	t.foreignKeys = append(t.foreignKeys, k)
	for _, ch := range u.c.partitions(t) {
		u.c.cloneForeignKey(ch, k)
	}
}

// cloneForeignKey gives partition t a copy of its partitioned table's
// foreign key fk, under the same name, unless t has an equal one (which
// ATTACH PARTITION takes for the copy), and its partitions too
// (PostgreSQL source, CloneFkReferencing).
func (c *Catalog) cloneForeignKey(t *Table, fk foreignKey) {
	if slices.ContainsFunc(fk.columns, func(col string) bool { return t.Column(col) == nil }) ||
		slices.ContainsFunc(t.foreignKeys, func(x foreignKey) bool {
			return x.parent == fk.parent && x.parentName == fk.parentName && slices.Equal(x.columns, fk.columns) && slices.Equal(x.refs, fk.refs)
		}) {
		return
	}
	fk.clone = true
	fk.columns, fk.refs = slices.Clone(fk.columns), slices.Clone(fk.refs)
	t.foreignKeys = append(t.foreignKeys, fk)
	for _, ch := range c.partitions(t) {
		c.cloneForeignKey(ch, fk)
	}
}

// partitions returns t's partitions.
func (c *Catalog) partitions(t *Table) []*Table {
	var out []*Table
	for _, ch := range c.children(t) {
		if ch.partitionOf == t {
			out = append(out, ch)
		}
	}
	return out
}

// bind makes p the key's parent: PostgreSQL resolves an omitted column
// list to the parent's primary key when the constraint is made.
func (k *foreignKey) bind(p *Table) {
	k.parent = p
	if len(k.refs) == 0 {
		k.refs = slices.Clone(p.PrimaryKey)
	}
}

// bindForeignKeys binds the foreign keys waiting for a table of p's name
// (see foreignKey.parent) to p, just created.
func (c *Catalog) bindForeignKeys(p *Table) {
	for _, s := range c.Schemas {
		for _, t := range s.Tables {
			for i := range t.foreignKeys {
				fk := &t.foreignKeys[i]
				if fk.parent == nil && fk.parentName.Name == p.Name && c.Table(fk.parentName.Schema, fk.parentName.Name) == p {
					fk.bind(p)
				}
			}
		}
	}
}

// unboundForeignKeyNotes notes each foreign key whose parent the schema
// never creates: fencegen cannot follow its ON DELETE and ON UPDATE
// actions.
func (c *Catalog) unboundForeignKeyNotes() diag.List {
	var notes diag.List
	for _, s := range c.Schemas {
		for _, t := range s.Tables {
			for _, fk := range t.foreignKeys {
				if fk.parent == nil {
					notes.AddErr(&diag.Error{File: fk.file, Line: fk.line, Col: fk.col, Err: ErrNotFound,
						Msg: fmt.Sprintf("note: foreign key %s of %s refers to relation %q, which the schema does not create; its actions are not followed", fk.name, t.QualifiedName(), fk.parentName.String())})
				}
			}
		}
	}
	return notes
}

// dropConstraint drops t's constraint name, if it is a PRIMARY KEY,
// UNIQUE or FOREIGN KEY constraint (CHECK, EXCLUDE and NOT NULL
// constraints are not modelled), and reports whether it was one. Dropping
// a key drops the foreign keys that refer to it and its partitions' keys
// (PostgreSQL requires CASCADE for the former; fencegen, like sqlc, does
// not check dependencies).
func (c *Catalog) dropConstraint(t *Table, name string) bool {
	if k, ok := t.keys[name]; ok {
		c.dropKey(t, name, k)
		return true
	}
	return c.dropForeignKey(t, name)
}

// dropForeignKey drops t's foreign key named name (and its partitions'
// copies), and reports whether there was one.
func (c *Catalog) dropForeignKey(t *Table, name string) bool {
	n := len(t.foreignKeys)
	t.foreignKeys = slices.DeleteFunc(t.foreignKeys, func(fk foreignKey) bool { return fk.name == name })
	if len(t.foreignKeys) == n {
		return false
	}
	// The partitions' copies go with it.
	for _, ch := range c.partitions(t) {
		c.dropForeignKey(ch, name)
	}
	return true
}

func (c *Catalog) dropKey(t *Table, name string, k key) {
	delete(t.keys, name)
	if k.primary {
		t.PrimaryKey = nil
	}
	c.dropReferencing(t, func(fk foreignKey) bool { return sameColumns(fk.refs, k.columns) })
	for _, ch := range c.children(t) {
		if ch.partitionOf != t {
			continue
		}
		for n, ck := range ch.keys {
			if slices.Equal(ck.columns, k.columns) && ck.primary == k.primary {
				c.dropKey(ch, n, ck)
				break
			}
		}
	}
}

// dropReferencing drops the foreign keys of every table (t among them)
// whose parent is t and for which match holds.
func (c *Catalog) dropReferencing(t *Table, match func(foreignKey) bool) {
	for _, s := range c.Schemas {
		for _, x := range s.Tables {
			x.foreignKeys = slices.DeleteFunc(x.foreignKeys, func(fk foreignKey) bool { return fk.parent == t && match(fk) })
		}
	}
}

// dropColumnConstraints drops what PostgreSQL drops with column col of t:
// the keys and foreign keys of t that use it, and the foreign keys that
// refer to it (PostgreSQL docs, ALTER TABLE DROP COLUMN: "Indexes and
// table constraints involving the column will be automatically dropped";
// foreign keys of other tables need CASCADE, not checked here).
func (c *Catalog) dropColumnConstraints(t *Table, col string) {
	for name, k := range t.keys {
		if slices.Contains(k.columns, col) {
			c.dropKey(t, name, k)
		}
	}
	for name, cols := range t.indexes {
		if slices.Contains(cols, col) {
			delete(t.indexes, name)
		}
	}
	t.foreignKeys = slices.DeleteFunc(t.foreignKeys, func(fk foreignKey) bool { return slices.Contains(fk.columns, col) })
	c.dropReferencing(t, func(fk foreignKey) bool { return slices.Contains(fk.refs, col) })
}

// shrinkKeys takes column col out of t's keys and indexes, as MySQL's
// DROP COLUMN does: a key goes only with its last column (MariaDB refuses
// the DROP COLUMN of a column of a unique key of several, error 1072;
// MySQL 8 shrinks the key). A primary key shrinks with its key.
func (c *Catalog) shrinkKeys(t *Table, col string) {
	without := func(cols []string) []string {
		return slices.DeleteFunc(slices.Clone(cols), func(x string) bool { return x == col })
	}
	for name, k := range t.keys {
		if !slices.Contains(k.columns, col) || len(k.columns) == 1 {
			continue
		}
		k.columns = without(k.columns)
		t.keys[name] = k
		if k.primary {
			t.PrimaryKey = slices.Clone(k.columns)
		}
	}
	for name, cols := range t.indexes {
		if cols != nil && slices.Contains(cols, col) && len(cols) > 1 {
			t.indexes[name] = without(cols)
		}
	}
}

// KeyPrefix is the length of the shortest prefix of column col that a
// unique key of t compares (MySQL's UNIQUE (email(10))), 0 when every
// key compares the whole value. A key dropped since still counts: the
// prefix it gives matches no fewer rows than a key compares.
func (t *Table) KeyPrefix(col string) int { return t.keyPrefix[col] }

// UntrackedUniqueAt locates the schema statement of a unique key of t
// that fencegen does not model (UniqueKeys' untracked), file "" when none
// is known.
func (t *Table) UntrackedUniqueAt() (file string, line, col int) {
	return t.untrackedFile, t.untrackedLine, t.untrackedCol
}

// notePrefix records in t.keyPrefix the prefix lengths of a unique key's
// parts (prefix nil: none, or an entry 0: the whole value).
func (t *Table) notePrefix(cols []string, prefix []int) {
	for i, n := range prefix {
		if n <= 0 || i >= len(cols) {
			continue
		}
		if t.keyPrefix == nil {
			t.keyPrefix = map[string]int{}
		}
		if old, ok := t.keyPrefix[cols[i]]; !ok || n < old {
			t.keyPrefix[cols[i]] = n
		}
	}
}

// untracked records, at loc, a unique key of t that fencegen does not
// model (UniqueKeys' untracked).
func (u *updater) untracked(t *Table, loc int) {
	t.untrackedUnique = true
	if t.untrackedFile == "" {
		t.untrackedLine, t.untrackedCol = u.pos(loc)
		t.untrackedFile = u.f.Name
	}
}

// dropMySQLIndex drops t's key or index named name as MySQL's DROP INDEX
// does (names compared as MySQL compares index names, without case), the
// primary key for "" or PRIMARY, and reports whether one went.
func (c *Catalog) dropMySQLIndex(t *Table, name string) bool {
	for n, k := range t.keys {
		if k.primary && (name == "" || strings.EqualFold(name, "primary")) || strings.EqualFold(n, name) {
			c.dropKey(t, n, k)
			return true
		}
	}
	for n := range t.indexes {
		if strings.EqualFold(n, name) {
			delete(t.indexes, n)
			return true
		}
	}
	return false
}

// renameMySQLIndex renames t's unique key or index named old (without
// case; not the primary key, which MySQL keeps as PRIMARY) to nu, as
// MySQL's ALTER TABLE ... RENAME INDEX / RENAME KEY does (issue 27,
// trial r27s F1), and reports whether one was renamed.
func (c *Catalog) renameMySQLIndex(t *Table, old, nu string) bool {
	for n, k := range t.keys {
		if !k.primary && strings.EqualFold(n, old) {
			delete(t.keys, n)
			t.keys[nu] = k
			return true
		}
	}
	for n, cols := range t.indexes {
		if strings.EqualFold(n, old) {
			delete(t.indexes, n)
			t.indexes[nu] = cols
			return true
		}
	}
	return false
}

// dropMySQLConstraint drops t's constraint named name as MySQL's ALTER
// TABLE ... DROP CONSTRAINT does (MariaDB 10.2, MySQL 8.0.19; names
// compared without case): the primary key for PRIMARY, else the unique
// key, unique index or foreign key of that name, and reports whether one
// went. A CHECK, which the catalog does not model, goes without a trace;
// so does a name the catalog does not know (an unnamed unique key's,
// which fencegen does not name as MySQL does): the catalog then keeps a
// unique key too many, never a primary key the server dropped, as MySQL
// names the primary key PRIMARY only.
//
// A foreign key and a unique key may share a name (the key then serves
// as the foreign key's index): MariaDB's DROP CONSTRAINT drops the
// foreign key and keeps the unique key, MySQL 8 refuses the statement
// (ER_MULTIPLE_CONSTRAINTS_WITH_SAME_NAME); either way the unique key
// stays, so the foreign key goes first (issue 27, trial r27s F7). On
// MySQL 8 the catalog then lacks a foreign key the server keeps, after
// a migration the server refused.
func (c *Catalog) dropMySQLConstraint(t *Table, name string) bool {
	for _, fk := range t.foreignKeys {
		if strings.EqualFold(fk.name, name) {
			return c.dropForeignKey(t, fk.name)
		}
	}
	for n, k := range t.keys {
		if k.primary && strings.EqualFold(name, "primary") || !k.primary && strings.EqualFold(n, name) {
			c.dropKey(t, n, k)
			return true
		}
	}
	for n, cols := range t.indexes {
		if cols != nil && strings.EqualFold(n, name) {
			delete(t.indexes, n)
			return true
		}
	}
	return false
}

// dropTableConstraints drops the foreign keys of other tables that refer
// to t, dropped (DROP TABLE ... CASCADE).
func (c *Catalog) dropTableConstraints(t *Table) {
	c.dropReferencing(t, func(foreignKey) bool { return true })
}

// renameColumnConstraints renames column old of t to nu in t's keys and
// foreign keys and in the foreign keys that refer to it. Constraint names
// stay as they are, as in PostgreSQL.
func (c *Catalog) renameColumnConstraints(t *Table, old, nu string) {
	rename := func(cols []string) []string {
		out := slices.Clone(cols)
		for i, x := range out {
			if x == old {
				out[i] = nu
			}
		}
		return out
	}
	t.PrimaryKey = rename(t.PrimaryKey)
	if n, ok := t.keyPrefix[old]; ok {
		delete(t.keyPrefix, old)
		t.notePrefix([]string{nu}, []int{n})
	}
	for name, k := range t.keys {
		k.columns = rename(k.columns)
		t.keys[name] = k
	}
	for name, cols := range t.indexes {
		if cols != nil {
			t.indexes[name] = rename(cols)
		}
	}
	for i := range t.foreignKeys {
		t.foreignKeys[i].columns = rename(t.foreignKeys[i].columns)
	}
	for _, s := range c.Schemas {
		for _, x := range s.Tables {
			for i := range x.foreignKeys {
				if x.foreignKeys[i].parent == t {
					x.foreignKeys[i].refs = rename(x.foreignKeys[i].refs)
				}
			}
		}
	}
}

// sameColumns reports whether a and b hold the same columns in any order
// (a foreign key's referenced columns match a key regardless of order).
func sameColumns(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// UniqueKeys returns the columns of each of t's PRIMARY KEY and UNIQUE
// constraints and unique indexes on plain columns (a row that a REPLACE
// or INSERT ... ON DUPLICATE KEY UPDATE may conflict with holds the same
// values in one of them), primary key first, then sorted; untracked
// reports a unique index fencegen does not model (on expressions).
func (t *Table) UniqueKeys() (keys [][]string, untracked bool) {
	for _, k := range t.keys {
		keys = append(keys, k.columns)
	}
	for name, cols := range t.indexes {
		if cols != nil && !t.partial[name] {
			keys = append(keys, cols)
		}
	}
	slices.SortFunc(keys, func(a, b []string) int {
		if pa, pb := slices.Equal(a, t.PrimaryKey), slices.Equal(b, t.PrimaryKey); pa != pb {
			if pa {
				return -1
			}
			return 1
		}
		return slices.Compare(a, b)
	})
	keys = slices.CompactFunc(keys, slices.Equal)
	return keys, t.untrackedUnique
}

// TriggerlessActionNote is the text every FencedActionNotes note holds.
const TriggerlessActionNote = "MariaDB and MySQL fire no triggers for the rows a foreign-key action writes"

// FencedActionNotes notes, for a MySQL schema, each foreign key of a
// fenced table whose ON DELETE or ON UPDATE action (CASCADE, SET NULL,
// SET DEFAULT) writes its rows: the server runs no trigger for them, so
// fencegen's guard triggers do not check the writes of other writers
// that set the action off. Queries fencegen generates are refused when
// they may (analyze), but a writer outside them is not stopped.
func (c *Catalog) FencedActionNotes() diag.List {
	actions := map[byte]string{'c': "CASCADE", 'n': "SET NULL", 'd': "SET DEFAULT"}
	var notes diag.List
	for _, s := range c.Schemas {
		for _, t := range s.Tables {
			if t.Fence == nil {
				continue
			}
			for _, fk := range t.foreignKeys {
				var acts []string
				if a := actions[fk.onDelete]; a != "" {
					acts = append(acts, "ON DELETE "+a)
				}
				if a := actions[fk.onUpdate]; a != "" {
					acts = append(acts, "ON UPDATE "+a)
				}
				if len(acts) == 0 || fk.clone {
					continue
				}
				parent := fk.parentName.String()
				if fk.parent != nil {
					parent = fk.parent.QualifiedName()
				}
				notes.AddErr(&diag.Error{File: fk.file, Line: fk.line, Col: fk.col,
					Msg: fmt.Sprintf("note: foreign key of fenced table %s to %s has %s: %s, so the guard triggers of %s do not check the rows it writes: %s of %s by a writer outside the generated code changes them with no token (the generated queries that may set it off are refused); make the action RESTRICT or NO ACTION to have every write of %s guarded",
						t.QualifiedName(), parent, strings.Join(acts, ", "), TriggerlessActionNote, t.QualifiedName(), diag.A(strings.ToLower(strings.Join(actVerbs(fk.onDelete, fk.onUpdate, actions), " or "))), parent, t.QualifiedName())})
			}
		}
	}
	return notes.Sort()
}

// actVerbs are the statements that set off a foreign key's actions.
func actVerbs(onDelete, onUpdate byte, actions map[byte]string) []string {
	var v []string
	if actions[onDelete] != "" {
		v = append(v, "DELETE")
	}
	if actions[onUpdate] != "" {
		v = append(v, "UPDATE")
	}
	return v
}
