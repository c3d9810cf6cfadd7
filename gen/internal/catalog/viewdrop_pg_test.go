package catalog_test

import (
	"context"
	"slices"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/internal/testenv"
)

// viewDropCases drop relations that views and materialized views read,
// with CASCADE (and without, where no view depends on them): PostgreSQL
// drops the views over them, also through other views, in other schemas,
// under joins, subqueries and WITH entries, and keeps a view whose WITH
// entry only shares the dropped table's name.
var viewDropCases = []struct{ name, ddl string }{
	{"simple view", `CREATE TABLE t (id int); CREATE TABLE u (id int); CREATE VIEW v AS SELECT id FROM t; CREATE VIEW w AS SELECT id FROM u; DROP TABLE t CASCADE`},
	{"view over view", `CREATE TABLE t (id int); CREATE VIEW v AS SELECT id FROM t; CREATE VIEW vv AS SELECT id FROM v; CREATE VIEW vvv AS SELECT id FROM vv; DROP TABLE t CASCADE`},
	{"drop view cascade", `CREATE TABLE t (id int); CREATE VIEW v AS SELECT id FROM t; CREATE VIEW vv AS SELECT id FROM v; DROP VIEW v CASCADE`},
	{"join and subquery", `CREATE TABLE t (id int); CREATE TABLE u (id int); CREATE TABLE x (id int); CREATE VIEW j AS SELECT t.id FROM t JOIN u USING (id); CREATE VIEW s AS SELECT id FROM u WHERE id IN (SELECT id FROM x); CREATE VIEW k AS SELECT id FROM u; DROP TABLE x CASCADE; DROP TABLE t CASCADE`},
	{"with entry", `CREATE TABLE t (id int); CREATE TABLE u (id int); CREATE VIEW c AS WITH a AS (SELECT id FROM t) SELECT id FROM a; CREATE VIEW shadow AS WITH t AS (SELECT id FROM u) SELECT id FROM t; DROP TABLE t CASCADE`},
	{"materialized view", `CREATE TABLE t (id int); CREATE MATERIALIZED VIEW m AS SELECT id FROM t; CREATE VIEW mv AS SELECT id FROM m; CREATE TABLE copy AS SELECT id FROM t; DROP TABLE t CASCADE`},
	{"other schema", `CREATE SCHEMA s; CREATE TABLE s.t (id int); CREATE VIEW v AS SELECT id FROM s.t; CREATE SCHEMA r; CREATE VIEW r.w AS SELECT id FROM v; DROP TABLE s.t CASCADE`},
	{"drop schema cascade", `CREATE SCHEMA s; CREATE TABLE s.t (id int); CREATE VIEW v AS SELECT id FROM s.t; CREATE TABLE keep (id int); CREATE VIEW k AS SELECT id FROM keep; DROP SCHEMA s CASCADE`},
	{"renamed table", `CREATE TABLE t (id int); CREATE VIEW v AS SELECT id FROM t; ALTER TABLE t RENAME TO t2; CREATE TABLE t (id int); CREATE VIEW w AS SELECT id FROM t; DROP TABLE t2 CASCADE`},
	{"replaced view", `CREATE TABLE t (id int); CREATE TABLE u (id int); CREATE VIEW v AS SELECT id FROM t; CREATE VIEW vv AS SELECT id FROM v; CREATE OR REPLACE VIEW v AS SELECT id FROM u; DROP TABLE t CASCADE; DROP TABLE u CASCADE`},
	{"parent and child", `CREATE TABLE p (id int); CREATE TABLE c () INHERITS (p); CREATE VIEW vc AS SELECT id FROM c; CREATE VIEW vp AS SELECT id FROM ONLY p; DROP TABLE p CASCADE`},
	{"no dependent view", `CREATE TABLE t (id int); CREATE TABLE u (id int); CREATE VIEW v AS SELECT id FROM u; DROP TABLE t`},
}

// TestDropCascadeViewsMatchPostgreSQL applies each case to PostgreSQL
// and to the catalog: the relations (tables, views, materialized views)
// left must be the same.
func TestDropCascadeViewsMatchPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	ctx := context.Background()
	for _, tc := range viewDropCases {
		t.Run(tc.name, func(t *testing.T) {
			f, stmts := parseDDL(t, tc.ddl)
			tx, err := pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			for i, s := range stmts {
				if _, err := tx.Exec(ctx, s); err != nil {
					t.Fatalf("PostgreSQL rejects statement %d (%s): %v", i+1, s, err)
				}
			}
			rows, err := tx.Query(ctx, `SELECT n.nspname || '.' || c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
				WHERE c.relkind IN ('r', 'p', 'v', 'm') AND n.nspname NOT IN ('pg_catalog', 'information_schema')
				AND n.nspname NOT LIKE 'pg_toast%' AND n.nspname NOT LIKE 'pg_temp%' ORDER BY 1`)
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			for rows.Next() {
				var s string
				if err := rows.Scan(&s); err != nil {
					t.Fatal(err)
				}
				want = append(want, s)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			c := catalog.New(catalog.WithColumnGenerator(analyze.ColumnGenerator{}))
			for _, s := range f.Stmts {
				c.Update(f, s)
			}
			if errs := c.Validate(); len(errs) > 0 {
				t.Fatalf("catalog errors where PostgreSQL has none:\n%v", errs.Sort())
			}
			var got []string
			for _, s := range c.Schemas {
				if s.Name == "pg_catalog" {
					continue
				}
				for _, r := range s.Tables {
					if !r.IsSequence {
						got = append(got, s.Name+"."+r.Name)
					}
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("relations left by\n%s\n%s", tc.ddl, lineDiff(want, got))
			}
		})
	}
}
