package analyze

// Where sqlc v1.31.1's own reading of a query's parameters fails. Its
// compiler's resolveCatalogRefs types a parameter compared with a column
// (x = $1) by looking the column up in every table the statement names
// anywhere (each FROM, JOIN, UPDATE, INSERT INTO and DELETE FROM, in CTEs
// and subqueries too, a table named twice counted twice; CTE names
// skipped), and fails when none or more than one has it ("column
// reference "x" is ambiguous"), or when its qualifier names none. Without
// a database sqlc then refuses the query; with one (database: uri) it
// takes every parameter from the database's answer instead: named
// parameters keep their names, $n ones are dollar_N, and all are
// nullable (gen's dbtypes.go).

import (
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// sqlcParamsFail reports whether sqlc's resolveCatalogRefs fails on the
// statement's comparisons of a column with a parameter.
func (a *analyzer) sqlcParamsFail() bool {
	if a.opts.MySQL {
		return false
	}
	tables, aliases := a.sqlcStatementTables()
	fails := false
	walk(a.stmt.Node, func(n sqlparse.Node) {
		e, ok := n.(*sqlparse.AExpr)
		if !ok || fails || !isParam(e.Left) && !isParam(e.Right) {
			return
		}
		ref := firstColumnRef(e.Left)
		if ref == nil {
			ref = firstColumnRef(e.Right)
		}
		if ref == nil || len(ref.Fields) > 3 {
			return
		}
		_, found, ok := sqlcLookup(ref, tables, aliases)
		if !ok {
			fails = true // table alias "x" does not exist
			return
		}
		fails = found != 1
	})
	return fails
}

// firstColumnRef is the first column reference in n, as sqlc's
// astutils.Search finds it (depth first), nil when there is none.
func firstColumnRef(n sqlparse.Node) *sqlparse.ColumnRef {
	var ref *sqlparse.ColumnRef
	walk(n, func(x sqlparse.Node) {
		if r, ok := x.(*sqlparse.ColumnRef); ok && ref == nil && r.Fields[len(r.Fields)-1] != "*" {
			ref = r
		}
	})
	return ref
}

// sqlcTableRef is a table sqlc's resolveCatalogRefs indexes: the name
// the statement gives it and the catalog's table.
type sqlcTableRef struct {
	name  string
	table *catalog.Table
}

// sqlcStatementTables are the tables sqlc's resolveCatalogRefs looks a
// parameter's column up in: every table the statement names anywhere
// (each FROM, JOIN, UPDATE, INSERT INTO and DELETE FROM, in CTEs and
// subqueries too; CTE names skipped), and their aliases.
func (a *analyzer) sqlcStatementTables() ([]sqlcTableRef, map[string]*catalog.Table) {
	ctes := map[string]bool{}
	var tables []sqlcTableRef
	aliases := map[string]*catalog.Table{}
	add := func(n sqlparse.Name, alias string) {
		if n.Schema == "" && ctes[n.Name] {
			return
		}
		if _, ok := aliases[n.Name]; ok {
			return
		}
		t := a.cat.Table(n.Schema, n.Name)
		if t == nil {
			return
		}
		tables = append(tables, sqlcTableRef{n.Name, t})
		if alias != "" {
			aliases[alias] = t
		}
	}
	walk(a.stmt.Node, func(n sqlparse.Node) {
		var w *sqlparse.With
		switch n := n.(type) {
		case *sqlparse.Select:
			w = n.With
		case *sqlparse.Insert:
			w = n.With
		case *sqlparse.Update:
			w = n.With
		case *sqlparse.Delete:
			w = n.With
		}
		if w != nil {
			for _, c := range w.CTEs {
				ctes[c.Name] = true
			}
		}
	})
	walk(a.stmt.Node, func(n sqlparse.Node) {
		switch n := n.(type) {
		case *sqlparse.RangeVar:
			add(n.Name, n.Alias)
		case *sqlparse.Insert:
			add(n.Table, n.Alias)
		case *sqlparse.Update:
			add(n.Table, n.Alias)
		case *sqlparse.Delete:
			add(n.Table, n.Alias)
		}
	})
	return tables, aliases
}

// sqlcLookup looks column reference ref up as sqlc's resolveCatalogRefs
// does: a qualified one in the table its alias or name stands for (ok
// false when none does: "table alias does not exist"), an unqualified
// one in every table; col is the column when found is 1 (sqlc refuses
// the query otherwise: column does not exist, or is ambiguous).
func sqlcLookup(ref *sqlparse.ColumnRef, tables []sqlcTableRef, aliases map[string]*catalog.Table) (col *catalog.Column, found int, ok bool) {
	if len(ref.Fields) > 3 {
		return nil, 0, false
	}
	key := ref.Fields[len(ref.Fields)-1]
	var search []*catalog.Table
	if len(ref.Fields) >= 2 {
		alias := ref.Fields[len(ref.Fields)-2]
		if t, ok := aliases[alias]; ok {
			search = []*catalog.Table{t}
		} else {
			for _, t := range tables {
				if t.name == alias {
					search = []*catalog.Table{t.table}
				}
			}
			if search == nil {
				return nil, 0, false
			}
		}
	} else {
		for _, t := range tables {
			search = append(search, t.table)
		}
	}
	for _, t := range search {
		for _, c := range t.Columns {
			if c.Name == key {
				found++
				col = c
				break
			}
		}
	}
	if found != 1 {
		col = nil
	}
	return col, found, true
}
