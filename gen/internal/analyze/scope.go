package analyze

// Scopes and relations: what a name in a query can refer to (PostgreSQL docs,
// 7.2 "Table Expressions").

import (
	"fmt"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// value is what the analyzer knows of an expression.
type value struct {
	Name    string
	Type    catalog.Type
	NotNull bool
	Known   bool
	Column  *catalog.Column
	// DBType is the type as sqlc spells it, for sqlc's db_type override
	// matching (see catalog.Column.DBType): the column's spelling, a
	// cast's type as written, "integer" for LIMIT and OFFSET, a built-in
	// function's result type as pg_catalog names it ("bigint" for
	// count). Empty when sqlc has no spelling the analyzer models.
	DBType string
	// sqlcUntyped is set on a value that sqlc v1.31.1 does not type a
	// parameter from (see Param.SqlcUntyped).
	sqlcUntyped bool
	// merged is set on a column of a joined relation that JOIN ... USING
	// or NATURAL JOIN merged with its namesake on the other side: an
	// unqualified reference or star means the merged column instead
	// (PostgreSQL docs, 7.2.1.1 "Joined Tables"); t.col still reaches it.
	merged bool
	// nulled is set on a column of the nullable side of an outer join: it
	// may read NULL although the table column is NOT NULL. A parameter
	// compared with it still takes the column's own nullability, as in
	// sqlc (typeParam).
	nulled bool
	// guessed: Name may not be PostgreSQL's name for the column (see
	// Column.guessed).
	guessed bool
	// sqlcAny: sqlc answers interface{} for the value as a result column
	// (see Column.SqlcAny).
	sqlcAny bool
	// sqlcAnyNotNull is, for a scalar subquery sqlc answers interface{}
	// for, the nullability sqlc reads for its first column
	// (Column.SqlcAnyNotNull).
	sqlcAnyNotNull bool
	// oneOut marks the one RETURNS TABLE column of a user-defined
	// function in FROM: a bare star names it after the function (or its
	// alias), as sqlc does, and is spelt so; in PostgreSQL that name is
	// the function's whole-row value, the same value.
	oneOut bool
	// sqlc is sqlc's typing of the value as a result column where it is
	// not the value's own (see SqlcType), nil where it is.
	sqlc *SqlcType
	// sqlcParam is sqlc's typing of a parameter typed from the value,
	// where it is not the value's own (see Param.Sqlc).
	sqlcParam *SqlcType
}

func builtin(name string) catalog.Type { return catalog.Type{Schema: "pg_catalog", Name: name} }

func known(name string, notNull bool) value {
	return value{Type: builtin(name), NotNull: notNull, Known: true}
}

// spelledAs is v with sqlc's spelling of its type.
func spelledAs(v value, dbType string) value { v.DBType = dbType; return v }

// typeSpelling is tn as sqlc spells it, without array brackets: as the
// parser qualifies it ("pg_catalog.int4" for INTEGER) or as written.
func typeSpelling(tn *sqlparse.TypeName) string {
	switch {
	case tn == nil:
		return ""
	case tn.Schema != "":
		return tn.Schema + "." + tn.Name
	case tn.SqlcSchema != "":
		return tn.SqlcSchema + "." + tn.Name
	}
	return tn.Name
}

// columnValue is what a reference to column c is.
func columnValue(c *catalog.Column) value {
	v := value{Name: c.Name, Type: c.Type, NotNull: c.NotNull, Known: true, Column: c, DBType: c.DBType}
	if t := c.Sqlc; t != nil {
		// A view's column as sqlc types it, for a result column and a
		// parameter compared with it alike.
		v.sqlc = &SqlcType{Type: t.Type, NotNull: t.NotNull, Any: t.Any, Column: c}
		v.sqlcParam = v.sqlc
	}
	return v
}

// rel is a relation visible in a scope: a table, a CTE, a subquery.
type rel struct {
	name  string
	table *catalog.Table
	cols  []value
	// unresolved marks a relation that does not exist: it was reported
	// once, and references to its columns are not reported again.
	unresolved bool
	// outer marks the nullable side of an outer join: its whole-row value
	// may be NULL.
	outer bool
	// scalar marks a function in FROM that returns a base type: its one
	// column is its whole-row value (PostgreSQL docs, 7.2.1.4 "Table
	// Functions").
	scalar bool
	// subquery marks a subquery in FROM: sqlc does not null its columns
	// on an outer join's nullable side (its table-required check knows
	// tables and CTEs only).
	subquery bool
	// sqlcShaped marks a function in FROM whose columns are sqlc's
	// reading of it, in a statement's second reading
	// (analyzer.sqlcShapes).
	sqlcShaped bool
	// usingMerged marks the relation of a USING or NATURAL join's merged
	// columns (mergeJoinColumns), which sqlc's star does not know: it
	// spells both sides' columns instead (starOverJoin).
	usingMerged bool
	// renamedCols marks a table, view, CTE or subquery in FROM whose
	// column aliases (AS x(a, b)) rename its columns: sqlc's star keeps
	// the old names, which PostgreSQL refuses.
	renamedCols bool
}

// wholeRow is the value of a whole-row reference to r: t.* as an
// expression, or the bare name t when no column is named t (PostgreSQL
// docs, 8.16.5 "Using Composite Types in Queries"). For a function
// returning a base type it is that value; otherwise a record, which, like
// sqlc, the generated code does not look into.
func wholeRow(r *rel) value {
	if r.scalar && len(r.cols) == 1 {
		v := r.cols[0]
		v.Name, v.Column, v.merged = r.name, nil, false
		return v
	}
	return value{Name: r.name, Type: builtin("record"), NotNull: !r.outer, Known: true}
}

type scope struct {
	rels   []*rel
	parent *scope
	ctes   map[string]*rel
	// grouped is set in the scope of a SELECT with a GROUP BY of
	// expressions (no grouping sets): its aggregates run over groups of
	// one row or more.
	grouped bool
}

func (s *scope) cte(name string) *rel {
	for x := s; x != nil; x = x.parent {
		if r, ok := x.ctes[name]; ok {
			return r
		}
	}
	return nil
}

func tableRel(t *catalog.Table, alias string) *rel {
	r := &rel{name: t.Name, table: t}
	if alias != "" {
		r.name = alias
	}
	for _, c := range t.Columns {
		v := columnValue(c)
		// A view's column name may be the catalog's reading of an
		// expression, which need not be PostgreSQL's (view.go).
		v.guessed = c.NameGuessed
		r.cols = append(r.cols, v)
	}
	return r
}

// missingRelation is the message for a table n the catalog lacks: on
// MySQL, as sqlc's catalog looks a qualified name's database up first,
// that the database does not exist when it does not, else the table by
// its name alone.
func (a *analyzer) missingRelation(n sqlparse.Name) string {
	if a.opts.MySQL && n.Schema != "" {
		if a.cat.Schema(n.Schema) == nil {
			return fmt.Sprintf("schema %q does not exist", n.Schema)
		}
		// and then names the table without it.
		return fmt.Sprintf("relation %q does not exist%s", n.Name, a.didYouMeanRelation(n))
	}
	return fmt.Sprintf("relation %q does not exist%s", n.String(), a.didYouMeanRelation(n))
}

// lookupTable resolves a table name in FROM: a CTE first, then the catalog.
func (a *analyzer) lookupRel(sc *scope, n sqlparse.Name, alias string) *rel {
	if n.Schema == "" {
		if r := sc.cte(n.Name); r != nil {
			cp := *r
			if alias != "" {
				cp.name = alias
			}
			return &cp
		}
	}
	t := a.cat.Table(n.Schema, n.Name)
	if t == nil && n.Schema == "" && a.pendingCTEs[n.Name] > 0 && a.unchecked > 0 {
		// A WITH entry named before its definition ends, without
		// RECURSIVE (WITH sub AS (... UNION ALL SELECT ... FROM sub)):
		// PostgreSQL refuses it; sqlc, which resolves no reference there
		// (a UNION's right side, a WHERE), generates the query, the
		// entry's columns its left side's.
		a.refusedf(n.Loc, "relation %q does not exist: WITH entry %s is referenced before it is defined (in its own query or an earlier entry's), which only WITH RECURSIVE allows", n.Name, n.Name)
		name := n.Name
		if alias != "" {
			name = alias
		}
		return &rel{name: name, unresolved: true}
	}
	if t == nil {
		a.errorf(n.Loc, "%s", a.missingRelation(n))
		name := n.Name
		if alias != "" {
			name = alias
		}
		return &rel{name: name, unresolved: true}
	}
	return tableRel(t, alias)
}

// column resolves a column reference in sc and its parents.
func (a *analyzer) column(sc *scope, ref *sqlparse.ColumnRef) (value, bool) {
	f := ref.Fields
	var qual, name string
	switch len(f) {
	case 1:
		name = f[0]
	case 2:
		qual, name = f[0], f[1]
	default:
		qual, name = f[len(f)-2], f[len(f)-1]
	}
	for x := sc; x != nil; x = x.parent {
		var found []value
		for _, r := range x.rels {
			if qual != "" && r.name != qual {
				continue
			}
			if r.unresolved {
				// Already reported: the column may well be there.
				return value{}, false
			}
			for _, c := range r.cols {
				if c.Name == name && (qual != "" || !c.merged) {
					found = append(found, c)
				}
			}
		}
		if name == "*" && qual != "" {
			// t.* as an expression, count(t.*): the whole row.
			for _, r := range x.rels {
				if r.name == qual {
					if r.unresolved {
						return value{}, false
					}
					return wholeRow(r), true
				}
			}
		}
		if len(found) == 0 {
			if typ, ok := catalog.SystemColumns[name]; ok {
				// System columns exist on every table, outside SELECT *.
				for _, r := range x.rels {
					if r.table != nil && (qual == "" || r.name == qual) {
						found = append(found, value{Name: name, Type: typ, NotNull: true, Known: true})
					}
				}
			}
		}
		if len(found) > 1 && qual == "" {
			a.errorf(ref.Loc, "column reference %q is ambiguous", name)
			return value{}, false
		}
		if len(found) >= 1 {
			return found[0], true
		}
		if qual == "" {
			// A bare relation name that is no column's name: the whole row.
			for _, r := range x.rels {
				if r.name == name {
					if r.unresolved {
						return value{}, false
					}
					return wholeRow(r), true
				}
			}
		}
		if qual != "" {
			for _, r := range x.rels {
				if r.name == qual {
					if ref.Bare {
						a.refErrorf(ref.Loc, "column %q does not exist", name)
					} else {
						a.refErrorf(ref.Loc, "column %q does not exist in %s", name, qual)
					}
					return value{}, false
				}
			}
		}
	}
	if qual != "" {
		a.refErrorf(ref.Loc, "missing FROM-clause entry for table %q", qual)
	} else {
		a.refErrorf(ref.Loc, "column %q does not exist", name)
	}
	return value{}, false
}
