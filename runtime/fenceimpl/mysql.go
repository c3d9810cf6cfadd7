package fenceimpl

import (
	"context"
	"database/sql"
	"errors"
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
// SIGNAL, followed by "presented=N stored=M mode=strict|non-strict|required
// table=T" (the tokens base 10; the table name may be cut short, since
// MESSAGE_TEXT holds at most 128 characters). The text is fencegen's own,
// never translated by the server. A guard of mode required refuses an
// UPDATE that presents no token (leaves the token as stored without
// declaring it) with presented=0.
const MySQLStaleMarker = "fencegen: stale token "

// mysqlMessage matches the guard trigger's MESSAGE_TEXT (MySQLStaleMarker).
var mysqlMessage = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("^" + regexp.QuoteMeta(MySQLStaleMarker) + `presented=(-?\d+) stored=(-?\d+) mode=(strict|non-strict|required)(?: table=(.*))?$`)
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
// Mode is fence.Strict for mode=strict, else fence.NonStrict (mode
// required guards as non-strict; its refusal of an UPDATE presenting no
// token has Presented 0).
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
// sql.Result; stored runs the locked read of the stored token (SELECT
// <token> ... WHERE <the write's WHERE> FOR UPDATE), sent only when the
// result does not say what happened.
//
// The guarded UPDATE records, through LAST_INSERT_ID(expr), ^stored (the
// bitwise complement of the stored token) when its WHERE clause reaches
// the row, and the presented token when its SET clause runs; the server
// returns that value in the same OK packet as the affected rows (MySQL
// manual, "LAST_INSERT_ID(expr)"), whatever the DSN's clientFoundRows
// says:
//   - affected rows ≥ 1: written;
//   - 0 and LastInsertId the presented token: the row matched and already
//     held the values written (MySQL counts changed rows unless
//     clientFoundRows=true): written, 1 row;
//   - 0 and ^stored: a stored token presented does not beat
//     (*fence.StaleError with Stored), or, when it would be accepted, a
//     concurrent transaction changed the row after the WHERE clause read
//     it (InnoDB's semi-consistent read under READ COMMITTED): the
//     statement runs again (see Refusal);
//   - 0 and 0: no row matched, or a trigger on the table ran for the row
//     and reset the value (MySQL and MariaDB clear it when a trigger
//     runs), and always for a DELETE, whose OK packet carries none. Then
//     the locked read classifies: no row, *fence.NotFoundError; a token
//     presented does not beat, *fence.StaleError; otherwise the statement
//     runs again, and after MaxAttempts a *fence.ConcurrentChangeError.
//     A write that wrote nothing is classified as if it ran at the
//     read: nothing it did can have been ordered before the read. An
//     UPDATE's read also says whether the row already holds what it
//     writes (mysqlguard's stored read); then, under an accepted token,
//     it is written (1): it would change nothing at the read either.
//     The read compares as the column stores the value (DECIMAL 12 as
//     12.00, a DATETIME's dropped fractional seconds); where it cannot
//     (CHAR's dropped trailing spaces, FLOAT) it errs towards "differs".
//     When it says it differs under an accepted token at every attempt,
//     the *fence.ConcurrentChangeError's Hint is MySQLFoundRowsHint: only
//     a DSN with clientFoundRows=true then makes the reply exact.
//
// ctx bounds the read as storedErr says. The guard trigger's error
// (MySQLSignalErrno) is returned as a *fence.StaleError; any other error
// unchanged.
func MySQLByKey(ctx context.Context, query, table string, mode fence.Mode, presented fence.Token, run func() (sql.Result, error), stored func(ctx context.Context) (*sql.Rows, error)) (int64, error) {
	for attempt := 0; ; attempt++ {
		res, err := run()
		if err != nil {
			return 0, mysqlErr(query, table, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, err
		}
		if n > 0 {
			return n, nil
		}
		id, err := res.LastInsertId()
		if err != nil {
			return 0, err
		}
		tok := fence.Token(^id)
		differs := false
		switch {
		case id == int64(presented):
			return 1, nil
		case id == 0 && stored == nil:
			return 0, &fence.NotFoundError{Query: query, Table: table}
		case id == 0:
			var found, same bool
			tok, same, differs, found, err = readStored(ctx, stored)
			if err != nil {
				return 0, storedErr(ctx, query, table, err)
			}
			if !found {
				return 0, &fence.NotFoundError{Query: query, Table: table}
			}
			if same && mode.Accepts(tok, presented) {
				// The row holds what the UPDATE writes, under a token it
				// accepts: the UPDATE changes nothing, now as when it ran.
				return 1, nil
			}
		}
		retry, err := Refusal(query, table, mode, presented, tok, 1, attempt)
		if !retry {
			var cc *fence.ConcurrentChangeError
			if differs && errors.As(err, &cc) {
				cc.Hint = MySQLFoundRowsHint
			}
			return 0, err
		}
	}
}

// MySQLFoundRowsHint is the fence.ConcurrentChangeError.Hint of a
// guarded MySQL UPDATE by key that changed nothing, on a table with a
// trigger (which clears the reply's last-insert id), whose locked read
// could not show that the row already held the UPDATE's values (the
// comparison errs towards "differs" where a column stores a value
// otherwise than written and fencegen does not convert it so: 'ab '
// into CHAR reads 'ab'), or whose row another writer changed. Only
// the affected-row count of a DSN with clientFoundRows=true, which counts
// the rows matched, tells such a write apart from a concurrent change.
const MySQLFoundRowsHint = "or the UPDATE changed nothing and the table has a trigger: set clientFoundRows=true in the DSN, whose affected rows then count the rows matched"

// readStored runs stored, the read of one row by its primary key, and
// reads its token column and, when it has a second (an UPDATE's),
// whether the row already holds what the UPDATE writes (1); found is
// false when it returned no row; differs is true when it had that column
// and it was not 1.
func readStored(ctx context.Context, stored func(ctx context.Context) (*sql.Rows, error)) (tok fence.Token, same, differs, found bool, err error) {
	rows, err := stored(ctx)
	if err != nil {
		return 0, false, false, false, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, false, false, false, err
	}
	for rows.Next() {
		var v int64
		var s sql.NullBool
		dest := []any{&v}
		if len(cols) > 1 {
			dest = append(dest, &s)
		}
		if err := rows.Scan(dest...); err != nil {
			return 0, false, false, false, err
		}
		tok, same, found = fence.Token(v), s.Valid && s.Bool, true
		differs = len(cols) > 1 && !same
	}
	return tok, same, differs, found, rows.Err()
}

// readRefused runs stored, a read of one token column whose rows are the
// stored rows an upsert may have met, and returns the highest token mode
// does not let presented beat and how many rows hold such a token.
func readRefused(ctx context.Context, stored func(ctx context.Context) (*sql.Rows, error), mode fence.Mode, presented fence.Token) (highest fence.Token, refused int64, err error) {
	rows, err := stored(ctx)
	if err != nil {
		return 0, 0, err
	}
	defer rows.Close()
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			return 0, 0, err
		}
		if tok := fence.Token(v); !mode.Accepts(tok, presented) {
			if refused == 0 || tok > highest {
				highest = tok
			}
			refused++
		}
	}
	return highest, refused, rows.Err()
}

// MySQLSubqueryErrno is the MySQL and MariaDB error of a scalar subquery
// that returns more than one row (ER_SUBQUERY_NO_1_ROW, 1242, SQLSTATE
// 21000): a guarded upsert raises it, whatever the sql_mode, on a row
// whose stored token the presented one does not beat, so that the
// statement writes nothing and fails.
const MySQLSubqueryErrno = 1242

// MySQLUpsert is called by code generated for a fenced INSERT ... ON
// DUPLICATE KEY UPDATE of one row on MySQL or MariaDB. res and err are
// the statement's result (one round trip, never retried). Its token
// assignment, last, is IF(<stored beaten>, VALUES(tok), <a subquery of
// two rows>): a refused row makes the whole statement fail with
// MySQLSubqueryErrno, which MySQLUpsert reports as a *fence.StaleError,
// its Stored read by stored (nil when the query gives no unique key's
// values: StoredUnknown is then set). Every other outcome wrote what it had to: 1 row
// inserted, 2 updated, 0 left as it was because it held the values
// already (1 with clientFoundRows=true) (MySQL manual, "INSERT ... ON
// DUPLICATE KEY UPDATE Statement"); MySQLUpsert returns 1 for each, and
// does not read the last-insert id, so neither triggers nor the DSN change
// the outcome. The guard trigger's error is returned as a
// *fence.StaleError, any other error unchanged.
func MySQLUpsert(ctx context.Context, query, table string, mode fence.Mode, presented fence.Token, res sql.Result, err error, stored func(ctx context.Context) (*sql.Rows, error)) (int64, error) {
	return MySQLUpsertRows(ctx, query, table, mode, presented, 1, res, err, stored)
}

// MySQLUpsertRows is MySQLUpsert for an INSERT ... ON DUPLICATE KEY UPDATE
// of rows VALUES rows. stored, when not nil, reads the stored token of
// each row the VALUES meet by a unique key they give: the refusal's
// Stored is the highest of those presented does not beat and its Rows
// their number (else StoredUnknown and Rows 1: the rows are gone, the
// conflict was on a key the read does not cover, or stored is nil). All or nothing: one refused row fails the statement, and InnoDB
// rolls it back whole. It returns rows when the statement succeeded:
// every row was inserted, updated, or already held its values (MySQL's
// affected rows count 1, 2 or 0 per row, 1 for the last with
// clientFoundRows=true, and cannot say which).
func MySQLUpsertRows(ctx context.Context, query, table string, mode fence.Mode, presented fence.Token, rows int64, res sql.Result, err error, stored func(ctx context.Context) (*sql.Rows, error)) (int64, error) {
	if err != nil {
		if f, ok := mysqlFieldsOf(err); ok && f.number == MySQLSubqueryErrno {
			se := &fence.StaleError{Query: query, Table: table, Presented: presented, Rows: 1, Mode: mode, StoredUnknown: true}
			if stored != nil {
				if tok, refused, rerr := readRefused(ctx, stored, mode, presented); rerr == nil && refused > 0 {
					se.Stored, se.Rows, se.StoredUnknown = tok, refused, false
				}
			}
			return 0, se
		}
		return 0, mysqlErr(query, table, err)
	}
	if _, err := res.RowsAffected(); err != nil {
		return 0, err
	}
	return rows, nil
}

// MySQLAll is called by code generated for a fenced UPDATE or DELETE on
// MySQL or MariaDB that may match several rows (mysqlguard's form All):
// all or nothing. run sends the guarded statement (one round trip on
// success); read runs the read of the rows its WHERE clause matches,
// SELECT COUNT(*), <highest token refused, else highest token>, <rows
// refused> [, <rows not already holding what an UPDATE writes>] ... FOR
// UPDATE, sent only when the write failed on a stale row or its reply
// does not say whether it matched.
//
// The guarded statement's WHERE clause evaluates, on each row it matches,
// a subquery of two rows when the row's stored token is not beaten by
// presented: the statement fails with MySQLSubqueryErrno (whatever the
// sql_mode), and InnoDB rolls it back whole, rows written before the
// stale one included (a non-transactional engine such as MyISAM keeps
// them: the guard needs InnoDB). MySQLAll returns that as a
// *fence.StaleError whose Stored and Rows are read afterwards
// (StoredUnknown when the stale rows are gone by then). An UPDATE's SET clause records presented
// through LAST_INSERT_ID(expr), so that its reply's last-insert id says
// whether any row matched. Otherwise:
//   - affected rows n ≥ 1: n (MySQL counts the rows changed, or with
//     clientFoundRows=true the rows matched; a DELETE, the rows deleted);
//   - 0 and LastInsertId presented: rows matched and already held what
//     the UPDATE writes: 0, nil;
//   - 0 and 0: no row matched, or a trigger on the table cleared the
//     last-insert id. The read classifies, as if the write ran at it:
//     no row, *fence.NotFoundError; a row presented does not beat,
//     *fence.StaleError; for an UPDATE, every row matched already holding
//     what it writes (the read's fourth column 0): the write is done, 0,
//     nil, whatever the DSN's affected-rows rule (a retry that changes
//     nothing on a table with a trigger); otherwise the statement runs
//     again, and after MaxAttempts a *fence.ConcurrentChangeError with
//     MySQLFoundRowsHint (the comparison errs towards "differs", as
//     MySQLByKey's: 'ab ' into CHAR reads 'ab'; clientFoundRows=true
//     makes the count tell).
//
// The guard trigger's error (MySQLSignalErrno) is a *fence.StaleError;
// any other error is returned unchanged.
func MySQLAll(ctx context.Context, query, table string, mode fence.Mode, presented fence.Token, run func() (sql.Result, error), read func(ctx context.Context) (*sql.Rows, error)) (int64, error) {
	for attempt := 0; ; attempt++ {
		res, err := run()
		if err != nil {
			if f, ok := mysqlFieldsOf(err); ok && f.number == MySQLSubqueryErrno {
				se := &fence.StaleError{Query: query, Table: table, Presented: presented, Mode: mode, StoredUnknown: true}
				if _, stored, refused, _, rerr := readMatched(ctx, read); rerr == nil && refused > 0 {
					se.Stored, se.Rows, se.StoredUnknown = stored, refused, false
				}
				return 0, se
			}
			return 0, mysqlErr(query, table, err)
		}
		n, err := res.RowsAffected()
		if err != nil {
			return 0, err
		}
		if n > 0 {
			return n, nil
		}
		id, err := res.LastInsertId()
		if err != nil {
			return 0, err
		}
		if id == int64(presented) {
			return 0, nil
		}
		matched, stored, refused, differs, err := readMatched(ctx, read)
		if err != nil {
			return 0, storedErr(ctx, query, table, err)
		}
		switch {
		case matched == 0:
			return 0, &fence.NotFoundError{Query: query, Table: table}
		case refused > 0:
			return 0, &fence.StaleError{Query: query, Table: table, Presented: presented, Stored: stored, Rows: refused, Mode: mode}
		case differs == 0:
			// Every row matched already holds what the UPDATE writes,
			// under an accepted token: it would change nothing at the
			// read either.
			return 0, nil
		case attempt+1 >= MaxAttempts:
			return 0, &fence.ConcurrentChangeError{Query: query, Table: table, Attempts: MaxAttempts, Hint: MySQLFoundRowsHint}
		}
	}
}

// readMatched runs read, MySQLAll's read of the matched rows, and returns
// its columns: the rows matched, the highest token among the rows
// refused (else among all), the rows refused, and, from an UPDATE's
// fourth column, the rows not already holding what it writes (matched
// when the read has no such column: a DELETE's, or one generated before
// it was added).
func readMatched(ctx context.Context, read func(ctx context.Context) (*sql.Rows, error)) (matched int64, stored fence.Token, refused, differs int64, err error) {
	rows, err := read(ctx)
	if err != nil {
		return 0, 0, 0, 0, err
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return 0, 0, 0, 0, err
	}
	for rows.Next() {
		var tok int64
		dest := []any{&matched, &tok, &refused}
		if len(cols) > 3 {
			dest = append(dest, &differs)
		}
		if err := rows.Scan(dest...); err != nil {
			return 0, 0, 0, 0, err
		}
		if len(cols) <= 3 {
			differs = matched
		}
		stored = fence.Token(tok)
	}
	return matched, stored, refused, differs, rows.Err()
}

// mysqlErr is the error of a guarded MySQL statement that failed with err:
// the guard trigger's error as a *fence.StaleError (its message names the
// tokens and the mode), else err.
func mysqlErr(query, table string, err error) error {
	if se := mysqlStale(query, err, []string{table}); se != nil {
		return se
	}
	return err
}
