package main

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"

	"github.com/fencegen/fencegen/examples/accounts/accountssql"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// sqlDrivers are the database/sql drivers accountssql is tested with:
// lib/pq (the seed article's) and pgx's stdlib.
var sqlDrivers = []string{"postgres", "pgx"}

// setupSQL returns accountssql on a fresh database with the schema, through
// driver.
func setupSQL(t *testing.T, driver string) (*sql.DB, *accountssql.Queries) {
	t.Helper()
	dsn := testenv.NewDatabase(t)
	db, err := sql.Open(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if _, err := db.ExecContext(context.Background(), schemaSQL); err != nil {
		t.Fatalf("apply schema.sql: %v", err)
	}
	return db, accountssql.New(db)
}

func sqlBalance(t *testing.T, q *accountssql.Queries, id int64) (string, fence.Token) {
	t.Helper()
	a, err := q.GetAccount(context.Background(), id)
	if err != nil {
		t.Fatalf("GetAccount(%d): %v", id, err)
	}
	return a.Balance, a.LastFencingToken
}

// TestDatabaseSQLFencedWrites is TestSameTokenWritesTwiceLowerTokenRefused,
// TestMissingRowIsNotFoundNotStale, TestReturningAndDeleteAreGuarded and the
// strict guard, on accountssql with each database/sql driver.
func TestDatabaseSQLFencedWrites(t *testing.T) {
	for _, driver := range sqlDrivers {
		t.Run(driver, func(t *testing.T) {
			ctx := context.Background()
			_, q := setupSQL(t, driver)
			if _, err := q.OpenAccount(ctx, accountssql.OpenAccountParams{ID: 1, Balance: "10.00"}, 1); err != nil {
				t.Fatal(err)
			}
			credit := func(tok fence.Token) error {
				return q.CreditAccount(ctx, accountssql.CreditAccountParams{Amount: "1.00", ID: 1}, tok)
			}
			for i := 0; i < 2; i++ {
				if err := credit(5); err != nil {
					t.Fatalf("credit %d with token 5: %v", i+1, err)
				}
			}
			if b, tok := sqlBalance(t, q, 1); b != "12.00" || tok != 5 {
				t.Fatalf("after two writes with token 5: balance %s token %d, want 12.00 and 5", b, tok)
			}
			err := credit(4)
			var stale *fence.StaleError
			if !errors.As(err, &stale) || !errors.Is(err, fence.ErrStaleToken) || errors.Is(err, fence.ErrNotFound) {
				t.Fatalf("credit with token 4 = %v, want ErrStaleToken only", err)
			}
			if stale.Stored != 5 || stale.Presented != 4 || stale.Rows != 1 || stale.Query != "CreditAccount" || stale.Table != "account_balances" {
				t.Errorf("stale error = %+v", stale)
			}
			if b, tok := sqlBalance(t, q, 1); b != "12.00" || tok != 5 {
				t.Fatalf("the refused write changed the row: balance %s token %d", b, tok)
			}

			err = q.CreditAccount(ctx, accountssql.CreditAccountParams{Amount: "1.00", ID: 404}, 3)
			var nf *fence.NotFoundError
			if !errors.As(err, &nf) || errors.Is(err, fence.ErrStaleToken) || nf.Query != "CreditAccount" {
				t.Fatalf("credit of a missing row = %v, want a *fence.NotFoundError only", err)
			}
			if _, err := q.SetBalance(ctx, accountssql.SetBalanceParams{Balance: "1.00", ID: 404}, 3); !errors.Is(err, fence.ErrNotFound) || !errors.Is(err, sql.ErrNoRows) {
				t.Fatalf("SetBalance of a missing row = %v, want ErrNotFound that is also sql.ErrNoRows", err)
			}

			row, err := q.SetBalance(ctx, accountssql.SetBalanceParams{Balance: "50.00", ID: 1}, 6)
			if err != nil || row.ID != 1 || row.Balance != "50.00" || row.LastFencingToken != 6 {
				t.Fatalf("SetBalance with token 6 = %+v, %v", row, err)
			}
			if n, err := q.CloseAccount(ctx, 1, 5); !errors.Is(err, fence.ErrStaleToken) || n != 0 {
				t.Fatalf("CloseAccount with token 5 = %d, %v; want ErrStaleToken", n, err)
			}
			apply := func(tok fence.Token) error {
				return q.ApplyInterest(ctx, accountssql.ApplyInterestParams{Rate: "1.10", ID: 1}, tok)
			}
			if err := apply(7); err != nil {
				t.Fatal(err)
			}
			if err := apply(7); !errors.As(err, &stale) || stale.Mode != fence.Strict || stale.Stored != 7 {
				t.Fatalf("second ApplyInterest under token 7 = %v, want a strict stale-token error", err)
			}
			if b, _ := sqlBalance(t, q, 1); b != "55.00" {
				t.Fatalf("balance %s after one interest of 10%% on 50.00, want 55.00", b)
			}
			if n, err := q.CloseAccount(ctx, 1, 7); err != nil || n != 1 {
				t.Fatalf("CloseAccount with token 7 = %d, %v; want 1 row", n, err)
			}
			if _, err := q.CloseAccount(ctx, 1, 7); !errors.Is(err, fence.ErrNotFound) {
				t.Fatalf("second CloseAccount = %v, want ErrNotFound", err)
			}
		})
	}
}

// TestDatabaseSQLTriggerRefusesStaleWrite: with fencegen_guard.sql
// installed, a hand-written UPDATE through database/sql that lowers the
// token fails with the guard's SQLSTATE, which fenceimpl.TriggerError maps to a
// *fence.StaleError from either driver's error type.
func TestDatabaseSQLTriggerRefusesStaleWrite(t *testing.T) {
	for _, driver := range sqlDrivers {
		t.Run(driver, func(t *testing.T) {
			ctx := context.Background()
			db, q := setupSQL(t, driver)
			if _, err := db.ExecContext(ctx, guardSQL); err != nil {
				t.Fatal(err)
			}
			if _, err := q.OpenAccount(ctx, accountssql.OpenAccountParams{ID: 3, Balance: "1.00"}, 8); err != nil {
				t.Fatal(err)
			}
			_, err := db.ExecContext(ctx, `UPDATE account_balances SET last_fencing_token = 2 WHERE id = 3`)
			err = fenceimpl.TriggerError("by hand", err, "account_balances")
			var stale *fence.StaleError
			if !errors.As(err, &stale) || stale.Stored != 8 || stale.Presented != 2 {
				t.Fatalf("lowering the token by hand = %v, want a stale error with stored 8, presented 2", err)
			}
		})
	}
}

// TestInvalidTokenRefused on accountssql with each database/sql driver.
func TestDatabaseSQLInvalidTokenRefused(t *testing.T) {
	for _, driver := range sqlDrivers {
		t.Run(driver, func(t *testing.T) {
			ctx := context.Background()
			db, q := setupSQL(t, driver)
			if _, err := db.ExecContext(ctx, `INSERT INTO account_balances (id, balance) VALUES (1, 10)`); err != nil {
				t.Fatal(err)
			}
			err := q.CreditAccount(ctx, accountssql.CreditAccountParams{Amount: "5.00", ID: 1}, 0)
			var ie *fence.InvalidTokenError
			if !errors.Is(err, fence.ErrInvalidToken) || !errors.As(err, &ie) || ie.Token != 0 {
				t.Fatalf("CreditAccount with token 0: %v", err)
			}
			_, err = q.OpenAccount(ctx, accountssql.OpenAccountParams{ID: 2, Balance: "1.00"}, -5)
			if !errors.As(err, &ie) || ie.Token != -5 {
				t.Fatalf("OpenAccount with token -5: %v", err)
			}
			var rows string
			if err := db.QueryRowContext(ctx, `SELECT string_agg(format('%s:%s:%s', id, balance, last_fencing_token), ' ' ORDER BY id) FROM account_balances`).Scan(&rows); err != nil {
				t.Fatal(err)
			}
			if rows != "1:10.00:0" {
				t.Fatalf("account_balances after the refused writes: %s, want 1:10.00:0", rows)
			}
		})
	}
}
