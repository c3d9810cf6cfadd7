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
	f.sig = u.c.sigOf(n.ArgTypes)
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
		return g.Name == f.Name && slices.Equal(g.sig, f.sig)
	}); i >= 0 {
		if !n.OrReplace {
			u.errorf(n.Loc, ErrExists, "function %q already exists with same argument types", f.Name)
			return
		}
		if s.Funcs[i].Procedure == f.Procedure {
			// The same function (OID), replaced in place: what bound
			// it (a trigger, Trigger.Bound; text under a former name)
			// runs the new body.
			f.Former = s.Funcs[i].Former
			*s.Funcs[i] = *f
			return
		}
	}
	s.Funcs = append(s.Funcs, f)
}

// sigOf is the signature (Func.sig) of a function of argument types
// args, as the statement being applied resolves them.
func (c *Catalog) sigOf(args []*sqlparse.TypeName) []string {
	sig := make([]string, 0, len(args))
	for _, a := range args {
		sig = append(sig, c.argKey(a))
	}
	return sig
}

// argKey spells argument type tn for a function's signature: a domain
// (or an array of one) by its own name, as PostgreSQL tells f(d) from
// f(int) when d is a domain over int, any other type by the type it
// resolves to, and a type the catalog does not know by its name as
// written (an extension's, qualified or not).
func (c *Catalog) argKey(tn *sqlparse.TypeName) string {
	if tn == nil {
		return "?"
	}
	dims := strings.Repeat("[]", tn.ArrayDims)
	if d := c.UserType(tn.Schema, tn.Name); d != nil && d.Kind == "domain" && !builtins[strings.ToLower(tn.Name)] {
		return "domain " + d.Schema + "." + d.Name + dims
	}
	if t, ok := c.ResolveType(tn); ok {
		return t.Schema + "." + t.Name + dims
	}
	return "? " + strings.ToLower(tn.Name) + dims
}

// funcsOf returns the functions and procedures that DROP, ALTER ...
// RENAME or ALTER ... SET SCHEMA of n with argument types args (nil:
// none written) names, as PostgreSQL finds them: those of that name and
// signature (of that name alone when args is nil) in n's schema, or, n
// unqualified, in the first schema of the search_path that has one.
func (c *Catalog) funcsOf(n sqlparse.Name, args []*sqlparse.TypeName) []*Func {
	var sig []string
	if args != nil {
		sig = c.sigOf(args)
	}
	for _, s := range c.funcSchemas(n.Schema) {
		var out []*Func
		for _, f := range s.Funcs {
			if f.Name == n.Name && (args == nil || slices.Equal(f.sig, sig)) {
				out = append(out, f)
			}
		}
		if len(out) > 0 {
			return out
		}
	}
	return nil
}

// funcSchemas are the schemas PostgreSQL looks a function up in, in
// order: schema when given, else the search_path's (the default
// schema when no SET search_path is in force).
func (c *Catalog) funcSchemas(schema string) []*Schema {
	if schema != "" {
		if s := c.Schema(schema); s != nil {
			return []*Schema{s}
		}
		return nil
	}
	var out []*Schema
	path := c.searchPath
	if path == nil {
		path = []string{DefaultSchema}
	}
	for _, p := range path {
		if s := c.Schema(p); s != nil && p != "" && !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
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

// funcsRenamed returns the functions ALTER FUNCTION n(args) ... RENAME
// TO or SET SCHEMA changes: those funcsOf finds, or when it finds none
// (an argument type the catalog resolves otherwise), those funcsNamed
// finds by the number of arguments. More renamed than PostgreSQL renames
// keep running what bound them (Func.Former, rebindTriggers); one left
// under its old name would be dropped later in its namesake's stead.
func (c *Catalog) funcsRenamed(n sqlparse.Name, args []*sqlparse.TypeName, count int) []*Func {
	if fs := c.funcsOf(n, args); len(fs) > 0 {
		return fs
	}
	return c.funcsNamed(n, count)
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
