package gen_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// TestMySQLGuardNamesTableAsDeclaredOnMariaDB (issue 27 trial t27 F5):
// the guard migration names a fenced table as the schema declared it
// (CREATE TABLE Accounts, RENAME TABLE ... TO Ledger), not in the lower
// case sqlc's catalog folds it to: on a server with
// lower_case_table_names=0 (Linux's default, this MariaDB's) `accounts`
// is no table, and the migration failed with error 1146. On MariaDB the
// migration installs, and a stale UPDATE of each table is refused by its
// trigger. The triggers' own names stay lower case.
func TestMySQLGuardNamesTableAsDeclaredOnMariaDB(t *testing.T) {
	schema := `CREATE TABLE Accounts (id BIGINT PRIMARY KEY, balance INT NOT NULL DEFAULT 0, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
CREATE TABLE old_ledger (id BIGINT PRIMARY KEY, fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');
RENAME TABLE old_ledger TO Ledger;
`
	cfg := mysqlGuardProject(t, schema, "-- name: Get :one\nSELECT id FROM Accounts WHERE id = ?;\n")
	out, err := gen.GenerateGuard(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	files, err := out.Guards[0].Migration("dbmate", "1")
	if err != nil {
		t.Fatal(err)
	}
	up, _, _ := strings.Cut(string(files["1_fencegen_guard.sql"]), "-- migrate:down")
	for _, want := range []string{"BEFORE UPDATE ON `Accounts`", "BEFORE INSERT ON `Ledger`", "CREATE TRIGGER `fencegen_bu_accounts`"} {
		if !strings.Contains(up, want) {
			t.Errorf("no %q in the migration:\n%s", want, up)
		}
	}
	var stmts []string
	for _, s := range strings.Split(schema, ";\n") {
		if strings.TrimSpace(s) != "" {
			stmts = append(stmts, s)
		}
	}
	db := testenv.MySQL(t, "multiStatements=true", stmts...)
	var lower int
	if err := db.QueryRow("SELECT @@lower_case_table_names").Scan(&lower); err != nil {
		t.Fatal(err)
	}
	if lower != 0 {
		t.Logf("lower_case_table_names=%d: names are not case-sensitive on this server", lower)
	}
	if _, err := db.Exec(up); err != nil {
		t.Fatalf("installing the guard: %v", err)
	}
	for _, table := range []string{"Accounts", "Ledger"} {
		if _, err := db.Exec("INSERT INTO " + table + " (id, fence_token) VALUES (1, 9)"); err != nil {
			t.Fatal(err)
		}
		_, err := db.Exec("UPDATE " + table + " SET fence_token = 3 WHERE id = 1")
		var se *fence.StaleError
		if stale := fenceimpl.TriggerError("Q", err, strings.ToLower(table)); !errors.As(stale, &se) || se.Stored != 9 {
			t.Errorf("stale UPDATE of %s: %v; want the guard's refusal, stored 9", table, err)
		}
	}
}
