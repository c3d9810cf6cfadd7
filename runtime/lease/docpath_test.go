package lease

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/fencegen/fencegen/examples/accounts/accountsdb"
	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/runtime/fence"
)

// documentedWrite is the write of docs/lease.md's first example and of the
// package's worked flow; TestDocumentedPathRecoversAfterCounterLoss checks
// that both show it.
const documentedWrite = "l.Observe(ctx, q.CreditAccount("

// Issue 26 (trial-rt3 F4): the path the docs show first recovers by
// itself after Redis lost its counter (a restart without persistence):
// the first write is refused, Observe raises the counter above the stored
// token, and every later run succeeds. Without Observe, each Acquire
// mints 1, 2, 3, ... and is refused until the counter catches up.
func TestDocumentedPathRecoversAfterCounterLoss(t *testing.T) {
	for _, f := range []string{"../../docs/lease.md", "doc.go"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), documentedWrite) {
			t.Fatalf("%s does not show the write as %q", f, documentedWrite)
		}
	}
	const id = 1
	a := newAccounts(t, id)
	r := faults.StartRedis(t, faults.RedisOptions{}) // no persistence
	locker := New(r.Client(nil), nil)
	ctx := bg
	q := a.q
	arg := accountsdb.CreditAccountParams{ID: id, Amount: num(1)}
	var cause error // the lease's cause after the last run
	// The body of docs/lease.md's first example.
	run := func() error {
		l, err := locker.Acquire(ctx, "account:42", 10*time.Second)
		if errors.Is(err, ErrNotAcquired) {
			return nil
		} else if err != nil {
			return err
		}
		defer l.Release(context.Background())
		err = l.Observe(ctx, q.CreditAccount(l.Context(), arg, l.Token()))
		cause = context.Cause(l.Context())
		return err
	}
	for range 20 {
		if err := run(); err != nil {
			t.Fatal(err)
		}
	}
	_, stored := a.row(t, id)
	// The README's nil Options: the regression is still logged, at error
	// level, through slog.Default (trial rt4 F7).
	var logs syncWriter
	defer slog.SetDefault(slog.Default())
	slog.SetDefault(slog.New(slog.NewTextHandler(&logs, nil)))
	r.Restart(false)
	// A new process: the Client that minted the tokens before the loss
	// remembers them and never mints one again
	// (TestSameClientNeverMintsTwiceAfterCounterLoss); a new one learns
	// the stored token from the refused write.
	locker = New(r.Client(nil), nil)
	refused := 0
	for range 5 {
		err := run()
		switch {
		case errors.Is(err, fence.ErrStaleToken):
			refused++
			// The cause says the counter was behind, not a takeover.
			var lost *LostError
			if !errors.As(cause, &lost) || lost.RaisedTo != stored ||
				!strings.Contains(cause.Error(), fmt.Sprintf("the counter was behind: raised to %d", stored)) ||
				strings.Contains(cause.Error(), string(ReasonSuperseded)) {
				t.Fatalf("cause after the refused write (stored %d): %v", stored, cause)
			}
			if out := logs.String(); !strings.Contains(out, "level=ERROR") || !strings.Contains(out, fmt.Sprintf("to=%d", stored)) {
				t.Fatalf("regression not logged at error level through slog.Default with nil Options:\n%s", out)
			}
		case err != nil:
			t.Fatal(err)
		}
	}
	if refused != 1 {
		t.Fatalf("after the counter loss (stored token %d), %d of 5 runs refused; want only the first", stored, refused)
	}
	if _, after := a.row(t, id); after <= stored {
		t.Fatalf("stored token %d after the recovery, not above %d", after, stored)
	}

	// A takeover, with the counter intact, still reads as one: A's key
	// expires (deleted here), B acquires and writes, A's write is refused.
	old, err := locker.Acquire(ctx, "account:42", 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	lockKey, _ := locker.Keys("account:42")
	r.Client(nil).Del(ctx, lockKey)
	if err := run(); err != nil {
		t.Fatal(err)
	}
	err = old.Observe(ctx, q.CreditAccount(old.Context(), arg, old.Token()))
	var lost *LostError
	if cause := context.Cause(old.Context()); !errors.Is(err, fence.ErrStaleToken) || !errors.As(cause, &lost) || lost.RaisedTo != 0 ||
		!strings.Contains(cause.Error(), string(ReasonSuperseded)) {
		t.Fatalf("taken over: write %v, cause %v; want a stale token and %q", err, cause, ReasonSuperseded)
	}
	_ = old.Release(ctx)

	// The negative control: the same path without Observe is refused at
	// every run after another counter loss.
	r.Restart(false)
	locker = New(r.Client(nil), nil)
	for i := range 3 {
		l, err := locker.Acquire(ctx, "account:42", 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		err = q.CreditAccount(l.Context(), arg, l.Token())
		_ = l.Release(ctx)
		if !errors.Is(err, fence.ErrStaleToken) {
			t.Fatalf("run %d without Observe, token %d: %v; want ErrStaleToken", i, l.Token(), err)
		}
	}
}
