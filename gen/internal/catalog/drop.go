package catalog

// DROP of tables, views, sequences, types, schemas and functions.

import (
	"slices"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

func (u *updater) drop(n *sqlparse.Drop) {
	for i, name := range n.Names {
		switch n.Kind {
		case "trigger", "rule":
			// DROP TRIGGER name ON table, DROP RULE name ON table: the
			// writes they set off stop with them. The table is looked
			// up as PostgreSQL does (pathTable): one of its name in a
			// schema PostgreSQL does not search keeps its trigger.
			if i < len(n.On) {
				if t := u.c.pathTable(n.On[i]); t != nil {
					if n.Kind == "trigger" {
						t.Triggers = slices.DeleteFunc(t.Triggers, func(x *Trigger) bool { return x.Name == name.Name })
					} else {
						t.Rules = slices.DeleteFunc(t.Rules, func(x *Rule) bool { return x.Name == name.Name })
					}
				}
			}
		case "table", "view", "materialized view", "sequence":
			s := u.c.Schema(name.Schema)
			if name.Schema == "" {
				// An unqualified name is a temporary relation first, as
				// PostgreSQL searches pg_temp first.
				if ts := u.c.Schema("pg_temp"); ts != nil && ts.table(name.Name) != nil {
					s = ts
				}
			}
			if s != nil {
				if i := slices.IndexFunc(s.Tables, func(t *Table) bool { return t.Name == name.Name }); i >= 0 {
					u.c.dropTable(s.Tables[i], n.Cascade)
					continue
				}
			}
			switch {
			case n.MissingOK:
			case n.Kind == "sequence":
				// sqlc keeps no sequences: DROP SEQUENCE of one that
				// does not exist passes.
				u.refusef(name.Loc, "sequence %q does not exist", name.String())
			default:
				u.errorf(name.Loc, ErrNotFound, "%s %q does not exist", n.Kind, name.String())
			}
		case "type":
			s := u.c.Schema(name.Schema)
			if s != nil {
				if i := slices.IndexFunc(s.Enums, func(e *Enum) bool { return e.Name == name.Name }); i >= 0 {
					u.dropTypeColumns(n, Type{Schema: s.Name, Name: name.Name})
					s.Enums = slices.Delete(s.Enums, i, i+1)
					continue
				}
				if i := slices.IndexFunc(s.Types, func(e *UserType) bool { return e.Name == name.Name }); i >= 0 {
					typ := Type{Schema: s.Name, Name: name.Name}
					// A domain's columns have its base type and the
					// domains they are declared through (Column.domains).
					u.dropTypeColumns(n, typ)
					if n.Cascade {
						// Domains over it go with it (their columns
						// went above: their chains hold typ).
						for _, sc := range u.c.Schemas {
							sc.Types = slices.DeleteFunc(sc.Types, func(d *UserType) bool {
								return slices.Contains(d.over, typ)
							})
						}
					}
					if i = slices.IndexFunc(s.Types, func(e *UserType) bool { return e.Name == name.Name }); i >= 0 {
						s.Types = slices.Delete(s.Types, i, i+1)
					}
					continue
				}
			}
		case "schema":
			if i := slices.IndexFunc(u.c.Schemas, func(s *Schema) bool { return s.Name == name.Name }); i >= 0 {
				u.c.dropFuncs(slices.Clone(u.c.Schemas[i].Funcs), n.Cascade)
				for _, t := range slices.Clone(u.c.Schemas[i].Tables) {
					if n.Cascade {
						// Views in other schemas over its relations go
						// with them.
						u.c.dropDependentViews(t)
					}
					u.c.dropTableConstraints(t)
				}
				i = slices.IndexFunc(u.c.Schemas, func(s *Schema) bool { return s.Name == name.Name })
				u.c.Schemas = slices.Delete(u.c.Schemas, i, i+1)
			}
		case "extension":
			// DROP EXTENSION ... CASCADE drops the columns of its types
			// (those the catalog knows as builtins: citext, hstore,
			// ltree, vector), as PostgreSQL's dependencies do; without
			// CASCADE PostgreSQL refuses while a column uses one.
			if n.Cascade {
				for _, typ := range extensionTypes[name.Name] {
					u.dropTypeColumns(n, Type{Schema: "pg_catalog", Name: typ})
					// Domains over it go too (their columns went:
					// their base type is typ).
					for _, sc := range u.c.Schemas {
						sc.Types = slices.DeleteFunc(sc.Types, func(d *UserType) bool {
							return d.Kind == "domain" && d.Base.Name == typ && d.Base.Schema == "pg_catalog"
						})
					}
				}
			}
			delete(u.c.Extensions, name.Name)
		case "index":
			// An index the catalog does not know (one on a relation it
			// lacks) is no error, as in sqlc.
			u.c.dropIndex(name)
		case "function", "routine", "aggregate":
			// DROP FUNCTION f(args) drops the function of that name
			// and signature in f's schema (or the first schema of the
			// search_path that has one), not its overloads nor its
			// namesakes in other schemas (issue 24, trial t24f
			// overdrop); one fencegen does not find stays.
			var sig []*sqlparse.TypeName
			if i < len(n.Sigs) {
				sig = n.Sigs[i]
			}
			u.c.dropFuncs(u.c.funcsOf(name, sig), n.Cascade)
		}
	}
}

// pathTable returns the relation n names where PostgreSQL looks a
// relation up to change or drop what it holds (DROP TRIGGER ... ON n,
// DROP RULE, ALTER TRIGGER, ALTER RULE): in n's schema or, n
// unqualified, the session's temporary relation of that name, else the
// first schema of the search_path (the default schema while no SET
// search_path is in force) that has one. Unlike Table it does not go on
// to other schemas, nor to the system catalogs: nil when PostgreSQL
// would find none (and, with IF EXISTS, change nothing).
func (c *Catalog) pathTable(n sqlparse.Name) *Table {
	if n.Schema != "" {
		if s := c.Schema(n.Schema); s != nil {
			return s.table(n.Name)
		}
		return nil
	}
	if s := c.Schema("pg_temp"); s != nil {
		if t := s.table(n.Name); t != nil {
			return t
		}
	}
	for _, s := range c.funcSchemas("") {
		if t := s.table(n.Name); t != nil {
			return t
		}
	}
	return nil
}

// dropFuncs drops functions fs and, with cascade, the triggers bound to
// them alone (Trigger.Bound): a trigger that may run another function
// stays, as does one whose function fencegen did not find when it was
// created. The column defaults, CHECKs, views and domains that call
// them PostgreSQL drops too; fencegen keeps their text, which names
// functions no longer there (or, later, a namesake: a refusal too
// many, never one too few).
func (c *Catalog) dropFuncs(fs []*Func, cascade bool) {
	if len(fs) == 0 {
		return
	}
	if cascade {
		for _, s := range c.Schemas {
			for _, t := range s.Tables {
				t.Triggers = slices.DeleteFunc(t.Triggers, func(tr *Trigger) bool {
					bound := c.present(tr.Bound)
					return len(bound) > 0 && !slices.ContainsFunc(bound, func(f *Func) bool { return !slices.Contains(fs, f) })
				})
			}
		}
	}
	for _, s := range c.Schemas {
		s.Funcs = slices.DeleteFunc(s.Funcs, func(f *Func) bool { return slices.Contains(fs, f) })
	}
}

// dropTable drops t with what PostgreSQL drops with it: its partitions,
// its owned sequences, the foreign keys that refer to it and, with
// CASCADE, its inheritance children and the views and materialized views
// over it (without CASCADE PostgreSQL refuses; like sqlc, fencegen leaves
// them, without their parent).
func (c *Catalog) dropTable(t *Table, cascade bool) {
	if cascade {
		c.dropDependentViews(t)
	}
	for _, ch := range c.children(t) {
		if cascade || ch.partitionOf == t {
			c.dropTable(ch, cascade)
		} else {
			c.keepInherited(ch, t)
			ch.parents = slices.DeleteFunc(ch.parents, func(p *Table) bool { return p == t })
		}
	}
	c.dropOwnedSequences(t, "")
	c.dropTableConstraints(t)
	if s := c.Schema(t.Schema); s != nil {
		s.Tables = slices.DeleteFunc(s.Tables, func(x *Table) bool { return x == t })
	}
}

// dropDependentViews drops the views and materialized views whose query
// names t (Table.refs), and those over them, as DROP ... CASCADE of t
// does.
func (c *Catalog) dropDependentViews(t *Table) {
	for _, s := range c.Schemas {
		for _, v := range slices.Clone(s.Tables) {
			if v != t && slices.Contains(v.refs, t) && slices.Contains(s.Tables, v) {
				c.dropTable(v, true)
			}
		}
	}
}

// replaceRefs makes the views over old (CREATE OR REPLACE VIEW's view)
// refer to t, which replaces it.
func (c *Catalog) replaceRefs(old, t *Table) {
	for _, s := range c.Schemas {
		for _, v := range s.Tables {
			for i, r := range v.refs {
				if r == old {
					v.refs[i] = t
				}
			}
		}
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

// extensionTypes are the types of the contrib and common extensions that
// the catalog resolves as builtins (catalog.go's builtins), by extension.
var extensionTypes = map[string][]string{
	"citext": {"citext"}, "hstore": {"hstore"}, "ltree": {"ltree", "lquery", "ltxtquery"},
	"vector": {"vector", "halfvec", "sparsevec"},
}

// dropTypeColumns applies DROP TYPE ... CASCADE to the columns of type
// typ (or an array of it): PostgreSQL drops them, with their constraints.
// Without CASCADE PostgreSQL refuses to drop a type in use; like sqlc,
// fencegen drops the type and leaves the columns.
func (u *updater) dropTypeColumns(n *sqlparse.Drop, typ Type) {
	if !n.Cascade {
		return
	}
	for _, s := range u.c.Schemas {
		for _, t := range s.Tables {
			for _, col := range slices.Clone(t.Columns) {
				if col.DependsOnType(typ.Schema, typ.Name) {
					u.dropColumn(t, col.Name)
				}
			}
		}
	}
}
