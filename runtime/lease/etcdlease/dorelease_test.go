package etcdlease_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
	"github.com/fencegen/fencegen/runtime/lease/etcdlease"
)

// TestDoReleaseUnconfirmed (trial t26 F6): fn returns nil under a valid
// lease and only the release call fails. Do's error wraps
// lease.ErrReleaseUnconfirmed, so a caller that retries failed jobs can
// tell the job is done; it also wraps the release's error. When fn fails
// as well, the error is fn's joined with the release's, without the
// sentinel. On Redis the client is closed inside fn; on etcd the only
// member is stopped (SIGSTOP) inside fn, so the revoke times out. TTLs
// are long, so that nothing but the release fails.
func TestDoReleaseUnconfirmed(t *testing.T) {
	jobErr := errors.New("job failed")
	for _, failing := range []bool{false, true} {
		want := "job succeeded"
		if failing {
			want = "job failed"
		}
		check := func(t *testing.T, err error) {
			t.Helper()
			if failing {
				if !errors.Is(err, jobErr) || errors.Is(err, lease.ErrReleaseUnconfirmed) {
					t.Fatalf("Do: %v, want fn's error without ErrReleaseUnconfirmed", err)
				}
				return
			}
			if !errors.Is(err, lease.ErrReleaseUnconfirmed) || errors.Is(err, lease.ErrLost) {
				t.Fatalf("Do: %v, want ErrReleaseUnconfirmed and not ErrLost", err)
			}
			if !strings.HasPrefix(err.Error(), "lease: job done, release not confirmed (the lock expires within its TTL): release ") {
				t.Fatalf("Do: %q", err)
			}
		}
		t.Run("redis/"+want, func(t *testing.T) {
			rdb := testenv.Redis(t)
			c := lease.New(rdb, &lease.Options{KeyPrefix: testenv.Key(t, "rel"), TTL: 30 * time.Second})
			err := c.Do(ctxT(t, 30*time.Second), "job", 0, func(ctx context.Context, _ fence.Token) error {
				_ = rdb.Close()
				if failing {
					return jobErr
				}
				return nil
			})
			check(t, err)
		})
		t.Run("etcd/"+want, func(t *testing.T) {
			e := etcdfaults.Start(t, 1)
			m := e.Members[0]
			c := etcdlease.New(e.Client(), &etcdlease.Options{TTL: 30 * time.Second, ReleaseTimeout: 500 * time.Millisecond})
			defer m.Resume()
			err := c.Do(ctxT(t, 30*time.Second), "job", 0, func(ctx context.Context, _ fence.Token) error {
				m.Pause()
				if failing {
					return jobErr
				}
				return nil
			})
			check(t, err)
			if !failing && !errors.Is(err, etcdlease.ErrEtcdTimeout) {
				t.Fatalf("Do: %v, want the release's *TimeoutError too", err)
			}
			t.Log(err)
		})
	}
}
