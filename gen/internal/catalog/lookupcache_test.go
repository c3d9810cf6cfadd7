package catalog_test

import (
	"fmt"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/sqlparse/mysqlparse"
)

// Every table of the schema is found after it is read, whatever the
// lookups made while it was read: with a fence key, the end of each file
// looks the key's table up before the next file's first statement runs,
// and the last file's one CREATE TABLE was then missing from every later
// lookup (trial t27h F0, PostgreSQL and MySQL alike).
func TestTablesOfTheLastFileAreFound(t *testing.T) {
	parsers := map[string]func(string, []byte) (*sqlparse.File, error){
		"postgresql": sqlparse.Parse,
		"mysql":      mysqlparse.ParseSchema,
	}
	for engine, parse := range parsers {
		for _, files := range [][]string{
			{"CREATE TABLE a (id bigint PRIMARY KEY);\n", "CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 0);\n"},
			{"CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 0);\n"},
			{"CREATE TABLE a (id bigint PRIMARY KEY);\n", "CREATE TABLE b (id bigint PRIMARY KEY);\n", "CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 0);\n"},
		} {
			t.Run(fmt.Sprintf("%s/%d files", engine, len(files)), func(t *testing.T) {
				cat := catalog.New(catalog.WithColumnGenerator(analyze.ColumnGenerator{}))
				cat.ExpectFenceKeys([]catalog.FenceKey{{Table: "jobs", Column: "tok", File: "fencegen.yaml", Line: 4, Col: 7}})
				for i, src := range files {
					f, err := parse(fmt.Sprintf("%03d.sql", i+1), []byte(src))
					if err != nil {
						t.Fatal(err)
					}
					for _, s := range f.Stmts {
						cat.Update(f, s)
					}
				}
				if cat.Table("", "jobs") == nil {
					t.Fatal("table jobs of the last file not found after the schema")
				}
				for _, e := range cat.Validate() {
					t.Errorf("unexpected problem: %v", e)
				}
				if cat.Table("", "jobs") == nil {
					t.Fatal("table jobs of the last file not found after Validate")
				}
			})
		}
	}
}
