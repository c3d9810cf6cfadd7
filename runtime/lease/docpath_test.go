package lease

import (
	"context"
	"errors"
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
	// The body of docs/lease.md's first example.
	run := func() error {
		l, err := locker.Acquire(ctx, "account:42", 10*time.Second)
		if errors.Is(err, ErrNotAcquired) {
			return nil
		} else if err != nil {
			return err
		}
		defer l.Release(context.Background())
		return l.Observe(ctx, q.CreditAccount(l.Context(), arg, l.Token()))
	}
	for range 20 {
		if err := run(); err != nil {
			t.Fatal(err)
		}
	}
	_, stored := a.row(t, id)
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
