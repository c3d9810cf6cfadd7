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
func mysqlWriteFacts(schema []*sqlparse.File, cat *catalog.Catalog) *mysqlwrites.Schema {
	var srcs [][]byte
	for _, f := range schema {
		srcs = append(srcs, f.Src)
	}
	sc, _ := mysqlwrites.ReadSchema(srcs...)
	for _, t := range cat.FencedTables() {
		sc.Fence(t.Name)
	}
	return sc
}
