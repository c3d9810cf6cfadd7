package analyze

// Functions in FROM as sqlc v1.31.1 reads them without a database
// (internal/compiler/output_columns.go, sourceTables, case
// *ast.RangeFunction).

import (
	"strings"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// sqlcRangeFunc returns the columns sqlc v1.31.1 gives the function in
// FROM n, each typed as sqlc types it (Type, NotNull and sqlc's
// spelling; Known false where sqlc answers interface{}), and whether
// sqlc makes it a relation at all. sqlc's rule reads only the first
// function of n (ROWS FROM (f(), g()) is f()):
//
//   - an expression that is no function call (CURRENT_DATE,
//     COALESCE(...)) and a function neither pg_catalog nor the schema
//     has are no relation: a star over them is nothing;
//   - the function is the first of its name, in sqlc's pg_catalog
//     (searched first) or else in the schema, whatever its arguments;
//   - one whose RETURNS names a table (or a CTE of the statement) has
//     that table's columns, with their nullability;
//   - otherwise column aliases (AS u(a, b)) are its columns, typed
//     interface{}, WITH ORDINALITY adding none;
//   - otherwise one column named after the alias or the function, of
//     the type RETURNS names (its first overload's for a built-in:
//     generate_series is numeric), nullable and never an array
//     (RETURNS text[] is text); RETURNS TABLE of several columns and
//     RETURNS record are one record column, interface{};
//   - a function without RETURNS (OUT parameters only) has its OUT
//     parameters, nullable.
func (a *analyzer) sqlcRangeFunc(sc *scope, n *sqlparse.RangeFunction) ([]value, bool) {
	if len(n.Funcs) == 0 {
		return nil, false
	}
	f, ok := n.Funcs[0].(*sqlparse.FuncCall)
	if !ok {
		return nil, false
	}
	name := strings.ToLower(f.Func.Name)
	aliases := func() []value {
		out := make([]value, len(n.ColAliases))
		for i, al := range n.ColAliases {
			out[i] = value{Name: al, Type: catalog.Type{Name: "any"}}
		}
		return out
	}
	colName := f.Func.Name
	if n.Alias != "" {
		colName = n.Alias
	}
	if fn := sqlcFuncOf(name); fn != nil && (f.Func.Schema == "" || f.Func.Schema == "pg_catalog") {
		if len(n.ColAliases) > 0 {
			return aliases(), true
		}
		v := value{Name: colName, Type: catalog.Type{Name: "any"}}
		if ret := fn.from; ret != "" {
			if t, ok := a.sqlcNamed(ret); ok {
				v = value{Name: colName, Type: t, Known: true, DBType: ret}
			}
		}
		return []value{v}, true
	}
	fs := a.cat.Funcs(f.Func.Schema, f.Func.Name)
	if len(fs) == 0 {
		return nil, false
	}
	fn := fs[0]
	if fn.Returns != nil {
		rt := *fn.Returns
		if rt.Schema == "" || rt.Schema == "public" {
			if r := sc.cte(rt.Name); r != nil {
				cols := make([]value, len(r.cols))
				copy(cols, r.cols)
				return cols, true
			}
		}
		if t := a.cat.Table(rt.Schema, rt.Name); t != nil && !t.IsSequence {
			if len(n.ColAliases) > 0 && a.sqlcShapes {
				// sqlc keeps the table's column names, which the
				// aliases replace in PostgreSQL: its star is refused.
				a.errorf(n.Loc, "sqlc's reading of %s's columns is refused by PostgreSQL", f.Func.Name)
			}
			return tableRel(t, "").cols, true
		}
	}
	if len(n.ColAliases) > 0 {
		return aliases(), true
	}
	if fn.Returns == nil {
		var out []value
		for _, c := range fn.ReturnsTable {
			t := c.Type.Elem()
			out = append(out, value{Name: c.Name, Type: t, Known: true, DBType: t.Name})
		}
		return out, true
	}
	t := fn.Returns.Elem()
	v := value{Name: colName, Type: t, Known: !sqlcUnmappedUser(t), DBType: t.Name}
	if !v.Known {
		v.Type, v.DBType = catalog.Type{Name: "any"}, ""
	}
	return []value{v}, true
}

// sqlcFromShape applies sqlc's reading of the function in FROM n
// (sqlcRangeFunc) to r, PostgreSQL's reading: where the two have the same
// column names, r's columns take sqlc's types as their sqlc typing (for
// result columns and for parameters compared with them), and r is
// returned; where they differ, the statement's second reading
// (analyzer.sqlcShapes) takes sqlc's columns, and the first marks the
// statement for it (shapeDiffers).
func (a *analyzer) sqlcFromShape(sc *scope, n *sqlparse.RangeFunction, r *rel) {
	cols, isRel := a.sqlcRangeFunc(sc, n)
	same := isRel && len(cols) == len(r.cols)
	for i := 0; same && i < len(cols); i++ {
		same = cols[i].Name == r.cols[i].Name
	}
	if !same {
		if a.sqlcShapes {
			r.cols, r.scalar, r.sqlcShaped = cols, false, true
			if !isRel {
				r.name = ""
			}
		} else {
			a.shapeDiffers = true
		}
		return
	}
	for i, c := range cols {
		sq := sqlcOf(c)
		st := &SqlcType{Type: sq.Type, NotNull: sq.NotNull, Any: !c.Known || sq.Any, Column: sq.Column}
		v := &r.cols[i]
		if st.Any {
			if !v.Known || v.sqlc != nil && v.sqlc.Any {
				continue
			}
		} else if sqlcTyping(*v, st.Type, st.NotNull, st.Column) == nil {
			continue
		}
		v.sqlc, v.sqlcParam = st, st
	}
}

// isValues reports whether s is a VALUES list (not a SELECT, not a set
// operation).
func isValues(s *sqlparse.Select) bool {
	return s != nil && s.SetOp == "" && len(s.Values) > 0
}

// sqlcValues returns cols, the columns of s, as sqlc v1.31.1 reads them
// where s is a subquery in FROM or a WITH entry: sqlc gives
// a VALUES list no columns (internal/compiler/output_columns.go reads a
// SELECT's target list, which VALUES has none of), whatever its alias
// names them, so SELECT * FROM (VALUES (1, 'a')) AS v(n, s) is sent as
// SELECT  FROM ... with an empty row struct. The first reading keeps
// PostgreSQL's columns and marks the statement for the second
// (shapeDiffers), which takes sqlc's: none (Query.Alt). A VALUES
// statement keeps PostgreSQL's columns: sqlc's empty row would scan none
// of the columns PostgreSQL returns, which the drivers refuse.
func (a *analyzer) sqlcValues(s *sqlparse.Select, cols []*Column) []*Column {
	if !isValues(s) || len(cols) == 0 {
		return cols
	}
	if a.sqlcShapes {
		return nil
	}
	a.shapeDiffers = true
	return cols
}
