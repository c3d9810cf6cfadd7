package fenceimpl_test

import (
	"errors"
	"testing"

	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// TestWriteResultOutcomes checks the interpretation of one batch item's
// result set: written, stale, not found and a concurrent change (which a
// batch item reports instead of retrying).
func TestWriteResultOutcomes(t *testing.T) {
	tests := []struct {
		name     string
		data     [][]*int64
		mode     fence.Mode
		want     int64
		sentinel error
		stored   fence.Token
	}{
		{name: "written", data: [][]*int64{{nil, nil}}, want: 1},
		{name: "written many", data: [][]*int64{{nil, nil}, {nil, nil}, {nil, nil}}, want: 3},
		{name: "stale", data: [][]*int64{{p(9), p(2)}}, sentinel: fence.ErrStaleToken, stored: 9},
		{name: "not found", data: nil, sentinel: fence.ErrNotFound},
		{name: "concurrent change", data: [][]*int64{{p(4), p(1)}}, sentinel: fence.ErrConcurrentChange},
		{name: "strict equal is stale", data: [][]*int64{{p(5), p(1)}}, mode: fence.Strict, sentinel: fence.ErrStaleToken, stored: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := &rows{data: tt.data}
			n, err := fenceimpl.WriteResult("Q", "t", tt.mode, 5, 0, r, nil, nil)
			if !r.closed {
				t.Error("rows not closed")
			}
			if tt.sentinel == nil {
				if err != nil || n != tt.want {
					t.Fatalf("got %d, %v; want %d, nil", n, err, tt.want)
				}
				return
			}
			if n != 0 || !errors.Is(err, tt.sentinel) {
				t.Fatalf("got %d, %v; want 0 and %v", n, err, tt.sentinel)
			}
			for _, other := range []error{fence.ErrStaleToken, fence.ErrNotFound, fence.ErrConcurrentChange} {
				if other != tt.sentinel && errors.Is(err, other) {
					t.Fatalf("%v also matches %v", err, other)
				}
			}
			var se *fence.StaleError
			if errors.As(err, &se) && (se.Stored != tt.stored || se.Presented != 5) {
				t.Fatalf("StaleError = %+v, want stored %d presented 5", se, tt.stored)
			}
		})
	}
}

func TestWriteResultPassesDriverError(t *testing.T) {
	boom := errors.New("boom")
	if _, err := fenceimpl.WriteResult("Q", "t", fence.NonStrict, 5, 0, nil, boom, nil); err != boom {
		t.Fatalf("got %v, want the driver's error", err)
	}
}
