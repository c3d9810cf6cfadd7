package fence_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/fencegen/fencegen/runtime/fence"
)

func TestModeAccepts(t *testing.T) {
	tests := []struct {
		mode              fence.Mode
		stored, presented fence.Token
		want              bool
	}{
		{fence.NonStrict, 0, 1, true},
		{fence.NonStrict, 5, 5, true},
		{fence.NonStrict, 6, 5, false},
		{fence.Strict, 4, 5, true},
		{fence.Strict, 5, 5, false},
		{fence.Strict, 6, 5, false},
	}
	for _, tt := range tests {
		if got := tt.mode.Accepts(tt.stored, tt.presented); got != tt.want {
			t.Errorf("%s.Accepts(%d, %d) = %v, want %v", tt.mode, tt.stored, tt.presented, got, tt.want)
		}
	}
}

func TestErrorsWrap(t *testing.T) {
	err := fmt.Errorf("query CreditAccount: %w", &fence.StaleError{Query: "CreditAccount", Table: "account_balances", Presented: 3, Stored: 4, Rows: 1})
	if !errors.Is(err, fence.ErrStaleToken) {
		t.Fatalf("errors.Is(%v, ErrStaleToken) = false", err)
	}
	if errors.Is(err, fence.ErrNotFound) {
		t.Fatalf("stale error matches ErrNotFound")
	}
	var se *fence.StaleError
	if !errors.As(err, &se) || se.Stored != 4 || se.Presented != 3 {
		t.Fatalf("errors.As = %+v", se)
	}
	nf := fmt.Errorf("wrap: %w", &fence.NotFoundError{Query: "Q", Table: "t"})
	if !errors.Is(nf, fence.ErrNotFound) || errors.Is(nf, fence.ErrStaleToken) {
		t.Fatalf("not-found error classification wrong: %v", nf)
	}
}

func ExampleStaleError() {
	err := fmt.Errorf("query CreditAccount: %w",
		&fence.StaleError{Query: "CreditAccount", Table: "account_balances", Presented: 7, Stored: 8, Rows: 1})
	var stale *fence.StaleError
	if errors.As(err, &stale) {
		fmt.Println(errors.Is(err, fence.ErrStaleToken), stale.Stored)
	}
	// Output: true 8
}

// The not-found message says what happened: an UPDATE or DELETE matched
// no row; an upsert matched its conflicting row but wrote nothing. Both
// are errors.Is ErrNotFound.
func TestNotFoundErrorMessage(t *testing.T) {
	for _, tc := range []struct {
		err  *fence.NotFoundError
		want string
	}{
		{&fence.NotFoundError{Query: "SetQty", Table: "inventory"}, "fence: SetQty on inventory: no row matched"},
		{&fence.NotFoundError{Query: "PutJob", Table: "jobs", Upsert: true}, "fence: PutJob on jobs: no row was written: the row it conflicts with exists, but the statement's DO UPDATE ... WHERE skipped it (or it had no row to insert)"},
	} {
		if got := tc.err.Error(); got != tc.want {
			t.Errorf("Error() = %q, want %q", got, tc.want)
		}
		if !errors.Is(tc.err, fence.ErrNotFound) {
			t.Errorf("%v: not errors.Is ErrNotFound", tc.err)
		}
	}
}

func ExampleInvalidTokenError() {
	var tok fence.Token // never assigned from a lease
	err := fmt.Errorf("credit: %w", &fence.InvalidTokenError{Query: "CreditAccount", Table: "account_balances", Token: tok})
	fmt.Println(tok.Valid(), errors.Is(err, fence.ErrInvalidToken))
	fmt.Println(err)
	// Output:
	// false true
	// credit: fence: CreditAccount on account_balances: token 0 is not a fencing token (a lease mints tokens from 1 up); nothing was sent
}

// TestStaleErrorStoredUnknown: a refusal that could not read the stored
// token says so, instead of a stored 0 below the presented token.
func TestStaleErrorStoredUnknown(t *testing.T) {
	e := &fence.StaleError{Query: "Q", Table: "t", Presented: 2, StoredUnknown: true, Mode: fence.NonStrict}
	if got, want := e.Error(), "fence: stale token in Q on t: presented 2, stored token unknown (non-strict)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	e.StoredUnknown, e.Stored = false, 8
	if got, want := e.Error(), "fence: stale token in Q on t: presented 2, stored 8 (non-strict)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
}
