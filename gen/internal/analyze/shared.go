package analyze

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/writes"
)

// Writes across the sql entries of a configuration, which share one
// database (trial r24 N6, N8): an entry whose schema lacks another's
// trigger, cascading foreign key or fenced table of another schema would
// write it unguarded. Every entry's catalog gets the Reaches of every
// entry's schema (catalog.Reach), and a write is judged by all of them
// (sharedWrites, funcWrites.sharedLocked).

// Reaches returns the relations of cat (a PostgreSQL catalog, validated)
// through which a write reaches a fenced table: each fenced table (Event
// ""), and each relation whose write of an event sets off a write of a
// fenced table as tableWritesLocked, reachedBy and viewBaseWritesLocked
// find it (for UPDATE with the columns whose assignment does, when not
// every UPDATE does). entry names cat's sql entry in the Reaches.
func Reaches(cat *catalog.Catalog, entry string) []catalog.Reach {
	fw := newFuncWrites(cat)
	fw.mu.Lock()
	defer fw.mu.Unlock()
	var out []catalog.Reach
	for _, s := range cat.Schemas {
		for _, t := range s.Tables {
			if t.Fence != nil {
				out = append(out, catalog.Reach{Schema: t.Schema, Name: t.Name, Entry: entry, What: "fenced table " + t.QualifiedName()})
			}
			for _, ev := range []string{"INSERT", "UPDATE", "DELETE", "TRUNCATE"} {
				what := fw.reachLocked(t, ev, nil)
				if what == "" {
					continue
				}
				r := catalog.Reach{Schema: t.Schema, Name: t.Name, Event: ev, Entry: entry, What: what}
				if ev == "UPDATE" && fw.reachLocked(t, ev, []string{}) == "" {
					// Only the assignment of some columns sets it off.
					for _, c := range t.Columns {
						if fw.reachLocked(t, ev, []string{c.Name}) != "" {
							r.Cols = append(r.Cols, c.Name)
						}
					}
				}
				out = append(out, r)
			}
			if !t.IsView {
				for _, c := range cat.AllCascades(t, "truncate", nil) {
					if c.Table.Fence != nil || len(reachedBy(cat, c.Table, "TRUNCATE", false)) > 0 {
						out = append(out, catalog.Reach{Schema: t.Schema, Name: t.Name, Event: "TRUNCATE CASCADE", Entry: entry,
							What: "fenced table " + c.Table.QualifiedName() + " (foreign keys " + c.Path + ")"})
						break
					}
				}
			}
		}
	}
	return out
}

// reachLocked describes the first write of a fenced table that a write
// (event ev) of t sets off, "" when none; cols are the columns an UPDATE
// assigns and names in its SET list (nil: any). A fenced t's own write,
// which its guard covers, is left out. fw.mu must be held.
func (fw *funcWrites) reachLocked(t *catalog.Table, ev string, cols []string) string {
	var ws []hiddenWrite
	if t.Fence == nil {
		for _, d := range reachedBy(fw.cat, t, ev, false) {
			ws = append(ws, hiddenWrite{table: d, verb: ev, path: []string{ev + " on " + t.QualifiedName() + ", whose " + descendantKind(t, d) + " " + d.QualifiedName() + " is fenced"}})
		}
	}
	ws = append(ws, fw.tableWritesLocked(t, []string{ev}, cols, cols, nil, true, false, false)...)
	if t.IsView {
		ws = append(ws, fw.viewBaseWritesLocked(t, ev, []string{ev}, nil)...)
	}
	ws = slices.DeleteFunc(ws, func(w hiddenWrite) bool { return w.table == t })
	if len(ws) == 0 {
		return ""
	}
	w := ws[0]
	if w.table == nil {
		return "statements fencegen cannot see (" + strings.Join(append(w.steps(), w.unknown), ": ") + ")"
	}
	what := "fenced table " + w.table.QualifiedName()
	if st := w.steps(); len(st) > 0 {
		what += " (" + strings.Join(st, " → ") + ")"
	}
	return what
}

// sharedReach returns the first Reach of another sql entry that a write
// of the relation named schema.name (schema "" when written without one)
// that the catalog resolved to t (nil: to none) matches, and whether it
// is of another schema's relation of that name (an unqualified name the
// search_path at run time may resolve to it). A Reach the catalog's own
// analysis sees (its own of the same relation and event, or a fenced
// table it has) is left out.
func sharedReach(cat *catalog.Catalog, schema, name string, t *catalog.Table, events, set, targets []string, cascade bool) (*catalog.Reach, bool) {
	rs := cat.ReachesOf(name)
	if len(rs) == 0 {
		return nil, false
	}
	own := func(r catalog.Reach) bool {
		for _, o := range rs {
			if o.Own && o.Schema == r.Schema && o.Event == r.Event && (o.Cols == nil || r.Cols != nil && !slices.ContainsFunc(r.Cols, func(c string) bool { return !slices.Contains(o.Cols, c) })) {
				return true
			}
		}
		return false
	}
	for i, r := range rs {
		if r.Own || own(r) {
			continue
		}
		if t != nil && r.Schema == t.Schema {
			if r.Event == "" && t.Fence == nil || r.Event != "" && r.Matches(events, set, targets, cascade) {
				return &rs[i], false
			}
			continue
		}
		if schema != "" || t != nil && t.Fence != nil {
			continue // qualified, or guarded as t's
		}
		if r.Event == "" || r.Matches(events, nil, nil, cascade) {
			return &rs[i], true
		}
	}
	return nil, false
}

// sharedWrites refuses write w of the query, whose relation the catalog
// resolved to t (nil: none), when another sql entry's schema declares
// that a write of it reaches a fenced table (sharedReach).
func (a *analyzer) sharedWrites(q *Query, w writes.Write, t *catalog.Table) {
	r, shadow := sharedReach(a.cat, w.Table.Schema, w.Table.Name, t, w.Events, w.Set, w.Targets, w.Cascade)
	if r == nil {
		return
	}
	rel := r.Schema + "." + r.Name
	if shadow {
		took := "names no relation of the search_path fencegen knows"
		if t != nil {
			took = "fencegen takes it for " + t.FullName()
		}
		a.refuseAnyFenced(w.Loc, "query %s writes %s, unqualified: %s, but in the schema of %s, which shares the database, %s has the same name and a write through it writes %s without the guard, and PostgreSQL picks the relation by the search_path the statement runs under; qualify the name",
			q.Name, w.Table.Name, took, r.Entry, rel, r.What)
		return
	}
	a.refuseAnyFenced(w.Loc, "query %s runs %s on %s, which in the schema of %s, which shares the database, writes %s without the guard; this sql entry's schema does not declare it: give both entries the same schema files",
		q.Name, w.Verb, rel, r.Entry, r.What)
}

// sharedLocked returns, for a body's write of verb to the relation named
// n that the catalog resolved to t, the write another sql entry's schema
// declares it to set off (sharedReach, any column). fw.mu must be held.
func (fw *funcWrites) sharedLocked(schema, name string, t *catalog.Table, verb string) []hiddenWrite {
	if t == nil && fw.cat.FencedElsewhere(sqlparse.Name{Schema: schema, Name: name}) != nil {
		return nil // said by funcWrites.table, naming the entry's mark
	}
	r, shadow := sharedReach(fw.cat, schema, name, t, verbEvents(verb), nil, nil, verb == "TRUNCATE")
	if r == nil {
		return nil
	}
	why := fmt.Sprintf("it runs %s on %s, which in the schema of %s (the same database) writes %s", verb, r.Schema+"."+r.Name, r.Entry, r.What)
	if shadow {
		why = fmt.Sprintf("it runs %s on %s, unqualified, and in the schema of %s (the same database) %s.%s has that name and writes %s", verb, name, r.Entry, r.Schema, r.Name, r.What)
	}
	return []hiddenWrite{{verb: "statements fencegen cannot see", unknown: why}}
}
