package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/fencegen/fencegen/examples/accounts/accountsmy"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// setupMySQL returns accountsmy on a fresh MariaDB database with
// mysql_schema.sql, the DSN carrying params; with guard, the
// database-side guard (accountsmy/fencegen_guard.sql) is installed too.
func setupMySQL(t *testing.T, params string, guard bool) (*sql.DB, *accountsmy.Queries) {
	t.Helper()
	statements := []string{mysqlSchemaSQL}
	if guard {
		statements = append(statements, guardStatements(t)...)
	}
	db := testenv.MySQL(t, params, statements...)
	return db, accountsmy.New(db)
}

// guardStatements splits accountsmy/fencegen_guard.sql as the mysql client
// does: at ";" at a line's end, and at "//" between DELIMITER // and
// DELIMITER ;.
func guardStatements(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile("accountsmy/fencegen_guard.sql")
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	var cur []string
	delim := ";"
	for _, line := range strings.Split(string(b), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case strings.HasPrefix(trimmed, "--") && len(cur) == 0, trimmed == "" && len(cur) == 0:
			continue
		case strings.HasPrefix(trimmed, "DELIMITER "):
			delim = strings.TrimPrefix(trimmed, "DELIMITER ")
			continue
		}
		if strings.HasSuffix(trimmed, delim) {
			cur = append(cur, strings.TrimSuffix(strings.TrimRight(line, " "), delim))
			out = append(out, strings.Join(cur, "\n"))
			cur = nil
			continue
		}
		cur = append(cur, line)
	}
	if len(out) < 4 {
		t.Fatalf("fencegen_guard.sql holds %d statements, want the DROPs and the CREATE TRIGGERs", len(out))
	}
	return out
}

func mysqlRow(t *testing.T, q *accountsmy.Queries, id int64) (string, fence.Token) {
	t.Helper()
	a, err := q.GetAccount(context.Background(), id)
	if err != nil {
		t.Fatalf("GetAccount(%d): %v", id, err)
	}
	return a.Balance, a.LastFencingToken
}

// TestMySQLFencedWrites: the generated accountsmy methods on MariaDB,
// under both affected-rows rules (clientFoundRows) and with and without
// the database-side guard installed: the same token writes twice, a lower
// one is refused with the stored token, a missing row is not found, an
// upsert is refused the same way, and a DELETE too.
func TestMySQLFencedWrites(t *testing.T) {
	for _, params := range []string{"", "clientFoundRows=true"} {
		for _, guard := range []bool{false, true} {
			name := "dsn=" + params
			if guard {
				name += "/guard-trigger"
			}
			t.Run(name, func(t *testing.T) {
				ctx := context.Background()
				_, q := setupMySQL(t, params, guard)
				if err := q.OpenAccount(ctx, accountsmy.OpenAccountParams{ID: 1, Balance: "10.00"}, 1); err != nil {
					t.Fatal(err)
				}
				credit := func(tok fence.Token) error {
					return q.CreditAccount(ctx, accountsmy.CreditAccountParams{Amount: "1.00", ID: 1}, tok)
				}
				for i := 0; i < 2; i++ {
					if err := credit(5); err != nil {
						t.Fatalf("credit %d with token 5: %v", i+1, err)
					}
				}
				if b, tok := mysqlRow(t, q, 1); b != "12.00" || tok != 5 {
					t.Fatalf("after two writes with token 5: balance %s token %d, want 12.00 and 5", b, tok)
				}
				err := credit(4)
				var stale *fence.StaleError
				if !errors.As(err, &stale) || errors.Is(err, fence.ErrNotFound) {
					t.Fatalf("credit with token 4 = %v, want ErrStaleToken only", err)
				}
				if stale.Stored != 5 || stale.Presented != 4 || stale.Query != "CreditAccount" || stale.Table != "account_balances" {
					t.Errorf("stale error = %+v", stale)
				}
				if b, tok := mysqlRow(t, q, 1); b != "12.00" || tok != 5 {
					t.Fatalf("the refused write changed the row: balance %s token %d", b, tok)
				}
				if err := q.CreditAccount(ctx, accountsmy.CreditAccountParams{Amount: "1.00", ID: 404}, 3); !errors.Is(err, fence.ErrNotFound) {
					t.Fatalf("credit of a missing account = %v, want ErrNotFound", err)
				}
				// SetBalance to the value the row holds, under the same
				// token: nothing changes, under every DSN setting and trigger.
				if n, err := q.SetBalance(ctx, accountsmy.SetBalanceParams{Balance: "12.00", ID: 1}, 5); n != 1 || err != nil {
					t.Fatalf("unchanged SetBalance = %d, %v; want 1 row", n, err)
				}
				if err := q.RecreateAccount(ctx, accountsmy.RecreateAccountParams{ID: 1, Balance: "0.00"}, 3); !errors.As(err, &stale) || stale.Presented != 3 || stale.Stored != 5 {
					t.Fatalf("stale upsert = %v, want ErrStaleToken with stored 5", err)
				}
				if err := q.RecreateAccount(ctx, accountsmy.RecreateAccountParams{ID: 2, Balance: "7.00"}, 3); err != nil {
					t.Fatalf("upsert of a new row: %v", err)
				}
				if n, err := q.CloseAccount(ctx, 1, 4); !errors.As(err, &stale) || n != 0 {
					t.Fatalf("stale delete = %d, %v", n, err)
				}
				if n, err := q.CloseAccount(ctx, 1, 6); n != 1 || err != nil {
					t.Fatalf("delete = %d, %v", n, err)
				}
			})
		}
	}
}

// TestMySQLGuardTriggerRefusesOutsideWriters: with fencegen_guard.sql
// installed, a hand-written UPDATE that lowers the token is refused by
// MariaDB itself, and fenceimpl.TriggerError (which every generated
// method runs errors through) reports it as a *fence.StaleError.
func TestMySQLGuardTriggerRefusesOutsideWriters(t *testing.T) {
	ctx := context.Background()
	db, q := setupMySQL(t, "", true)
	if err := q.OpenAccount(ctx, accountsmy.OpenAccountParams{ID: 1, Balance: "10.00"}, 7); err != nil {
		t.Fatal(err)
	}
	_, err := db.ExecContext(ctx, "UPDATE account_balances SET balance = 0, last_fencing_token = 3 WHERE id = 1")
	var stale *fence.StaleError
	if err := fenceimpl.TriggerError("HandWritten", err, "account_balances"); !errors.As(err, &stale) || stale.Presented != 3 || stale.Stored != 7 || stale.Table != "account_balances" {
		t.Fatalf("stale hand-written UPDATE: %v", err)
	}
	if b, tok := mysqlRow(t, q, 1); b != "10.00" || tok != 7 {
		t.Fatalf("the refused UPDATE changed the row: %s, %d", b, tok)
	}
}

// TestMySQLAllOrNothing: the generated CreditAccounts, an UPDATE of every
// account in a range (mysqlguard's form All), on MariaDB under both
// affected-rows rules and with and without the database-side guard: one
// account in the range holding a newer token refuses the whole write,
// the accounts before it included; a range of accepted accounts is
// written; an empty range is fence.ErrNotFound.
func TestMySQLAllOrNothing(t *testing.T) {
	for _, params := range []string{"", "clientFoundRows=true"} {
		for _, guard := range []bool{false, true} {
			t.Run(fmt.Sprintf("dsn=%s/guard=%v", params, guard), func(t *testing.T) {
				ctx := context.Background()
				_, q := setupMySQL(t, params, guard)
				for id := int64(1); id <= 3; id++ {
					if err := q.OpenAccount(ctx, accountsmy.OpenAccountParams{ID: id, Balance: "10.00"}, 2); err != nil {
						t.Fatal(err)
					}
				}
				if err := q.CreditAccount(ctx, accountsmy.CreditAccountParams{Amount: "0.00", ID: 3}, 9); err != nil {
					t.Fatal(err)
				}
				n, err := q.CreditAccounts(ctx, accountsmy.CreditAccountsParams{Amount: "1.00", FromID: 1, ToID: 3}, 5)
				var stale *fence.StaleError
				if !errors.As(err, &stale) || stale.Stored != 9 || stale.Rows != 1 || stale.Presented != 5 || n != 0 {
					t.Fatalf("CreditAccounts over a row with token 9 = %d, %v; want a *fence.StaleError, stored 9, 1 row", n, err)
				}
				for id := int64(1); id <= 3; id++ {
					if b, _ := mysqlRow(t, q, id); b != "10.00" {
						t.Fatalf("the refused write changed account %d: balance %s", id, b)
					}
				}
				n, err = q.CreditAccounts(ctx, accountsmy.CreditAccountsParams{Amount: "1.00", FromID: 1, ToID: 2}, 5)
				if n != 2 || err != nil {
					t.Fatalf("CreditAccounts(1..2) = %d, %v; want 2", n, err)
				}
				for id := int64(1); id <= 2; id++ {
					if b, tok := mysqlRow(t, q, id); b != "11.00" || tok != 5 {
						t.Fatalf("account %d: balance %s token %d, want 11.00 and 5", id, b, tok)
					}
				}
				if _, err := q.CreditAccounts(ctx, accountsmy.CreditAccountsParams{Amount: "1.00", FromID: 100, ToID: 200}, 5); !errors.Is(err, fence.ErrNotFound) {
					t.Fatalf("CreditAccounts of no account = %v, want ErrNotFound", err)
				}
			})
		}
	}
}

// TestMySQLAllOrNothingSlice: the generated CreditAccountsIn and
// CloseAccountsIn, an UPDATE and a DELETE of the accounts whose id is in
// an IN (sqlc.slice(ids)) list (mysqlguard's form All: the list's marker
// in both copies of the WHERE clause and in the read that follows a
// refusal, each expanded when run), on MariaDB under both affected-rows
// rules and with and without the database-side guard: a list holding one
// account with a newer token refuses the whole write, with the stored
// token and the rows refused read through the expanded read; a list of
// accepted accounts is written, one element too; an empty list (NULL, as
// in sqlc) matches nothing: fence.ErrNotFound.
func TestMySQLAllOrNothingSlice(t *testing.T) {
	for _, params := range []string{"", "clientFoundRows=true"} {
		for _, guard := range []bool{false, true} {
			t.Run(fmt.Sprintf("dsn=%s/guard=%v", params, guard), func(t *testing.T) {
				ctx := context.Background()
				_, q := setupMySQL(t, params, guard)
				for id := int64(1); id <= 4; id++ {
					if err := q.OpenAccount(ctx, accountsmy.OpenAccountParams{ID: id, Balance: "10.00"}, 2); err != nil {
						t.Fatal(err)
					}
				}
				if err := q.CreditAccount(ctx, accountsmy.CreditAccountParams{Amount: "0.00", ID: 3}, 9); err != nil {
					t.Fatal(err)
				}
				balances := func(want ...string) {
					t.Helper()
					for i, w := range want {
						if b, _ := mysqlRow(t, q, int64(i+1)); b != w {
							t.Fatalf("account %d: balance %s, want %s", i+1, b, w)
						}
					}
				}
				n, err := q.CreditAccountsIn(ctx, accountsmy.CreditAccountsInParams{Amount: "1.00", Ids: []int64{1, 2, 3}}, 5)
				var stale *fence.StaleError
				if !errors.As(err, &stale) || stale.Stored != 9 || stale.Rows != 1 || stale.Presented != 5 || n != 0 {
					t.Fatalf("CreditAccountsIn([1 2 3]) over a row with token 9 = %d, %v; want a *fence.StaleError, stored 9, 1 row", n, err)
				}
				balances("10.00", "10.00", "10.00", "10.00")
				if n, err := q.CreditAccountsIn(ctx, accountsmy.CreditAccountsInParams{Amount: "1.00", Ids: []int64{1, 2}}, 5); n != 2 || err != nil {
					t.Fatalf("CreditAccountsIn([1 2]) = %d, %v; want 2", n, err)
				}
				if n, err := q.CreditAccountsIn(ctx, accountsmy.CreditAccountsInParams{Amount: "1.00", Ids: []int64{4}}, 5); n != 1 || err != nil {
					t.Fatalf("CreditAccountsIn([4]) = %d, %v; want 1", n, err)
				}
				balances("11.00", "11.00", "10.00", "11.00")
				for id := int64(1); id <= 4; id++ {
					if _, tok := mysqlRow(t, q, id); tok != map[int64]fence.Token{1: 5, 2: 5, 3: 9, 4: 5}[id] {
						t.Fatalf("account %d: token %d after the writes", id, tok)
					}
				}
				if n, err := q.CreditAccountsIn(ctx, accountsmy.CreditAccountsInParams{Amount: "1.00", Ids: []int64{}}, 5); !errors.Is(err, fence.ErrNotFound) || n != 0 {
					t.Fatalf("CreditAccountsIn([]) = %d, %v; want ErrNotFound", n, err)
				}
				if n, err := q.CreditAccountsIn(ctx, accountsmy.CreditAccountsInParams{Amount: "1.00", Ids: []int64{100, 200}}, 5); !errors.Is(err, fence.ErrNotFound) || n != 0 {
					t.Fatalf("CreditAccountsIn([100 200]) = %d, %v; want ErrNotFound", n, err)
				}

				n, err = q.CloseAccountsIn(ctx, []int64{1, 3}, 5)
				if !errors.As(err, &stale) || stale.Stored != 9 || stale.Rows != 1 || n != 0 {
					t.Fatalf("CloseAccountsIn([1 3]) over a row with token 9 = %d, %v; want a *fence.StaleError, stored 9, 1 row", n, err)
				}
				balances("11.00", "11.00", "10.00", "11.00")
				if n, err := q.CloseAccountsIn(ctx, nil, 5); !errors.Is(err, fence.ErrNotFound) || n != 0 {
					t.Fatalf("CloseAccountsIn(nil) = %d, %v; want ErrNotFound", n, err)
				}
				if n, err := q.CloseAccountsIn(ctx, []int64{1}, 5); n != 1 || err != nil {
					t.Fatalf("CloseAccountsIn([1]) = %d, %v; want 1", n, err)
				}
				if n, err := q.CloseAccountsIn(ctx, []int64{2, 3, 4}, 9); n != 3 || err != nil {
					t.Fatalf("CloseAccountsIn([2 3 4]) under token 9 = %d, %v; want 3", n, err)
				}
				for id := int64(1); id <= 4; id++ {
					if _, err := q.GetAccount(ctx, id); !errors.Is(err, sql.ErrNoRows) {
						t.Fatalf("account %d after the deletes: %v, want sql.ErrNoRows", id, err)
					}
				}
			})
		}
	}
}
