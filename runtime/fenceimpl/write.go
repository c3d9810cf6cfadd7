package fenceimpl

import (
	"fmt"

	"github.com/fencegen/fencegen/runtime/fence"
)

// Rows is the part of a query result that Write reads. pgx.Rows
// (github.com/jackc/pgx/v5) satisfies it, and SQLRows adapts database/sql's
// *sql.Rows to it; the interface keeps this package free of any database
// driver.
type Rows interface {
	// Next advances to the next row; false after the last or on error.
	Next() bool
	// RawValues returns the current row's undecoded values; a NULL is nil.
	RawValues() [][]byte
	// Scan decodes the current row into dest, one per column.
	Scan(dest ...any) error
	// Close releases the rows; safe to call more than once.
	Close()
	// Err returns the error that ended the iteration, if any.
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
//   - a *fence.StaleError when the database-side guard (SQLSTATE SQLState) refused
//     the write;
//   - a *fence.StaleError (errors.Is fence.ErrStaleToken) when the rows matched hold a
//     token that presented does not beat under mode;
//   - a *fence.NotFoundError (errors.Is fence.ErrNotFound) when no row matched;
//   - run's or scan's error, unchanged.
//
// When the refused rows' stored token would in fact be accepted, a
// concurrent transaction changed them after the statement's snapshot, and
// Write runs the statement again, at most MaxAttempts times (see Refusal).
func Write(query, table string, mode fence.Mode, presented fence.Token, cols int, run func() (Rows, error), scan func(Rows) error) (int64, error) {
	for attempt := 0; ; attempt++ {
		rows, err := run()
		written, stored, refused, err := readResult(query, table, mode, presented, cols, rows, err, scan)
		if err != nil {
			return 0, err
		}
		if stored == nil {
			return written, nil
		}
		retry, err := Refusal(query, table, mode, presented, fence.Token(*stored), *refused, attempt)
		if !retry {
			return 0, err
		}
	}
}

// readResult reads the result set of one run of a fenced write (see
// Write): rows and err are what sending the statement returned. It
// returns the number of rows written, or, when the statement wrote
// nothing because of the token, the refusal row's stored token and
// refused-row count (both non-nil), or an error: the database-side guard's
// as a *fence.StaleError, a *fence.NotFoundError when no row matched, or the
// driver's or scan's error. It closes rows once it has read them.
func readResult(query, table string, mode fence.Mode, presented fence.Token, cols int, rows Rows, err error, scan func(Rows) error) (written int64, stored, refused *int64, _ error) {
	if err != nil {
		return 0, nil, nil, fromTrigger(query, table, mode, presented, err)
	}
	var ref *refusalRow // only a refused write needs the scan destinations
	for rows.Next() {
		if vals := rows.RawValues(); len(vals) > 0 && vals[0] != nil {
			if ref == nil {
				ref = newRefusalRow(cols)
			}
			if err := rows.Scan(ref.dest...); err != nil {
				rows.Close()
				return 0, nil, nil, fromTrigger(query, table, mode, presented, err)
			}
			continue
		}
		if scan != nil {
			if err := scan(rows); err != nil {
				rows.Close()
				return 0, nil, nil, err
			}
		}
		written++
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, nil, nil, fromTrigger(query, table, mode, presented, err)
	}
	if ref != nil {
		stored, refused = ref.stored, ref.refused
	}
	if stored == nil {
		if written == 0 {
			return 0, nil, nil, &fence.NotFoundError{Query: query, Table: table}
		}
		return written, nil, nil, nil
	}
	if refused == nil {
		return 0, nil, nil, fmt.Errorf("fence: %s on %s: refused row without a row count", query, table)
	}
	return 0, stored, refused, nil
}

// refusalRow holds the scan destinations of a refusal row: its stored token
// and refused-row count, then nil for the query's own cols columns.
type refusalRow struct {
	stored, refused *int64
	dest            []any
}

func newRefusalRow(cols int) *refusalRow {
	r := &refusalRow{dest: make([]any, 2+cols)}
	r.dest[0], r.dest[1] = &r.stored, &r.refused
	return r
}

// WriteResult is called by generated code for one item of a fenced
// :batchexec, :batchone or :batchmany (pgx's BatchResults.Query returns
// the item's rows and error). It interprets the item's result set as
// Write does, without running anything again: a batch is sent once, so
// there is no retry. It returns the number of rows the item wrote, or:
//   - a *fence.StaleError (errors.Is fence.ErrStaleToken) when the rows matched hold a
//     token that presented does not beat under mode, or when the
//     database-side guard refused the write;
//   - a *fence.NotFoundError (errors.Is fence.ErrNotFound) when no row matched;
//   - a *fence.ConcurrentChangeError (errors.Is fence.ErrConcurrentChange) when the
//     rows were refused although their stored token is accepted: a
//     concurrent transaction changed them between the statement's snapshot
//     and its row locks, and the item wrote nothing. Where Write would run
//     the statement again, a batch item reports this instead; the caller
//     may send the item again under the same token;
//   - the driver's or scan's error, unchanged.
func WriteResult(query, table string, mode fence.Mode, presented fence.Token, cols int, rows Rows, err error, scan func(Rows) error) (int64, error) {
	written, stored, refused, err := readResult(query, table, mode, presented, cols, rows, err, scan)
	if err != nil {
		return 0, err
	}
	if stored == nil {
		return written, nil
	}
	if mode.Accepts(fence.Token(*stored), presented) {
		return 0, &fence.ConcurrentChangeError{Query: query, Table: table, Attempts: 1}
	}
	return 0, &fence.StaleError{Query: query, Table: table, Presented: presented, Stored: fence.Token(*stored), Rows: *refused, Mode: mode}
}
