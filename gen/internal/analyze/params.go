package analyze

// Parameters: how a $n or @name is named and typed from its context.

import (
	"fmt"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

func pluralHint(name string) string {
	if name == "" {
		return ""
	}
	return name + "s"
}

// paramSource is what a parameter compared with expression e (of value v)
// takes its name and type from. Like sqlc, when e is a function call or an
// operator expression over a column (lower(name) = $1, data->>'k' = $1),
// the parameter is named and typed after that column.
func (a *analyzer) paramSource(sc *scope, e sqlparse.Node, v value) value {
	switch e.(type) {
	case *sqlparse.FuncCall, *sqlparse.AExpr:
	default:
		return v
	}
	var ref *sqlparse.ColumnRef
	walk(e, func(n sqlparse.Node) {
		if cr, ok := n.(*sqlparse.ColumnRef); ok && ref == nil && cr.Fields[len(cr.Fields)-1] != "*" {
			ref = cr
		}
	})
	if ref == nil {
		return v
	}
	saved := len(a.errs)
	c, ok := a.column(sc, ref)
	a.errs = a.errs[:saved]
	if !ok || !c.Known {
		return v
	}
	return c
}

// numberParams gives every named parameter a number (one number per name,
// after the highest positional $n, in order of first appearance as sqlc
// walks the statement: see paramsInSqlcOrder) and records the edits that
// replace each named parameter by its $n.
func (a *analyzer) numberParams() (string, error) {
	all := paramsInSqlcOrder(a.stmt.Node)
	byName := map[string]int{}
	// Like sqlc, named parameters may be mixed with positional ones: they
	// are numbered after the highest $n, in order of first appearance.
	next := 1
	for _, p := range all {
		if p.Name == "" {
			if p.Number >= next {
				next = p.Number + 1
			}
		}
	}
	positional := next > 1
	for _, p := range all {
		if p.Name == "" {
			continue
		}
		n, ok := byName[p.Name]
		if !ok {
			n = next
			next++
			byName[p.Name] = n
			if positional && a.namedFrom == 0 {
				a.namedFrom, a.firstNamed = n, p.Loc
			}
		}
		p.Number = n
	}
	for _, p := range all {
		pr := a.param(p.Number)
		if pr.loc == 0 {
			pr.loc = p.Loc
		}
		if p.Name != "" {
			pr.Name = p.Name
		}
		if p.Nullable {
			pr.Nullable()
		}
		if p.Slice {
			// On PostgreSQL sqlc.slice(x) is one array parameter (compare it
			// with = ANY(...)); there is no list to expand.
			pr.Slice = true
		}
	}
	if len(a.errs) > 0 {
		return "", a.errs
	}
	for _, p := range all {
		if p.Name != "" {
			a.edits = append(a.edits, edit{p.Loc, p.End, fmt.Sprintf("$%d", p.Number)})
		}
	}
	return "", nil
}

// Nullable marks a parameter as sqlc.narg: always nullable.
func (p *Param) Nullable() { p.NotNull = false; p.forceNull = true }

func (a *analyzer) param(n int) *Param {
	p, ok := a.params[n]
	if !ok {
		p = &Param{Number: n}
		a.params[n] = p
	}
	return p
}

// typeParam records what the context says about parameter n: its type, its
// nullability and a name hint.
func (a *analyzer) typeParam(n int, v value, nameHint string) {
	p := a.param(n)
	if p.Known {
		if a.strict && p.strictlyTyped && v.Known && p.conflict == nil && typeCategory(v.Type) != typeCategory(p.Type) {
			t := v.Type
			p.conflict = &t
		}
		return
	}
	if !v.Known {
		return
	}
	if v.nulled && v.Column != nil {
		// A column of an outer join's nullable side: the parameter is
		// what the column holds, NOT NULL if the column is.
		v.NotNull = v.Column.NotNull
	}
	p.Type, p.Known, p.Column, p.DBType, p.SqlcUntyped = v.Type, true, v.Column, v.DBType, v.sqlcUntyped
	p.strictlyTyped = a.strict
	p.NotNull = v.NotNull && !p.forceNull
	if p.Slice && p.Type.ArrayDims == 0 {
		p.Type.ArrayDims = 1
		p.Column = nil
	}
	if p.Name == "" && nameHint != "" {
		p.Name = nameHint
	}
}

// typeCategory groups types the way PostgreSQL's implicit casts connect
// them (PostgreSQL docs, 10.2 "Operators", and pg_type.typcategory): a
// parameter deduced as one category in one place and another elsewhere
// makes PostgreSQL refuse the query ("inconsistent types deduced for
// parameter"). Unknown types never conflict.
func typeCategory(t catalog.Type) string {
	if t.Name == "" || t.Name == "any" || t.Name == "unknown" || t.Name == "anyelement" || t.Name == "anyarray" || t.Name == "record" {
		return ""
	}
	dims := strings.Repeat("[]", t.ArrayDims)
	if t.Schema != "pg_catalog" && t.Schema != "" {
		return "user:" + t.Schema + "." + t.Name + dims
	}
	switch t.Name {
	case "int2", "int4", "int8", "float4", "float8", "numeric", "money", "oid":
		return "numeric" + dims
	case "text", "varchar", "bpchar", "char", "name", "citext":
		return "string" + dims
	case "date", "timestamp", "timestamptz":
		return "datetime" + dims
	case "time", "timetz":
		return "time" + dims
	case "json", "jsonb":
		return "json" + dims
	}
	return t.Name + dims
}

// strictly runs f with strict deduction on (see analyzer.strict).
func (a *analyzer) strictly(f func()) {
	old := a.strict
	a.strict = true
	f()
	a.strict = old
}
