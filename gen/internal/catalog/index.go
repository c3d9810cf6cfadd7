package catalog

// CREATE INDEX, kept for the names it takes and for ADD CONSTRAINT ...
// USING INDEX, which makes a unique index a PRIMARY KEY or UNIQUE
// constraint.

import (
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// createIndex records index n of its table, named as PostgreSQL names it
// when the statement does not (PostgreSQL source, ChooseIndexName:
// <table>_<columns>_idx, "expr" for an expression, numbered while taken).
// Like sqlc, an index on a relation the catalog lacks is no error.
func (u *updater) createIndex(n *sqlparse.CreateIndex) {
	t := u.c.Table(n.Table.Schema, n.Table.Name)
	if t == nil || t.IsSystem() {
		return
	}
	name := n.Name
	if name == "" {
		name2 := strings.Join(n.Columns, "_")
		if n.Columns == nil {
			name2 = "expr"
		}
		name = chooseName(t.Name, name2, "idx", func(n string) bool { return u.c.relationNameTaken(t, n) })
	} else if u.c.relationNameTaken(t, name) {
		if !n.IfNotExists {
			u.refusef(n.Table.Loc, "relation %q already exists", name)
		}
		return
	}
	if t.indexes == nil {
		t.indexes = map[string][]string{}
	}
	var cols []string
	if n.Unique {
		cols = slices.Clone(n.Columns)
		if n.Columns == nil {
			u.untracked(t, n.Table.Loc)
		}
		t.notePrefix(n.Columns, n.Prefix)
		if n.Partial && cols != nil {
			if t.partial == nil {
				t.partial = map[string]bool{}
			}
			t.partial[name] = true
		}
	}
	t.indexes[name] = cols
}

var excludeRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bexclude\b`) })

// mayExclude reports whether one of t's hooks may make an EXCLUDE
// constraint, which fencegen does not model.
func (t *Table) mayExclude() bool {
	return slices.ContainsFunc(t.Hooks, func(h *Hook) bool { return excludeRE().MatchString(h.Text) })
}

// ConflictArbiter reports whether INSERT ... ON CONFLICT (cols) on t can
// infer an arbiter: a PRIMARY KEY, a UNIQUE constraint or a unique index,
// partial or not, on exactly those columns in any order (PostgreSQL docs,
// INSERT, "conflict_target"). It is also true whenever fencegen cannot
// tell: a view, a unique index on expressions, an EXCLUDE constraint.
// Without an arbiter PostgreSQL plans the statement to an error, "there
// is no unique or exclusion constraint matching the ON CONFLICT
// specification" (42P10), at every execution (PREPARE does not plan it).
func (t *Table) ConflictArbiter(cols []string) bool {
	if t.IsView {
		return true
	}
	// A partition has its partitioned table's indexes.
	rels := []*Table{t}
	for p := t.partitionOf; p != nil; p = p.partitionOf {
		rels = append(rels, p)
	}
	for _, r := range rels {
		if r.untrackedUnique || r.mayExclude() {
			return true
		}
	}
	set := slices.Clone(cols)
	slices.Sort(set)
	set = slices.Compact(set)
	same := func(c []string) bool {
		c = slices.Clone(c)
		slices.Sort(c)
		return slices.Equal(slices.Compact(c), set)
	}
	for _, r := range rels {
		for _, k := range r.keys {
			if same(k.columns) {
				return true
			}
		}
	}
	for _, r := range rels {
		for _, c := range r.indexes {
			if c != nil && same(c) {
				return true
			}
		}
	}
	return false
}

// indexKey applies ADD CONSTRAINT name PRIMARY KEY / UNIQUE USING INDEX
// k.Index: the unique index becomes the constraint, renamed to it
// (PostgreSQL docs, ALTER TABLE: "the index is renamed to match the
// constraint name").
func (u *updater) indexKey(t *Table, k *sqlparse.KeyConstraint, loc int) {
	cols, ok := t.indexes[k.Index]
	if !ok || cols == nil || t.partial[k.Index] {
		u.refusef(loc, "index %q of relation %q is no unique index on columns", k.Index, t.Name)
		return
	}
	delete(t.indexes, k.Index)
	name := k.Name
	if name == "" {
		name = k.Index
	}
	u.c.addKeyTree(t, name, cols, k.Primary, false)
}

// dropIndex drops the index schema.name and reports whether there was one.
func (c *Catalog) dropIndex(n sqlparse.Name) bool {
	for _, s := range c.Schemas {
		if n.Schema != "" && s.Name != n.Schema {
			continue
		}
		for _, t := range s.Tables {
			if _, ok := t.indexes[n.Name]; ok {
				delete(t.indexes, n.Name)
				return true
			}
		}
	}
	return false
}

// HasConstraint reports whether ON CONFLICT ON CONSTRAINT name can name a
// constraint of t: a PRIMARY KEY or UNIQUE constraint fencegen knows, or,
// when t may have constraints fencegen does not model (EXCLUDE, a view),
// any name.
func (t *Table) HasConstraint(name string) bool {
	_, ok := t.keys[name]
	return ok || t.IsView || t.mayExclude()
}
