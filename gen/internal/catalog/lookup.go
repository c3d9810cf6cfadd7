package catalog

import (
	"slices"
	"sync"
	"sync/atomic"
)

// relIndex holds what the analysis asks of the catalog for every statement
// (a table by name, a table's inheritance children, the foreign keys that
// refer to a table), each of which is otherwise a scan of every table of
// every schema: at a thousand tables and ten thousand queries those scans
// were about 5% of a run's instructions (BENCHMARKS.md, issue 23). It is
// built from the catalog as the statements applied so far (seq) left it,
// and used only while no statement is being applied: Update reads and
// changes the catalog through the scans.
type relIndex struct {
	seq int
	// byName maps a schema's table names to the schema's first table
	// of that name (Schema.table).
	byName map[*Schema]map[string]*Table
	// children maps a table to the tables that inherit from it, in
	// schema and table order (Catalog.children).
	children map[*Table][]*Table
	// referrers maps a table to the foreign keys that refer to it, in
	// schema, table and key order (Catalog.referrers).
	referrers map[*Table][]fkRef
}

// fkRef is the i'th foreign key of table t.
type fkRef struct {
	t *Table
	i int
}

// indexCache is a Catalog's relIndex, built on first use after the last
// statement applied; the analysis reads the catalog from several
// goroutines.
type indexCache struct {
	mu  sync.Mutex
	idx atomic.Pointer[relIndex]
	// updating is set while Update applies a statement.
	updating bool
}

// index returns c's relIndex, or nil while a statement is being applied.
func (c *Catalog) index() *relIndex {
	if c.cache.updating {
		return nil
	}
	if x := c.cache.idx.Load(); x != nil && x.seq == c.seq {
		return x
	}
	c.cache.mu.Lock()
	defer c.cache.mu.Unlock()
	if x := c.cache.idx.Load(); x != nil && x.seq == c.seq {
		return x
	}
	x := &relIndex{seq: c.seq, byName: map[*Schema]map[string]*Table{}, children: map[*Table][]*Table{}, referrers: map[*Table][]fkRef{}}
	for _, s := range c.Schemas {
		names := make(map[string]*Table, len(s.Tables))
		for _, t := range s.Tables {
			if _, ok := names[t.Name]; !ok {
				names[t.Name] = t
			}
			for _, p := range t.parents {
				if ch := x.children[p]; len(ch) == 0 || ch[len(ch)-1] != t {
					x.children[p] = append(ch, t)
				}
			}
			for i, fk := range t.foreignKeys {
				if fk.parent != nil {
					x.referrers[fk.parent] = append(x.referrers[fk.parent], fkRef{t, i})
				}
			}
		}
		x.byName[s] = names
	}
	c.cache.idx.Store(x)
	return x
}

// schemaTable is s.table(name), through the index when there is one.
func (c *Catalog) schemaTable(s *Schema, name string) *Table {
	if x := c.index(); x != nil {
		if names, ok := x.byName[s]; ok {
			return names[name]
		}
	}
	return s.table(name)
}

// children returns the tables that inherit from t.
func (c *Catalog) children(t *Table) []*Table {
	if x := c.index(); x != nil {
		return slices.Clone(x.children[t])
	}
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

// referrers returns the foreign keys that refer to p, in schema, table
// and key order.
func (c *Catalog) referrers(p *Table) []fkRef {
	if x := c.index(); x != nil {
		return x.referrers[p]
	}
	var out []fkRef
	for _, s := range c.Schemas {
		for _, t := range s.Tables {
			for i, fk := range t.foreignKeys {
				if fk.parent == p {
					out = append(out, fkRef{t, i})
				}
			}
		}
	}
	return out
}
