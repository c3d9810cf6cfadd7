package mysqlguard_test

import (
	"errors"
	"testing"

	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
)

// TestSelectLimitZeroOnMariaDB (issue 27, trial t27s F4): a DSN that sets
// sql_select_limit=0 (go-sql-driver/mysql sets an unknown DSN parameter
// as a session variable) makes a SELECT without a LIMIT of its own return
// no row, so the guard's reads, which end in an explicit LIMIT, still
// see the stored row: a stale UPDATE or DELETE by key, a stale UPDATE of
// several rows and a stale upsert are *fence.StaleError with the stored
// token (before: fence.ErrNotFound), an equal-token retry that changes
// nothing under a trigger is written, and a missing row is still
// fence.ErrNotFound. Under both affected-rows rules, with and without a
// trigger; MariaDB's rows are the oracle.
func TestSelectLimitZeroOnMariaDB(t *testing.T) {
	modes(t, func(t *testing.T, params, trigger string) {
		if params != "" {
			params += "&"
		}
		params += "sql_select_limit=0"
		db := testenv.MySQL(t, params, withTrigger(trigger, schema, "INSERT INTO accounts (id, balance, fence_token) VALUES (1, 100, 9), (2, 100, 9), (3, 100, 9)")...)
		var limit int64
		if err := db.QueryRow("SELECT @@sql_select_limit LIMIT 1").Scan(&limit); err != nil || limit != 0 {
			t.Fatalf("@@sql_select_limit = %d, %v; want 0 from the DSN", limit, err)
		}
		set := newGuarded(t, db, "UPDATE accounts SET balance = ? WHERE id = ?", spec(2, false))
		_, err := set.run(5, 999, 1)
		wantStale(t, err, 5, 9)
		n, err := set.run(9, 100, 1) // the values already there, equal token
		wantWritten(t, n, err)
		if _, err := set.run(9, 1, 42); !errors.Is(err, fence.ErrNotFound) {
			t.Fatalf("missing row: err = %v, want fence.ErrNotFound", err)
		}
		del := newGuarded(t, db, "DELETE FROM accounts WHERE id = ?", spec(1, false))
		_, err = del.run(5, 2)
		wantStale(t, err, 5, 9)
		group := newGuarded(t, db, "UPDATE accounts SET balance = ? WHERE balance = ?", spec(2, false))
		_, err = group.run(5, 0, 100)
		wantStale(t, err, 5, 9)
		up := newGuarded(t, db, "INSERT INTO accounts (id, balance) VALUES (?, ?) ON DUPLICATE KEY UPDATE balance = VALUES(balance)", spec(2, false))
		_, err = up.run(5, 3, 1)
		wantStale(t, err, 5, 9)
		for id := int64(1); id <= 3; id++ {
			// The test's own read needs a LIMIT too.
			var b, tok int64
			if err := db.QueryRow("SELECT balance, fence_token FROM accounts WHERE id = ? LIMIT 1", id).Scan(&b, &tok); err != nil || b != 100 || tok != 9 {
				t.Fatalf("row %d = %d, token %d, %v; want 100, 9", id, b, tok, err)
			}
		}
	})
}
