package etcdlease_test

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
	"github.com/fencegen/fencegen/runtime/lease/etcdlease"
)

// The keep-alive stream is shared by every lease of a Client, and its
// Send blocks once HTTP/2 flow control has no window left: a partitioned
// member reads nothing, so after about 128 KB of requests (the stream's
// 64 KB window and go-grpc's 64 KB write quota) a Send waits until the
// connection dies, minutes later. That Send must not hold the Client's
// lock: every other renewal, the stall detection that would close the
// stream (and so end the Send), and Release all need it, and would hang
// past their contexts. Here 20,000 renewals go out behind a blackhole
// (about 300 KB of requests, enough to fill the window at least twice):
// each must return within its context, and so must Release.
func TestKeepAliveSendBlockedByFlowControlHoldsNoLock(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	p := faults.StartProxy(t, strings.TrimPrefix(e.Members[0].Endpoint(), "http://"))
	c := etcdlease.New(e.Client("http://"+p.Addr()), &etcdlease.Options{TTL: 10 * time.Second})
	l, err := c.Acquire(ctxT(t, 10*time.Second), "r", 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := etcdlease.KeepAlive(ctxT(t, 5*time.Second), c, l.ID()); err != nil {
		t.Fatalf("keep-alive before the blackhole: %v", err) // opens the stream
	}
	p.Blackhole(faults.Both, true)
	defer p.Heal() // lets a Send still blocked drain, whatever the outcome

	const n, bound = 20000, 1500 * time.Millisecond
	var wg sync.WaitGroup
	var returned atomic.Int64
	start := time.Now()
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Large IDs: nine-byte varints, about 15 bytes a request.
			_, _ = etcdlease.KeepAlive(ctxT(t, bound), c, clientv3.LeaseID(1<<60+i))
			returned.Add(1)
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(bound + 8*time.Second):
		t.Errorf("%d of %d keep-alives still blocked %v after their %v context ended: a Send blocked by flow control holds the keep-alive lock",
			n-returned.Load(), n, time.Since(start)-bound, bound)
	}
	rctx := ctxT(t, 2*time.Second)
	released := make(chan struct{})
	go func() { _ = l.Release(rctx); close(released) }()
	select {
	case <-released:
	case <-time.After(6 * time.Second):
		t.Errorf("Release under a 2s context still blocked after 6s")
	}
	p.Heal()
	<-done
	<-released
	t.Logf("all keep-alives returned %v after the first was sent", time.Since(start))
}
