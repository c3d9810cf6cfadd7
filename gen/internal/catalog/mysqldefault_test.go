package catalog_test

import (
	"strings"
	"testing"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestMySQLTokenColumnDefaultOnMariaDB: an engine mysql token column's
// DEFAULT, declared with the column or set later by ALTER COLUMN ... SET
// DEFAULT, is an error when MariaDB stores a token above 1 for a row
// inserted without one, as on PostgreSQL (TestTokenColumnDefault; issue
// 27, trial x27 F1: DEFAULT 999 was accepted). MariaDB is the oracle: each
// default is declared there and a row inserted leaving the column out.
func TestMySQLTokenColumnDefaultOnMariaDB(t *testing.T) {
	defaults := []string{"0", "-1", "1", "'0'", "'1'", "(0)", "- 1", "2", "'2'", "999", "(5)", "' 0'", "'7'"}
	db := testenv.MySQL(t, "")
	for _, def := range defaults {
		for _, how := range []string{"column", "alter"} {
			create := "CREATE TABLE jobs (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT " + def + " COMMENT 'fencegen:token')"
			var stmts []string
			if how == "column" {
				stmts = []string{create}
			} else {
				stmts = []string{"CREATE TABLE jobs (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token')",
					"ALTER TABLE jobs ALTER COLUMN tok SET DEFAULT " + def}
			}
			if _, err := db.Exec("DROP TABLE IF EXISTS jobs"); err != nil {
				t.Fatal(err)
			}
			var stored int64
			err := func() error {
				for _, s := range stmts {
					if _, err := db.Exec(s); err != nil {
						return err
					}
				}
				if _, err := db.Exec("INSERT INTO jobs (id) VALUES (1)"); err != nil {
					return err
				}
				return db.QueryRow("SELECT tok FROM jobs WHERE id = 1").Scan(&stored)
			}()
			if err != nil {
				t.Errorf("%s %s: MariaDB: %v", how, def, err)
				continue
			}
			want := stored > 1
			cat := mysqlCatalog(t, strings.Join(stmts, ";\n")+";\n")
			var got []string
			for _, e := range cat.Validate() {
				got = append(got, e.Error())
			}
			isErr := len(got) == 1 && strings.Contains(got[0], "has a DEFAULT that is not an integer constant at or below 1")
			if isErr != want || !want && len(got) > 0 {
				t.Errorf("%s DEFAULT %s (MariaDB stores %d): errors %v, want the DEFAULT error: %v", how, def, stored, got, want)
			}
			if want && how == "alter" && isErr && !strings.HasPrefix(got[0], "schema.sql:2:") {
				t.Errorf("alter DEFAULT %s: error %q, want it at the ALTER", def, got[0])
			}
		}
	}
	// DROP DEFAULT leaves no default: nothing to refuse.
	cat := mysqlCatalog(t, "CREATE TABLE jobs (id BIGINT PRIMARY KEY, tok BIGINT NOT NULL DEFAULT 5 COMMENT 'fencegen:token');\nALTER TABLE jobs ALTER COLUMN tok DROP DEFAULT;\n")
	if errs := cat.Validate(); len(errs) > 0 {
		t.Errorf("DROP DEFAULT: %v", errs)
	}
}
