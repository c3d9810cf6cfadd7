package fenceimpl

import (
	"errors"

	"github.com/fencegen/fencegen/runtime/fence"
)

// WriteInCTE is called by generated code for a statement whose fenced
// UPDATE or DELETE is a data-modifying WITH entry. run sends the statement
// (one round trip); WriteInCTE reads its result with WriteInCTEResult and
// returns what that returns.
func WriteInCTE(query, table string, mode fence.Mode, presented fence.Token, cols int, run func() (Rows, error), scan func(Rows) error) (int64, error) {
	rows, err := run()
	return WriteInCTEResult(query, table, mode, presented, cols, rows, err, scan)
}

// WriteInCTEResult reads the result of a statement whose fenced UPDATE or
// DELETE is a data-modifying WITH entry: rows and err are what sending it
// returned (for one item of a :batchexec, :batchone or :batchmany, what
// pgx's BatchResults.Query returned). Generated code calls it through
// WriteInCTE, and directly for each batch item, so that both follow one
// rule.
//
// The statement's own rows come back as they are, each passed to scan (if
// not nil) with two nil destinations first: none is a valid answer, and
// not an error ("not found" is the main query's business; the fenced write
// may have written rows that the main query filtered out). When the fenced
// write refused, one refusal row comes back instead (see Write): then it
// returns a *fence.StaleError (errors.Is fence.ErrStaleToken) with the highest stored
// token, and nothing was written. A database error is returned unchanged,
// except the database-side guard's (SQLSTATE SQLState), returned as a
// *fence.StaleError. Otherwise it returns the number of rows the statement
// returned.
func WriteInCTEResult(query, table string, mode fence.Mode, presented fence.Token, cols int, rows Rows, err error, scan func(Rows) error) (int64, error) {
	n, stored, refused, err := readResult(query, table, mode, presented, cols, rows, err, scan)
	var nf *fence.NotFoundError
	switch {
	case errors.As(err, &nf):
		return 0, nil
	case err != nil:
		return 0, err
	case stored != nil:
		return 0, &fence.StaleError{Query: query, Table: table, Presented: presented, Stored: fence.Token(*stored), Rows: *refused, Mode: mode}
	}
	return n, nil
}
