package fenceimpl_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"

	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// mysqlError has *mysql.MySQLError's fields (github.com/go-sql-driver/mysql).
type mysqlError struct {
	Number   uint16
	SQLState [5]byte
	Message  string
}

func (e *mysqlError) Error() string {
	return fmt.Sprintf("Error %d (%s): %s", e.Number, e.SQLState, e.Message)
}

func signal(msg string) *mysqlError {
	return &mysqlError{Number: fenceimpl.MySQLSignalErrno, SQLState: [5]byte{'4', '5', '0', '0', '0'}, Message: msg}
}

type result struct{ rows, id int64 }

func (r result) RowsAffected() (int64, error) { return r.rows, nil }
func (r result) LastInsertId() (int64, error) { return r.id, nil }

func TestMySQLTriggerError(t *testing.T) {
	err := fmt.Errorf("exec: %w", signal("fencegen: stale token presented=3 stored=7 mode=strict table=accounts"))
	got := fenceimpl.TriggerError("Q", err, "accounts", "other")
	var se *fence.StaleError
	if !errors.As(got, &se) || !errors.Is(got, fence.ErrStaleToken) {
		t.Fatalf("TriggerError = %v, want a *fence.StaleError", got)
	}
	if want := (fence.StaleError{Query: "Q", Table: "accounts", Presented: 3, Stored: 7, Rows: 1, Mode: fence.Strict}); *se != want {
		t.Fatalf("StaleError = %+v, want %+v", *se, want)
	}
	for _, other := range []error{
		signal("some other SIGNAL"),
		&mysqlError{Number: 1062, Message: "fencegen: stale token presented=3 stored=7 mode=strict"},
		errors.New("fencegen: stale token presented=3 stored=7 mode=strict"),
	} {
		if got := fenceimpl.TriggerError("Q", other, "accounts"); got != other {
			t.Errorf("TriggerError(%v) = %v, want it unchanged", other, got)
		}
	}
}

// TestMySQLByKeyDecodes: each (affected rows, last insert id) an UPDATE
// by key can return, the locked read when the id says nothing, and the
// retry on a concurrent change.
func TestMySQLByKeyDecodes(t *testing.T) {
	ctx := context.Background()
	noRead := func(context.Context) (*sql.Rows, error) {
		t.Fatal("the stored token was read although the result told")
		return nil, nil
	}
	tests := []struct {
		res     result
		n       int64
		wantErr error
	}{
		{result{1, 5}, 1, nil},
		{result{0, 7}, 1, nil}, // matched, nothing changed (id = presented)
		{result{0, ^int64(9)}, 0, fence.ErrStaleToken},
		{result{0, ^int64(3)}, 0, fence.ErrConcurrentChange}, // accepted each time: retried, then given up
	}
	for _, tt := range tests {
		calls := 0
		n, err := fenceimpl.MySQLByKey(ctx, "Q", "t", fence.NonStrict, 7, func() (sql.Result, error) { calls++; return tt.res, nil }, noRead)
		if n != tt.n || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
			t.Errorf("%+v: = %d, %v; want %d, %v", tt.res, n, err, tt.n, tt.wantErr)
		}
		if tt.wantErr == fence.ErrConcurrentChange && calls != fenceimpl.MaxAttempts {
			t.Errorf("%+v: ran %d times, want %d", tt.res, calls, fenceimpl.MaxAttempts)
		}
	}
	// No stored-token read (nil): 0 and 0 is no row.
	if _, err := fenceimpl.MySQLByKey(ctx, "Q", "t", fence.NonStrict, 7, func() (sql.Result, error) { return result{0, 0}, nil }, nil); !errors.Is(err, fence.ErrNotFound) {
		t.Errorf("0, 0 without a read: %v", err)
	}
	var se *fence.StaleError
	_, err := fenceimpl.MySQLByKey(ctx, "Q", "t", fence.NonStrict, 7, func() (sql.Result, error) { return result{0, ^int64(9)}, nil }, noRead)
	if !errors.As(err, &se) || se.Stored != 9 || se.Presented != 7 {
		t.Fatalf("stale: %v", err)
	}
}

// TestMySQLUpsertDecodes: every affected-rows value of a result is a
// written row (the refusal is an error, 1242), with and without
// clientFoundRows, whatever the last insert id.
func TestMySQLUpsertDecodes(t *testing.T) {
	ctx := context.Background()
	for _, res := range []result{{1, 0}, {1, 42}, {2, 0}, {0, 0}, {1, -3}} {
		if n, err := fenceimpl.MySQLUpsert(ctx, "Q", "t", fence.NonStrict, 7, res, nil, nil); n != 1 || err != nil {
			t.Errorf("%+v: = %d, %v; want 1 row", res, n, err)
		}
	}
	refused := &mysqlError{Number: fenceimpl.MySQLSubqueryErrno, SQLState: [5]byte{'2', '1', '0', '0', '0'}, Message: "Subquery returns more than 1 row"}
	var se *fence.StaleError
	if _, err := fenceimpl.MySQLUpsert(ctx, "Q", "t", fence.Strict, 7, nil, refused, nil); !errors.As(err, &se) || se.Presented != 7 || se.Mode != fence.Strict || se.Stored != 0 || !se.StoredUnknown {
		t.Errorf("refused: %v", err)
	}
	other := &mysqlError{Number: 1062, Message: "Duplicate entry"}
	if _, err := fenceimpl.MySQLUpsert(ctx, "Q", "t", fence.NonStrict, 7, nil, other, nil); err != other {
		t.Errorf("other error: %v, want it unchanged", err)
	}
}
