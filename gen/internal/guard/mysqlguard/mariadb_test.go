package mysqlguard_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/fencegen/fencegen/gen/internal/guard/mysqlguard"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

const schema = `CREATE TABLE accounts (
	id BIGINT PRIMARY KEY,
	balance BIGINT NOT NULL,
	status VARCHAR(10) NOT NULL DEFAULT 'open',
	fence_token BIGINT NOT NULL DEFAULT 0
)`

const schemaAuto = `CREATE TABLE wallets (
	id BIGINT AUTO_INCREMENT PRIMARY KEY,
	owner VARCHAR(20) NOT NULL UNIQUE,
	balance BIGINT NOT NULL,
	fence_token BIGINT NOT NULL DEFAULT 0
)`

// dsnModes are the two affected-rows rules of MySQL's protocol: rows
// changed (the default) and rows matched (CLIENT_FOUND_ROWS).
var dsnModes = []string{"", "clientFoundRows=true"}

// triggers are the tables' triggers each case runs under: none, and an
// AFTER UPDATE trigger that records each update (MySQL and MariaDB reset
// the OK packet's last-insert id when a trigger runs, so the readers must
// not depend on it then).
var triggers = []string{"", "CREATE TRIGGER record AFTER UPDATE ON accounts FOR EACH ROW SET @fencegen_test_updates = COALESCE(@fencegen_test_updates, 0) + 1"}

// modes runs f for each DSN mode and trigger.
func modes(t *testing.T, f func(t *testing.T, params, trigger string)) {
	for _, params := range dsnModes {
		for i, trig := range triggers {
			t.Run(fmt.Sprintf("dsn=%s/trigger=%d", params, i), func(t *testing.T) { f(t, params, trig) })
		}
	}
}

// withTrigger is statements plus trigger when it is not "".
func withTrigger(trigger string, statements ...string) []string {
	if trigger != "" {
		statements = append(statements, trigger)
	}
	return statements
}

// guarded is one rewritten query, run as generated code runs it.
type guarded struct {
	t    *testing.T
	db   *sql.DB
	g    *mysqlguard.Guarded
	spec mysqlguard.Spec
}

func newGuarded(t *testing.T, db *sql.DB, query string, spec mysqlguard.Spec) *guarded {
	t.Helper()
	g, err := mysqlguard.Rewrite(query, spec)
	if err != nil {
		t.Fatalf("Rewrite(%q): %v", query, err)
	}
	return &guarded{t: t, db: db, g: g, spec: spec}
}

func bind(params []int, args []any) []any {
	out := make([]any, len(params))
	for i, p := range params {
		out[i] = args[p-1]
	}
	return out
}

// run runs the guarded statement with the query's args followed by the
// presented token, through the reader its form names.
func (q *guarded) run(token fence.Token, args ...any) (int64, error) {
	ctx := context.Background()
	all := append(args, int64(token))
	mode := fence.NonStrict
	if q.spec.Strict {
		mode = fence.Strict
	}
	var stored func(context.Context) (*sql.Rows, error)
	if q.g.Stored != "" {
		stored = func(ctx context.Context) (*sql.Rows, error) {
			return q.db.QueryContext(ctx, q.g.Stored, bind(q.g.StoredParams, all)...)
		}
	}
	switch q.g.Form {
	case mysqlguard.ByKey:
		return fenceimpl.MySQLByKey(ctx, "Q", q.spec.Table, mode, token, func() (sql.Result, error) {
			return q.db.ExecContext(ctx, q.g.SQL, bind(q.g.Params, all)...)
		}, stored)
	case mysqlguard.All:
		return fenceimpl.MySQLAll(ctx, "Q", q.spec.Table, mode, token, func() (sql.Result, error) {
			return q.db.ExecContext(ctx, q.g.SQL, bind(q.g.Params, all)...)
		}, stored)
	case mysqlguard.Upsert:
		res, err := q.db.ExecContext(ctx, q.g.SQL, bind(q.g.Params, all)...)
		if q.g.Rows > 1 {
			return fenceimpl.MySQLUpsertRows(ctx, "Q", q.spec.Table, mode, token, int64(q.g.Rows), res, err, stored)
		}
		return fenceimpl.MySQLUpsert(ctx, "Q", q.spec.Table, mode, token, res, err, stored)
	}
	res, err := q.db.ExecContext(ctx, q.g.SQL, bind(q.g.Params, all)...)
	if err != nil {
		return 0, fenceimpl.TriggerError("Q", err, q.spec.Table)
	}
	return res.RowsAffected()
}

func row(t *testing.T, db *sql.DB, table string, id int64) (balance, token int64, ok bool) {
	t.Helper()
	err := db.QueryRow("SELECT balance, fence_token FROM "+table+" WHERE id = ?", id).Scan(&balance, &token)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, 0, false
	}
	if err != nil {
		t.Fatal(err)
	}
	return balance, token, true
}

func wantStale(t *testing.T, err error, presented, stored fence.Token) {
	t.Helper()
	var se *fence.StaleError
	if !errors.As(err, &se) || !errors.Is(err, fence.ErrStaleToken) {
		t.Fatalf("err = %v, want a *fence.StaleError", err)
	}
	if se.Presented != presented || se.Stored != stored || se.StoredUnknown || se.Table != "accounts" && se.Table != "wallets" {
		t.Fatalf("StaleError = %+v, want presented %d stored %d", se, presented, stored)
	}
}

// wantStaleUnknown: a *fence.StaleError whose stored token the refusal
// could not read, which says so (never a stored 0 below the presented).
func wantStaleUnknown(t *testing.T, err error, presented fence.Token) {
	t.Helper()
	var se *fence.StaleError
	if !errors.As(err, &se) || se.Presented != presented || !se.StoredUnknown || se.Stored != 0 {
		t.Fatalf("err = %#v, want a *fence.StaleError presented %d, stored token unknown", err, presented)
	}
	if !strings.Contains(se.Error(), "stored token unknown") {
		t.Fatalf("%q does not say the stored token is unknown", se.Error())
	}
}

func wantWritten(t *testing.T, n int64, err error) {
	t.Helper()
	if err != nil || n != 1 {
		t.Fatalf("= %d, %v; want 1 row written", n, err)
	}
}

var accounts = mysqlguard.Spec{Column: "fence_token", Key: []string{"id"}, Param: 0, Table: "accounts", Name: "accounts"}

func spec(params int, strict bool) mysqlguard.Spec {
	s := accounts
	s.Param, s.Strict = params+1, strict
	return s
}

// TestUpdateByKeyOnMariaDB: written, an equal-token retry that changes
// nothing, stale (with the stored token), no row, a row the rest of the
// WHERE clause rejects, and strict mode, under both affected-rows rules;
// the database's rows are the oracle.
func TestUpdateByKeyOnMariaDB(t *testing.T) {
	modes(t, func(t *testing.T, params, trigger string) {
		{
			db := testenv.MySQL(t, params, withTrigger(trigger, schema, "INSERT INTO accounts (id, balance, fence_token) VALUES (1, 100, 5), (2, 100, 0)")...)
			set := newGuarded(t, db, "UPDATE accounts SET balance = ? WHERE id = ?", spec(2, false))
			n, err := set.run(6, 150, 1)
			wantWritten(t, n, err)
			if b, tok, _ := row(t, db, "accounts", 1); b != 150 || tok != 6 {
				t.Fatalf("row 1 = %d, token %d; want 150, 6", b, tok)
			}
			// The same write again: nothing changes, and the equal token
			// passes. With a trigger on the table and without
			// clientFoundRows the reply says neither that the row matched
			// nor what it stored; the locked read finds the row already
			// holding these values (docs/mysql.md).
			n, err = set.run(6, 150, 1)
			wantWritten(t, n, err)
			// A retry that changes nothing, of a credit of 0.
			credit0 := newGuarded(t, db, "UPDATE accounts SET balance = balance + ? WHERE id = ?", spec(2, false))
			n, err = credit0.run(6, 0, 1)
			wantWritten(t, n, err)
			_, err = set.run(4, 999, 1)
			wantStale(t, err, 4, 6)
			if b, tok, _ := row(t, db, "accounts", 1); b != 150 || tok != 6 {
				t.Fatalf("stale write changed row 1: %d, token %d", b, tok)
			}
			_, err = set.run(7, 1, 42)
			if !errors.Is(err, fence.ErrNotFound) {
				t.Fatalf("missing row: err = %v, want fence.ErrNotFound", err)
			}
			// Row 2 stores no token yet (0).
			n, err = set.run(1, 7, 2)
			wantWritten(t, n, err)

			credit := newGuarded(t, db, "UPDATE accounts SET balance = balance + ? WHERE id = ? AND status = ?", spec(3, false))
			if _, err := credit.run(9, 10, 1, "closed"); !errors.Is(err, fence.ErrNotFound) {
				t.Fatalf("WHERE rejects the row: err = %v, want fence.ErrNotFound", err)
			}
			if _, err := credit.run(3, 10, 1, "closed"); !errors.Is(err, fence.ErrNotFound) {
				t.Fatalf("WHERE rejects the row, stale token: err = %v, want fence.ErrNotFound", err)
			}
			n, err = credit.run(9, 10, 1, "open")
			wantWritten(t, n, err)
			if b, tok, _ := row(t, db, "accounts", 1); b != 160 || tok != 9 {
				t.Fatalf("row 1 = %d, token %d; want 160, 9", b, tok)
			}

			strict := newGuarded(t, db, "UPDATE accounts SET balance = ? WHERE id = ?", spec(2, true))
			_, err = strict.run(9, 160, 1)
			wantStale(t, err, 9, 9)
			n, err = strict.run(10, 160, 1)
			wantWritten(t, n, err)
		}
	})
}

// TestDeleteByKeyOnMariaDB: stale, missing and written DELETEs.
func TestDeleteByKeyOnMariaDB(t *testing.T) {
	for _, params := range dsnModes {
		t.Run("dsn="+params, func(t *testing.T) {
			db := testenv.MySQL(t, params, schema, "INSERT INTO accounts (id, balance, fence_token) VALUES (1, 100, 5)")
			del := newGuarded(t, db, "DELETE FROM accounts WHERE id = ?", spec(1, false))
			if del.g.Stored == "" {
				t.Fatal("a DELETE by key has no stored-token read")
			}
			_, err := del.run(4, 1)
			wantStale(t, err, 4, 5)
			if _, _, ok := row(t, db, "accounts", 1); !ok {
				t.Fatal("the stale DELETE removed the row")
			}
			if _, err := del.run(4, 2); !errors.Is(err, fence.ErrNotFound) {
				t.Fatalf("missing row: err = %v", err)
			}
			n, err := del.run(5, 1)
			wantWritten(t, n, err)
			if _, _, ok := row(t, db, "accounts", 1); ok {
				t.Fatal("the DELETE left the row")
			}
		})
	}
}

// TestUpsertOnMariaDB: inserted (1), updated (2), unchanged under an
// accepted token (0, or 1 with clientFoundRows) and refused, on a table
// keyed by its column and on one with an AUTO_INCREMENT key whose upsert
// conflicts on another unique key.
func TestUpsertOnMariaDB(t *testing.T) {
	modes(t, func(t *testing.T, params, trigger string) {
		{
			db := testenv.MySQL(t, params, withTrigger(trigger, schema, schemaAuto)...)
			up := newGuarded(t, db, "INSERT INTO accounts (id, balance) VALUES (?, ?) ON DUPLICATE KEY UPDATE balance = VALUES(balance)", spec(2, false))
			if up.g.Form != mysqlguard.Upsert {
				t.Fatalf("form %v", up.g.Form)
			}
			n, err := up.run(5, 1, 100)
			wantWritten(t, n, err)
			n, err = up.run(6, 1, 200)
			wantWritten(t, n, err)
			n, err = up.run(6, 1, 200) // unchanged, equal token
			wantWritten(t, n, err)
			_, err = up.run(5, 1, 300)
			wantStale(t, err, 5, 6)
			_, err = up.run(5, 1, 200) // stale, and the values already there
			wantStale(t, err, 5, 6)
			if b, tok, _ := row(t, db, "accounts", 1); b != 200 || tok != 6 {
				t.Fatalf("row 1 = %d, token %d; want 200, 6", b, tok)
			}

			ws := mysqlguard.Spec{Column: "fence_token", Key: []string{"id"}, Param: 3, Table: "wallets", Name: "wallets"}
			wup := newGuarded(t, db, "INSERT INTO wallets (owner, balance) VALUES (?, ?) ON DUPLICATE KEY UPDATE balance = balance + VALUES(balance)", ws)
			n, err = wup.run(3, "ann", 10)
			wantWritten(t, n, err)
			n, err = wup.run(3, "ann", 5)
			wantWritten(t, n, err)
			_, err = wup.run(2, "ann", 5)
			wantStaleUnknown(t, err, 2)   // the INSERT gives no key the spec names: the stored token is not read
			n, err = wup.run(2, "bob", 1) // a new row: inserted, whatever token
			wantWritten(t, n, err)
			// Issue 27: with the table's unique keys, the read finds the
			// row the INSERT met by owner (with or without the primary
			// key given), and Stored is its token.
			wsk := ws
			wsk.UniqueKeys = [][]string{{"id"}, {"owner"}}
			kup := newGuarded(t, db, "INSERT INTO wallets (owner, balance) VALUES (?, ?) ON DUPLICATE KEY UPDATE balance = balance + VALUES(balance)", wsk)
			_, err = kup.run(2, "ann", 5)
			wantStale(t, err, 2, 3)
			wsk.Param = 4
			kid := newGuarded(t, db, "INSERT INTO wallets (id, owner, balance) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE balance = balance + VALUES(balance)", wsk)
			_, err = kid.run(2, 99, "ann", 5)
			wantStale(t, err, 2, 3)
			var bal, tok int64
			if err := db.QueryRow("SELECT balance, fence_token FROM wallets WHERE owner = 'ann'").Scan(&bal, &tok); err != nil || bal != 15 || tok != 3 {
				t.Fatalf("ann = %d, token %d (%v); want 15, 3", bal, tok, err)
			}
		}
	})
}

// TestStoreOnMariaDB: a plain INSERT stores the presented token in every row.
func TestStoreOnMariaDB(t *testing.T) {
	db := testenv.MySQL(t, "", schema)
	ins := newGuarded(t, db, "INSERT INTO accounts (id, balance) VALUES (?, ?), (?, ?)", spec(4, false))
	if ins.g.Form != mysqlguard.Store {
		t.Fatalf("form %v", ins.g.Form)
	}
	if n, err := ins.run(8, 1, 10, 2, 20); err != nil || n != 2 {
		t.Fatalf("= %d, %v", n, err)
	}
	for _, id := range []int64{1, 2} {
		if _, tok, _ := row(t, db, "accounts", id); tok != 8 {
			t.Fatalf("row %d token %d, want 8", id, tok)
		}
	}
}

// TestUnchangedUpdateUnderTriggerOnMariaDB: a retry that changes nothing,
// on a table with a trigger (which clears the reply's last-insert id).
// A text column stored in another character set (latin1) than the
// connection's (utf8mb4) differs byte for byte from the parameter for
// héllo: the locked read compares them as utf8mb4 text, and the retry is
// written. A DECIMAL column holds 12.00 for a parameter 12: with
// Spec.StoreAs the read converts the parameter as the column stores it
// (CAST(? AS DECIMAL(6,2))), and the retry is written under either DSN
// (issue 27, trial t27s F1). A CHAR column holds 'ab' for 'ab ' (it
// drops trailing spaces), which the read cannot tell: without
// clientFoundRows the write cannot be told from a concurrent change:
// ErrConcurrentChange, its Hint naming clientFoundRows=true, nothing
// written; with it, written. The same for a write of several rows (form
// All). The database's row is the oracle.
func TestUnchangedUpdateUnderTriggerOnMariaDB(t *testing.T) {
	const notes = `CREATE TABLE notes (
	id BIGINT PRIMARY KEY,
	body VARCHAR(40) CHARACTER SET latin1 NOT NULL,
	amount DECIMAL(6,2) NOT NULL DEFAULT 0,
	code CHAR(4) NOT NULL DEFAULT '',
	fence_token BIGINT NOT NULL DEFAULT 0
)`
	const trigger = "CREATE TRIGGER record BEFORE UPDATE ON notes FOR EACH ROW SET @fencegen_test_updates = COALESCE(@fencegen_test_updates, 0) + 1"
	s := mysqlguard.Spec{Column: "fence_token", Key: []string{"id"}, Param: 3, Table: "notes", Name: "notes", StoreAs: map[string]string{"amount": "DECIMAL(6,2)"}}
	for _, params := range dsnModes {
		t.Run("dsn="+params, func(t *testing.T) {
			db := testenv.MySQL(t, params, notes, trigger, "INSERT INTO notes (id, body, fence_token) VALUES (1, 'x', 1)")
			set := newGuarded(t, db, "UPDATE notes SET body = ? WHERE id = ?", s)
			for range 2 {
				n, err := set.run(5, "héllo", 1)
				wantWritten(t, n, err)
			}
			amount := newGuarded(t, db, "UPDATE notes SET amount = ? WHERE id = ?", s)
			for range 2 {
				n, err := amount.run(5, 12, 1)
				wantWritten(t, n, err)
			}
			code := newGuarded(t, db, "UPDATE notes SET code = ? WHERE id = ?", s)
			n, err := code.run(5, "ab ", 1)
			wantWritten(t, n, err)
			if n, err := code.run(5, "ab ", 1); params == "" {
				var cc *fence.ConcurrentChangeError
				if !errors.As(err, &cc) || !errors.Is(err, fence.ErrConcurrentChange) {
					t.Fatalf("unchanged CHAR write without clientFoundRows: %d, %v; want a *fence.ConcurrentChangeError", n, err)
				}
				if cc.Hint != fenceimpl.MySQLFoundRowsHint || !strings.Contains(err.Error(), "clientFoundRows=true") {
					t.Fatalf("error %q (Hint %q) does not name clientFoundRows=true", err, cc.Hint)
				}
			} else {
				wantWritten(t, n, err)
			}
			var body, amt, cd string
			var tok int64
			if err := db.QueryRow("SELECT body, amount, code, fence_token FROM notes WHERE id = 1").Scan(&body, &amt, &cd, &tok); err != nil {
				t.Fatal(err)
			}
			if body != "héllo" || amt != "12.00" || cd != "ab" || tok != 5 {
				t.Fatalf("row = %q, %s, %q, token %d; want héllo, 12.00, ab, 5", body, amt, cd, tok)
			}
			// A stale token is still stale, not a concurrent change.
			_, err = set.run(4, "héllo", 1)
			var se *fence.StaleError
			if !errors.As(err, &se) || se.Presented != 4 || se.Stored != 5 {
				t.Fatalf("stale unchanged write: %v; want a *fence.StaleError presented 4 stored 5", err)
			}
			// A different text is no unchanged write: it is written.
			n, err = set.run(5, "hello", 1)
			wantWritten(t, n, err)

			// The same as a write of several rows (issue 27, trial t27
			// F6): the retry that changes nothing is done under either
			// DSN (MySQL's count: 0 rows changed, or 1 matched), the
			// DECIMAL one too (StoreAs), and the CHAR one is told only by
			// clientFoundRows.
			all := newGuarded(t, db, "UPDATE notes SET body = ? WHERE id >= ?", s)
			if all.g.Form != mysqlguard.All {
				t.Fatalf("form %v, want All", all.g.Form)
			}
			n, err = all.run(5, "héllo", 1)
			wantWritten(t, n, err)
			n, err = all.run(5, "héllo", 1)
			if want := map[string]int64{"": 0, "clientFoundRows=true": 1}[params]; err != nil || n != want {
				t.Fatalf("unchanged write of several rows: = %d, %v; want %d, nil", n, err, want)
			}
			amountAll := newGuarded(t, db, "UPDATE notes SET amount = ? WHERE id >= ?", s)
			n, err = amountAll.run(5, 13, 1)
			wantWritten(t, n, err)
			n, err = amountAll.run(5, 13, 1)
			if want := map[string]int64{"": 0, "clientFoundRows=true": 1}[params]; err != nil || n != want {
				t.Fatalf("unchanged DECIMAL write of several rows: = %d, %v; want %d, nil", n, err, want)
			}
			codeAll := newGuarded(t, db, "UPDATE notes SET code = ? WHERE id >= ?", s)
			n, err = codeAll.run(5, "cd ", 1)
			wantWritten(t, n, err)
			if n, err := codeAll.run(5, "cd ", 1); params == "" {
				var cc *fence.ConcurrentChangeError
				if !errors.As(err, &cc) || cc.Hint != fenceimpl.MySQLFoundRowsHint {
					t.Fatalf("unchanged CHAR write of several rows without clientFoundRows: %d, %v; want a *fence.ConcurrentChangeError naming clientFoundRows=true", n, err)
				}
			} else {
				wantWritten(t, n, err)
			}
			if err := db.QueryRow("SELECT body, amount, code, fence_token FROM notes WHERE id = 1").Scan(&body, &amt, &cd, &tok); err != nil {
				t.Fatal(err)
			}
			if body != "héllo" || amt != "13.00" || cd != "cd" || tok != 5 {
				t.Fatalf("row = %q, %s, %q, token %d; want héllo, 13.00, cd, 5", body, amt, cd, tok)
			}
		})
	}
}

// TestMySQLResultOnMariaDB: the sql.Result of a guarded :execresult
// (fenceimpl.MySQLResult): an upsert's LastInsertId is the id MariaDB
// gave the inserted row; an UPDATE by key's is ErrMySQLLastInsertID,
// which names MySQL, not PostgreSQL.
func TestMySQLResultOnMariaDB(t *testing.T) {
	ctx := context.Background()
	db := testenv.MySQL(t, "", schema, schemaAuto, "INSERT INTO wallets (owner, balance) VALUES ('zed', 1)")
	ws := mysqlguard.Spec{Column: "fence_token", Key: []string{"id"}, Param: 3, Table: "wallets", Name: "wallets"}
	g, err := mysqlguard.Rewrite("INSERT INTO wallets (owner, balance) VALUES (?, ?) ON DUPLICATE KEY UPDATE balance = balance + VALUES(balance)", ws)
	if err != nil {
		t.Fatal(err)
	}
	res, err := db.ExecContext(ctx, g.SQL, bind(g.Params, []any{"ann", 10, int64(3)})...)
	n, err := fenceimpl.MySQLUpsert(ctx, "Q", "wallets", fence.NonStrict, 3, res, err, nil)
	wantWritten(t, n, err)
	id, err := fenceimpl.MySQLResult(n, res).LastInsertId()
	var want int64
	if qerr := db.QueryRow("SELECT id FROM wallets WHERE owner = 'ann'").Scan(&want); qerr != nil {
		t.Fatal(qerr)
	}
	if err != nil || id != want || want < 2 {
		t.Fatalf("upsert LastInsertId = %d, %v; want %d (the inserted row's id)", id, err, want)
	}

	set := newGuarded(t, db, "UPDATE wallets SET balance = ? WHERE id = ?", ws)
	n, err = set.run(4, 7, want)
	wantWritten(t, n, err)
	r := fenceimpl.MySQLResult(n, nil)
	if rows, err := r.RowsAffected(); rows != 1 || err != nil {
		t.Fatalf("RowsAffected = %d, %v; want 1", rows, err)
	}
	_, err = r.LastInsertId()
	if !errors.Is(err, fenceimpl.ErrMySQLLastInsertID) || strings.Contains(err.Error(), "PostgreSQL") || !strings.Contains(err.Error(), "MySQL") {
		t.Fatalf("UPDATE by key LastInsertId error = %v; want ErrMySQLLastInsertID naming MySQL", err)
	}
}

// status is row id's status column.
func status(t *testing.T, db *sql.DB, id int64) string {
	t.Helper()
	var s string
	if err := db.QueryRow("SELECT status FROM accounts WHERE id = ?", id).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSetDefaultOnMariaDB (issue 27, trial-my3 F8): SET c = DEFAULT in an
// UPDATE by key and in ON DUPLICATE KEY UPDATE is guarded (the guard's
// copies read DEFAULT(c)): written, an equal-token retry that changes
// nothing (under a trigger without clientFoundRows the locked read must
// find the row already holding the default), and stale, under both
// affected-rows rules; the rows are the oracle.
func TestSetDefaultOnMariaDB(t *testing.T) {
	modes(t, func(t *testing.T, params, trigger string) {
		db := testenv.MySQL(t, params, withTrigger(trigger, schema, "INSERT INTO accounts (id, balance, status, fence_token) VALUES (1, 100, 'closed', 5)")...)
		reset := newGuarded(t, db, "UPDATE accounts SET status = DEFAULT, balance = ? WHERE id = ?", spec(2, false))
		if reset.g.Form != mysqlguard.ByKey {
			t.Fatalf("form %v", reset.g.Form)
		}
		_, err := reset.run(4, 1, 1)
		wantStale(t, err, 4, 5)
		if s := status(t, db, 1); s != "closed" {
			t.Fatalf("stale write changed status to %q", s)
		}
		n, err := reset.run(6, 1, 1)
		wantWritten(t, n, err)
		if b, tok, _ := row(t, db, "accounts", 1); b != 1 || tok != 6 || status(t, db, 1) != "open" {
			t.Fatalf("row 1 = %d, token %d, %q; want 1, 6, open", b, tok, status(t, db, 1))
		}
		n, err = reset.run(6, 1, 1) // changes nothing
		wantWritten(t, n, err)
		if _, err := reset.run(7, 1, 42); !errors.Is(err, fence.ErrNotFound) {
			t.Fatalf("missing row: err = %v, want fence.ErrNotFound", err)
		}

		up := newGuarded(t, db, "INSERT INTO accounts (id, balance, status) VALUES (?, ?, ?) ON DUPLICATE KEY UPDATE status = DEFAULT", spec(3, false))
		if up.g.Form != mysqlguard.Upsert {
			t.Fatalf("form %v", up.g.Form)
		}
		n, err = up.run(1, 2, 50, "closed")
		wantWritten(t, n, err)
		_, err = up.run(0, 2, 50, "closed") // the row stores 1
		wantStale(t, err, 0, 1)
		if s := status(t, db, 2); s != "closed" {
			t.Fatalf("stale upsert changed status to %q", s)
		}
		n, err = up.run(2, 2, 50, "closed")
		wantWritten(t, n, err)
		if b, tok, _ := row(t, db, "accounts", 2); b != 50 || tok != 2 || status(t, db, 2) != "open" {
			t.Fatalf("row 2 = %d, token %d, %q; want 50, 2, open", b, tok, status(t, db, 2))
		}
	})
}
