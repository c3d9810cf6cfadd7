package catalog_test

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// FuzzCatalogUpdate applies arbitrary SQL to a catalog: nothing may panic,
// every problem and note must point into the input, and a schema applied
// without errors leaves no key or foreign key on a column its table does
// not have. Seeds: the DDL cases of the PostgreSQL comparison tests, and
// the schema files of ../shared/corpus when present.
func FuzzCatalogUpdate(f *testing.F) {
	for _, tc := range ddlCases {
		f.Add(tc.ddl)
	}
	for _, tc := range ddlErrorCases {
		f.Add(tc.ddl)
	}
	var files []string
	_ = filepath.WalkDir(filepath.Join("..", "..", "..", "..", "shared", "corpus"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(path) == ".sql" {
			files = append(files, path)
		}
		return nil
	})
	slices.Sort(files)
	seeds := 0
	for _, path := range files {
		b, err := os.ReadFile(path)
		if err != nil || len(b) > 32<<10 || !bytes.Contains(bytes.ToUpper(b), []byte("CREATE TABLE")) {
			continue
		}
		f.Add(string(b))
		if seeds++; seeds == 300 {
			break
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := sqlparse.Parse("schema.sql", []byte(src))
		if err != nil || file == nil {
			return
		}
		c := catalog.New(catalog.WithColumnGenerator(analyze.ColumnGenerator{}))
		for _, s := range file.Stmts {
			c.Update(file, s)
		}
		errs := c.Validate()
		lines := bytes.Count(file.Src, []byte("\n")) + 1
		for _, e := range append(errs, c.Notes()...) {
			if e.File == "schema.sql" && (e.Line < 1 || e.Line > lines) {
				t.Errorf("%v: line outside the input's %d lines", e, lines)
			}
		}
		for _, s := range c.Schemas {
			for _, tb := range s.Tables {
				for _, op := range []string{"delete", "update", "truncate"} {
					c.Cascades(tb, op, []string{"id"})
				}
				if len(errs) > 0 {
					continue
				}
				for _, cols := range tb.ConstraintColumnSets() {
					for _, col := range cols {
						if tb.Column(col) == nil {
							t.Errorf("%s has a constraint on column %q, which it does not have", tb.QualifiedName(), col)
						}
					}
				}
			}
		}
	})
}
