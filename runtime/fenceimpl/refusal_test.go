package fenceimpl_test

import (
	"errors"
	"testing"

	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

func TestRefusal(t *testing.T) {
	retry, err := fenceimpl.Refusal("Q", "t", fence.NonStrict, 5, 6, 1, 0)
	var se *fence.StaleError
	if retry || !errors.As(err, &se) || se.Stored != 6 || se.Presented != 5 || se.Rows != 1 {
		t.Fatalf("stale refusal: retry=%v err=%v", retry, err)
	}
	// stored 5 is acceptable for presented 5 (non-strict): a concurrent
	// change, so retry.
	if retry, err := fenceimpl.Refusal("Q", "t", fence.NonStrict, 5, 5, 1, 0); !retry || err != nil {
		t.Fatalf("concurrent change: retry=%v err=%v", retry, err)
	}
	if retry, err := fenceimpl.Refusal("Q", "t", fence.Strict, 5, 5, 1, 0); retry || !errors.Is(err, fence.ErrStaleToken) {
		t.Fatalf("strict equal: retry=%v err=%v", retry, err)
	}
	retry, err = fenceimpl.Refusal("Q", "t", fence.NonStrict, 5, 4, 1, fenceimpl.MaxAttempts-1)
	if retry || err == nil || errors.Is(err, fence.ErrStaleToken) {
		t.Fatalf("last attempt: retry=%v err=%v", retry, err)
	}
}
