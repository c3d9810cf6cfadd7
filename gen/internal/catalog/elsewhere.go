package catalog

import (
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// FenceElsewhere is a table another sql entry of the configuration fences
// that this catalog's schema does not define (trial t24 F11). The entries
// share a database (a table fenced in one is fenced in every entry whose
// schema has it), so a body of this entry's schema that writes a
// relation of that name may write the fenced table, unseen by this
// entry's catalog.
type FenceElsewhere struct {
	Schema, Name string
	// Entry names the sql entry that fences it, File and Line its mark.
	Entry, File string
	Line        int
}

// AddFenceElsewhere records f; see FenceElsewhere.
func (c *Catalog) AddFenceElsewhere(f FenceElsewhere) {
	c.elsewhere = append(c.elsewhere, f)
}

// FencedElsewhere returns the table another sql entry fences that a
// relation named n may be, when this catalog does not define n: of the
// same qualified name, or of the same name in any schema for n written
// without a schema (the search_path it runs under is not known); nil
// when there is none.
func (c *Catalog) FencedElsewhere(n sqlparse.Name) *FenceElsewhere {
	for i, f := range c.elsewhere {
		if f.Name == n.Name && (n.Schema == "" || n.Schema == f.Schema) {
			return &c.elsewhere[i]
		}
	}
	return nil
}

// FencesElsewhere reports whether another sql entry of the configuration
// fences a table this catalog does not define.
func (c *Catalog) FencesElsewhere() bool { return len(c.elsewhere) > 0 }
