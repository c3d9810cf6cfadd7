package fenceimpl

import (
	"errors"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/fencegen/fencegen/runtime/fence"
)

// SQLState is the SQLSTATE that fencegen's database-side guard (the
// trigger in the generated fencegen_guard.sql) raises for an UPDATE that
// would lower the stored token (on strict tables: that would not raise it).
// Class "FN" is not one of PostgreSQL's own (PostgreSQL docs, Appendix A
// "PostgreSQL Error Codes").
//
// The trigger raises it with these fields besides its message (PostgreSQL
// docs, 43.9.1 "Reporting Errors and Messages"; 55.8 "Error and Notice
// Message Fields"): DETAIL "presented=N stored=M mode=strict" (or
// mode=non-strict), the tokens as base-10 integers; SCHEMA and TABLE, the
// fenced table the trigger belongs to; COLUMN, its token column. Generated
// code reports the error as a *fence.StaleError from every method that
// writes a fenced table, reading those fields only: the guarded readers
// (Write and the others) map it themselves, any other method through
// TriggerError.
const SQLState = "FN001"

// MissingTokenSQLState is the SQLSTATE that the database-side guard of a
// table in mode required ('fencegen:token required') raises for an UPDATE
// that does not set the token column, a write that presents no token:
// DETAIL "stored=M mode=required", and SCHEMA, TABLE and COLUMN as for
// SQLState. Generated code always sets the token, so only a hand-written
// or opted-out UPDATE meets it; TriggerError leaves it as the driver
// returned it, since it is not a stale token.
const MissingTokenSQLState = "FN002"

// StaleCastMarker starts the text that a raising guard casts to bigint so
// that the whole statement fails, and nothing it wrote stays, where a
// refusal row would not undo the statement's other writes: in an upsert of
// many rows, when a conflicting row inserted by a concurrent transaction
// after the statement locked and checked the others holds a token the
// presented one does not beat; and in a statement that, besides its fenced
// write in WITH, writes in another WITH entry or in its main query. The
// cast's text is StaleCastMarker, the stored token N and, when the guard
// knows it, ", rows M"; the cast fails with SQLSTATE CastSQLState, and
// generated code reports that error as a *fence.StaleError with Stored N
// (and Rows M).
//
// Recognition reads the SQLSTATE from the error's code field and the text
// from its message, and nothing else of the message: PostgreSQL translates
// the sentence around the text (lc_messages; in English
// `invalid input syntax for type bigint: "fencegen: stale token, stored 2"`,
// in German `ungültige Eingabesyntax für Typ bigint: »fencegen: stale
// token, stored 2«`), but never the text itself, which every message
// catalog quotes verbatim as the failed input. So neither the sentence nor
// its quotation marks matter, only the marker followed by the digits. A
// cast is used because no other construct carries a statement's own data
// into an error without an installed object: RAISE needs PL/pgSQL (a
// function, or DO, which is not an expression), and the errors that fill
// the TABLE and COLUMN fields (NOT NULL and CHECK violations, domains)
// need a constraint the table may lack, or an installed domain.
const StaleCastMarker = "fencegen: stale token, stored "

// CastSQLState is PostgreSQL's invalid_text_representation (PostgreSQL
// docs, Appendix A), the SQLSTATE of the failed cast of StaleCastMarker.
const CastSQLState = "22P02"

// The refusals' regular expressions are compiled on first use, not at
// init: the generator links this package and never reads a refusal.
var (
	// triggerDetail matches the DETAIL of the guard trigger (see SQLState).
	triggerDetail = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^presented=(-?\d+) stored=(-?\d+) mode=(strict|non-strict)$`)
	})
	// castText finds the text of a raising guard's failed cast in its
	// message: StaleCastMarker, the stored token, and ", rows N" when it
	// says how many rows were refused.
	castText = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(regexp.QuoteMeta(StaleCastMarker) + `(-?\d+)(?:, rows (\d+))?`)
	})
)

// TriggerError is called by generated code for every statement that writes
// a fenced table but is not read by Write, WriteByKey, WriteUpsert,
// WriteInCTE or their batch readers: an opted-out query ("-- @fence off:
// <reason>"), a fenced INSERT, a :copyfrom, and the items of such batches.
// tables are the fenced tables the statement writes (qualified names, the
// schema omitted for public).
//
// It returns err unchanged (nil included) unless a database error in err's
// chain carries SQLSTATE SQLState, raised by the database-side guard when
// an UPDATE would lower the stored token, or on a strict table would not
// raise it. Then it returns a *fence.StaleError (errors.Is
// fence.ErrStaleToken) for query, whose Presented and Stored tokens and
// Mode are read from the error's DETAIL field, and whose Table is the
// table its SCHEMA and TABLE fields name (all of tables, joined with ", ",
// when it names none: a trigger installed by a fencegen that did not set
// them, which also leaves the tokens 0). The message is never read.
//
// On MySQL and MariaDB it maps the guard trigger's SIGNAL
// (MySQLSignalErrno, message MySQLStaleMarker) the same way, the tokens,
// the mode and the table read from the message.
func TriggerError(query string, err error, tables ...string) error {
	if se, _ := triggerStale(query, err, tables); se != nil {
		return se
	}
	if se := mysqlStale(query, err, tables); se != nil {
		return se
	}
	return err
}

// fromTrigger is TriggerError for the guarded readers, which know the
// presented token: it returns err unchanged unless err is the
// database-side guard's, or a raising guard's failed cast, and then a
// *fence.StaleError with presented, and mode unless the trigger's DETAIL
// says which guard refused.
func fromTrigger(query, table string, mode fence.Mode, presented fence.Token, err error) error {
	se, fromDetail := triggerStale(query, err, []string{table})
	if se == nil {
		return err
	}
	se.Presented = presented
	if !fromDetail {
		se.Mode = mode
	}
	return se
}

// triggerStale returns the *fence.StaleError for a database error with
// SQLSTATE SQLState, or for a raising guard's failed cast (SQLSTATE
// CastSQLState with StaleCastMarker's text), or nil for any other error.
// fromDetail reports whether the tokens and the mode were read from the
// trigger's DETAIL field.
func triggerStale(query string, err error, tables []string) (se *fence.StaleError, fromDetail bool) {
	f, ok := fieldsOf(err)
	if !ok {
		return nil, false
	}
	switch f.code {
	case CastSQLState:
		m := castText().FindStringSubmatch(f.message)
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
		return &fence.StaleError{Query: query, Table: strings.Join(tables, ", "), Stored: fence.Token(stored), Rows: rows}, false
	case SQLState:
		se = &fence.StaleError{Query: query, Table: f.tableIn(tables), Rows: 1}
		if m := triggerDetail().FindStringSubmatch(f.detail); m != nil {
			presented, perr := strconv.ParseInt(m[1], 10, 64)
			stored, serr := strconv.ParseInt(m[2], 10, 64)
			if perr == nil && serr == nil {
				se.Presented, se.Stored, fromDetail = fence.Token(presented), fence.Token(stored), true
				if m[3] == "strict" {
					se.Mode = fence.Strict
				}
			}
		}
		return se, fromDetail
	}
	return nil, false
}

// pgFields are the fields of a PostgreSQL error that the readers use
// (PostgreSQL docs, 55.8 "Error and Notice Message Fields"): code is the
// SQLSTATE (field C), message the primary message (M, translated under
// lc_messages), detail D, schema s, table t. (The guard trigger also sets
// the column field, c, for people and tools; the readers need not read it.)
type pgFields struct {
	code, message, detail, schema, table string
}

// sqlStater is implemented by database errors that carry a SQLSTATE:
// *pgconn.PgError (github.com/jackc/pgx/v5/pgconn; pgx's database/sql
// driver returns it too) and *pq.Error (github.com/lib/pq).
type sqlStater interface{ SQLState() string }

// fieldNames are the names of pgFields' fields in the drivers' error
// structs: *pgconn.PgError's first, then *pq.Error's.
var fieldNames = struct{ message, detail, schema, table []string }{
	message: []string{"Message"},
	detail:  []string{"Detail"},
	schema:  []string{"SchemaName", "Schema"},
	table:   []string{"TableName", "Table"},
}

// fieldsOf returns the fields of the first error in err's chain that
// carries a SQLSTATE, read by name from the struct it points to (see
// fieldNames), so that no driver is imported; ok is false when there is
// none. An error that is not such a struct gives its SQLSTATE and, as its
// message, its Error text.
func fieldsOf(err error) (f pgFields, ok bool) {
	var s sqlStater
	if err == nil || !errors.As(err, &s) {
		return pgFields{}, false
	}
	f.code = s.SQLState()
	v := reflect.ValueOf(s)
	for v.Kind() == reflect.Pointer && !v.IsNil() {
		v = v.Elem()
	}
	if v.Kind() != reflect.Struct {
		if e, isErr := s.(error); isErr {
			f.message = e.Error()
		}
		return f, true
	}
	f.message = stringField(v, fieldNames.message)
	f.detail = stringField(v, fieldNames.detail)
	f.schema = stringField(v, fieldNames.schema)
	f.table = stringField(v, fieldNames.table)
	return f, true
}

// stringField returns the first of the string fields names that struct v
// has, or "".
func stringField(v reflect.Value, names []string) string {
	for _, n := range names {
		if fv := v.FieldByName(n); fv.IsValid() && fv.Kind() == reflect.String {
			return fv.String()
		}
	}
	return ""
}

// tableIn returns the one of tables (qualified names, schema omitted for
// public) that f's SCHEMA and TABLE fields name; the table they name when
// it is none of tables (a child or partition of the table written); all of
// tables joined with ", " when f names no table.
func (f pgFields) tableIn(tables []string) string {
	if f.table == "" {
		return strings.Join(tables, ", ")
	}
	name := f.table
	if f.schema != "" && f.schema != "public" {
		name = f.schema + "." + f.table
	}
	for _, t := range tables {
		if t == name {
			return t
		}
	}
	return name
}
