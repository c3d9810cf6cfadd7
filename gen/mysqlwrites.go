package gen

import (
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/writes/mysqlwrites"
)

// mysqlWriteFacts is what the MySQL write analysis knows of an entry's
// schema: the views, triggers, stored routines and foreign keys its
// files define (read from their text, as parsed: migration tools' down
// sections blanked), and the tables cat fences. A statement it cannot
// read that may define one of them makes every query refused
// (mysqlwrites.Schema.Unread).
//
// The files are read statement by statement as mysqlwrites.ReadSchema
// reads them, but a statement the TiDB parser has already parsed (into
// sqlparse.Stmt.MySQL, for the catalog) is not parsed again: its trees
// are handed over when they lie within the statement's text. A stored
// program, and a statement without such trees, is read from its text.
func mysqlWriteFacts(schema []*sqlparse.File, cat *catalog.Catalog) *mysqlwrites.Schema {
	sc := mysqlwrites.NewSchema()
	for _, f := range schema {
		stmts := f.Stmts
		for _, st := range mysqlwrites.SplitStatements(string(f.Src)) {
			end := st.Pos + len(st.Text)
			for len(stmts) > 0 && stmts[0].Start < st.Pos {
				stmts = stmts[1:]
			}
			n := 0
			for n < len(stmts) && stmts[n].Start < end && stmts[n].End <= end && stmts[n].MySQL != nil {
				n++
			}
			if n == 0 || (n < len(stmts) && stmts[n].Start < end) || mysqlwrites.IsProgram(st.Text) {
				_ = sc.AddText(st.Text)
				continue
			}
			for _, p := range stmts[:n] {
				sc.Add(p.MySQL)
			}
		}
	}
	for _, t := range cat.FencedTables() {
		sc.Fence(t.Name)
	}
	return sc
}
