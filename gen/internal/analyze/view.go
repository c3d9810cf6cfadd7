package analyze

import (
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// ColumnGenerator is the analyzer's catalog.ColumnGenerator: it types the
// columns of a view's query as the analyzer types a SELECT's. Build the
// catalog with catalog.New(catalog.WithColumnGenerator(analyze.ColumnGenerator{})).
type ColumnGenerator struct{}

// OutputColumns types the output columns of q, a view's query in statement
// s of file f, against c.
func (ColumnGenerator) OutputColumns(c *catalog.Catalog, f *sqlparse.File, s *sqlparse.Stmt, q *sqlparse.Select) ([]*catalog.Column, diag.List) {
	a := &analyzer{cat: c, file: f, stmt: s, params: map[int]*Param{}, ann: &Annotation{}}
	cols := a.selectCols(q, nil)
	var out []*catalog.Column
	for _, col := range cols {
		name := col.Name
		if col.unnamed {
			// Unnamed unless the view's column list names it (sqlc leaves
			// ?column? columns out of the view's model).
			name = ""
		}
		cc := &catalog.Column{Name: name, Type: col.Type, DBType: col.DBType, NotNull: col.NotNull, NameGuessed: col.guessed}
		switch {
		case col.SqlcAny:
			cc.Sqlc = &catalog.ColumnTyping{Any: true}
		case col.Sqlc != nil:
			sq := col.Sqlc
			cc.Sqlc = &catalog.ColumnTyping{Type: sq.Type, NotNull: sq.NotNull, Any: sq.Any}
			if sq.Column != nil {
				cc.Sqlc.DBType = sq.Column.DBType
			}
		}
		out = append(out, cc)
	}
	return out, a.errs
}
