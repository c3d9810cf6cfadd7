package analyze

// Select lists and RETURNING lists: result columns (PostgreSQL docs, 7.3
// "Select Lists").

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// targets types a SELECT or RETURNING list, expanding stars.
func (a *analyzer) targets(sc *scope, ts []*sqlparse.Target) []*Column {
	var cols []*Column
	for i, t := range ts {
		if em, ok := t.Expr.(*sqlparse.Embed); ok {
			var r *rel
			for _, x := range sc.rels {
				if x.name == em.Table {
					r = x
				}
			}
			var embedTable *catalog.Table
			if r != nil {
				embedTable = r.table
			}
			if r != nil && r.table == nil && !r.unresolved {
				// sqlc.embed(x) where x names a CTE or a subquery: sqlc
				// v1.31.1 spells x's columns in the SQL (x.*) and scans
				// them into the model of the catalog table named x
				// (codegen's newGoEmbed matches the embed by table name).
				if t := a.cat.Table("", em.Table); t != nil && !t.IsSequence {
					embedTable = t
					if !sameColumnNames(r.cols, t.Columns) {
						a.refusedf(em.Loc, "sqlc.embed(%s): %s is no table but a CTE or subquery whose columns are not those of table %s, into whose model sqlc scans them", em.Table, em.Table, t.QualifiedName())
					}
				}
			}
			if r == nil || embedTable == nil || embedTable.IsSequence {
				a.errorf(em.Loc, "sqlc.embed(%s): no table named %s in FROM", em.Table, em.Table)
				continue
			}
			var list []string
			if embedTable != r.table {
				for _, c := range r.cols {
					list = append(list, a.quoteIdent(em.Table)+"."+a.quoteIdent(c.Name))
				}
				for _, c := range tableRel(embedTable, em.Table).cols {
					col := a.resultColumn(c, c.Name)
					col.Embed, col.EmbedName, col.EmbedTarget = embedTable, em.Table, i
					cols = append(cols, col)
				}
				a.edits = append(a.edits, edit{em.Loc, em.End, strings.Join(list, ", ")})
				continue
			}
			for _, c := range r.cols {
				col := a.resultColumn(c, c.Name)
				col.Embed, col.EmbedName, col.EmbedTarget = r.table, em.Table, i
				cols = append(cols, col)
				list = append(list, a.quoteIdent(em.Table)+"."+a.quoteIdent(c.Name))
			}
			a.edits = append(a.edits, edit{em.Loc, em.End, strings.Join(list, ", ")})
			continue
		}
		if cr, ok := t.Expr.(*sqlparse.ColumnRef); ok && cr.Fields[len(cr.Fields)-1] == "*" {
			qual := ""
			if len(cr.Fields) > 1 {
				qual = cr.Fields[len(cr.Fields)-2]
			}
			matched, spell := false, true
			var spelt []starColumn
			rels := sc.rels
			if qual == "" && a.bareStar != nil {
				rels = a.bareStar
			}
			for _, r := range rels {
				if qual != "" && r.name != qual {
					continue
				}
				matched = true
				if r.renamedCols && cr.Loc >= a.stmt.Start && cr.Loc < a.stmt.End {
					// sqlc's star keeps the columns' own names, which the
					// aliases replace in PostgreSQL: a note says so
					// (analyze's second reading fails).
					if a.sqlcShapes {
						a.errorf(cr.Loc, "sqlc's reading of the star over %s, whose column aliases rename its columns, is refused by PostgreSQL", r.name)
					} else {
						a.shapeDiffers = true
					}
				}
				if r.usingMerged && qual == "" && a.sqlcShapes {
					// sqlc's star over a USING or NATURAL join: both
					// sides' columns, the joined ones too, each spelt
					// by its table where the name repeats (SELECT t.id,
					// name, u.id, ... FROM t JOIN u USING (id)).
					continue
				}
				if r.table != nil && r.table.UnnamedColumns {
					// The catalog leaves out an unnamed column (?column?)
					// of the view's query, as sqlc's does; PostgreSQL's
					// star returns it, so the columns scanned would not
					// be the columns returned (sqlc fails on this query
					// too, spelling the column "").
					kind := "table"
					if r.table.IsView {
						kind = "view"
					}
					a.errorf(cr.Loc, "%s %q has an unnamed column (?column?) that * would return; name it in its query (AS name)", kind, r.table.Name)
				}
				if r.unresolved {
					spell = false
				}
				if r.sqlcShaped && qual != "" {
					// sqlc spells t.* of its one column t as t.t,
					// which PostgreSQL refuses for a function of
					// several columns: PostgreSQL's reading stays.
					a.errorf(cr.Loc, "sqlc's reading of %s.* is refused by PostgreSQL", qual)
				}
				// A view's columns are spelt as sqlc spells them; one
				// whose name is the catalog's guess (Column.NameGuessed)
				// keeps the star below.
				for _, c := range r.cols {
					if c.merged && qual == "" {
						if !a.sqlcShapes {
							a.shapeDiffers = true
							continue
						}
					}
					if c.oneOut && r.scalar && qual == "" && r.name != "" {
						// sqlc names the column after the function (or
						// its alias): PostgreSQL's whole-row value of the
						// function, the same value. (r.* keeps the
						// column's name: r.r is no column.)
						col := a.resultColumn(c, c.Name)
						col.sqlcName, col.sqlcNamed = r.name, true
						cols = append(cols, col)
						spelt = append(spelt, starColumn{r.name, r.name})
						continue
					}
					cols = append(cols, a.resultColumn(c, c.Name))
					spelt = append(spelt, starColumn{r.name, c.Name})
					if c.guessed || c.Name == "" {
						spell = false
					}
				}
			}
			if spell && len(spelt) > 0 {
				a.spellOut(cr, qual, spelt, sc.rels)
			} else if matched && len(spelt) == 0 && a.sqlcShapes && cr.Loc >= a.stmt.Start && cr.Loc < a.stmt.End {
				// A star over what sqlc makes no relation of
				// (SELECT * FROM CURRENT_DATE): sqlc sends no column
				// (SELECT  FROM CURRENT_DATE), which PostgreSQL runs
				// when the star is the select list's only entry.
				if len(ts) > 1 {
					a.errorf(cr.Loc, "sqlc's reading of * leaves an empty entry in the select list")
				} else if star := bytes.IndexByte(a.file.Src[cr.Loc:a.stmt.End], '*'); star >= 0 {
					a.edits = append(a.edits, edit{cr.Loc, cr.Loc + star + 1, ""})
				}
			}
			if !matched {
				a.errorf(cr.Loc, "missing FROM-clause entry for table %q", qual)
			}
			continue
		}
		if ind, ok := t.Expr.(*sqlparse.Indirection); ok && len(ind.Fields) > 0 && ind.Fields[len(ind.Fields)-1] == "*" && !a.sqlcShapes {
			// sqlc v1.31.1 reads every (x).* as one column (the
			// statement's second reading, sqlcShapes, keeps it so).
			if exp, ok := a.expandRow(sc, ind); ok {
				a.shapeDiffers = true
				for _, v := range exp {
					cols = append(cols, a.resultColumn(v, v.Name))
				}
				continue
			}
		}
		// sqlc resolves the references of a select-list or RETURNING
		// entry only where it is one, in a COALESCE's column arguments
		// and in a scalar subquery's own list (its outputColumns): not in
		// a function's arguments (SELECT sum(earned)), an operator's
		// operands (page_count * page_size), a cast, CASE, EXISTS, ...
		checked := sqlcResolvesTarget(t.Expr)
		if !checked {
			a.unchecked++
		}
		v := a.expr(sc, t.Expr)
		if !checked {
			a.unchecked--
		}
		name := t.Name
		if name == "" {
			name = v.Name
		}
		unnamed := name == ""
		if unnamed {
			name = fmt.Sprintf("column_%d", i+1)
		}
		col := a.resultColumn(v, name)
		col.unnamed = unnamed
		col.sqlcName, col.sqlcNamed = sqlcTargetName(t, v), true
		col.guessed = t.Name == "" && !namedAsPostgres(t.Expr, v)
		col.SqlcAny = a.sqlcAnyTarget(t.Expr, v)
		if f, call := t.Expr.(*sqlparse.FuncCall); call && col.SqlcAny {
			// sqlc types a call of a function its catalog has NOT NULL
			// (!ReturnTypeNullable, never set in its pg_catalog), even
			// where its Go type is interface{}.
			col.SqlcAnyNotNull = a.sqlcResolvesCall(f)
		} else if col.SqlcAny {
			// A scalar subquery: its first column as sqlc reads it.
			col.SqlcAnyNotNull = v.sqlcAnyNotNull
		}
		col.Sqlc = a.sqlcTarget(t.Expr, v)
		cols = append(cols, col)
	}
	return cols
}

// expandRow returns the columns of (x).* in a select list, as
// PostgreSQL expands it into the fields of x's row type (PostgreSQL docs,
// 8.16.5 "Using Composite Types in Queries"): a function returning a row
// ((f($1)).*: its OUT parameters, RETURNS TABLE columns, composite type's
// fields or table's columns, as in FROM), a relation's whole row ((t).*:
// t.*), or a value of a composite type or a table's row type ((p).*,
// (t.p).*). It returns false for anything else, whose (x).* stays one
// column of unknown type, as sqlc reads every (x).*; sqlc's one column
// fails to scan a row of two or more.
func (a *analyzer) expandRow(sc *scope, ind *sqlparse.Indirection) ([]value, bool) {
	if len(ind.Fields) == 1 {
		switch x := ind.Arg.(type) {
		case *sqlparse.FuncCall:
			cols := a.rangeFuncCols(sc, x, "", false)
			if len(cols) > 1 || (len(cols) == 1 && cols[0].Name != x.Func.Name) {
				for i := range cols {
					cols[i].NotNull, cols[i].Column = false, nil
				}
				return cols, true
			}
			return nil, false
		case *sqlparse.ColumnRef:
			if len(x.Fields) == 1 {
				if r := a.wholeRowRel(sc, x.Fields[0]); r != nil {
					return visibleCols([]*rel{r}), true
				}
			}
		}
	}
	prefix := ind.Arg
	if len(ind.Fields) > 1 {
		prefix = &sqlparse.Indirection{Arg: ind.Arg, Fields: ind.Fields[:len(ind.Fields)-1], Slice: ind.Slice, Subscripts: ind.Subscripts, Loc: ind.Loc}
	}
	v := a.expr(sc, prefix)
	cols, ok := a.compositeCols(v)
	if !ok {
		return nil, false
	}
	for i := range cols {
		// A row value's fields may be NULL, whatever the columns of its
		// table declare.
		cols[i].NotNull, cols[i].Column = false, nil
	}
	return cols, true
}

// wholeRowRel is the relation in scope that a bare name refers to as a
// whole row (PostgreSQL docs, 8.16.5): one named name when no column in
// scope has that name, else nil.
func (a *analyzer) wholeRowRel(sc *scope, name string) *rel {
	for x := sc; x != nil; x = x.parent {
		for _, r := range x.rels {
			for _, c := range r.cols {
				if c.Name == name && !c.merged {
					return nil
				}
			}
		}
		for _, r := range x.rels {
			if r.name == name && !r.unresolved && !r.scalar {
				return r
			}
		}
	}
	return nil
}

// namedAsPostgres reports whether PostgreSQL names the result column of
// expression e, without an alias, as the analyzer named it (v.Name): a
// column reference (named as written), a function call, CASE, EXISTS, ARRAY(...), GREATEST or LEAST, ROW
// and the cast of a column or a constant (PostgreSQL docs, 7.3.2 "Column
// Labels"); not an operator, a constant (?column?), COALESCE (named after
// its column, as in sqlc) or a parameter's cast.
func namedAsPostgres(e sqlparse.Node, v value) bool {
	switch n := e.(type) {
	case *sqlparse.ColumnRef:
		return true // named as written
	case *sqlparse.FuncCall, *sqlparse.Case, *sqlparse.MinMax, *sqlparse.RowExpr:
		return v.Name != ""
	case *sqlparse.SubLink:
		return n.Kind == "EXISTS" || n.Kind == "ARRAY"
	case *sqlparse.TypeCast:
		switch n.Arg.(type) {
		case *sqlparse.ColumnRef, *sqlparse.Const:
			return true
		}
	}
	return false
}

func (a *analyzer) resultColumn(v value, name string) *Column {
	c := &Column{Name: name, Type: v.Type, NotNull: v.NotNull, Known: v.Known, Column: v.Column, DBType: v.DBType, guessed: v.guessed, SqlcAny: v.sqlcAny, Sqlc: v.sqlc}
	if !v.Known {
		c.Type = catalog.Type{Name: "any"}
	}
	if v.Column != nil && v.Column.Table != nil && v.Column.Table.Fence != nil && v.Column.Table.Fence.Column == v.Column.Name {
		c.IsToken = true
	}
	return c
}

// starColumn is a column a star stands for, and the relation it is from.
type starColumn struct{ rel, name string }

// spellOut replaces the star of cr (t.* when qual is set) by the columns it
// stands for in the statement sent, as sqlc does: a column added by a later
// migration then does not change what the statement returns before the
// code scanning it is redeployed. As in sqlc's output, the columns of t.*
// are spelt t.col, and those of a bare * bare unless another column of the
// list, or of the relations in scope (inScope), has the same name (then
// rel.col).
func (a *analyzer) spellOut(cr *sqlparse.ColumnRef, qual string, cols []starColumn, inScope []*rel) {
	if cr.Loc < a.stmt.Start || cr.Loc >= a.stmt.End {
		return
	}
	star := bytes.IndexByte(a.file.Src[cr.Loc:a.stmt.End], '*')
	if star < 0 {
		return
	}
	count := map[string]int{}
	for _, r := range inScope {
		for _, c := range r.cols {
			if !c.merged || a.sqlcShapes {
				count[c.Name]++
			}
		}
	}
	for _, c := range cols {
		if count[c.name] == 0 {
			count[c.name] = 1 // a column of a relation not in scope
		}
	}
	seen := map[starColumn]bool{}
	for _, c := range cols {
		if seen[c] {
			// Two columns of one relation with one name (unnest(a, b),
			// a subquery selecting x.id and y.id): no name reaches either.
			return
		}
		seen[c] = true
	}
	for _, c := range cols {
		if qual == "" && count[c.name] > 1 && c.rel == "" {
			// A repeated name of a relation without a name (a merged
			// USING column beside a third table's namesake): no spelling
			// reaches it, so the star stays.
			return
		}
	}
	list := make([]string, len(cols))
	for i, c := range cols {
		list[i] = a.quoteIdent(c.name)
		switch {
		case qual != "":
			list[i] = a.quoteIdent(qual) + "." + list[i]
		case count[c.name] > 1 && c.rel != "":
			list[i] = a.quoteIdent(c.rel) + "." + list[i]
		}
	}
	a.edits = append(a.edits, edit{cr.Loc, cr.Loc + star + 1, strings.Join(list, ", ")})
}

// sameColumnNames reports whether cols are named as table columns tc, in
// order.
func sameColumnNames(cols []value, tc []*catalog.Column) bool {
	if len(cols) != len(tc) {
		return false
	}
	for i, c := range cols {
		if c.Name != tc[i].Name {
			return false
		}
	}
	return true
}

// sqlcResolvesTarget reports whether sqlc v1.31.1 resolves the column
// references of select-list or RETURNING entry e (compiler's
// outputColumns): a column reference, a COALESCE (its column arguments:
// coalesce's own rule) and a scalar subquery (its own list, by this
// rule); not any other expression, whose references a query PostgreSQL
// refuses may get wrong (refErrorf).
func sqlcResolvesTarget(e sqlparse.Node) bool {
	switch e := e.(type) {
	case *sqlparse.ColumnRef, *sqlparse.Coalesce:
		return true
	case *sqlparse.SubLink:
		return e.Kind == "EXPR"
	}
	return false
}
