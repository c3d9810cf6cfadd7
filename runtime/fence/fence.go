package fence

import (
	"errors"
	"fmt"
	"strconv"
)

// Token is a fencing token: a positive, strictly increasing number minted
// once per lease acquisition. The zero Token is never minted; it is the
// value a fenced row holds before any fenced write (the column default).
//
// Tokens from the same resource compare with the ordinary integer order: the
// larger token belongs to the later acquisition.
type Token int64

// String formats the token in base 10.
func (t Token) String() string { return strconv.FormatInt(int64(t), 10) }

// Valid reports whether t is a token a lease can mint: t ≥ 1. Token 0 is
// the value of a row no fenced write has touched (a NonStrict write
// presenting it would pass the guard of every such row), and a negative
// token stored by an INSERT would let any later token overwrite the row, so
// generated methods refuse both before sending anything (InvalidTokenError).
func (t Token) Valid() bool { return t >= 1 }

// Mode says which stored tokens a fenced write accepts.
type Mode uint8

const (
	// NonStrict accepts a write when stored ≤ presented and stores the
	// presented token. The current holder may write the same row many times
	// under one lease; only lower tokens are rejected (Kleppmann 2016). This
	// is the default.
	NonStrict Mode = iota
	// Strict accepts a write only when stored < presented: at most one write
	// per row per lease.
	Strict
)

// String returns "non-strict" or "strict".
func (m Mode) String() string {
	if m == Strict {
		return "strict"
	}
	return "non-strict"
}

// Accepts reports whether a write presenting token presented may overwrite a
// row that stores token stored under mode m.
func (m Mode) Accepts(stored, presented Token) bool {
	if m == Strict {
		return stored < presented
	}
	return stored <= presented
}

var (
	// ErrStaleToken is the sentinel for a write rejected because the row
	// already stores a token that the presented token does not beat. Test for
	// it with errors.Is; use errors.As with *StaleError for the details.
	ErrStaleToken = errors.New("fence: stale token")

	// ErrNotFound is the sentinel for a fenced write that wrote no row
	// for a reason other than the token: its WHERE clause matched no row,
	// or an upsert's DO UPDATE ... WHERE skipped the row it conflicts
	// with (see NotFoundError). It is not a fencing failure.
	ErrNotFound = errors.New("fence: no row matched")
	// ErrConcurrentChange is the sentinel for a fenced write that wrote
	// nothing because concurrent transactions changed the rows it matched
	// between its snapshot and its row locks, although their stored token
	// would have been accepted. It is neither a stale token nor a missing
	// row: running the write again under the same token is safe.
	ErrConcurrentChange = errors.New("fence: rows changed concurrently")
	// ErrInvalidToken is the sentinel for a fenced write refused before
	// any round trip because its token is 0 or negative, which no lease
	// mints (Token.Valid): typically a zero Token never set from a lease.
	// Nothing was sent to the database. Use errors.As with
	// *InvalidTokenError for the details.
	ErrInvalidToken = errors.New("fence: invalid token")
)

// StaleError is the error a generated fenced method returns when the
// database rejected its write because of the fencing token. Unwrap returns
// ErrStaleToken.
type StaleError struct {
	// Query is the name of the generated query, e.g. "CreditAccount".
	Query string
	// Table is the fenced table the write targeted.
	Table string
	// Presented is the token the caller passed.
	Presented Token
	// Stored is the highest token stored in the rows that blocked the write,
	// as read in the same statement. A lease runtime can move its counter
	// above it to recover from a lost counter.
	Stored Token
	// Rows is how many rows the write matched but refused (1 for a write by
	// key).
	Rows int64
	// Mode is the guard that refused the write.
	Mode Mode
	// StoredUnknown is set when the refusal could not read the stored
	// token (on MySQL: the refused rows were gone when read, or the
	// write's conflict was on a key the read does not cover); Stored is
	// then 0 and says nothing.
	StoredUnknown bool
}

// Error returns "fence: stale token in <query> on <table>: presented N,
// stored M (<mode>)", or "..., stored token unknown (<mode>)" when
// StoredUnknown.
func (e *StaleError) Error() string {
	if e.StoredUnknown {
		return fmt.Sprintf("fence: stale token in %s on %s: presented %d, stored token unknown (%s)",
			e.Query, e.Table, e.Presented, e.Mode)
	}
	return fmt.Sprintf("fence: stale token in %s on %s: presented %d, stored %d (%s)",
		e.Query, e.Table, e.Presented, e.Stored, e.Mode)
}

// Unwrap returns ErrStaleToken.
func (e *StaleError) Unwrap() error { return ErrStaleToken }

// NotFoundError is the error a generated fenced method returns when it
// wrote no row for a reason other than the token: an UPDATE or DELETE
// whose WHERE clause matched no row, or an INSERT ... ON CONFLICT ... DO
// UPDATE whose own DO UPDATE ... WHERE skipped the existing row it
// conflicts with (Upsert). sqlc's code returns no error there (nil, or 0
// rows): see fencegen's docs/sqlc.md. Unwrap returns ErrNotFound.
type NotFoundError struct {
	// Query is the name of the generated query.
	Query string
	// Table is the fenced table the write targeted.
	Table string
	// Upsert is set for an INSERT ... ON CONFLICT ... DO UPDATE: the row
	// it conflicts with exists, but the statement's DO UPDATE ... WHERE
	// skipped it (or, for rows from a SELECT, the SELECT gave none), so
	// nothing was inserted or updated.
	Upsert bool
}

// Error is "fence: <Query> on <Table>: no row matched" for an UPDATE or
// DELETE; for an upsert it says no row was written, and why.
func (e *NotFoundError) Error() string {
	if e.Upsert {
		return fmt.Sprintf("fence: %s on %s: no row was written: the row it conflicts with exists, but the statement's DO UPDATE ... WHERE skipped it (or it had no row to insert)", e.Query, e.Table)
	}
	return fmt.Sprintf("fence: %s on %s: no row matched", e.Query, e.Table)
}

// Unwrap returns ErrNotFound.
func (e *NotFoundError) Unwrap() error { return ErrNotFound }

// ConcurrentChangeError is the error of a fenced write that wrote nothing
// because concurrent transactions kept changing the rows it matched (their
// stored token would have been accepted). A generated method returns it
// after running the statement 5 times; an item of a fenced batch returns it at once,
// since a batch is not sent again (Attempts is 1). Unwrap returns
// ErrConcurrentChange.
type ConcurrentChangeError struct {
	// Query is the name of the generated query.
	Query string
	// Table is the fenced table the write targeted.
	Table string
	// Attempts is how many times the statement ran.
	Attempts int
	// Hint, when not empty, names another cause the write's reply could
	// not rule out and how to rule it out (a setting of the connection,
	// e.g. MySQL's clientFoundRows=true); Error appends it.
	Hint string
}

// Error names the query, the table and the number of attempts, then Hint.
func (e *ConcurrentChangeError) Error() string {
	var msg string
	if e.Attempts > 1 {
		msg = fmt.Sprintf("fence: %s on %s: rows changed concurrently during each of %d attempts", e.Query, e.Table, e.Attempts)
	} else {
		msg = fmt.Sprintf("fence: %s on %s: rows changed concurrently; nothing was written, send the write again", e.Query, e.Table)
	}
	if e.Hint != "" {
		msg += " (" + e.Hint + ")"
	}
	return msg
}

// Unwrap returns ErrConcurrentChange.
func (e *ConcurrentChangeError) Unwrap() error { return ErrConcurrentChange }

// InvalidTokenError is the error a generated method taking a fence.Token
// returns, before sending anything, when the token is 0 or negative
// (Token.Valid is false): no lease mints such a token, so it is a caller's
// bug, typically a Token variable never assigned from Lease.Token. Unwrap
// returns ErrInvalidToken.
type InvalidTokenError struct {
	// Query is the name of the generated query, e.g. "CreditAccount".
	Query string
	// Table is the fenced table the write targets.
	Table string
	// Token is the token the caller passed.
	Token Token
}

// Error returns "fence: <query> on <table>: token N is not a fencing token
// (a lease mints tokens from 1 up); nothing was sent".
func (e *InvalidTokenError) Error() string {
	return fmt.Sprintf("fence: %s on %s: token %d is not a fencing token (a lease mints tokens from 1 up); nothing was sent",
		e.Query, e.Table, e.Token)
}

// Unwrap returns ErrInvalidToken.
func (e *InvalidTokenError) Unwrap() error { return ErrInvalidToken }
