package fenceimpl_test

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// rows is a result set in memory: each row is a list of values, nil for
// NULL. It exercises Write's interpretation logic; the SQL itself is tested
// against real PostgreSQL in the generator's and the example's tests.
type rows struct {
	data   [][]*int64
	i      int
	closed bool
}

func (r *rows) Next() bool { r.i++; return r.i <= len(r.data) }
func (r *rows) RawValues() [][]byte {
	var out [][]byte
	for _, v := range r.data[r.i-1] {
		if v == nil {
			out = append(out, nil)
		} else {
			out = append(out, []byte(strconv.FormatInt(*v, 10)))
		}
	}
	return out
}
func (r *rows) Scan(dest ...any) error {
	for j, d := range dest {
		if d == nil {
			continue
		}
		*(d.(**int64)) = r.data[r.i-1][j]
	}
	return nil
}
func (r *rows) Close()     { r.closed = true }
func (r *rows) Err() error { return nil }

func p(v int64) *int64 { return &v }

func TestWriteOutcomes(t *testing.T) {
	tests := []struct {
		name    string
		results [][][]*int64 // one result set per attempt
		mode    fence.Mode
		want    int64
		stale   fence.Token // stored token in the expected StaleError
		notFnd  bool
		runs    int
	}{
		{name: "written", results: [][][]*int64{{{nil, nil}, {nil, nil}}}, want: 2, runs: 1},
		{name: "stale", results: [][][]*int64{{{p(9), p(1)}}}, stale: 9, runs: 1},
		{name: "not found", results: [][][]*int64{{}}, notFnd: true, runs: 1},
		{name: "concurrent change then not found", results: [][][]*int64{{{p(3), p(1)}}, {}}, notFnd: true, runs: 2},
		{name: "concurrent change then written", results: [][][]*int64{{{p(5), p(1)}}, {{nil, nil}}}, want: 1, runs: 2},
		{name: "strict equal is stale", results: [][][]*int64{{{p(5), p(1)}}}, mode: fence.Strict, stale: 5, runs: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			runs := 0
			var all []*rows
			n, err := fenceimpl.Write("Q", "t", tt.mode, 5, 0, func() (fenceimpl.Rows, error) {
				r := &rows{data: tt.results[runs]}
				runs++
				all = append(all, r)
				return r, nil
			}, nil)
			if runs != tt.runs {
				t.Errorf("ran %d times, want %d", runs, tt.runs)
			}
			for _, r := range all {
				if !r.closed {
					t.Errorf("rows not closed")
				}
			}
			var se *fence.StaleError
			switch {
			case tt.stale != 0:
				if !errors.As(err, &se) || se.Stored != tt.stale || se.Presented != 5 {
					t.Fatalf("err = %v, want stale with stored %d", err, tt.stale)
				}
			case tt.notFnd:
				if !errors.Is(err, fence.ErrNotFound) {
					t.Fatalf("err = %v, want ErrNotFound", err)
				}
			default:
				if err != nil || n != tt.want {
					t.Fatalf("Write = %d, %v; want %d, nil", n, err, tt.want)
				}
			}
		})
	}
}

func TestWriteGivesUpAfterMaxAttempts(t *testing.T) {
	runs := 0
	_, err := fenceimpl.Write("Q", "t", fence.NonStrict, 5, 0, func() (fenceimpl.Rows, error) {
		runs++
		return &rows{data: [][]*int64{{p(4), p(1)}}}, nil
	}, nil)
	if runs != fenceimpl.MaxAttempts || err == nil || errors.Is(err, fence.ErrStaleToken) || errors.Is(err, fence.ErrNotFound) {
		t.Fatalf("runs %d, err %v", runs, err)
	}
}

func TestWriteByKeyOutcomes(t *testing.T) {
	ctx := context.Background()
	tests := []struct {
		name    string
		written [][][]*int64 // the write's rows per attempt
		stored  [][][]*int64 // the stored-token read's rows per attempt
		want    int64
		stale   fence.Token
		notFnd  bool
		writes  int
	}{
		{name: "written", written: [][][]*int64{{{p(1)}}}, want: 1, writes: 1},
		{name: "stale", written: [][][]*int64{{}}, stored: [][][]*int64{{{p(9)}}}, stale: 9, writes: 1},
		{name: "not found", written: [][][]*int64{{}}, stored: [][][]*int64{{}}, notFnd: true, writes: 1},
		{name: "changed between the statements, then written", written: [][][]*int64{{}, {{p(1)}}}, stored: [][][]*int64{{{p(3)}}}, want: 1, writes: 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			writes, reads := 0, 0
			n, err := fenceimpl.WriteByKey(ctx, "Q", "t", fence.NonStrict, 5, func() (fenceimpl.Rows, error) {
				r := &rows{data: tt.written[writes]}
				writes++
				return r, nil
			}, nil, func(ctx context.Context) (fenceimpl.Rows, error) {
				if ctx.Err() != nil {
					t.Errorf("stored-token read got a cancelled context")
				}
				r := &rows{data: tt.stored[reads]}
				reads++
				return r, nil
			})
			if writes != tt.writes {
				t.Errorf("%d writes, want %d", writes, tt.writes)
			}
			var se *fence.StaleError
			switch {
			case tt.stale != 0:
				if !errors.As(err, &se) || se.Stored != tt.stale {
					t.Fatalf("err = %v, want stale %d", err, tt.stale)
				}
			case tt.notFnd:
				if !errors.Is(err, fence.ErrNotFound) {
					t.Fatalf("err = %v, want not found", err)
				}
			default:
				if err != nil || n != tt.want {
					t.Fatalf("= %d, %v", n, err)
				}
			}
		})
	}
	// The stored-token read runs under the caller's context: cancelled
	// after the write, the read sees it, and the error says nothing was
	// written.
	cctx, cancel := context.WithCancel(ctx)
	_, err := fenceimpl.WriteByKey(cctx, "Q", "t", fence.NonStrict, 5, func() (fenceimpl.Rows, error) {
		cancel()
		return &rows{}, nil
	}, nil, func(ctx context.Context) (fenceimpl.Rows, error) {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return &rows{data: [][]*int64{{p(7)}}}, nil
	})
	if !errors.Is(err, context.Canceled) || errors.Is(err, fence.ErrStaleToken) || !strings.Contains(err.Error(), "wrote nothing") {
		t.Fatalf("refusal after cancellation = %v, want context.Canceled saying nothing was written", err)
	}
}
