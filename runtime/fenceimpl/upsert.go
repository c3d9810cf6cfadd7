package fenceimpl

import (
	"errors"

	"github.com/fencegen/fencegen/runtime/fence"
)

// WriteUpsert is called by generated code for a fenced
// INSERT ... ON CONFLICT (cols) DO UPDATE. It runs the statement as Write
// does; when no row at all comes back, the conflicting row appeared after
// the statement's snapshot (a concurrent insert), so it runs the statement
// again, at most MaxAttempts times, before reporting a *fence.NotFoundError (the
// DO UPDATE's own WHERE clause refused the row).
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
		return n, err
	}
}
