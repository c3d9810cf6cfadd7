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
		case col.Column != nil && infoSchemaColumn(col.Column):
			// sqlc v1.31.1 knows information_schema's columns by their
			// domains' names only (sql_identifier, cardinal_number, ...),
			// and declares them interface{}, also through a view.
			cc.Sqlc = &catalog.ColumnTyping{Any: true}
		}
		out = append(out, cc)
	}
	return out, a.errs
}

// infoSchemaColumn reports whether c is a column of an information_schema
// view (not one of the system columns every relation has), which sqlc
// types by its domain's name only (see golang's typeMapper.sqlcDomain).
func infoSchemaColumn(c *catalog.Column) bool {
	t := c.Table
	if t == nil || t.Schema != "information_schema" || !t.IsSystem() {
		return false
	}
	_, system := catalog.SystemColumns[c.Name]
	return !system
}
