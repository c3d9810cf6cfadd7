package analyze

// The names sqlc gives a query's result columns, which name the fields
// of its Row struct (sqlc v1.31.1's compiler, output_columns.go, and
// codegen columnName). They are PostgreSQL's (FigureColname) except
// where sqlc names a column otherwise: there the query's result columns
// take sqlc's name, and the statement's own columns (a CTE's, a
// subquery's, which SQL refers to) keep PostgreSQL's.

import (
	"fmt"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// sqlcTargetName is the name sqlc gives the column of select-list or
// RETURNING-list entry t, whose value is v; "" for one it numbers
// (column_N):
//   - its alias;
//   - a cast of a column reference: the reference's parts joined with
//     "_" (u.api_key::text is u_api_key, where PostgreSQL says api_key);
//     any other cast: none ('x'::text, count(*)::int, where PostgreSQL
//     says text and count);
//   - CASE, GREATEST and LEAST, ROW(...) and a subscript or field of a
//     value (tags[1]): none (PostgreSQL: case, greatest, row, tags);
//   - ARRAY(subquery): exists (PostgreSQL: array);
//   - NOT EXISTS (subquery): not_exists (PostgreSQL: none);
//   - anything else: PostgreSQL's, v's.
func sqlcTargetName(t *sqlparse.Target, v value) string {
	if t.Name != "" {
		return t.Name
	}
	switch n := t.Expr.(type) {
	case *sqlparse.TypeCast:
		if cr, ok := n.Arg.(*sqlparse.ColumnRef); ok {
			return strings.Join(cr.Fields, "_")
		}
		return ""
	case *sqlparse.Case, *sqlparse.MinMax, *sqlparse.RowExpr, *sqlparse.Indirection:
		return ""
	case *sqlparse.SubLink:
		if n.Kind == "ARRAY" {
			return "exists"
		}
	case *sqlparse.BoolExpr:
		if sl, ok := n.Args[0].(*sqlparse.SubLink); ok && strings.EqualFold(n.Op, "NOT") && len(n.Args) == 1 && sl.Kind == "EXISTS" {
			return "not_exists"
		}
	}
	return v.Name
}

// nameAsSqlc gives a query's result columns sqlc's names: sqlcName
// where the select or RETURNING list set one, and column_N for a column
// without a name, N its position among the query's columns as sqlc
// counts them (a star's columns each, a sqlc.embed's as one: SELECT *,
// 'x'::text FROM a five-column table gives column_6).
func nameAsSqlc(cols []*Column) {
	pos, embed := 0, -1
	for _, c := range cols {
		if c.Embed != nil {
			if c.EmbedTarget != embed {
				pos++
				embed = c.EmbedTarget
			}
			continue
		}
		pos++
		if c.sqlcNamed {
			c.Name, c.unnamed = c.sqlcName, c.sqlcName == ""
		}
		if c.unnamed {
			c.Name = fmt.Sprintf("column_%d", pos)
		}
	}
}
