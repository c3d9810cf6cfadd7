package fence

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
)

// sqlStater is implemented by database errors that carry a SQLSTATE, such
// as *pgconn.PgError (github.com/jackc/pgx/v5/pgconn).
type sqlStater interface{ SQLState() string }

var (
	// guardMessage matches the message of the guard trigger in the
	// generated fencegen_guard.sql (templates/guard.sql.tmpl):
	// "fencegen: stale token: presented N, stored M (table.column[, strict])".
	guardMessage = regexp.MustCompile(`fencegen: stale token: presented (-?\d+), stored (-?\d+) \(`)
	// castMessage matches the text of a raising guard's failed cast:
	// StaleCastMarker, the stored token, and ", rows N" when it says how
	// many rows were refused.
	castMessage = regexp.MustCompile(regexp.QuoteMeta(StaleCastMarker) + `(-?\d+)(?:, rows (\d+))?"`)
	// storedInMessage finds the stored token in any other message.
	storedInMessage = regexp.MustCompile(`stored (-?\d+)`)
)

// TriggerError is called by generated code for every statement that writes
// a fenced table but is not read by Write, WriteByKey, WriteUpsert,
// WriteInCTE or their batch readers: an opted-out query ("-- @fence off:
// <reason>"), a fenced INSERT, a :copyfrom, and the items of such batches.
// tables are the fenced tables the statement writes (qualified names).
//
// It returns err unchanged (nil included) unless err carries SQLSTATE
// SQLState, raised by the database-side guard (the trigger in the
// generated fencegen_guard.sql) when an UPDATE would lower the stored
// token, or on a strict table would not raise it. Then it returns a
// *StaleError (errors.Is ErrStaleToken) for query, whose Presented and
// Stored tokens and Mode are read from the trigger's message, and whose
// Table is the one of tables the message names (all of them, joined with
// ", ", when it names none).
func TriggerError(query string, err error, tables ...string) error {
	if se, _ := triggerStale(query, err, tables); se != nil {
		return se
	}
	return err
}

// fromTrigger is TriggerError for the guarded readers, which know the
// presented token: it returns err unchanged unless err carries SQLSTATE
// SQLState, and then a *StaleError with presented, and mode unless the
// trigger's message says which guard refused.
func fromTrigger(query, table string, mode Mode, presented Token, err error) error {
	se, fromMessage := triggerStale(query, err, []string{table})
	if se == nil {
		return err
	}
	se.Presented = presented
	if !fromMessage {
		se.Mode = mode
	}
	return se
}

// triggerStale returns the *StaleError for a database error with SQLSTATE
// SQLState, or nil for any other error. fromMessage reports whether the
// error's message is the guard trigger's, from which the tokens and the
// mode were read; otherwise only a "stored N" in the message is read.
func triggerStale(query string, err error, tables []string) (se *StaleError, fromMessage bool) {
	var s sqlStater
	if err == nil || !errors.As(err, &s) {
		return nil, false
	}
	msg := err.Error()
	if s.SQLState() == CastSQLState {
		// A raising guard (see StaleCastMarker).
		m := castMessage.FindStringSubmatch(msg)
		if m == nil {
			return nil, false
		}
		stored, perr := strconv.ParseInt(m[1], 10, 64)
		if perr != nil {
			return nil, false
		}
		rows := int64(1)
		if m[2] != "" {
			if n, err := strconv.ParseInt(m[2], 10, 64); err == nil {
				rows = n
			}
		}
		return &StaleError{Query: query, Table: strings.Join(tables, ", "), Stored: Token(stored), Rows: rows}, false
	}
	if s.SQLState() != SQLState {
		return nil, false
	}
	se = &StaleError{Query: query, Rows: 1}
	if m := guardMessage.FindStringSubmatchIndex(msg); m != nil {
		presented, perr := strconv.ParseInt(msg[m[2]:m[3]], 10, 64)
		stored, serr := strconv.ParseInt(msg[m[4]:m[5]], 10, 64)
		if perr == nil && serr == nil {
			se.Presented, se.Stored, fromMessage = Token(presented), Token(stored), true
			if strings.Contains(msg[m[1]:], ", strict)") {
				se.Mode = Strict
			}
		}
	} else if m := storedInMessage.FindStringSubmatch(msg); m != nil {
		if n, perr := strconv.ParseInt(m[1], 10, 64); perr == nil {
			se.Stored = Token(n)
		}
	}
	se.Table = strings.Join(tables, ", ")
	for _, t := range tables {
		if strings.Contains(msg, "("+t+".") {
			se.Table = t
			break
		}
	}
	return se, fromMessage
}
