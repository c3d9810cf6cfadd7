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
// by key can return, and the retry on a concurrent change.
func TestMySQLByKeyDecodes(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		res     result
		n       int64
		wantErr error
	}{
		{result{1, 5}, 1, nil},
		{result{0, 7}, 1, nil}, // matched, nothing changed (id = presented)
		{result{0, 0}, 0, fence.ErrNotFound},
		{result{0, ^int64(9)}, 0, fence.ErrStaleToken},
		{result{0, ^int64(3)}, 0, fence.ErrConcurrentChange}, // accepted each time: retried, then given up
	}
	for _, tt := range tests {
		calls := 0
		n, err := fenceimpl.MySQLByKey(ctx, "Q", "t", fence.NonStrict, 7, func() (sql.Result, error) { calls++; return tt.res, nil }, nil)
		if n != tt.n || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil && err != nil) {
			t.Errorf("%+v: = %d, %v; want %d, %v", tt.res, n, err, tt.n, tt.wantErr)
		}
		if tt.wantErr == fence.ErrConcurrentChange && calls != fenceimpl.MaxAttempts {
			t.Errorf("%+v: ran %d times, want %d", tt.res, calls, fenceimpl.MaxAttempts)
		}
	}
	var se *fence.StaleError
	_, err := fenceimpl.MySQLByKey(ctx, "Q", "t", fence.NonStrict, 7, func() (sql.Result, error) { return result{0, ^int64(9)}, nil }, nil)
	if !errors.As(err, &se) || se.Stored != 9 || se.Presented != 7 {
		t.Fatalf("stale: %v", err)
	}
}

// TestMySQLUpsertDecodes: the 0/1/2 affected-rows values, with and
// without clientFoundRows, told apart by the last insert id.
func TestMySQLUpsertDecodes(t *testing.T) {
	tests := []struct {
		name    string
		res     result
		wantErr error
	}{
		{"inserted", result{1, 0}, nil},
		{"inserted, AUTO_INCREMENT", result{1, 42}, nil},
		{"updated", result{2, ^int64(5)}, nil},
		{"unchanged, accepted", result{0, ^int64(7)}, nil},
		{"unchanged, accepted, clientFoundRows", result{1, ^int64(7)}, nil},
		{"refused", result{0, ^int64(8)}, fence.ErrStaleToken},
		{"refused, clientFoundRows", result{1, ^int64(8)}, fence.ErrStaleToken},
	}
	for _, tt := range tests {
		n, err := fenceimpl.MySQLUpsert("Q", "t", fence.NonStrict, 7, tt.res, nil)
		if tt.wantErr == nil && (err != nil || n != 1) || tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
			t.Errorf("%s: = %d, %v; want %v", tt.name, n, err, tt.wantErr)
		}
	}
	if _, err := fenceimpl.MySQLUpsert("Q", "t", fence.NonStrict, 7, result{0, 3}, nil); err == nil {
		t.Error("an impossible result read as success")
	}
}
