package fenceimpl

import (
	"context"
	"errors"
	"fmt"

	"github.com/fencegen/fencegen/runtime/fence"
)

// WriteByKey is called by generated code for a fenced UPDATE or DELETE
// whose WHERE clause pins the primary key, so that it matches at most one
// row. run sends the guarded write; each row it returns is a written row,
// passed to scan (if not nil). Only when the write touched nothing does
// WriteByKey call stored, which reads the stored token of the row the
// WHERE clause matches: no row gives a *fence.NotFoundError, a token the
// presented one does not beat a *fence.StaleError; a token it would beat means a
// concurrent transaction changed the row between the two statements, and
// the write is tried again (at most MaxAttempts times, see Refusal). The
// success path is one round trip.
//
// ctx bounds the stored-token read as it bounds the write (run binds it):
// when ctx ends before the read has answered, WriteByKey returns an error
// that says the write wrote nothing and wraps both ctx's error (errors.Is
// context.Canceled or context.DeadlineExceeded) and the read's.
//
// It returns the number of rows written (0 or 1), those errors, or the
// database's error (the database-side guard's SQLSTATE as a *fence.StaleError).
func WriteByKey(ctx context.Context, query, table string, mode fence.Mode, presented fence.Token, run func() (Rows, error), scan func(Rows) error, stored func(ctx context.Context) (Rows, error)) (int64, error) {
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
		tok, found, err := readStoredToken(ctx, stored)
		if fields, ok := fieldsOf(err); ok && fields.code == replanSQLState && ctx.Err() == nil {
			// A session that prepared the read before a migration
			// changed the token column's type: the driver drops the
			// prepared statement on this error, so the read is sent
			// again, once (it reads; nothing was written).
			tok, found, err = readStoredToken(ctx, stored)
		}
		if err != nil {
			return 0, storedErr(ctx, query, table, err)
		}
		if found == 0 || tok == nil {
			return 0, &fence.NotFoundError{Query: query, Table: table}
		}
		retry, err := Refusal(query, table, mode, presented, fence.Token(*tok), found, attempt)
		if !retry {
			return 0, err
		}
	}
}

// replanSQLState is PostgreSQL's feature_not_supported, which a prepared
// statement fails with ("cached plan must not change result type") when
// a schema change altered the type of a column it returns since it was
// prepared; pgx then drops the statement from its cache.
const replanSQLState = "0A000"

// readStoredToken runs stored, WriteByKey's read of the stored token, and
// returns the token (nil when NULL) and the number of rows read.
func readStoredToken(ctx context.Context, stored func(ctx context.Context) (Rows, error)) (tok *int64, found int64, err error) {
	srows, err := stored(ctx)
	if err != nil {
		return nil, 0, err
	}
	defer srows.Close()
	for srows.Next() {
		if err := srows.Scan(&tok); err != nil {
			return nil, 0, err
		}
		found++
	}
	srows.Close()
	return tok, found, srows.Err()
}

// storedErr is the error of WriteByKey when the stored-token read, after a
// write that wrote nothing, failed with err. When ctx has ended, the error
// wraps ctx's error too: lib/pq reports a cancelled read as the server's
// query_canceled (SQLSTATE 57014) only, where pgx wraps the context's.
func storedErr(ctx context.Context, query, table string, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("fence: %s on %s wrote nothing; reading the stored token: %w (%w)", query, table, cerr, err)
	}
	return fmt.Errorf("fence: %s on %s wrote nothing; reading the stored token: %w", query, table, err)
}
