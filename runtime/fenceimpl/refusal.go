package fenceimpl

import (
	"errors"

	"github.com/fencegen/fencegen/runtime/fence"
)

// MaxAttempts is how many times generated code runs a fenced statement when
// the database refused rows that the statement's own snapshot showed as
// writable. That only happens when a concurrent transaction changed or
// deleted the rows between the snapshot and the row lock (PostgreSQL docs,
// 13.2.1 "Read Committed Isolation Level"); a fresh statement sees the
// outcome.
const MaxAttempts = 5

// Refusal interprets the row a fenced write returns when it wrote nothing:
// stored is the highest token stored in the rows its WHERE clause matched,
// rows how many there were. It returns retry=true when the refusal cannot be
// explained by the token (stored would have been accepted: a concurrent
// writer got there first) and attempt is below MaxAttempts; otherwise a
// *fence.StaleError, or a *fence.ConcurrentChangeError when the rows changed on every
// attempt.
//
// Generated code calls it; applications do not need to.
func Refusal(query, table string, mode fence.Mode, presented, stored fence.Token, rows int64, attempt int) (retry bool, err error) {
	if mode.Accepts(stored, presented) {
		if attempt+1 < MaxAttempts {
			return true, nil
		}
		return false, &fence.ConcurrentChangeError{Query: query, Table: table, Attempts: MaxAttempts}
	}
	return false, &fence.StaleError{Query: query, Table: table, Presented: presented, Stored: stored, Rows: rows, Mode: mode}
}

// CheckToken is called by generated code first in every method that takes
// a fence.Token, before anything is sent: it returns a
// *fence.InvalidTokenError (errors.Is fence.ErrInvalidToken) naming query
// and table when token is 0 or negative (fence.Token.Valid), else nil.
func CheckToken(query, table string, token fence.Token) error {
	if token.Valid() {
		return nil
	}
	return &fence.InvalidTokenError{Query: query, Table: table, Token: token}
}

// Swept is called by generated code around the reader of a sweep (a query
// annotated "-- @fence sweep": a fenced UPDATE or DELETE of the rows it
// finds, which may be none): it returns n and err unchanged, except a
// *fence.NotFoundError, which becomes 0 rows and no error. A stale token
// stays a *fence.StaleError: the sweep wrote nothing.
func Swept(n int64, err error) (int64, error) {
	var nf *fence.NotFoundError
	if errors.As(err, &nf) {
		return 0, nil
	}
	return n, err
}
