package guard_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/go-sql-driver/mysql"

	"github.com/fencegen/fencegen/gen/internal/guard"
	"github.com/fencegen/fencegen/gen/internal/guard/mysqlguard"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// mysqlModeTable is the fenced table of TestMySQLGuardModesOnMariaDB.
const mysqlModeTable = `CREATE TABLE accounts (
	id BIGINT PRIMARY KEY,
	balance BIGINT NOT NULL,
	status VARCHAR(10) NOT NULL DEFAULT 'open',
	fence_token BIGINT NOT NULL DEFAULT 0
)`

// TestMySQLGuardModesOnMariaDB runs each cell of docs/database-guard.md's
// table of modes on MariaDB with the MySQL guard triggers, for an UPDATE
// by a writer outside the generated code (row 1 stores token 5): a
// refusal is the trigger's SIGNAL (SQLSTATE 45000, error 1644), which
// fenceimpl.TriggerError reports as a *fence.StaleError
// (fence.ErrStaleToken), an UPDATE presenting no token in mode required
// with Presented 0. A trigger sees the row's new values, not which
// columns the UPDATE assigned: in mode required, an UPDATE that sets the
// token to the stored one passes only when the session declared it
// (SET @fencegen_token = 5). A NULL new token is refused in every mode
// (presented=0): UPDATE IGNORE, or a session with sql_mode ”, would
// otherwise store 0 in the NOT NULL column. The table's row is the
// oracle of what was written.
func TestMySQLGuardModesOnMariaDB(t *testing.T) {
	type cell struct {
		update  string // an UPDATE of row 1, which stores token 5
		declare string // SET @fencegen_token first, when not ""
		sqlMode string // the session's sql_mode for the UPDATE, when not ""
		// refused[mode] is the Presented of the refusal, or pass.
		refused map[string]int64
	}
	const pass = -1 << 62
	cells := []cell{
		{update: "UPDATE accounts SET balance = balance + 1 WHERE id = 1", refused: map[string]int64{"non-strict": pass, "required": 0, "strict": 5}},
		{update: "UPDATE accounts SET balance = balance + 1, fence_token = 5 WHERE id = 1", refused: map[string]int64{"non-strict": pass, "required": 0, "strict": 5}},
		{update: "UPDATE accounts SET balance = balance + 1, fence_token = 5 WHERE id = 1", declare: "5", refused: map[string]int64{"non-strict": pass, "required": pass, "strict": 5}},
		{update: "UPDATE accounts SET balance = balance + 1 WHERE id = 1", declare: "5", refused: map[string]int64{"non-strict": pass, "required": pass, "strict": 5}},
		{update: "UPDATE accounts SET balance = balance + 1 WHERE id = 1", declare: "6", refused: map[string]int64{"non-strict": pass, "required": 0, "strict": 5}},
		{update: "UPDATE accounts SET balance = balance + 1, fence_token = 6 WHERE id = 1", refused: map[string]int64{"non-strict": pass, "required": pass, "strict": pass}},
		{update: "UPDATE accounts SET balance = balance + 1, fence_token = 4 WHERE id = 1", refused: map[string]int64{"non-strict": 4, "required": 4, "strict": 4}},
		{update: "UPDATE accounts SET balance = balance + 1, fence_token = -1 WHERE id = 1", refused: map[string]int64{"non-strict": -1, "required": -1, "strict": -1}},
		// A NULL token: IGNORE, or a non-strict sql_mode, would store 0.
		{update: "UPDATE IGNORE accounts SET balance = balance + 1, fence_token = NULL WHERE id = 1", refused: map[string]int64{"non-strict": 0, "required": 0, "strict": 0}},
		{update: "UPDATE accounts SET balance = balance + 1, fence_token = NULL WHERE id = 1", sqlMode: "''", refused: map[string]int64{"non-strict": 0, "required": 0, "strict": 0}},
		{update: "UPDATE accounts SET balance = balance + 1, fence_token = NULL WHERE id = 1", declare: "5", sqlMode: "''", refused: map[string]int64{"non-strict": 0, "required": 0, "strict": 0}},
	}
	for _, mode := range []string{"non-strict", "required", "strict"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			db := testenv.MySQL(t, "", append([]string{mysqlModeTable}, guard.MySQLGuardTriggers("accounts", "fence_token", mode)...)...)
			db.SetMaxOpenConns(1)
			for i, c := range cells {
				if _, err := db.ExecContext(ctx, "SET @fencegen_token = NULL"); err != nil {
					t.Fatal(err)
				}
				if _, err := db.ExecContext(ctx, "DELETE FROM accounts"); err != nil {
					t.Fatal(err)
				}
				if _, err := db.ExecContext(ctx, "INSERT INTO accounts (id, balance, fence_token) VALUES (1, 100, 5)"); err != nil {
					t.Fatal(err)
				}
				declare := "SET @fencegen_token = NULL"
				if c.declare != "" {
					declare = "SET @fencegen_token = " + c.declare
				}
				if _, err := db.ExecContext(ctx, declare); err != nil {
					t.Fatal(err)
				}
				if c.sqlMode != "" {
					if _, err := db.ExecContext(ctx, "SET SESSION sql_mode = "+c.sqlMode); err != nil {
						t.Fatal(err)
					}
				}
				_, err := db.ExecContext(ctx, c.update)
				if c.sqlMode != "" {
					if _, err := db.ExecContext(ctx, "SET SESSION sql_mode = DEFAULT"); err != nil {
						t.Fatal(err)
					}
				}
				want := c.refused[mode]
				var b, tok int64
				if qerr := db.QueryRowContext(ctx, "SELECT balance, fence_token FROM accounts WHERE id = 1").Scan(&b, &tok); qerr != nil {
					t.Fatal(qerr)
				}
				name := fmt.Sprintf("cell %d (%s, @fencegen_token %q)", i, c.update, c.declare)
				if want == pass {
					if err != nil || b != 101 {
						t.Errorf("%s: %v, balance %d; want it to pass", name, err, b)
					}
					continue
				}
				var se *fence.StaleError
				stale := fenceimpl.TriggerError("HandWritten", err, "accounts")
				if !errors.As(stale, &se) || !errors.Is(stale, fence.ErrStaleToken) || se.Stored != 5 || se.Presented != fence.Token(want) || se.Table != "accounts" {
					t.Errorf("%s: %v (%+v); want a *fence.StaleError presented %d stored 5", name, err, se, want)
				}
				if b != 100 || tok != 5 {
					t.Errorf("%s: refused, but the row is %d, token %d", name, b, tok)
				}
			}
		})
	}
}

// TestMySQLRequiredGeneratedWritesOnMariaDB: with the guard triggers of
// mode required installed, the writes generated for the table
// (mysqlguard.Rewrite with Spec.Required: by key, all or nothing, and an
// upsert) declare their token, so a second write under one lease (the
// stored token presented again) passes, on one connection; the
// declaration lasts one row only, so a hand-written UPDATE that forgets
// the token on that same connection right after is still refused; and a
// stale generated write is a *fence.StaleError.
func TestMySQLRequiredGeneratedWritesOnMariaDB(t *testing.T) {
	ctx := context.Background()
	db := testenv.MySQL(t, "", append([]string{mysqlModeTable,
		"INSERT INTO accounts (id, balance, status, fence_token) VALUES (1, 100, 'a', 5), (2, 100, 'a', 5)"},
		guard.MySQLGuardTriggers("accounts", "fence_token", "required")...)...)
	db.SetMaxOpenConns(1)
	spec := func(params int) mysqlguard.Spec {
		return mysqlguard.Spec{Column: "fence_token", Key: []string{"id"}, Param: params + 1, Table: "accounts", Name: "accounts", Required: true}
	}
	rewrite := func(query string, params int) *mysqlguard.Guarded {
		g, err := mysqlguard.Rewrite(query, spec(params))
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	bind := func(g *mysqlguard.Guarded, params []int, args ...any) []any {
		out := make([]any, len(params))
		for i, p := range params {
			out[i] = args[p-1]
		}
		return out
	}
	forgotten := func(when string) {
		t.Helper()
		_, err := db.ExecContext(ctx, "UPDATE accounts SET balance = 0 WHERE id = 1")
		var se *fence.StaleError
		if stale := fenceimpl.TriggerError("HandWritten", err, "accounts"); !errors.As(stale, &se) || se.Presented != 0 {
			t.Fatalf("a hand-written UPDATE without a token %s: %v; want a *fence.StaleError presented 0", when, err)
		}
	}
	forgotten("before any generated write")

	byKey := rewrite("UPDATE accounts SET balance = balance + ? WHERE id = ?", 2)
	all := rewrite("UPDATE accounts SET balance = balance + ? WHERE status = ?", 2)
	up := rewrite("INSERT INTO accounts (id, balance) VALUES (?, ?) ON DUPLICATE KEY UPDATE balance = VALUES(balance)", 2)
	runByKey := func(tok fence.Token, args ...any) (int64, error) {
		args = append(args, int64(tok))
		return fenceimpl.MySQLByKey(ctx, "Q", "accounts", fence.NonStrict, tok, func() (sql.Result, error) {
			return db.ExecContext(ctx, byKey.SQL, bind(byKey, byKey.Params, args...)...)
		}, func(ctx context.Context) (*sql.Rows, error) {
			return db.QueryContext(ctx, byKey.Stored, bind(byKey, byKey.StoredParams, args...)...)
		})
	}
	for range 2 { // the second write under token 5 presents the stored token
		if n, err := runByKey(5, int64(1), int64(1)); n != 1 || err != nil {
			t.Fatalf("generated UPDATE by key, stored token: %d, %v", n, err)
		}
		forgotten("after a generated UPDATE by key")
	}
	args := []any{int64(1), "a", int64(5)}
	n, err := fenceimpl.MySQLAll(ctx, "Q", "accounts", fence.NonStrict, 5, func() (sql.Result, error) {
		return db.ExecContext(ctx, all.SQL, bind(all, all.Params, args...)...)
	}, func(ctx context.Context) (*sql.Rows, error) {
		return db.QueryContext(ctx, all.Stored, bind(all, all.StoredParams, args...)...)
	})
	if n != 2 || err != nil {
		t.Fatalf("generated UPDATE of two rows, stored token: %d, %v", n, err)
	}
	forgotten("after a generated UPDATE of two rows")
	args = []any{int64(2), int64(7), int64(5)}
	res, err := db.ExecContext(ctx, up.SQL, bind(up, up.Params, args...)...)
	if n, err := fenceimpl.MySQLUpsert(ctx, "Q", "accounts", fence.NonStrict, 5, res, err, nil); n != 1 || err != nil {
		t.Fatalf("generated upsert, stored token: %d, %v", n, err)
	}
	forgotten("after a generated upsert")
	if _, err := runByKey(4, int64(1), int64(1)); !errors.Is(err, fence.ErrStaleToken) {
		t.Fatalf("stale generated UPDATE: %v", err)
	}
	var b1, b2 int64
	if err := db.QueryRowContext(ctx, "SELECT (SELECT balance FROM accounts WHERE id = 1), (SELECT balance FROM accounts WHERE id = 2)").Scan(&b1, &b2); err != nil || b1 != 103 || b2 != 7 {
		t.Fatalf("balances %d, %d (%v); want 103, 7", b1, b2, err)
	}
}

// TestMySQLGuardInsertOnMariaDB: the BEFORE INSERT guard trigger, for
// inserts by a writer outside the generated code of a key that row 1
// (token 5, code 'a') already holds, by its primary key or by its UNIQUE
// column: a REPLACE (which would delete row 1 and insert the new one) and
// an INSERT ... ON DUPLICATE KEY UPDATE are refused unless their row's
// token beats the stored one as the mode has it, NULL included; a plain
// INSERT of the key with such a token is refused (1644) instead of its
// duplicate-key error (1062), which one with a token that beats it still
// gets; a new key passes. The table's rows are the oracle.
func TestMySQLGuardInsertOnMariaDB(t *testing.T) {
	const table = `CREATE TABLE accounts (
	id BIGINT PRIMARY KEY,
	code VARCHAR(10) UNIQUE,
	balance BIGINT NOT NULL,
	fence_token BIGINT NOT NULL DEFAULT 0
)`
	const pass, dup = -1 << 62, -1<<62 + 1
	type cell struct {
		insert  string
		sqlMode string
		// refused[mode] is the Presented of the refusal, pass, or dup
		// (the duplicate-key error 1062).
		refused map[string]int64
	}
	all := func(v int64) map[string]int64 { return map[string]int64{"non-strict": v, "required": v, "strict": v} }
	cells := []cell{
		{insert: "REPLACE INTO accounts (id, code, balance, fence_token) VALUES (1, 'a', 0, 0)", refused: all(0)},
		{insert: "REPLACE INTO accounts (id, code, balance, fence_token) VALUES (1, 'a', 0, 3)", refused: all(3)},
		{insert: "REPLACE INTO accounts (id, code, balance) VALUES (1, 'a', 0)", refused: all(0)},
		{insert: "REPLACE INTO accounts (id, code, balance, fence_token) VALUES (9, 'a', 0, 3)", refused: all(3)},
		{insert: "REPLACE INTO accounts (id, code, balance, fence_token) VALUES (1, 'a', 0, NULL)", sqlMode: "''", refused: all(0)},
		{insert: "REPLACE INTO accounts (id, code, balance, fence_token) VALUES (1, 'a', 0, 5)", refused: map[string]int64{"non-strict": pass, "required": pass, "strict": 5}},
		{insert: "REPLACE INTO accounts (id, code, balance, fence_token) VALUES (1, 'a', 0, 7)", refused: all(pass)},
		{insert: "REPLACE INTO accounts (id, code, balance, fence_token) VALUES (9, 'a', 0, 7)", refused: all(pass)},
		{insert: "INSERT INTO accounts (id, code, balance, fence_token) VALUES (1, 'b', 0, 3)", refused: all(3)},
		{insert: "INSERT IGNORE INTO accounts (id, code, balance, fence_token) VALUES (1, 'b', 0, 3)", refused: all(3)},
		{insert: "INSERT INTO accounts (id, code, balance, fence_token) VALUES (1, 'b', 0, 7)", refused: all(dup)},
		{insert: "INSERT INTO accounts (id, code, balance, fence_token) VALUES (1, 'a', 0, 3) ON DUPLICATE KEY UPDATE balance = 0", refused: all(3)},
		{insert: "INSERT INTO accounts (id, code, balance, fence_token) VALUES (1, 'a', 0, 7) ON DUPLICATE KEY UPDATE balance = VALUES(balance), fence_token = VALUES(fence_token)", refused: all(pass)},
		{insert: "INSERT INTO accounts (id, code, balance, fence_token) VALUES (2, 'b', 0, 0)", refused: all(pass)},
		{insert: "INSERT INTO accounts (id, code, balance, fence_token) VALUES (2, NULL, 0, 0)", refused: all(pass)},
	}
	for _, mode := range []string{"non-strict", "required", "strict"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			db := testenv.MySQL(t, "", append([]string{table}, guard.MySQLGuardTriggersKeys("accounts", "fence_token", mode, [][]string{{"id"}, {"code"}})...)...)
			db.SetMaxOpenConns(1)
			for i, c := range cells {
				for _, s := range []string{"SET SESSION sql_mode = DEFAULT", "SET @fencegen_token = NULL", "DELETE FROM accounts",
					"INSERT INTO accounts (id, code, balance, fence_token) VALUES (1, 'a', 100, 5)"} {
					if _, err := db.ExecContext(ctx, s); err != nil {
						t.Fatal(err)
					}
				}
				if c.sqlMode != "" {
					if _, err := db.ExecContext(ctx, "SET SESSION sql_mode = "+c.sqlMode); err != nil {
						t.Fatal(err)
					}
				}
				_, err := db.ExecContext(ctx, c.insert)
				var rows, b, tok int64
				if qerr := db.QueryRowContext(ctx, "SELECT COUNT(*), IFNULL(SUM(balance), -1), IFNULL(SUM(fence_token), -1) FROM accounts WHERE code = 'a' OR id = 1").Scan(&rows, &b, &tok); qerr != nil {
					t.Fatal(qerr)
				}
				name := fmt.Sprintf("cell %d (%s)", i, c.insert)
				unchanged := rows == 1 && b == 100 && tok == 5
				switch want := c.refused[mode]; want {
				case pass:
					if err != nil || unchanged && !strings.Contains(c.insert, "(2,") {
						t.Errorf("%s: %v, rows %d balance %d token %d; want it to pass", name, err, rows, b, tok)
					}
				case dup:
					var me *mysql.MySQLError
					if !errors.As(err, &me) || me.Number != 1062 || !unchanged {
						t.Errorf("%s: %v, rows %d balance %d token %d; want error 1062, row 1 unchanged", name, err, rows, b, tok)
					}
				default:
					var se *fence.StaleError
					stale := fenceimpl.TriggerError("HandWritten", err, "accounts")
					if !errors.As(stale, &se) || se.Stored != 5 || se.Presented != fence.Token(want) || se.Table != "accounts" {
						t.Errorf("%s: %v (%+v); want a *fence.StaleError presented %d stored 5", name, err, se, want)
					}
					if !unchanged {
						t.Errorf("%s: refused, but rows %d balance %d token %d", name, rows, b, tok)
					}
				}
			}
		})
	}
}
