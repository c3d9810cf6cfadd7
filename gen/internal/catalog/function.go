package catalog

// CREATE FUNCTION and CREATE PROCEDURE.

import (
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

func (u *updater) createFunction(n *sqlparse.CreateFunction) {
	s := u.c.Schema(n.Func.Schema)
	if s == nil {
		return
	}
	f := &Func{Schema: s.Name, Name: n.Func.Name, ArgNames: n.ArgNames, Procedure: n.Procedure, Variadic: n.Variadic, Defaults: n.Defaults,
		Language: strings.ToLower(n.Language), Body: n.Body, Source: u.f.Text(u.s), File: u.f.Name}
	f.Line, _ = u.pos(n.Loc)
	f.VolatilityAt.File = u.f.Name
	f.VolatilityAt.Line, f.VolatilityAt.Col = u.pos(n.Loc)
	f.Volatility = 'v'
	switch n.Volatility {
	case "immutable":
		f.Volatility = 'i'
	case "stable":
		f.Volatility = 's'
	}
	if f.Language == "aggregate" && f.Body == "" {
		// The definition names the functions the aggregate runs (SFUNC,
		// FINALFUNC, ...): the analyzer reads them there.
		f.Body = u.f.Text(u.s)
	}
	if n.Standard {
		f.Bound = u.c.bindBody(f.Body)
	}
	for _, a := range n.ArgTypes {
		t, _ := u.c.ResolveType(a)
		f.ArgTypes = append(f.ArgTypes, t)
		f.ArgDBTypes = append(f.ArgDBTypes, dbType(a))
	}
	if n.ReturnType != nil {
		t, _ := u.c.ResolveType(n.ReturnType)
		f.ReturnType = &t
		f.ReturnDBType = dbType(n.ReturnType)
		f.ReturnsSet = n.ReturnType.Setof
	}
	for _, d := range n.ReturnsTable {
		f.ReturnsTable = append(f.ReturnsTable, u.column(d, nil))
		f.ReturnsSet, f.TableReturn = true, true
	}
	switch {
	case f.ReturnType != nil:
		t := *f.ReturnType
		f.Returns = &t
	case len(f.ReturnsTable) == 1:
		t := f.ReturnsTable[0].Type
		f.Returns = &t
	case len(f.ReturnsTable) > 1:
		f.Returns = &Type{Schema: "pg_catalog", Name: "record"}
	}
	if len(n.OutParams) > 0 && !n.Procedure {
		// A function with OUT (or INOUT) parameters returns its single OUT
		// parameter's type, or a record of them (RETURNS may be left out,
		// or say the same: RETURNS int, RETURNS record, RETURNS SETOF
		// record). Its columns in FROM are the OUT parameters.
		for _, d := range n.OutParams {
			f.ReturnsTable = append(f.ReturnsTable, u.column(d, nil))
		}
		t := Type{Schema: "pg_catalog", Name: "record"}
		if len(f.ReturnsTable) == 1 {
			t = f.ReturnsTable[0].Type
		}
		f.ReturnType = &t
	}
	// CREATE OR REPLACE of the same signature replaces the function (its
	// body may no longer write what the old one wrote); without OR
	// REPLACE it is an error, as in PostgreSQL (42723).
	if i := slices.IndexFunc(s.Funcs, func(g *Func) bool {
		return g.Name == f.Name && slices.Equal(g.ArgTypes, f.ArgTypes)
	}); i >= 0 {
		if !n.OrReplace {
			u.errorf(n.Loc, ErrExists, "function %q already exists with same argument types", f.Name)
			return
		}
		if s.Funcs[i].Procedure == f.Procedure {
			// The same function (OID): what bound it under a former
			// name runs the new body.
			f.Former = s.Funcs[i].Former
			s.Funcs[i] = f
			return
		}
	}
	s.Funcs = append(s.Funcs, f)
}

// funcsNamed returns the functions and procedures that ALTER FUNCTION
// n(args) names: those of that name with args arguments, or all of that
// name when args is -1 (or none has that many: the argument types are not
// compared, so more are renamed or moved rather than fewer).
func (c *Catalog) funcsNamed(n sqlparse.Name, args int) []*Func {
	all := c.Funcs(n.Schema, n.Name)
	if args < 0 {
		return all
	}
	var out []*Func
	for _, f := range all {
		if len(f.ArgTypes) == args {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// bindBody returns the relations a SQL-standard body may name, as
// PostgreSQL binds them when it creates the function (Func.Bound): every
// table or view whose name the body's text holds, under its qualified
// name and, where the search_path finds it first, its unqualified one.
func (c *Catalog) bindBody(body string) map[string]*Table {
	text := strings.ToLower(body)
	out := map[string]*Table{}
	for _, s := range c.Schemas {
		for _, t := range s.Tables {
			name := strings.ToLower(t.Name)
			if !strings.Contains(text, name) {
				continue
			}
			out[strings.ToLower(t.Schema)+"|"+name] = t
			if c.Table("", t.Name) == t {
				out["|"+name] = t
			}
		}
	}
	return out
}

// BoundTable returns the relation a SQL-standard body's name n denotes,
// bound when f was created (Func.Bound), under whatever name it has now;
// nil when f's body is bound by name when run or n was not bound.
func (f *Func) BoundTable(n sqlparse.Name) *Table {
	if f.Bound == nil {
		return nil
	}
	return f.Bound[strings.ToLower(n.Schema)+"|"+strings.ToLower(n.Name)]
}

// alterFunction applies ALTER FUNCTION (or ROUTINE) f(args) IMMUTABLE,
// STABLE or VOLATILE: the function's Volatility, and where it was given
// (Func.VolatilityAt). Its other actions are not modelled here.
func (u *updater) alterFunction(n *pg.AlterFunctionStmt) {
	vol := byte(0)
	for _, a := range n.GetActions() {
		d := a.GetDefElem()
		if d == nil || d.Defname != "volatility" {
			continue
		}
		switch strings.ToLower(d.GetArg().GetString_().GetSval()) {
		case "immutable":
			vol = 'i'
		case "stable":
			vol = 's'
		case "volatile":
			vol = 'v'
		}
	}
	if vol == 0 || n.GetFunc() == nil {
		return
	}
	var name sqlparse.Name
	switch parts := n.GetFunc().GetObjname(); len(parts) {
	case 1:
		name.Name = parts[0].GetString_().GetSval()
	case 2:
		name.Schema, name.Name = parts[0].GetString_().GetSval(), parts[1].GetString_().GetSval()
	default:
		return
	}
	args := len(n.GetFunc().GetObjargs())
	if n.GetFunc().GetArgsUnspecified() {
		args = -1
	}
	for _, f := range u.c.funcsNamed(name, args) {
		f.Volatility = vol
		f.VolatilityAt.File = u.f.Name
		f.VolatilityAt.Line, f.VolatilityAt.Col = u.pos(-1)
	}
}

// Position is a place in a schema file, for messages.
type Position struct {
	File      string
	Line, Col int
}
