package fenceimpl

import (
	"errors"

	"github.com/fencegen/fencegen/runtime/fence"
)

// WriteUpsert is called by generated code for a fenced
// INSERT ... ON CONFLICT (cols) DO UPDATE. It runs the statement as Write
// does; when no row at all comes back, the conflicting row appeared after
// the statement's snapshot (a concurrent insert), so it runs the statement
// again, at most MaxAttempts times, before reporting a *fence.NotFoundError with Upsert set
// (the DO UPDATE's own WHERE clause skipped the row: no row written).
//
// It returns the number of rows written (1), a *fence.StaleError when the
// existing row holds a token the presented one does not beat, a
// *fence.NotFoundError as above, or the database's error.
func WriteUpsert(query, table string, mode fence.Mode, presented fence.Token, cols int, run func() (Rows, error), scan func(Rows) error) (int64, error) {
	for attempt := 0; ; attempt++ {
		n, err := Write(query, table, mode, presented, cols, run, scan)
		var nf *fence.NotFoundError
		if errors.As(err, &nf) && attempt+1 < MaxAttempts {
			continue
		}
		return n, upsertNotFound(err)
	}
}

// WriteUpsertMany is called by generated code for a fenced upsert of
// several rows (VALUES rows or a SELECT). It runs the statement as Write
// does and returns what Write returns, except that a statement that wrote
// no row gives a *fence.NotFoundError with Upsert set: its DO UPDATE ...
// WHERE skipped every existing row its rows conflict with, or it had no
// row to insert.
func WriteUpsertMany(query, table string, mode fence.Mode, presented fence.Token, cols int, run func() (Rows, error), scan func(Rows) error) (int64, error) {
	n, err := Write(query, table, mode, presented, cols, run, scan)
	return n, upsertNotFound(err)
}

// WriteUpsertResult is WriteResult for one item of a batch of a fenced
// upsert: a *fence.NotFoundError it returns has Upsert set.
func WriteUpsertResult(query, table string, mode fence.Mode, presented fence.Token, cols int, rows Rows, err error, scan func(Rows) error) (int64, error) {
	n, err := WriteResult(query, table, mode, presented, cols, rows, err, scan)
	return n, upsertNotFound(err)
}

// upsertNotFound is err, with Upsert set when it is a *fence.NotFoundError
// of an upsert: no row was written, although one matched.
func upsertNotFound(err error) error {
	if nf, ok := err.(*fence.NotFoundError); ok {
		return &fence.NotFoundError{Query: nf.Query, Table: nf.Table, Upsert: true}
	}
	return err
}
