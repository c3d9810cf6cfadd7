package fenceimpl

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/fencegen/fencegen/runtime/fence"
)

// MySQLSignalErrno is the MySQL and MariaDB error number of a SIGNAL
// with a SQLSTATE the server does not define (ER_SIGNAL_EXCEPTION, 1644):
// the error of fencegen's MySQL guard triggers, raised with SQLSTATE
// MySQLSQLState and a message starting with MySQLStaleMarker.
const MySQLSignalErrno = 1644

// MySQLSQLState is the SQLSTATE fencegen's MySQL guard triggers signal:
// '45000', "unhandled user-defined exception" (MySQL manual, 15.6.7.5
// "SIGNAL Statement").
const MySQLSQLState = "45000"

// MySQLStaleMarker starts the MESSAGE_TEXT of the MySQL guard trigger's
// SIGNAL, followed by "presented=N stored=M mode=strict|non-strict
// table=T" (the tokens base 10; the table name may be cut short, since
// MESSAGE_TEXT holds at most 128 characters). The text is fencegen's own,
// never translated by the server.
const MySQLStaleMarker = "fencegen: stale token "

// mysqlMessage matches the guard trigger's MESSAGE_TEXT (MySQLStaleMarker).
var mysqlMessage = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("^" + regexp.QuoteMeta(MySQLStaleMarker) + `presented=(-?\d+) stored=(-?\d+) mode=(strict|non-strict)(?: table=(.*))?$`)
})

// mysqlFields are the fields of a *mysql.MySQLError
// (github.com/go-sql-driver/mysql): Number, SQLState and Message.
type mysqlFields struct {
	number   uint64
	sqlState string
	message  string
}

// mysqlFieldsOf returns the fields of the first error in err's chain that
// is a struct, or a pointer to one, with go-sql-driver/mysql's MySQLError
// fields (Number, an unsigned integer; SQLState, [5]byte; Message), read
// by reflection so that no driver is imported; ok is false when there is
// none.
func mysqlFieldsOf(err error) (f mysqlFields, ok bool) {
	for e := err; e != nil; e = errors.Unwrap(e) {
		v := reflect.ValueOf(e)
		for v.Kind() == reflect.Pointer && !v.IsNil() {
			v = v.Elem()
		}
		if v.Kind() != reflect.Struct {
			continue
		}
		num, state, msg := v.FieldByName("Number"), v.FieldByName("SQLState"), v.FieldByName("Message")
		if !num.IsValid() || !msg.IsValid() || msg.Kind() != reflect.String {
			continue
		}
		switch num.Kind() {
		case reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uint:
			f.number = num.Uint()
		default:
			continue
		}
		if state.IsValid() && state.Kind() == reflect.Array && state.Type().Elem().Kind() == reflect.Uint8 {
			b := make([]byte, state.Len())
			for i := range b {
				b[i] = byte(state.Index(i).Uint())
			}
			f.sqlState = string(b)
		}
		f.message = msg.String()
		return f, true
	}
	return mysqlFields{}, false
}

// mysqlStale returns the *fence.StaleError for a MySQL guard trigger's
// error in err's chain (MySQLSignalErrno, MySQLSQLState and a message
// matching MySQLStaleMarker), or nil for any other error. Table is the
// message's table when it is one of tables, else tables joined by ", ".
func mysqlStale(query string, err error, tables []string) *fence.StaleError {
	f, ok := mysqlFieldsOf(err)
	if !ok || f.number != MySQLSignalErrno || (f.sqlState != "" && f.sqlState != MySQLSQLState) {
		return nil
	}
	m := mysqlMessage().FindStringSubmatch(f.message)
	if m == nil {
		return nil
	}
	presented, perr := strconv.ParseInt(m[1], 10, 64)
	stored, serr := strconv.ParseInt(m[2], 10, 64)
	if perr != nil || serr != nil {
		return nil
	}
	se := &fence.StaleError{Query: query, Table: strings.Join(tables, ", "), Presented: fence.Token(presented), Stored: fence.Token(stored), Rows: 1}
	if m[3] == "strict" {
		se.Mode = fence.Strict
	}
	for _, t := range tables {
		if t == m[4] {
			se.Table = t
		}
	}
	return se
}

// MySQLByKey is called by code generated for a fenced UPDATE or DELETE on
// MySQL or MariaDB whose WHERE clause pins the primary key (at most one
// row). run sends the guarded statement (one round trip) and returns its
// sql.Result; stored, set for a DELETE only, runs the locked read of the
// stored token (SELECT <token> ... FOR UPDATE) and is called only when the
// DELETE removed nothing.
//
// An UPDATE is read from its result alone, whatever the DSN's
// clientFoundRows says: the guarded UPDATE records ^stored (the bitwise
// complement of the stored token) through LAST_INSERT_ID(expr) when its
// WHERE clause reaches the row, and the presented token when its SET
// clause runs, and the server returns that value in the same OK packet
// as the affected rows (MySQL manual, "LAST_INSERT_ID(expr)"):
//   - affected rows ≥ 1: written;
//   - 0 and LastInsertId 0: no row matched (*fence.NotFoundError);
//   - 0 and LastInsertId the presented token: the row matched and already
//     held the values written (MySQL counts changed rows unless
//     clientFoundRows=true): written, 1 row;
//   - 0 and ^stored: a stored token presented does not beat
//     (*fence.StaleError with Stored), or, when it would be accepted, a
//     concurrent transaction changed the row after its WHERE clause read
//     it (READ COMMITTED's semi-consistent read): the statement runs
//     again, at most MaxAttempts times (*fence.ConcurrentChangeError).
//
// A DELETE's OK packet carries no LAST_INSERT_ID, so when it deleted
// nothing the locked read classifies: no row, *fence.NotFoundError; a
// token presented does not beat, *fence.StaleError; else the DELETE runs
// again (see Refusal). The read classifies a DELETE that wrote nothing
// as if it ran at the read: no write happened in between that it could
// have ordered itself after. ctx bounds the read as storedErr says.
//
// The guard trigger's error (MySQLSignalErrno) is returned as a
// *fence.StaleError; any other error unchanged.
func MySQLByKey(ctx context.Context, query, table string, mode fence.Mode, presented fence.Token, run func() (sql.Result, error), stored func(ctx context.Context) (*sql.Rows, error)) (int64, error) {
	for attempt := 0; ; attempt++ {
		res, err := run()
		if err != nil {
			return 0, mysqlErr(query, table, mode, presented, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, err
		}
		if n > 0 {
			return n, nil
		}
		var tok fence.Token
		if stored == nil {
			id, err := res.LastInsertId()
			if err != nil {
				return 0, err
			}
			switch id {
			case 0:
				return 0, &fence.NotFoundError{Query: query, Table: table}
			case int64(presented):
				return 1, nil
			}
			tok = fence.Token(^id)
		} else {
			var found bool
			tok, found, err = readStored(ctx, stored)
			if err != nil {
				return 0, storedErr(ctx, query, table, err)
			}
			if !found {
				return 0, &fence.NotFoundError{Query: query, Table: table}
			}
		}
		retry, err := Refusal(query, table, mode, presented, tok, 1, attempt)
		if !retry {
			return 0, err
		}
	}
}

// readStored runs stored and reads its one token column: found is false
// when it returned no row.
func readStored(ctx context.Context, stored func(ctx context.Context) (*sql.Rows, error)) (tok fence.Token, found bool, err error) {
	rows, err := stored(ctx)
	if err != nil {
		return 0, false, err
	}
	defer rows.Close()
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return 0, false, err
		}
		if !found || fence.Token(v) > tok {
			tok = fence.Token(v)
		}
		found = true
	}
	return tok, found, rows.Err()
}

// MySQLUpsert is called by code generated for a fenced INSERT ... ON
// DUPLICATE KEY UPDATE of one row on MySQL or MariaDB. res and err are
// the statement's result (one round trip, never retried). Every
// assignment of the guarded ON DUPLICATE KEY UPDATE applies only when the
// presented token beats the stored one, the token column's last, and that
// one records ^stored through LAST_INSERT_ID(expr). The affected-rows
// count is, for one row, 1 when it was inserted, 2 when the existing row
// was updated, and 0 when it was left as it was, or 1 for that last case
// with clientFoundRows=true (MySQL manual, "INSERT ... ON DUPLICATE KEY
// UPDATE Statement"); LastInsertId tells an insert (0, or an
// AUTO_INCREMENT value below 2^63) from a row left as it was (^stored, at
// or above 2^63 for every stored token ≥ 0). It returns 1, or:
//   - a *fence.StaleError when the existing row holds a token presented does
//     not beat (nothing written);
//   - the guard trigger's error as a *fence.StaleError, any other error
//     unchanged.
//
// A row left as it was under an accepted token held the values written
// already: written, 1.
func MySQLUpsert(query, table string, mode fence.Mode, presented fence.Token, res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, mysqlErr(query, table, mode, presented, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return 0, err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, err
	}
	switch {
	case n == 2, n == 1 && id >= 0:
		return 1, nil
	case n <= 1 && id < 0:
		stored := fence.Token(^id)
		if mode.Accepts(stored, presented) {
			return 1, nil
		}
		return 0, &fence.StaleError{Query: query, Table: table, Presented: presented, Stored: stored, Rows: 1, Mode: mode}
	}
	return 0, fmt.Errorf("fence: %s on %s: the guarded upsert returned %d affected rows and last insert id %d, which no outcome of it gives", query, table, n, id)
}

// mysqlErr is the error of a guarded MySQL statement that failed with err:
// the guard trigger's error as a *fence.StaleError with presented (and
// mode unless the trigger's message names it), else err.
func mysqlErr(query, table string, mode fence.Mode, presented fence.Token, err error) error {
	if se := mysqlStale(query, err, []string{table}); se != nil {
		return se
	}
	return err
}
