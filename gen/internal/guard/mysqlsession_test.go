package guard_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/guard"
	"github.com/fencegen/fencegen/gen/internal/guard/mysqlguard"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// mysqlSessionFixture is the fenced table of the session-variable tests,
// with the guard triggers of mode, on one connection (a pooled connection
// that every statement of the test shares).
func mysqlSessionFixture(t *testing.T, mode string, before ...string) *sql.DB {
	t.Helper()
	stmts := append([]string{mysqlModeTable}, before...)
	stmts = append(stmts, guard.MySQLGuardTriggers("accounts", "fence_token", mode)...)
	db := testenv.MySQL(t, "", stmts...)
	db.SetMaxOpenConns(1)
	return db
}

// mysqlRewrite guards query as the generated code of table accounts does.
func mysqlRewrite(t *testing.T, query string, params int, required bool) *mysqlguard.Guarded {
	t.Helper()
	g, err := mysqlguard.Rewrite(query, mysqlguard.Spec{Column: "fence_token", Key: []string{"id"}, Param: params + 1, Table: "accounts", Name: "accounts", Required: required})
	if err != nil {
		t.Fatal(err)
	}
	return g
}

// bindParams orders args (the query's, then the token) as params.
func bindParams(params []int, args ...any) []any {
	out := make([]any, len(params))
	for i, p := range params {
		out[i] = args[p-1]
	}
	return out
}

// TestMySQLRequiredDeclarationDiesWithItsStatementOnMariaDB (issue 27,
// trial t27h F3): in mode required, a generated write declares the token
// it presents in @fencegen_presented, which the guard's BEFORE UPDATE
// trigger read and cleared. When a BEFORE UPDATE trigger of the team's,
// which runs before the guard's (created first), refuses the generated
// write, the guard's never ran: the declaration stayed on the connection,
// and a hand-written UPDATE of a row storing that token, presenting none,
// passed. Also when the generated write ran before the guard was
// installed. The declaration is now bound to its statement (its start
// time and table), so the trigger trusts none left by another: the
// forgotten token is refused on that connection after every such path.
// MariaDB is the oracle (the row as stored).
func TestMySQLRequiredDeclarationDiesWithItsStatementOnMariaDB(t *testing.T) {
	ctx := context.Background()
	team := "CREATE TRIGGER accounts_no_negative BEFORE UPDATE ON accounts FOR EACH ROW BEGIN IF NEW.balance < 0 THEN SIGNAL SQLSTATE '45001' SET MESSAGE_TEXT = 'negative balance'; END IF; END"
	forgotten := func(t *testing.T, db *sql.DB, when string) {
		t.Helper()
		_, err := db.ExecContext(ctx, "UPDATE accounts SET balance = 42 WHERE id = 2")
		var se *fence.StaleError
		if stale := fenceimpl.TriggerError("HandWritten", err, "accounts"); !errors.As(stale, &se) || se.Presented != 0 || se.Stored != 7 {
			t.Fatalf("a hand-written UPDATE without a token of row 2 (token 7) %s: %v; want a *fence.StaleError presented 0 stored 7", when, err)
		}
		var b int64
		if err := db.QueryRowContext(ctx, "SELECT balance FROM accounts WHERE id = 2").Scan(&b); err != nil || b != 100 {
			t.Fatalf("row 2's balance %d (%v), want 100", b, err)
		}
	}
	rows := "INSERT INTO accounts (id, balance, status, fence_token) VALUES (1, 100, 'a', 5), (2, 100, 'b', 7)"
	for _, tc := range []struct {
		name, query string
		params      int
		args        []any // the query's, then the token 7
	}{
		{"by key", "UPDATE accounts SET balance = ? WHERE id = ?", 2, []any{int64(-1), int64(1), int64(7)}},
		{"all or nothing", "UPDATE accounts SET balance = ? WHERE status = ?", 2, []any{int64(-1), "a", int64(7)}},
		{"upsert", "INSERT INTO accounts (id, balance) VALUES (?, ?) ON DUPLICATE KEY UPDATE balance = VALUES(balance)", 2, []any{int64(1), int64(-1), int64(7)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := mysqlSessionFixture(t, "required", rows, team)
			g := mysqlRewrite(t, tc.query, tc.params, true)
			_, err := db.ExecContext(ctx, g.SQL, bindParams(g.Params, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), "negative balance") {
				t.Fatalf("the generated write, refused by the team's trigger: %v", err)
			}
			forgotten(t, db, "after a generated write the team's trigger refused")
		})
	}
	t.Run("written before the guard", func(t *testing.T) {
		db := testenv.MySQL(t, "", mysqlModeTable, rows)
		db.SetMaxOpenConns(1)
		g := mysqlRewrite(t, "UPDATE accounts SET balance = ? WHERE id = ?", 2, true)
		if _, err := db.ExecContext(ctx, g.SQL, bindParams(g.Params, int64(100), int64(2), int64(7))...); err != nil {
			t.Fatal(err)
		}
		for _, s := range guard.MySQLGuardTriggers("accounts", "fence_token", "required") {
			if _, err := db.ExecContext(ctx, s); err != nil {
				t.Fatal(err)
			}
		}
		forgotten(t, db, "after a generated write that ran before the guard was installed")
	})
}

// TestMySQLGeneratedDeleteIgnoresSessionTokenOnMariaDB (issue 27, trial
// t27h F4): the guard's BEFORE DELETE trigger compares the stored token
// with @fencegen_token, a hand-written writer's declaration that lasts
// its session; on a pooled connection one left at 3 made a generated
// DELETE presenting 10 of a row storing 5 fail as stale (presented 3).
// A generated DELETE now declares its own token for its statement, which
// the trigger takes over the session's; the session's declaration stays
// as the hand-written writer left it (its next DELETE is judged by it),
// and a generated DELETE's declaration judges no later statement. In
// every mode; MariaDB's rows are the oracle.
func TestMySQLGeneratedDeleteIgnoresSessionTokenOnMariaDB(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []string{"non-strict", "required", "strict"} {
		t.Run(mode, func(t *testing.T) {
			db := mysqlSessionFixture(t, mode, "INSERT INTO accounts (id, balance, status, fence_token) VALUES (1, 1, 'a', 5), (2, 2, 'b', 5), (3, 3, 'b', 5), (4, 4, 'c', 5), (5, 5, 'd', 12)")
			strict := mode == "strict"
			spec := func(params int) mysqlguard.Spec {
				return mysqlguard.Spec{Column: "fence_token", Key: []string{"id"}, Param: params + 1, Table: "accounts", Name: "accounts", Strict: strict}
			}
			byKey, err := mysqlguard.Rewrite("DELETE FROM accounts WHERE id = ?", spec(1))
			if err != nil {
				t.Fatal(err)
			}
			all, err := mysqlguard.Rewrite("DELETE FROM accounts WHERE status = ?", spec(1))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, "SET @fencegen_token = 3"); err != nil {
				t.Fatal(err)
			}
			n, err := fenceimpl.MySQLByKey(ctx, "DeleteAccount", "accounts", fence.NonStrict, 10, func() (sql.Result, error) {
				return db.ExecContext(ctx, byKey.SQL, bindParams(byKey.Params, int64(1), int64(10))...)
			}, func(ctx context.Context) (*sql.Rows, error) {
				return db.QueryContext(ctx, byKey.Stored, bindParams(byKey.StoredParams, int64(1), int64(10))...)
			})
			if n != 1 || err != nil {
				t.Fatalf("generated DELETE by key, token 10, row storing 5, session @fencegen_token 3: %d, %v", n, err)
			}
			n, err = fenceimpl.MySQLAll(ctx, "DeleteByStatus", "accounts", fence.NonStrict, 10, func() (sql.Result, error) {
				return db.ExecContext(ctx, all.SQL, bindParams(all.Params, "b", int64(10))...)
			}, func(ctx context.Context) (*sql.Rows, error) {
				return db.QueryContext(ctx, all.Stored, bindParams(all.StoredParams, "b", int64(10))...)
			})
			if n != 2 || err != nil {
				t.Fatalf("generated DELETE of two rows, token 10, rows storing 5, session @fencegen_token 3: %d, %v", n, err)
			}
			// The session's declaration is the hand-written writer's still.
			_, err = db.ExecContext(ctx, "DELETE FROM accounts WHERE id = 4")
			var se *fence.StaleError
			if stale := fenceimpl.TriggerError("HandWritten", err, "accounts"); !errors.As(stale, &se) || se.Presented != 3 || se.Stored != 5 {
				t.Fatalf("hand-written DELETE of row 4 (token 5) under @fencegen_token 3: %v; want refused, presented 3", err)
			}
			// A generated DELETE's declaration (10) judges no later
			// statement: without the session's, a hand-written DELETE
			// of row 5 (token 12) passes, as before any generated one.
			if _, err := db.ExecContext(ctx, "SET @fencegen_token = NULL"); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, byKey.SQL, bindParams(byKey.Params, int64(4), int64(10))...); err != nil {
				t.Fatal(err)
			}
			if _, err := db.ExecContext(ctx, "DELETE FROM accounts WHERE id = 5"); err != nil {
				t.Fatalf("hand-written DELETE of row 5 (token 12) after a generated DELETE presenting 10: %v", err)
			}
			var left int
			if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM accounts").Scan(&left); err != nil || left != 0 {
				t.Fatalf("%d rows left (%v), want 0", left, err)
			}
		})
	}
}
