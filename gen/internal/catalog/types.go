package catalog

// CREATE TYPE (enum, composite, range), CREATE DOMAIN and ALTER TYPE.

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

func (u *updater) createEnum(n *sqlparse.CreateEnum) {
	s := u.schemaFor(n.Type.Schema, n.Type.Loc)
	if s == nil {
		return
	}
	if u.c.Enum(s.Name, n.Type.Name) != nil {
		u.errorf(n.Type.Loc, ErrExists, "type %q already exists", n.Type.String())
		return
	}
	line, col := u.pos(n.Type.Loc)
	s.Enums = append(s.Enums, &Enum{Schema: s.Name, Name: n.Type.Name, Values: slices.Clone(n.Values), SqlcPublic: u.pathSchema(n.Type.Schema, s), File: u.f.Name, Line: line, Col: col})
}

func (u *updater) alterEnum(n *sqlparse.AlterEnum) {
	e := u.c.Enum(n.Type.Schema, n.Type.Name)
	if e == nil {
		u.errorf(n.Type.Loc, ErrNotFound, "type %q does not exist", n.Type.String())
		return
	}
	if n.OldValue != "" {
		i := slices.Index(e.Values, n.OldValue)
		if i < 0 {
			u.errorf(-1, ErrNotFound, "%q is not an existing enum label", n.OldValue)
			return
		}
		e.Values[i] = n.NewValue
		return
	}
	if slices.Contains(e.Values, n.NewValue) {
		if !n.IfNotExists {
			u.errorf(-1, ErrExists, "enum label %q already exists", n.NewValue)
		}
		return
	}
	switch {
	case n.Before != "":
		i := slices.Index(e.Values, n.Before)
		if i < 0 {
			u.errorf(-1, ErrNotFound, "%q is not an existing enum label", n.Before)
			return
		}
		e.Values = slices.Insert(e.Values, i, n.NewValue)
	case n.After != "":
		i := slices.Index(e.Values, n.After)
		if i < 0 {
			u.errorf(-1, ErrNotFound, "%q is not an existing enum label", n.After)
			return
		}
		e.Values = slices.Insert(e.Values, i+1, n.NewValue)
	default:
		e.Values = append(e.Values, n.NewValue)
	}
}

func (u *updater) createComposite(n *sqlparse.CreateComposite) {
	if s := u.newType(n.Type); s != nil {
		ut := &UserType{Schema: s.Name, Name: n.Type.Name, Kind: "composite"}
		for _, d := range n.Columns {
			ut.Columns = append(ut.Columns, u.column(d, nil))
		}
		s.Types = append(s.Types, ut)
	}
}

func (u *updater) createRange(n *sqlparse.CreateRange) {
	if s := u.newType(n.Type); s != nil {
		s.Types = append(s.Types, &UserType{Schema: s.Name, Name: n.Type.Name, Kind: "range", Constructors: rangeConstructors(n.Type.Name, u.s.Raw)})
	}
}

// rangeConstructors are the functions PostgreSQL creates with range type
// name (PostgreSQL docs 8.17.6 and 8.17.7): its constructor, named as the
// type, and its multirange type's, named multirange_type_name or, by
// default, name with its first "range" turned into "multirange" (or
// "_multirange" appended when it holds none; makeMultirangeTypeName in
// typecmds.c).
func rangeConstructors(name string, raw *pg.Node) []string {
	multi := ""
	if cr := raw.GetCreateRangeStmt(); cr != nil {
		for _, p := range cr.Params {
			if d := p.GetDefElem(); d != nil && strings.EqualFold(d.Defname, "multirange_type_name") {
				if tn := d.Arg.GetTypeName(); tn != nil && len(tn.Names) > 0 {
					multi = tn.Names[len(tn.Names)-1].GetString_().GetSval()
				}
			}
		}
	}
	if multi == "" {
		if i := strings.Index(name, "range"); i >= 0 {
			multi = name[:i] + "multirange" + name[i+len("range"):]
		} else {
			multi = name + "_multirange"
		}
	}
	return []string{name, multi}
}

// RangeConstructor returns the range type whose automatic constructor
// (or its multirange type's) is the function schema.name, nil when none.
func (c *Catalog) RangeConstructor(schema, name string) *UserType {
	for _, s := range c.Schemas {
		if schema != "" && s.Name != schema {
			continue
		}
		for _, t := range s.Types {
			if t.Kind == "range" && slices.Contains(t.Constructors, name) {
				return t
			}
		}
	}
	return nil
}

func (u *updater) createDomain(n *sqlparse.CreateDomain) {
	if s := u.newType(n.Type); s != nil {
		base := u.resolveType(n.Base, n.Type.Loc)
		d := &UserType{Schema: s.Name, Name: n.Type.Name, Kind: "domain", Base: base,
			NotNull: n.NotNull || u.c.DomainNotNull(n.Base), over: u.c.domainChain(n.Base),
			hasDefault: n.HasDefault, defaultAtMost1: n.DefaultAtMost1}
		if b := u.c.domain(n.Base); b != nil && !n.HasDefault {
			// PostgreSQL copies the base domain's default (DefineDomain).
			d.hasDefault, d.defaultAtMost1 = b.hasDefault, b.defaultAtMost1
		}
		s.Types = append(s.Types, d)
	}
}

// retype replaces every column of type old with type nu, keeping arrays.
func (c *Catalog) retype(old, nu Type) {
	for _, s := range c.Schemas {
		for _, t := range s.Tables {
			for _, col := range t.Columns {
				if col.Type.Schema == old.Schema && col.Type.Name == old.Name {
					col.Type.Schema, col.Type.Name = nu.Schema, nu.Name
				}
			}
		}
	}
}
