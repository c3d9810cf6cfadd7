package catalog

import (
	"slices"

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

// Reach is a relation through which a write of Event sets off a write of
// a fenced table (its triggers, rules, foreign-key actions, partitions
// and inheritance children, defaults, a view's base relation), or a
// fenced table itself (Event ""), as one sql entry's schema declares it
// (analyze.Reaches). The entries of a configuration share a database
// (trial r24 N6, N8): another entry whose schema lacks the trigger, the
// cascading foreign key or the fenced table writes the relation as this
// schema declares it, so its write is judged by every entry's Reaches
// (AddReach, ReachesOf).
type Reach struct {
	Schema, Name string
	// Event is INSERT, UPDATE, DELETE, TRUNCATE, "TRUNCATE CASCADE" (a
	// TRUNCATE ... CASCADE through foreign keys) or "" (the relation is a
	// fenced table).
	Event string
	// Cols are, for UPDATE, the columns whose assignment sets the write
	// off (an ON UPDATE action of a key, an UPDATE OF trigger); nil: any
	// UPDATE does.
	Cols []string
	// Entry names the sql entry whose schema declares it; What says what
	// the write reaches ("fenced table app.jobs (foreign keys ...)").
	Entry, What string
	// Own is set for this catalog's own (which its analysis sees
	// itself).
	Own bool
}

// AddReach records r; see Reach.
func (c *Catalog) AddReach(r Reach) {
	c.reach = append(c.reach, r)
}

// ReachesOf returns the Reaches recorded of relations named name, in any
// schema.
func (c *Catalog) ReachesOf(name string) []Reach {
	var out []Reach
	for _, r := range c.reach {
		if r.Name == name {
			out = append(out, r)
		}
	}
	return out
}

// Matches reports whether a write firing events, assigning the columns
// set and naming those of targets in its SET lists (nil: any; an upsert's
// DO UPDATE assigns its targets alone, set nil), with cascade for
// TRUNCATE ... CASCADE, is one r records.
func (r Reach) Matches(events, set, targets []string, cascade bool) bool {
	for _, e := range events {
		switch {
		case r.Event == "TRUNCATE CASCADE":
			if e == "TRUNCATE" && cascade {
				return true
			}
		case r.Event != e:
		case e != "UPDATE" || r.Cols == nil || targets == nil:
			return true
		default:
			for _, c := range r.Cols {
				if slices.Contains(set, c) || slices.Contains(targets, c) {
					return true
				}
			}
		}
	}
	return false
}

// SharesDatabase reports whether another sql entry of the configuration
// shares the database with this catalog's (another PostgreSQL entry's
// reaches were recorded, or a table it fences): its queries, on a
// connection this entry's may share, name relations this catalog does
// not know.
func (c *Catalog) SharesDatabase() bool { return len(c.reach) > 0 || len(c.elsewhere) > 0 }
