package catalog_test

import (
	"database/sql"
	"slices"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse/mysqlparse"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestMySQLUniqueKeysOnMariaDB: the catalog of an engine mysql schema
// knows every unique key of a table as MariaDB, given the same
// statements, holds it: its information_schema.STATISTICS is the oracle.
// The BEFORE INSERT guard trigger looks rows up by these keys.
func TestMySQLUniqueKeysOnMariaDB(t *testing.T) {
	for _, tc := range []struct {
		name    string
		schemas []string
		tables  []string // whose keys are compared
	}{
		// Every way of declaring a key (CREATE TABLE, ALTER TABLE ... ADD
		// UNIQUE, ADD CONSTRAINT ... UNIQUE, ADD PRIMARY KEY, a column's
		// UNIQUE in ADD COLUMN or MODIFY, CREATE UNIQUE INDEX), and what
		// later statements leave: MODIFY and CHANGE keep a column's keys,
		// DROP COLUMN drops its keys of one column (MariaDB refuses it
		// on a column of a unique key of several, MySQL 8 shrinks the
		// key: so does the catalog), DROP INDEX and DROP PRIMARY KEY drop
		// one.
		{"declared", []string{
			`CREATE TABLE t (id BIGINT NOT NULL, a INT, b INT, c INT, d INT, tok BIGINT NOT NULL)`,
			`ALTER TABLE t ADD PRIMARY KEY (id)`,
			`ALTER TABLE t ADD UNIQUE (a)`,
			`ALTER TABLE t ADD CONSTRAINT t_bc UNIQUE KEY (b, c)`,
			`CREATE UNIQUE INDEX t_d ON t (d)`,
			`ALTER TABLE t ADD COLUMN e INT UNIQUE, ADD COLUMN f INT, ADD UNIQUE KEY f_key (f)`,
			`ALTER TABLE t MODIFY a BIGINT, CHANGE c cc INT`,
			`ALTER TABLE t ADD COLUMN g INT, ADD COLUMN h INT, ADD UNIQUE INDEX gh (g, h), ADD INDEX plain (g, h)`,
			`ALTER TABLE t DROP INDEX gh, DROP COLUMN h, DROP COLUMN e`,
			`ALTER TABLE t DROP INDEX f_key`,
			`DROP INDEX t_d ON t`,
			`ALTER TABLE t MODIFY f INT UNIQUE`,
			`CREATE TABLE u (id BIGINT PRIMARY KEY, x INT, tok BIGINT NOT NULL)`,
			`ALTER TABLE u DROP PRIMARY KEY, ADD PRIMARY KEY (id, x), ADD CONSTRAINT ux UNIQUE (x)`,
			`ALTER TABLE u DROP KEY ux`,
		}, []string{"t", "u"}},
		// Issue 27, trial-my3 F7: MySQL names a key per table, so the
		// copy-and-swap of a table (RENAME TABLE jobs TO jobs_old,
		// jobs_new TO jobs) keeps the new table's keys whatever the old
		// table's key names.
		{"swapped", []string{
			"CREATE TABLE jobs (id BIGINT PRIMARY KEY, name VARCHAR(50) NOT NULL, tok BIGINT NOT NULL DEFAULT 0, UNIQUE KEY uk_name (name))",
			"RENAME TABLE jobs TO jobs_old",
			"CREATE TABLE jobs_new (id BIGINT PRIMARY KEY, name VARCHAR(50) NOT NULL, code INT, tok BIGINT NOT NULL DEFAULT 0, UNIQUE KEY uk_name (name), UNIQUE KEY jobs_old (code))",
			"CREATE UNIQUE INDEX uk_code ON jobs_new (code, name)",
			"CREATE UNIQUE INDEX uk_code ON jobs_old (name, id)",
			"RENAME TABLE jobs_new TO jobs",
		}, []string{"jobs", "jobs_old"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cat := mysqlCatalog(t, strings.Join(tc.schemas, ";\n")+";\n")
			if errs := cat.Validate().Sort(); len(errs) > 0 {
				t.Fatalf("catalog: %v", errs)
			}
			db := testenv.MySQL(t, "", tc.schemas...)
			for _, table := range tc.tables {
				keys, _ := cat.Table("", table).UniqueKeys()
				var got []string
				for _, k := range keys {
					got = append(got, strings.Join(k, ","))
				}
				slices.Sort(got)
				if want := serverUniqueKeys(t, db, table); !slices.Equal(got, want) {
					t.Errorf("table %s: the catalog's unique keys are %q, MariaDB's %q", table, got, want)
				}
			}
		})
	}
}

// mysqlCatalog is the catalog of the engine mysql schema src, each
// statement applied in order.
func mysqlCatalog(t *testing.T, src string) *catalog.Catalog {
	t.Helper()
	cat := catalog.New(catalog.WithColumnGenerator(analyze.ColumnGenerator{}))
	f, err := mysqlparse.ParseSchema("schema.sql", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range f.Stmts {
		cat.Update(f, s)
	}
	return cat
}

// serverUniqueKeys lists table's unique keys as the server holds them:
// each key's columns in order, joined with commas, sorted.
func serverUniqueKeys(t *testing.T, db *sql.DB, table string) []string {
	t.Helper()
	return serverLists(t, db, `SELECT GROUP_CONCAT(COLUMN_NAME ORDER BY SEQ_IN_INDEX SEPARATOR ',') FROM information_schema.STATISTICS
WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ? AND NON_UNIQUE = 0 GROUP BY INDEX_NAME`, table)
}

// serverLists runs query, whose rows are one string each (a key's
// columns joined with commas), on db with args, and returns the rows
// sorted.
func serverLists(t *testing.T, db *sql.DB, query string, args ...any) []string {
	t.Helper()
	rows, err := db.Query(query, args...)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var k string
		if err := rows.Scan(&k); err != nil {
			t.Fatal(err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// TestMySQLExpressionKeyUntracked: a unique key on an expression (MySQL
// 8's functional key parts, which MariaDB lacks) is no key of columns the
// guard trigger could look rows up by: UniqueKeys reports it as
// untracked, never as a key of no columns.
func TestMySQLExpressionKeyUntracked(t *testing.T) {
	cat := mysqlCatalog(t, "CREATE TABLE t (id BIGINT PRIMARY KEY, a VARCHAR(10), tok BIGINT NOT NULL);\nALTER TABLE t ADD UNIQUE ((lower(a)));\n")
	keys, untracked := cat.Table("", "t").UniqueKeys()
	if len(keys) != 1 || strings.Join(keys[0], ",") != "id" || !untracked {
		t.Fatalf("UniqueKeys() = %q, untracked %v; want [id], true", keys, untracked)
	}
}
