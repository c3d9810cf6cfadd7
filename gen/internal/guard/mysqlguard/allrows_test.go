package mysqlguard_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/guard/mysqlguard"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// sqlModes are the sql_mode settings the all-or-nothing guard runs
// under: the refusal (error 1242) must not depend on them.
var sqlModes = []string{"", "sql_mode=%27%27", "sql_mode=%27ANSI,TRADITIONAL%27"}

// accountRows is every row of accounts, "id:balance:status:token" in id
// order.
func accountRows(t *testing.T, g *guarded) string {
	t.Helper()
	rows, err := g.db.Query("SELECT id, balance, status, fence_token FROM accounts ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var id, bal, tok int64
		var status string
		if err := rows.Scan(&id, &bal, &status, &tok); err != nil {
			t.Fatal(err)
		}
		out = append(out, fmt.Sprintf("%d:%d:%s:%d", id, bal, status, tok))
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return strings.Join(out, " ")
}

func wantStaleRows(t *testing.T, err error, presented, stored fence.Token, rows int64) {
	t.Helper()
	wantStale(t, err, presented, stored)
	var se *fence.StaleError
	errors.As(err, &se)
	if se.Rows != rows {
		t.Fatalf("StaleError.Rows = %d, want %d", se.Rows, rows)
	}
}

// TestAllOrNothingOnMariaDB: an UPDATE and a DELETE that may match several
// rows, under each DSN affected-rows rule, with and without a trigger on
// the table, and under several sql_modes: every row written when every
// matched token is beaten; nothing written when one is not (a
// *fence.StaleError with the highest stored token and the number of
// refused rows), even when the rows before it in the scan were accepted;
// a stale row the WHERE clause does not match refuses nothing; no row
// matched is fence.ErrNotFound. The table's rows are the oracle.
func TestAllOrNothingOnMariaDB(t *testing.T) {
	for _, mode := range sqlModes {
		t.Run("mode="+mode, func(t *testing.T) {
			modes(t, func(t *testing.T, params, trigger string) {
				params = strings.Trim(params+"&"+mode, "&")
				db := testenv.MySQL(t, params, withTrigger(trigger, schema,
					"INSERT INTO accounts (id, balance, status, fence_token) VALUES (1, 10, 'a', 3), (2, 20, 'a', 5), (3, 30, 'b', 9), (4, 40, 'a', 0)")...)
				credit := newGuarded(t, db, "UPDATE accounts SET balance = balance + ? WHERE status = ?", spec(2, false))
				if credit.g.Form != mysqlguard.All {
					t.Fatalf("form %v, want All", credit.g.Form)
				}
				// Rows 1, 2, 4 match; row 3 (token 9) does not, and does not refuse.
				n, err := credit.run(6, 1, "a")
				if err != nil || n != 3 {
					t.Fatalf("= %d, %v; want 3 rows written", n, err)
				}
				if got, want := accountRows(t, credit), "1:11:a:6 2:21:a:6 3:30:b:9 4:41:a:6"; got != want {
					t.Fatalf("rows = %s, want %s", got, want)
				}
				// Row 3 now matches too, and holds 9: nothing is written,
				// though rows 1, 2 and 4 (scanned first by primary key) were accepted.
				every := newGuarded(t, db, "UPDATE accounts SET balance = balance + ? WHERE balance > ?", spec(2, false))
				before := accountRows(t, credit)
				_, err = every.run(7, 100, 0)
				wantStaleRows(t, err, 7, 9, 1)
				if got := accountRows(t, credit); got != before {
					t.Fatalf("a refused UPDATE wrote: rows %s, were %s", got, before)
				}
				// The same values under an equal token: nothing changes.
				set := newGuarded(t, db, "UPDATE accounts SET balance = ? WHERE status = ? AND id < ?", spec(3, false))
				n, err = set.run(6, 50, "a", 3)
				if err != nil || n != 2 {
					t.Fatalf("= %d, %v; want 2 rows written", n, err)
				}
				n, err = set.run(6, 50, "a", 3)
				switch {
				case params != "" && strings.Contains(params, "clientFoundRows=true"):
					if err != nil || n != 2 {
						t.Fatalf("unchanged rows, clientFoundRows: = %d, %v; want 2 (rows matched)", n, err)
					}
				default:
					// With a trigger (which clears the reply's last-insert
					// id) the locked read finds every matched row already
					// holding the values (issue 27, trial t27 F6).
					if err != nil || n != 0 {
						t.Fatalf("unchanged rows (trigger %q): = %d, %v; want 0, nil (rows changed)", trigger, n, err)
					}
				}
				if _, err := set.run(6, 50, "nope", 3); !errors.Is(err, fence.ErrNotFound) {
					t.Fatalf("no row matched: %v, want fence.ErrNotFound", err)
				}
				// Strict: the stored token itself is refused.
				strict := newGuarded(t, db, "UPDATE accounts SET balance = ? WHERE status = ?", spec(2, true))
				before = accountRows(t, credit)
				_, err = strict.run(6, 1, "a")
				wantStaleRows(t, err, 6, 6, 3)
				if got := accountRows(t, credit); got != before {
					t.Fatalf("a refused strict UPDATE wrote: rows %s, were %s", got, before)
				}

				del := newGuarded(t, db, "DELETE FROM accounts WHERE fence_token < ? OR status = ?", spec(2, false))
				before = accountRows(t, credit)
				_, err = del.run(8, 7, "b") // rows 1, 2, 4 (token 6) and 3 (token 9)
				wantStaleRows(t, err, 8, 9, 1)
				if got := accountRows(t, credit); got != before {
					t.Fatalf("a refused DELETE deleted: rows %s, were %s", got, before)
				}
				n, err = del.run(8, 7, "none")
				if err != nil || n != 3 {
					t.Fatalf("DELETE = %d, %v; want 3 rows deleted", n, err)
				}
				if got, want := accountRows(t, credit), "3:30:b:9"; got != want {
					t.Fatalf("rows = %s, want %s", got, want)
				}
				if _, err := del.run(8, 7, "none"); !errors.Is(err, fence.ErrNotFound) {
					t.Fatalf("DELETE of no row: %v, want fence.ErrNotFound", err)
				}
			})
		})
	}
}

// TestUpsertRowsOnMariaDB: an upsert of several VALUES rows is all or
// nothing: one existing row holding a newer token refuses the whole
// statement, the new rows included; otherwise every row is inserted or
// updated and the method returns the number of rows given.
func TestUpsertRowsOnMariaDB(t *testing.T) {
	for _, mode := range sqlModes {
		t.Run("mode="+mode, func(t *testing.T) {
			modes(t, func(t *testing.T, params, trigger string) {
				params = strings.Trim(params+"&"+mode, "&")
				db := testenv.MySQL(t, params, withTrigger(trigger, schema,
					"INSERT INTO accounts (id, balance, fence_token) VALUES (1, 10, 3), (2, 20, 9)")...)
				up := newGuarded(t, db, "INSERT INTO accounts (id, balance) VALUES (?, ?), (?, ?), (?, ?) ON DUPLICATE KEY UPDATE balance = VALUES(balance)", spec(6, false))
				if up.g.Form != mysqlguard.Upsert || up.g.Rows != 3 {
					t.Fatalf("form %v rows %d", up.g.Form, up.g.Rows)
				}
				before := accountRows(t, up)
				_, err := up.run(5, 5, 50, 1, 11, 2, 21) // row 2 holds 9
				wantStaleRows(t, err, 5, 9, 1)
				_, err = up.run(2, 5, 50, 1, 11, 2, 21) // rows 1 (3) and 2 (9)
				wantStaleRows(t, err, 2, 9, 2)
				if got := accountRows(t, up); got != before {
					t.Fatalf("a refused upsert wrote: rows %s, were %s", got, before)
				}
				n, err := up.run(9, 5, 50, 1, 11, 2, 21)
				if err != nil || n != 3 {
					t.Fatalf("= %d, %v; want 3", n, err)
				}
				if got, want := accountRows(t, up), "1:11:open:9 2:21:open:9 5:50:open:9"; got != want {
					t.Fatalf("rows = %s, want %s", got, want)
				}
				// The same new key twice: the second row meets the token the
				// first just stored, which non-strict accepts and strict
				// refuses (nothing is written then).
				twice := newGuarded(t, db, "INSERT INTO accounts (id, balance) VALUES (?, ?), (?, ?) ON DUPLICATE KEY UPDATE balance = VALUES(balance)", spec(4, true))
				before = accountRows(t, up)
				_, err = twice.run(10, 6, 60, 6, 61)
				wantStaleUnknown(t, err, 10) // the row the first VALUES stored is rolled back: nothing to read
				if got := accountRows(t, up); got != before {
					t.Fatalf("a refused strict upsert wrote: rows %s, were %s", got, before)
				}
				twice = newGuarded(t, db, "INSERT INTO accounts (id, balance) VALUES (?, ?), (?, ?) ON DUPLICATE KEY UPDATE balance = VALUES(balance)", spec(4, false))
				if n, err := twice.run(10, 6, 60, 6, 61); err != nil || n != 2 {
					t.Fatalf("non-strict upsert of one new key twice = %d, %v; want 2", n, err)
				}
				if b, tok, _ := row(t, db, "accounts", 6); b != 61 || tok != 10 {
					t.Fatalf("row 6 = %d, token %d; want 61, 10", b, tok)
				}
			})
		})
	}
}

// TestAllOrNothingInTransactionOnMariaDB: given a *sql.Tx, as generated
// code is when built with WithTx, a refused write of several rows undoes
// itself only: the transaction's earlier write stays, the transaction
// goes on, and its commit keeps what it wrote. The table's rows are the
// oracle.
func TestAllOrNothingInTransactionOnMariaDB(t *testing.T) {
	ctx := context.Background()
	db := testenv.MySQL(t, "", schema,
		"INSERT INTO accounts (id, balance, status, fence_token) VALUES (1, 10, 'a', 3), (2, 20, 'a', 3), (3, 30, 'a', 9)")
	g, err := mysqlguard.Rewrite("UPDATE accounts SET balance = balance + ? WHERE status = ?", spec(2, false))
	if err != nil {
		t.Fatal(err)
	}
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, "UPDATE accounts SET status = 'b' WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
	run := func(tok fence.Token) (int64, error) {
		args := []any{int64(1), "a", int64(tok)}
		return fenceimpl.MySQLAll(ctx, "Q", "accounts", fence.NonStrict, tok, func() (sql.Result, error) {
			return tx.ExecContext(ctx, g.SQL, bind(g.Params, args)...)
		}, func(ctx context.Context) (*sql.Rows, error) {
			return tx.QueryContext(ctx, g.Stored, bind(g.StoredParams, args)...)
		})
	}
	_, err = run(5) // rows 2 (token 3) and 3 (token 9)
	wantStaleRows(t, err, 5, 9, 1)
	if _, err := tx.ExecContext(ctx, "UPDATE accounts SET status = 'c' WHERE id = 3"); err != nil {
		t.Fatalf("the transaction after the refusal: %v", err)
	}
	if n, err := run(5); n != 1 || err != nil { // row 2 only now
		t.Fatalf("= %d, %v; want 1", n, err)
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	if got, want := accountRows(t, &guarded{db: db}), "1:10:b:3 2:21:a:5 3:30:c:9"; got != want {
		t.Fatalf("rows = %s, want %s", got, want)
	}
}

// TestLimitOnMariaDB (issue 27, trial-my3 F1): an UPDATE or DELETE with
// LIMIT and no ORDER BY is guarded on the rows it writes only: a stale
// row the scan never reaches refuses nothing, with and without an index
// on the WHERE clause's column (one the UPDATE changes, so that MariaDB
// buffers the rows it found before writing them); a stale row within the
// LIMIT refuses all. ORDER BY with LIMIT is refused (TestRewriteKeepsTheUsersText).
func TestLimitOnMariaDB(t *testing.T) {
	for _, index := range []string{"", "CREATE INDEX by_balance ON accounts (balance)"} {
		t.Run(fmt.Sprintf("index=%t", index != ""), func(t *testing.T) {
			setup := []string{schema, "INSERT INTO accounts (id, balance, fence_token) VALUES (1, 10, 1), (2, 20, 1), (3, 30, 1), (4, 40, 99)"}
			if index != "" {
				setup = append(setup, index)
			}
			db := testenv.MySQL(t, "", setup...)
			zero := newGuarded(t, db, "UPDATE accounts SET balance = 0 WHERE balance > ? LIMIT 2", spec(1, false))
			n, err := zero.run(5, 5)
			if err != nil || n != 2 {
				t.Fatalf("= %d, %v; want 2 rows written", n, err)
			}
			if got, want := accountRows(t, zero), "1:0:open:5 2:0:open:5 3:30:open:1 4:40:open:99"; got != want {
				t.Fatalf("rows %s, want %s", got, want)
			}
			zero3 := newGuarded(t, db, "UPDATE accounts SET balance = 0 WHERE balance > ? LIMIT 3", spec(1, false))
			_, err = zero3.run(5, 5) // rows 3 and 4 match: 4 is stale
			wantStale(t, err, 5, 99)
			if got, want := accountRows(t, zero), "1:0:open:5 2:0:open:5 3:30:open:1 4:40:open:99"; got != want {
				t.Fatalf("refused write changed rows: %s, want %s", got, want)
			}
			del := newGuarded(t, db, "DELETE FROM accounts WHERE balance > ? LIMIT 1", spec(1, false))
			n, err = del.run(5, 5)
			if err != nil || n != 1 {
				t.Fatalf("DELETE = %d, %v; want 1 row", n, err)
			}
			if got, want := accountRows(t, zero), "1:0:open:5 2:0:open:5 4:40:open:99"; got != want {
				t.Fatalf("rows %s, want %s", got, want)
			}
		})
	}
}
