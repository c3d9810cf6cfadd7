package fence

import (
	"context"
	"time"
)

// StoredTimeout bounds the stored-token read of WriteByKey.
const StoredTimeout = 5 * time.Second

// WriteByKey is called by generated code for a fenced UPDATE or DELETE
// whose WHERE clause pins the primary key, so that it matches at most one
// row. run sends the guarded write; each row it returns is a written row,
// passed to scan (if not nil). Only when the write touched nothing does
// WriteByKey call stored, which reads the stored token of the row the
// WHERE clause matches: no row gives a *NotFoundError, a token the
// presented one does not beat a *StaleError; a token it would beat means a
// concurrent transaction changed the row between the two statements, and
// the write is tried again (at most MaxAttempts times, see Refusal). The
// success path is one round trip.
//
// The stored-token read runs on context.WithoutCancel(ctx) bounded by
// StoredTimeout: a write that was refused before the caller's context was
// cancelled (a lease lost at that moment, say) is reported as stale, not
// as the cancellation. ctx still bounds the write itself.
//
// It returns the number of rows written (0 or 1), those errors, or the
// database's error (the database-side guard's SQLSTATE as a *StaleError).
func WriteByKey(ctx context.Context, query, table string, mode Mode, presented Token, run func() (Rows, error), scan func(Rows) error, stored func(ctx context.Context) (Rows, error)) (int64, error) {
	for attempt := 0; ; attempt++ {
		rows, err := run()
		if err != nil {
			return 0, fromTrigger(query, table, mode, presented, err)
		}
		var written int64
		for rows.Next() {
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
		if written > 0 {
			return written, nil
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), StoredTimeout)
		srows, err := stored(sctx)
		if err != nil {
			cancel()
			return 0, err
		}
		var (
			tok   *int64
			found int64
		)
		for srows.Next() {
			if err := srows.Scan(&tok); err != nil {
				srows.Close()
				cancel()
				return 0, err
			}
			found++
		}
		srows.Close()
		cancel()
		if err := srows.Err(); err != nil {
			return 0, err
		}
		if found == 0 || tok == nil {
			return 0, &NotFoundError{Query: query, Table: table}
		}
		retry, err := Refusal(query, table, mode, presented, Token(*tok), found, attempt)
		if !retry {
			return 0, err
		}
	}
}
