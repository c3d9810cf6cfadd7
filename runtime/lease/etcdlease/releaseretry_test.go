package etcdlease_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
	"github.com/fencegen/fencegen/runtime/lease/etcdlease"
)

// TestReleaseResentToAnotherMember (trial x26 F4): a Release whose
// revoke went to a member that fails mid-call is sent again to the next
// member within the caller's context, as the Redis lease's client resends
// a release, and a resend of a revoke that landed is recognised: it
// returns nil, never lease.ErrNotHeld, for a lease that was held.
//
// Three members; the client of the leases talks to every one, one of
// them through a proxy, and has no gRPC keepalives (which would drop the
// failed member after a while and hide the case). Six leases are
// acquired while all is well, then the member fails:
//
//   - stalled: the member is stopped (SIGSTOP, not the leader): the
//     revokes sent to it are never read, and time out;
//   - reply lost: the proxy holds every reply of its member (a partition
//     after the request crossed): the revokes sent to it land, delete the
//     lock key, and time out; the resend finds no lease;
//   - reply lost past the TTL: the same with a TTL of 2s and each send
//     waiting 2.5s, so that the resend's "lease not found" comes after
//     the etcd lease could have expired: the watch of the lock key, on a
//     member that answers (the client talked to it alone until the
//     leases were taken), saw the revoke's delete within the TTL, which
//     an expiry cannot be.
//
// The six Releases follow one another, and the client sends each call
// to the next member in turn, so some revokes meet the failed member:
// the test fails if none did (Stats counts the revokes sent). Each
// Release must return nil and leave no lock key.
func TestReleaseResentToAnotherMember(t *testing.T) {
	for _, tc := range []struct {
		fail                string
		ttl, releaseTimeout time.Duration
	}{
		// TTL 30s: no renewal is due while the member has failed, and a
		// resend's "lease not found" comes well within the TTL.
		{"stalled", 30 * time.Second, time.Second},
		{"reply lost", 30 * time.Second, time.Second},
		{"reply lost past the TTL", 2 * time.Second, 2500 * time.Millisecond},
	} {
		fail := tc.fail
		t.Run(fail, func(t *testing.T) {
			e := etcdfaults.Start(t, 3)
			leader := e.Leader()
			failing := e.Members[0]
			if failing == leader {
				failing = e.Members[1]
			}
			p := faults.StartProxy(t, strings.TrimPrefix(failing.Endpoint(), "http://"))
			eps := []string{"http://" + p.Addr()}
			for _, m := range e.Members {
				if m != failing {
					eps = append(eps, m.Endpoint())
				}
			}
			first := eps
			if fail == "reply lost past the TTL" {
				first = eps[1:2] // the watch and keep-alive streams there
			}
			cli, err := clientv3.New(clientv3.Config{Endpoints: first, DialTimeout: 2 * time.Second, Logger: zap.NewNop()})
			if err != nil {
				t.Fatal(err)
			}
			defer cli.Close()
			c := etcdlease.New(cli, &etcdlease.Options{TTL: tc.ttl, ReleaseTimeout: tc.releaseTimeout})
			ctx := ctxT(t, 90*time.Second)
			var ls []*etcdlease.Lease
			for i := range 6 {
				l, err := c.Acquire(ctx, fmt.Sprintf("r%d", i), 0)
				if err != nil {
					t.Fatal(err)
				}
				ls = append(ls, l)
			}
			if len(first) < len(eps) {
				cli.SetEndpoints(eps...)
				for range 6 { // the new members connected
					if _, err := cli.Get(ctx, "warm"); err != nil {
						t.Fatal(err)
					}
				}
			}
			if fail == "stalled" {
				failing.Pause()
				defer failing.Resume()
			} else {
				p.Blackhole(faults.Downstream, true)
				defer p.Heal()
			}
			check := e.Client(leader.Endpoint())
			sent := c.Stats().Releases
			for _, l := range ls {
				if err := l.Release(ctx); err != nil {
					t.Errorf("release of %s (token %d) with member %s %s: %v, want nil", l.Resource(), l.Token(), failing.Name, fail, err)
				}
				if lockExists(t, check, c, l.Resource()) {
					t.Errorf("release of %s left its lock key", l.Resource())
				}
			}
			resent := c.Stats().Releases - sent - uint64(len(ls))
			t.Logf("member %s %s: %d of %d revokes sent again", failing.Name, fail, resent, len(ls))
			if resent == 0 {
				t.Fatalf("no revoke met member %s; the test shows nothing", failing.Name)
			}
		})
	}
}
