package lease

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"
)

// raceScripter wraps a redis.Scripter to order a renewal and a Release of
// the same lease: a renewal (one key) reaches Redis at once and its reply is
// handed back after renewLag; a Release (three or more keys: it writes the
// :released record) is sent only after releaseHold. So the renewal lands
// while the lease is held, and its reply comes after Release has ended the
// lease locally but before Release's compare-and-delete reaches Redis.
type raceScripter struct {
	redis.Scripter
	renewLag, releaseHold time.Duration
}

func (s *raceScripter) EvalSha(ctx context.Context, sha string, keys []string, args ...any) *redis.Cmd {
	if sha == releaseScript.Hash() && len(keys) >= 3 {
		time.Sleep(s.releaseHold)
	}
	cmd := s.Scripter.EvalSha(ctx, sha, keys, args...)
	if sha == renewScript.Hash() {
		time.Sleep(s.renewLag)
	}
	return cmd
}

func (s *raceScripter) Eval(ctx context.Context, script string, keys []string, args ...any) *redis.Cmd {
	return s.EvalSha(ctx, redis.NewScript(script).Hash(), keys, args...)
}

// A Release racing a renewal of the same lease (issue 26): the renewal
// lands while the lease is held, its reply comes after Release has ended
// the lease, and Release's compare-and-delete reaches Redis after that.
// The lease was held and nobody else took it, so Release returns nil and
// the key is gone; the renewal's late reply must not delete the key first
// (as the undo of a renewal that landed after a loss does) and turn the
// release into ErrNotHeld. Both ways a renewal can be in flight: a Renew
// call waiting for its reply, and one whose context was cancelled (the
// reply applied later).
func TestReleaseRacingItsRenewalSucceeds(t *testing.T) {
	for _, cancelled := range []bool{false, true} {
		t.Run(map[bool]string{false: "renew waiting", true: "renew cancelled"}[cancelled], func(t *testing.T) {
			e := newEnv(t)
			s := &raceScripter{Scripter: e.rdb, renewLag: 150 * time.Millisecond, releaseHold: 400 * time.Millisecond}
			c := New(s, &Options{UnsafeNoReplicas: true, HeartbeatInterval: -1, ReleaseTimeout: 2 * time.Second, CallTimeout: time.Second})
			l := mustAcquire(t, c, e.resource, 5*time.Second)
			ctx, cancel := context.WithCancel(bg)
			defer cancel()
			renewed := make(chan error, 1)
			go func() { renewed <- l.Renew(ctx) }()
			if cancelled {
				time.AfterFunc(20*time.Millisecond, cancel)
			}
			time.Sleep(50 * time.Millisecond) // the renewal has landed
			if err := l.Release(bg); err != nil {
				t.Fatalf("Release racing the lease's own renewal = %v, want nil (the lease was held)", err)
			}
			if v := e.get(t, e.lockKey); v != "" {
				t.Fatalf("lock key %q after Release", v)
			}
			err := <-renewed
			if cancelled && !errors.Is(err, context.Canceled) {
				t.Fatalf("cancelled Renew = %v, want context.Canceled", err)
			}
			if !cancelled && err != nil && !errors.Is(err, ErrReleased) {
				t.Fatalf("Renew = %v, want nil or ErrReleased", err)
			}
			if err := context.Cause(l.Context()); !errors.Is(err, ErrReleased) {
				t.Fatalf("lease cause %v, want ErrReleased", err)
			}
		})
	}
}

// Release ends the lease context only once its compare-and-delete has
// answered (so that the cause can say whether the key had been taken,
// a README-only trial's F2), but the local deadline still ends it while
// that call is in flight: a Release stuck on a silent Redis leaves no
// live context past the deadline (its heartbeat, which watched the
// deadline, is stopped first).
func TestDeadlinePassesDuringRelease(t *testing.T) {
	e := newEnv(t)
	s := &stall{Scripter: e.rdb, shas: map[string]bool{releaseScript.Hash(): true}}
	c := New(s, &Options{UnsafeNoReplicas: true, ReleaseTimeout: time.Minute})
	l := mustAcquire(t, c, e.resource, 600*time.Millisecond)
	ctx, cancel := context.WithCancel(bg)
	released := make(chan error, 1)
	go func() { released <- l.Release(ctx) }()
	select {
	case <-l.Done():
	case err := <-released:
		t.Fatalf("Release returned %v while its call was stalled", err)
	case <-time.After(30 * time.Second):
		t.Fatal("the lease context outlived its local deadline while Release was in flight")
	}
	var lost *LostError
	if err := context.Cause(l.Context()); !errors.As(err, &lost) || lost.Reason != ReasonDeadline {
		t.Fatalf("cause %v, want the local deadline", err)
	}
	cancel()
	if err := <-released; !errors.Is(err, context.Canceled) {
		t.Fatalf("Release = %v, want context.Canceled", err)
	}
}
