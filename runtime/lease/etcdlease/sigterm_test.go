package etcdlease_test

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fencegen/fencegen/examples/accounts/accountsdb"
	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease/etcdlease"
)

// S17 on etcd, the Redis lease's TestSigtermDrainsThenReleases with
// PostgreSQL as the oracle instead of a clock (openshift/
// machine-config-operator#3185, kubernetes-csi/external-attacher#609): a
// worker (a child process, DoWait under signal.NotifyContext) holds the
// lease and writes with its token every 20ms; SIGTERM ends its work
// context; the work returns at once, or keeps writing with
// context.Background for 800ms (a user bug), and only then is the lease
// released. So B's AcquireWait gets the lease well before the 30s TTL
// could run out (released, not expired); B's write succeeds; no write of
// A's was refused as stale (A never wrote after B's write: the lease was
// not released while A's work ran); the work ended before DoWait
// returned; and A's token is stale afterwards.
func TestSigtermDrainsThenReleases(t *testing.T) {
	const wttl = 30 * time.Second
	schema, err := os.ReadFile("../../../examples/accounts/schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	for i, ignore := range []time.Duration{0, 800 * time.Millisecond} {
		t.Run(fmt.Sprint("ignore ", ignore), func(t *testing.T) {
			pool := testenv.Database(t, string(schema))
			e := etcdfaults.Start(t, 1)
			q := accountsdb.New(pool)
			ctx := ctxT(t, 60*time.Second)
			id := int64(17 + i)
			if _, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: id, Balance: num(0)}, 1); err != nil {
				t.Fatal(err)
			}
			w := startWorker(t, e.Members[0].Endpoint(), pool.Config().ConnString(), "s17", id, wttl, ignore)
			tA := tokenOf(t, w.Expect("acquired ", 20*time.Second))
			w.Expect("write "+tA.String()+" ok", 10*time.Second)
			c := etcdlease.New(e.Client(), &etcdlease.Options{TTL: wttl})
			w.Signal(syscall.SIGTERM)
			b, err := c.AcquireWait(ctxT(t, wttl/2), "s17", 0)
			if err != nil {
				t.Fatalf("B's AcquireWait within half the TTL: %v (the lease was not released after the work stopped)", err)
			}
			defer b.Release(ctx)
			if b.Token() <= tA {
				t.Fatalf("tB = %d, not above tA = %d", b.Token(), tA)
			}
			if err := q.CreditAccount(b.Context(), accountsdb.CreditAccountParams{ID: id, Amount: num(100)}, b.Token()); err != nil {
				t.Fatalf("B's write: %v", err)
			}
			var out []string
			for l := range w.Lines() {
				out = append(out, l)
			}
			if err := w.Wait(10 * time.Second); err != nil {
				t.Fatalf("worker exit: %v", err)
			}
			all := strings.Join(out, "\n")
			if strings.Contains(all, " stale") {
				t.Fatalf("A wrote after B did (the lease was released while A's work ran):\n%s", all)
			}
			end, done := strings.Index(all, "work-end"), strings.Index(all, "done ")
			if end < 0 || done < end {
				t.Fatalf("the work did not end before DoWait returned:\n%s", all)
			}
			if l := out[len(out)-1]; l != "done <nil>" && l != "done context canceled" {
				t.Fatalf("worker ended with %q", l)
			}
			err = q.CreditAccount(ctx, accountsdb.CreditAccountParams{ID: id, Amount: num(1)}, tA)
			if !errors.Is(err, fence.ErrStaleToken) {
				t.Fatalf("A's token after B's write = %v, want ErrStaleToken", err)
			}
		})
	}
}
