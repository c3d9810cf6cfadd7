package fenceimpl_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// dbError is a database error with *pgconn.PgError's fields (those the
// readers use) and methods.
type dbError struct {
	Code, Message, Detail, SchemaName, TableName, ColumnName string
}

func (e *dbError) Error() string    { return "ERROR: " + e.Message + " (SQLSTATE " + e.Code + ")" }
func (e *dbError) SQLState() string { return e.Code }

// pqError has the field names of *pq.Error (github.com/lib/pq), whose
// Code is a string type of its own.
type pqError struct {
	Code                                   pqCode
	Message, Detail, Schema, Table, Column string
}

type pqCode string

func (e *pqError) Error() string    { return "pq: " + e.Message }
func (e *pqError) SQLState() string { return string(e.Code) }

// guardErr is the database-side guard's error as the trigger raises it.
func guardErr(presented, stored int, mode, schema, table string) *dbError {
	return &dbError{
		Code:       fenceimpl.SQLState,
		Message:    "fencegen: stale token (any text, never read)",
		Detail:     fmt.Sprintf("presented=%d stored=%d mode=%s", presented, stored, mode),
		SchemaName: schema, TableName: table, ColumnName: "tok",
	}
}

func TestTriggerError(t *testing.T) {
	if err := fenceimpl.TriggerError("Q", nil, "t"); err != nil {
		t.Fatalf("nil error: %v", err)
	}
	other := &dbError{Code: "23505", Message: "duplicate key"}
	if err := fenceimpl.TriggerError("Q", other, "t"); err != other {
		t.Fatalf("other SQLSTATE: %v, want it unchanged", err)
	}
	plain := errors.New("stored 5: not a database error")
	if err := fenceimpl.TriggerError("Q", plain, "t"); err != plain {
		t.Fatalf("error without SQLSTATE: %v, want it unchanged", err)
	}
	tests := []struct {
		name   string
		err    error
		tables []string
		want   fence.StaleError
	}{
		{
			name:   "non-strict",
			err:    guardErr(3, 7, "non-strict", "public", "jobs"),
			tables: []string{"jobs"},
			want:   fence.StaleError{Query: "Q", Table: "jobs", Presented: 3, Stored: 7, Rows: 1, Mode: fence.NonStrict},
		},
		{
			name:   "strict, wrapped",
			err:    fmt.Errorf("exec: %w", guardErr(7, 7, "strict", "app", "jobs")),
			tables: []string{"jobs", "app.jobs"},
			want:   fence.StaleError{Query: "Q", Table: "app.jobs", Presented: 7, Stored: 7, Rows: 1, Mode: fence.Strict},
		},
		{
			name:   "the table the fields name",
			err:    guardErr(1, 2, "non-strict", "b", `user`),
			tables: []string{"a", "b.user"},
			want:   fence.StaleError{Query: "Q", Table: "b.user", Presented: 1, Stored: 2, Rows: 1},
		},
		{
			name:   "a child of the table written",
			err:    guardErr(1, 2, "non-strict", "public", "events_eu"),
			tables: []string{"events"},
			want:   fence.StaleError{Query: "Q", Table: "events_eu", Presented: 1, Stored: 2, Rows: 1},
		},
		{
			name: "lib/pq's error",
			err: &pqError{Code: fenceimpl.SQLState, Detail: "presented=4 stored=6 mode=strict",
				Schema: "public", Table: "jobs", Column: "tok"},
			tables: []string{"jobs"},
			want:   fence.StaleError{Query: "Q", Table: "jobs", Presented: 4, Stored: 6, Rows: 1, Mode: fence.Strict},
		},
		{
			// An older trigger: the message names tokens, but only the
			// fields are read.
			name:   "no fields",
			err:    &dbError{Code: fenceimpl.SQLState, Message: "fencegen: stale token: presented 3, stored 7 (a.tok)"},
			tables: []string{"a", "b"},
			want:   fence.StaleError{Query: "Q", Table: "a, b", Rows: 1},
		},
		{
			name:   "a DETAIL of another form",
			err:    &dbError{Code: fenceimpl.SQLState, Detail: "stored 9", TableName: "b", SchemaName: "public"},
			tables: []string{"a", "b"},
			want:   fence.StaleError{Query: "Q", Table: "b", Rows: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := fenceimpl.TriggerError("Q", tt.err, tt.tables...)
			var se *fence.StaleError
			if !errors.As(err, &se) || !errors.Is(err, fence.ErrStaleToken) || errors.Is(err, fence.ErrNotFound) {
				t.Fatalf("got %v, want a *fence.StaleError", err)
			}
			if *se != tt.want {
				t.Fatalf("got %+v, want %+v", *se, tt.want)
			}
		})
	}
}

// The guarded readers map the trigger's SQLSTATE too, with the token the
// caller presented.
func TestWriteMapsTrigger(t *testing.T) {
	trig := guardErr(5, 5, "strict", "public", "t")
	_, err := fenceimpl.Write("Q", "t", fence.NonStrict, 5, 0, func() (fenceimpl.Rows, error) { return nil, trig }, nil)
	var se *fence.StaleError
	if !errors.As(err, &se) || se.Presented != 5 || se.Stored != 5 || se.Mode != fence.Strict || se.Table != "t" {
		t.Fatalf("Write = %v (%+v)", err, se)
	}
}

// TestWriteInCTEResult reads one batch item's result set as WriteInCTE
// reads the statement's: its own rows, none included, or a refusal.
func TestWriteInCTEResult(t *testing.T) {
	tests := []struct {
		name  string
		data  [][]*int64
		err   error
		want  int64
		stale fence.Token
	}{
		{name: "rows", data: [][]*int64{{nil, nil, p(1)}, {nil, nil, p(2)}}, want: 2},
		{name: "no rows is not an error", data: nil, want: 0},
		{name: "refused", data: [][]*int64{{nil, nil, p(0)}, {p(9), p(1), nil}}, stale: 9},
		{name: "refused, strict equal token", data: [][]*int64{{p(5), p(1), nil}}, stale: 5},
		{name: "database-side guard", err: guardErr(5, 8, "non-strict", "public", "t"), stale: 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r *rows
			if tt.err == nil {
				r = &rows{data: tt.data}
			}
			scanned := 0
			scan := func(fenceimpl.Rows) error { scanned++; return nil }
			var n int64
			var err error
			if r != nil {
				n, err = fenceimpl.WriteInCTEResult("Q", "t", fence.NonStrict, 5, 1, r, nil, scan)
				if !r.closed {
					t.Error("rows not closed")
				}
			} else {
				n, err = fenceimpl.WriteInCTEResult("Q", "t", fence.NonStrict, 5, 1, nil, tt.err, scan)
			}
			if tt.stale != 0 {
				var se *fence.StaleError
				if !errors.As(err, &se) || se.Stored != tt.stale || se.Presented != 5 || n != 0 {
					t.Fatalf("got %d, %v; want a stale error with stored %d", n, err, tt.stale)
				}
				return
			}
			if err != nil || n != tt.want || scanned != int(tt.want) {
				t.Fatalf("got %d, %v (%d scanned); want %d, nil", n, err, scanned, tt.want)
			}
		})
	}
	// WriteInCTE runs the statement once and reads it the same way.
	runs := 0
	n, err := fenceimpl.WriteInCTE("Q", "t", fence.NonStrict, 5, 0, func() (fenceimpl.Rows, error) { runs++; return &rows{}, nil }, nil)
	if n != 0 || err != nil || runs != 1 {
		t.Fatalf("WriteInCTE without rows = %d, %v after %d runs; want 0, nil after 1", n, err, runs)
	}
}

// The raising guard of an upsert of many rows fails a cast of
// StaleCastMarker + the stored token (SQLSTATE 22P02), whatever the
// language of the sentence around it; any other 22P02 is left alone.
func TestStaleCastError(t *testing.T) {
	for _, tt := range []struct {
		msg          string
		stored, rows fence.Token
	}{
		{`invalid input syntax for type bigint: "` + fenceimpl.StaleCastMarker + `12"`, 12, 1},
		{`ungültige Eingabesyntax für Typ bigint: »` + fenceimpl.StaleCastMarker + `12, rows 3«`, 12, 3},
		{`invalid input syntax for type bigint: "` + fenceimpl.StaleCastMarker + `-4, rows 2"`, -4, 2},
		{`bigint 型の入力構文が不正です: "` + fenceimpl.StaleCastMarker + `7"`, 7, 1},
	} {
		err := &dbError{Code: fenceimpl.CastSQLState, Message: tt.msg}
		var se *fence.StaleError
		if got := fenceimpl.TriggerError("Q", err, "items"); !errors.As(got, &se) || se.Stored != tt.stored || se.Rows != int64(tt.rows) || se.Table != "items" || !errors.Is(got, fence.ErrStaleToken) {
			t.Errorf("TriggerError(%q) = %#v, want a stale-token error with stored %d, rows %d", tt.msg, got, tt.stored, tt.rows)
		}
	}
	other := &dbError{Code: fenceimpl.CastSQLState, Message: `invalid input syntax for type bigint: "12abc"`}
	if got := fenceimpl.TriggerError("Q", other, "items"); got != other {
		t.Fatalf("another cast error: %v, want it unchanged", got)
	}
	// The marker under another SQLSTATE is not the guard's.
	division := &dbError{Code: "22012", Message: fenceimpl.StaleCastMarker + "12"}
	if got := fenceimpl.TriggerError("Q", division, "items"); got != division {
		t.Fatalf("the marker under SQLSTATE 22012: %v, want it unchanged", got)
	}
}
