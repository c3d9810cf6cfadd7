package fence_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/fencegen/fencegen/runtime/fence"
)

// dbError is a database error with a SQLSTATE, formatted as
// *pgconn.PgError formats itself.
type dbError struct{ code, message string }

func (e *dbError) Error() string    { return "ERROR: " + e.message + " (SQLSTATE " + e.code + ")" }
func (e *dbError) SQLState() string { return e.code }

func TestTriggerError(t *testing.T) {
	if err := fence.TriggerError("Q", nil, "t"); err != nil {
		t.Fatalf("nil error: %v", err)
	}
	other := &dbError{code: "23505", message: "duplicate key"}
	if err := fence.TriggerError("Q", other, "t"); err != other {
		t.Fatalf("other SQLSTATE: %v, want it unchanged", err)
	}
	plain := errors.New("stored 5: not a database error")
	if err := fence.TriggerError("Q", plain, "t"); err != plain {
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
			err:    &dbError{fence.SQLState, "fencegen: stale token: presented 3, stored 7 (jobs.tok)"},
			tables: []string{"jobs"},
			want:   fence.StaleError{Query: "Q", Table: "jobs", Presented: 3, Stored: 7, Rows: 1, Mode: fence.NonStrict},
		},
		{
			name:   "strict, wrapped",
			err:    fmt.Errorf("exec: %w", &dbError{fence.SQLState, "fencegen: stale token: presented 7, stored 7 (app.jobs.tok, strict)"}),
			tables: []string{"jobs", "app.jobs"},
			want:   fence.StaleError{Query: "Q", Table: "app.jobs", Presented: 7, Stored: 7, Rows: 1, Mode: fence.Strict},
		},
		{
			name:   "the table the message names",
			err:    &dbError{fence.SQLState, "fencegen: stale token: presented 1, stored 2 (b.\"user\")"},
			tables: []string{"a", "b"},
			want:   fence.StaleError{Query: "Q", Table: "b", Presented: 1, Stored: 2, Rows: 1},
		},
		{
			name:   "another message",
			err:    &dbError{fence.SQLState, "refused: stored 9"},
			tables: []string{"a", "b"},
			want:   fence.StaleError{Query: "Q", Table: "a, b", Stored: 9, Rows: 1},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := fence.TriggerError("Q", tt.err, tt.tables...)
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
	trig := &dbError{fence.SQLState, "fencegen: stale token: presented 5, stored 5 (t.tok, strict)"}
	_, err := fence.Write("Q", "t", fence.NonStrict, 5, 0, func() (fence.Rows, error) { return nil, trig }, nil)
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
		{name: "database-side guard", err: &dbError{fence.SQLState, "fencegen: stale token: presented 5, stored 8 (t.tok)"}, stale: 8},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var r *rows
			if tt.err == nil {
				r = &rows{data: tt.data}
			}
			scanned := 0
			scan := func(fence.Rows) error { scanned++; return nil }
			var n int64
			var err error
			if r != nil {
				n, err = fence.WriteInCTEResult("Q", "t", fence.NonStrict, 5, 1, r, nil, scan)
				if !r.closed {
					t.Error("rows not closed")
				}
			} else {
				n, err = fence.WriteInCTEResult("Q", "t", fence.NonStrict, 5, 1, nil, tt.err, scan)
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
	n, err := fence.WriteInCTE("Q", "t", fence.NonStrict, 5, 0, func() (fence.Rows, error) { runs++; return &rows{}, nil }, nil)
	if n != 0 || err != nil || runs != 1 {
		t.Fatalf("WriteInCTE without rows = %d, %v after %d runs; want 0, nil after 1", n, err, runs)
	}
}

// The raising guard of an upsert of many rows fails a cast of
// StaleCastMarker + the stored token (SQLSTATE 22P02); any other 22P02 is
// left alone.
func TestStaleCastError(t *testing.T) {
	err := &dbError{fence.CastSQLState, `invalid input syntax for type bigint: "` + fence.StaleCastMarker + `12"`}
	var se *fence.StaleError
	if got := fence.TriggerError("Q", err, "items"); !errors.As(got, &se) || se.Stored != 12 || se.Table != "items" || !errors.Is(got, fence.ErrStaleToken) {
		t.Fatalf("TriggerError = %#v, want a stale-token error with stored 12", got)
	}
	other := &dbError{fence.CastSQLState, `invalid input syntax for type bigint: "12abc"`}
	if got := fence.TriggerError("Q", other, "items"); got != other {
		t.Fatalf("another cast error: %v, want it unchanged", got)
	}
}
