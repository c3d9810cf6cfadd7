package catalog

// CREATE SCHEMA and ALTER ... SET SCHEMA.

import (
	"slices"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// createSchema applies CREATE SCHEMA. A CREATE SCHEMA public while public
// is still the schema the catalog starts with, empty, is accepted: pg_dump
// writes it, for a database without one (restored from template0 after
// DROP SCHEMA public, or a fresh one of a server whose template has
// none); the result is that catalog, an empty public schema. sqlc
// accepts it too (internal/sql/catalog/schema.go). Once public has
// objects, or was created explicitly, it is an error, as in PostgreSQL.
func (u *updater) createSchema(n *sqlparse.CreateSchema) {
	s := u.c.Schema(n.Name)
	switch {
	case s == nil:
		u.c.Schemas = append(u.c.Schemas, &Schema{Name: n.Name, created: true})
	case n.IfNotExists:
	case n.Name == DefaultSchema && !s.created && s.empty():
		s.created = true
	default:
		u.errorf(-1, ErrExists, "schema %q already exists", n.Name)
	}
}

// empty reports whether s holds no object.
func (s *Schema) empty() bool {
	return len(s.Tables) == 0 && len(s.Enums) == 0 && len(s.Funcs) == 0 && len(s.Types) == 0
}

// setSchema applies ALTER TABLE / VIEW / TYPE ... SET SCHEMA: the object
// moves to the other schema, and columns of a moved type follow it.
func (u *updater) setSchema(n *sqlparse.AlterObjectSchema) {
	switch n.Kind {
	case "function":
		to := u.schemaFor(n.NewSchema, n.Loc)
		if to == nil {
			return
		}
		for _, f := range u.c.funcsRenamed(n.Target, n.ArgTypes, n.Args) {
			if from := u.c.Schema(f.Schema); from != nil && from != to {
				u.c.rebindTriggers(f, sqlparse.Name{Schema: to.Name, Name: f.Name})
				from.Funcs = slices.DeleteFunc(from.Funcs, func(x *Func) bool { return x == f })
				f.Schema = to.Name
				to.Funcs = append(to.Funcs, f)
			}
		}
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
