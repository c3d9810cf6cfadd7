package fence

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
)

// sqlStater is implemented by database errors that carry a SQLSTATE, such
// as *pgconn.PgError.
type sqlStater interface{ SQLState() string }

var storedInMessage = regexp.MustCompile(`stored (-?\d+)`)

// fromTrigger turns the database-side guard's error (SQLSTATE SQLState)
// into a *StaleError; any other error is returned unchanged.
func fromTrigger(query, table string, mode Mode, presented Token, err error) error {
	var s sqlStater
	if err == nil || !errors.As(err, &s) || s.SQLState() != SQLState {
		return err
	}
	se := &StaleError{Query: query, Table: table, Presented: presented, Rows: 1, Mode: mode}
	if m := storedInMessage.FindStringSubmatch(err.Error()); m != nil {
		if n, perr := strconv.ParseInt(m[1], 10, 64); perr == nil {
			se.Stored = Token(n)
		}
	}
	return se
}

// Rows is the part of a query result that Write reads. pgx.Rows
// (github.com/jackc/pgx/v5) satisfies it; the interface keeps this package
// free of any database driver.
type Rows interface {
	Next() bool
	// RawValues returns the current row's undecoded values; a NULL is nil.
	RawValues() [][]byte
	Scan(dest ...any) error
	Close()
	Err() error
}

// Write is called by generated code; applications call the generated
// methods instead. It runs a fenced write built by fencegen and tells its
// three outcomes apart. run sends the statement (one round trip) and returns its rows:
// each row it wrote carries NULL in its first column; when it wrote
// nothing because of the token, a single row carries the highest stored
// token and the number of refused rows in its first two columns. cols is
// the number of the query's own result columns after those two. scan, if
// not nil, is called for every written row and must scan it with two nil
// destinations first.
//
// Write returns the number of rows written, or:
//   - a *StaleError when the database-side guard (SQLSTATE SQLState) refused
//     the write;
//   - a *StaleError (errors.Is ErrStaleToken) when the rows matched hold a
//     token that presented does not beat under mode;
//   - a *NotFoundError (errors.Is ErrNotFound) when no row matched;
//   - run's or scan's error, unchanged.
//
// When the refused rows' stored token would in fact be accepted, a
// concurrent transaction changed them after the statement's snapshot, and
// Write runs the statement again, at most MaxAttempts times (see Refusal).
func Write(query, table string, mode Mode, presented Token, cols int, run func() (Rows, error), scan func(Rows) error) (int64, error) {
	refusedDest := make([]any, 2+cols)
	for attempt := 0; ; attempt++ {
		rows, err := run()
		if err != nil {
			return 0, fromTrigger(query, table, mode, presented, err)
		}
		var (
			written         int64
			stored, refused *int64
		)
		refusedDest[0], refusedDest[1] = &stored, &refused
		for rows.Next() {
			if vals := rows.RawValues(); len(vals) > 0 && vals[0] != nil {
				if err := rows.Scan(refusedDest...); err != nil {
					rows.Close()
					return 0, fromTrigger(query, table, mode, presented, err)
				}
				continue
			}
			if scan != nil {
				if err := scan(rows); err != nil {
					rows.Close()
					return 0, err
				}
			}
			written++
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return 0, fromTrigger(query, table, mode, presented, err)
		}
		if stored == nil {
			if written == 0 {
				return 0, &NotFoundError{Query: query, Table: table}
			}
			return written, nil
		}
		if refused == nil {
			return 0, fmt.Errorf("fence: %s on %s: refused row without a row count", query, table)
		}
		retry, err := Refusal(query, table, mode, presented, Token(*stored), *refused, attempt)
		if !retry {
			return 0, err
		}
	}
}
