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

// CheckToken refuses exactly the tokens no lease mints (below 1), with the
// sentinel and the token in the typed error; a valid token passes.
func TestCheckToken(t *testing.T) {
	for _, tok := range []fence.Token{0, -1, -5, -1 << 63} {
		err := fenceimpl.CheckToken("CreditAccount", "account_balances", tok)
		var ie *fence.InvalidTokenError
		if !errors.Is(err, fence.ErrInvalidToken) || !errors.As(err, &ie) || ie.Token != tok || ie.Query != "CreditAccount" || ie.Table != "account_balances" {
			t.Fatalf("CheckToken(%d) = %v; want a *fence.InvalidTokenError with token %d", tok, err, tok)
		}
		if errors.Is(err, fence.ErrStaleToken) || errors.Is(err, fence.ErrNotFound) {
			t.Fatalf("CheckToken(%d) = %v also matches another sentinel", tok, err)
		}
	}
	for _, tok := range []fence.Token{1, 2, 1<<63 - 1} {
		if err := fenceimpl.CheckToken("Q", "t", tok); err != nil {
			t.Fatalf("CheckToken(%d) = %v, want nil", tok, err)
		}
	}
}

// Swept turns no row matched into 0 rows and no error, and leaves the
// other outcomes as they are.
func TestSwept(t *testing.T) {
	if n, err := fenceimpl.Swept(0, &fence.NotFoundError{Query: "Q", Table: "t"}); n != 0 || err != nil {
		t.Fatalf("not found: %d, %v", n, err)
	}
	stale := &fence.StaleError{Query: "Q", Table: "t", Presented: 3, Stored: 4}
	if n, err := fenceimpl.Swept(0, stale); n != 0 || err != stale {
		t.Fatalf("stale: %d, %v", n, err)
	}
	if n, err := fenceimpl.Swept(7, nil); n != 7 || err != nil {
		t.Fatalf("written: %d, %v", n, err)
	}
}
