package catalog

// CREATE FUNCTION and CREATE PROCEDURE.

import (
	"slices"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

func (u *updater) createFunction(n *sqlparse.CreateFunction) {
	s := u.c.Schema(n.Func.Schema)
	if s == nil {
		return
	}
	f := &Func{Schema: s.Name, Name: n.Func.Name, ArgNames: n.ArgNames, Procedure: n.Procedure,
		Language: strings.ToLower(n.Language), Body: n.Body, File: u.f.Name}
	f.Line, _ = u.pos(n.Loc)
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
	for _, a := range n.ArgTypes {
		t, _ := u.c.ResolveType(a)
		f.ArgTypes = append(f.ArgTypes, t)
	}
	if n.ReturnType != nil {
		t, _ := u.c.ResolveType(n.ReturnType)
		f.ReturnType = &t
		f.ReturnsSet = n.ReturnType.Setof
	}
	for _, d := range n.ReturnsTable {
		f.ReturnsTable = append(f.ReturnsTable, u.column(d, nil))
		f.ReturnsSet = true
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
			s.Funcs[i] = f
			return
		}
	}
	s.Funcs = append(s.Funcs, f)
}
