package etcdlease_test

import (
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
	"github.com/fencegen/fencegen/runtime/lease/etcdlease"
)

// A base raised near 2^63−1 (Advance, HighWater or Observe fed a large
// stored token) must not wrap base + revision: tokens grow up to the top,
// then Acquire refuses with ErrConfig and leaves no lock behind, as the
// Redis lease's counter refuses to overflow.
func TestTokenNeverWraps(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	cli := e.Client()
	// A TTL far above the wait below: a lock key that goes is the
	// refused acquire's revoke, not its expiry.
	c := etcdlease.New(cli, &etcdlease.Options{TTL: time.Hour})
	ctx := ctxT(t, 60*time.Second)
	if _, err := c.Advance(ctx, "r", math.MaxInt64-3); err != nil {
		t.Fatal(err)
	}
	var last fence.Token
	refused := 0
	for range 6 {
		if _, err := cli.Put(ctx, "unrelated", "x"); err != nil {
			t.Fatal(err)
		}
		l, err := c.Acquire(ctx, "r", 0)
		if err != nil {
			if !errors.Is(err, lease.ErrConfig) || !strings.Contains(err.Error(), "overflow") {
				t.Fatalf("acquire past the top: %v, want ErrConfig naming the overflow", err)
			}
			lockGone(t, cli, c, "r")
			refused++
			continue
		}
		if l.Token() < 1 || l.Token() <= last {
			t.Fatalf("token %d after %d", l.Token(), last)
		}
		last = l.Token()
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if last == 0 || refused == 0 {
		t.Fatalf("last token %d, %d refusals: want tokens up to the top, then refusals", last, refused)
	}
	// Advance past the top cannot lower the base either.
	got, err := c.Advance(ctx, "r", 5)
	if err != nil || got != math.MaxInt64 {
		t.Fatalf("Advance(5) with the base at the top: %d, %v; want 2^63−1", got, err)
	}
}

// math.MaxInt64, the usual "no expiry", must not become etcd's minimum
// grant of a few seconds under a local deadline of centuries (the second
// holder would take the resource while the first one's context is
// valid): Acquire and Check refuse it with ErrConfig.
func TestNoExpiryTTLRefused(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	cli := e.Client()
	c := etcdlease.New(cli, nil)
	ctx := ctxT(t, 30*time.Second)
	for _, d := range []time.Duration{math.MaxInt64, math.MaxInt64 - time.Second + 1} {
		l, err := c.Acquire(ctx, "r", d)
		if !errors.Is(err, lease.ErrConfig) {
			if l != nil {
				t.Errorf("TTL %v: granted etcd lease, Remaining %v", d, l.Remaining())
				_ = l.Release(ctx)
			}
			t.Fatalf("TTL %v: %v, want ErrConfig", d, err)
		}
	}
	// etcd grants fewer seconds than asked: only the server can say so,
	// so New accepts it and Check refuses it.
	err := etcdlease.New(cli, &etcdlease.Options{TTL: math.MaxInt64}).Check(ctx)
	if !errors.Is(err, lease.ErrConfig) || errors.Is(err, lease.ErrUnsafeConfig) {
		t.Fatalf("Check with TTL math.MaxInt64: %v, want ErrConfig alone", err)
	}
}

// A default TTL the lease cannot keep is refused by New, as on the Redis
// lease, not at the first Acquire (trial t26 F1: a service that builds its
// Client at start-up learned of it on its first job); the panic names the
// rule. A valid TTL with sound options constructs.
func TestNewRefusesTTLItCannotKeep(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	for _, tc := range []struct {
		opts etcdlease.Options
		want string
	}{
		{etcdlease.Options{TTL: 500 * time.Millisecond}, "below 1s"},
		{etcdlease.Options{TTL: -time.Second}, "Options.TTL -1s is negative"},
		{etcdlease.Options{TTL: 3 * time.Second, CallTimeout: 5 * time.Second}, "CallTimeout 5s not below TTL 3s"},
		{etcdlease.Options{TTL: 3 * time.Second, SafetyMargin: 4 * time.Second}, "SafetyMargin 4s not below TTL 3s"},
		{etcdlease.Options{TTL: 3 * time.Second, HeartbeatInterval: 10 * time.Second}, "HeartbeatInterval 10s not below"},
	} {
		func() {
			defer func() {
				msg := fmt.Sprint(recover())
				if !strings.Contains(msg, "etcdlease: New with Options.TTL") || !strings.Contains(msg, tc.want) {
					t.Errorf("New(%+v) panicked with %q, want a refusal naming %q", tc.opts, msg, tc.want)
				}
			}()
			etcdlease.New(e.Client(), &tc.opts)
		}()
	}
	if err := etcdlease.New(e.Client(), &etcdlease.Options{TTL: 3 * time.Second}).Check(ctxT(t, 10*time.Second)); errors.Is(err, lease.ErrConfig) {
		t.Errorf("Check with TTL 3s: %v", err)
	}
}

// A negative option is named in the error, as on the Redis lease.
func TestNegativeOptionNamed(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	for name, o := range map[string]etcdlease.Options{
		"SafetyMargin":     {SafetyMargin: -500 * time.Millisecond},
		"MinValidity":      {MinValidity: -time.Second},
		"MaxRenewFailures": {MaxRenewFailures: -1},
		"DrainTimeout":     {DrainTimeout: -time.Second},
		"CallTimeout":      {CallTimeout: -time.Second},
		"ReleaseTimeout":   {ReleaseTimeout: -time.Second},
	} {
		err := etcdNewRefusal(e.Client(), &o)
		if !errors.Is(err, lease.ErrConfig) || !strings.Contains(err.Error(), "Options."+name+" -") {
			t.Errorf("negative %s: %v, want ErrConfig naming it", name, err)
		}
	}
}

// A snapshot restore without --bump-revision rewinds the revision and the
// base keys. The Client that minted before the restore must mint above
// its own tokens for every resource it minted for, not only the first it
// acquires after the restore, and also for a resource whose base it had
// advanced after the snapshot (the revision catches up, the token does
// not): it compares tokens, not only revisions. A resource it never minted
// for is minted above the highest revision it saw before the restore, also
// when the rewind was caught on another resource first.
func TestRestoreDetectedForEveryResource(t *testing.T) {
	etcdctl, err := exec.LookPath("etcdctl")
	if err != nil {
		testenv.Unavailable(t, "etcdctl (apt-get install etcd-client)", "PATH", err)
	}
	e := etcdfaults.Start(t, 1)
	m := e.Members[0]
	ev := &events{}
	c := etcdlease.New(e.Client(), &etcdlease.Options{TTL: ttl, Observer: ev.observer()})
	ctx := ctxT(t, 60*time.Second)
	cycle := func(res string) fence.Token {
		t.Helper()
		// AcquireWait: the first call after the member's restart may
		// time out (333 ms at TTL 2s) while the client reconnects, as it
		// did in a run at load 30; AcquireWait tries again.
		l, err := c.AcquireWait(ctx, res, 0)
		if err != nil {
			t.Fatalf("acquire %s: %v", res, err)
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
		return l.Token()
	}
	for _, r := range []string{"first", "other", "advanced"} {
		cycle(r)
	}
	snap := filepath.Join(t.TempDir(), "snap.db")
	run := func(args ...string) {
		t.Helper()
		if out, err := exec.Command(etcdctl, args...).CombinedOutput(); err != nil {
			t.Fatalf("etcdctl %v: %v\n%s", args, err, out)
		}
	}
	run("--endpoints", m.Endpoint(), "snapshot", "save", snap)
	high := map[string]fence.Token{}
	for range 20 {
		high["other"] = cycle("other")
	}
	high["first"] = cycle("first")
	if _, err := c.Advance(ctx, "advanced", 1_000_000); err != nil {
		t.Fatal(err)
	}
	high["advanced"] = cycle("advanced")
	m.Kill()
	restored := filepath.Join(t.TempDir(), "restored")
	run("snapshot", "restore", snap, "--data-dir", restored, "--name", m.Name,
		"--initial-cluster", fmt.Sprintf("%s=http://127.0.0.1:%d", m.Name, m.PeerPort),
		"--initial-cluster-token", "faults", "--initial-advertise-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", m.PeerPort))
	m.SetDataDir(restored)
	m.Start()
	e.WaitHealthy()

	// "advanced" first: its revision is above every one the Client saw
	// before the restore only if the restore did not rewind it; its base
	// is rewound to 0 either way.
	for _, r := range []string{"first", "other", "advanced"} {
		if tok := cycle(r); tok <= high[r] {
			t.Errorf("%s: the same Client minted %d after the restore, having minted %d before it", r, tok, high[r])
		}
	}
	// A resource this Client never minted for, acquired after the rewind
	// was caught on the others (trial rt4 F4): its tokens before the
	// restore (another process's) were revisions up to the highest this
	// Client saw, which high["first"] (base 0) is below.
	if tok := cycle("never"); tok <= high["first"] {
		t.Errorf("never: minted %d after the restore, at or below revision %d seen before it", tok, high["first"])
	}
	if n := len(ev.kinds(lease.EventCounterRegressed)); n < 3 {
		t.Errorf("%d regression events, want one per resource at least", n)
	}
}

// lockGone waits for the lock key of resource to go: a refused acquire
// revokes its etcd lease in the background.
func lockGone(t *testing.T, cli *clientv3.Client, c *etcdlease.Client, resource string) {
	t.Helper()
	lock, _ := c.Keys(resource)
	ctx := ctxT(t, 30*time.Second)
	g, err := cli.Get(ctx, lock)
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Kvs) == 0 {
		return
	}
	for wr := range cli.Watch(ctx, lock, clientv3.WithRev(g.Header.Revision+1)) {
		for _, ev := range wr.Events {
			if ev.Type == clientv3.EventTypeDelete {
				return
			}
		}
	}
	t.Fatalf("a refused acquire left the lock key %s", lock)
}

// Trial rt4 F2: Renew calls racing Release (whose revoke closes the
// keep-alive stream or finds the etcd lease gone) return nil or the
// lease's end, lease.ErrReleased, never an error that matches no
// sentinel, as on Redis.
func TestRenewRacingReleaseReportsReleased(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	c := etcdlease.New(e.Client(), &etcdlease.Options{TTL: ttl})
	ctx := ctxT(t, 60*time.Second)
	for range 20 {
		l, err := c.Acquire(ctx, "race", 0)
		if err != nil {
			t.Fatal(err)
		}
		errs := make(chan error, 8)
		for range cap(errs) {
			go func() { errs <- l.Renew(ctx) }()
		}
		if err := l.Release(ctx); err != nil {
			t.Fatal(err)
		}
		for range cap(errs) {
			if err := <-errs; err != nil && !errors.Is(err, lease.ErrReleased) {
				t.Fatalf("Renew racing Release = %v; want nil or lease.ErrReleased", err)
			}
		}
	}
}

// Trial rt4 F3: on a closed *clientv3.Client, Release and Acquire fail at
// once with ErrClientClosed (the etcd client would retry until the call's
// deadline, which read as a timeout).
func TestClosedClientFailsAtOnce(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	cli := e.Client()
	// Call timeouts far above the time a failure at once takes, so that
	// waiting for them cannot pass for it.
	const callTimeout = 10 * time.Second
	c := etcdlease.New(cli, &etcdlease.Options{TTL: time.Minute, CallTimeout: callTimeout, ReleaseTimeout: callTimeout})
	ctx := ctxT(t, 60*time.Second)
	l, err := c.Acquire(ctx, "closed", 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := cli.Close(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	err = l.Release(ctx)
	if !errors.Is(err, etcdlease.ErrClientClosed) || errors.Is(err, etcdlease.ErrEtcdTimeout) {
		t.Fatalf("Release on a closed client = %v; want ErrClientClosed", err)
	}
	_, err = c.Acquire(ctx, "closed2", 0)
	if !errors.Is(err, etcdlease.ErrClientClosed) || errors.Is(err, etcdlease.ErrEtcdTimeout) {
		t.Fatalf("Acquire on a closed client = %v; want ErrClientClosed", err)
	}
	if d := time.Since(start); d >= callTimeout {
		t.Fatalf("Release and Acquire on a closed client took %v, as long as their call timeouts", d)
	}
}

// Trial t26 F9: closing the *clientv3.Client loses every lease it holds
// at once, with ErrClientClosed, not after MaxRenewFailures renewals.
// The heartbeat is off and the TTL a minute, so that nothing but the
// close can end the leases before the test's context does.
func TestClosedClientLosesLeasesAtOnce(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	cli := e.Client()
	c := etcdlease.New(cli, &etcdlease.Options{TTL: time.Minute, HeartbeatInterval: -1})
	ctx := ctxT(t, 40*time.Second)
	var ls []*etcdlease.Lease
	for i := range 3 {
		l, err := c.Acquire(ctx, fmt.Sprintf("closing-%d", i), 0)
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
	}
	if err := cli.Close(); err != nil {
		t.Fatal(err)
	}
	for _, l := range ls {
		select {
		case <-l.Done():
		case <-ctx.Done():
			t.Fatalf("lease %s still valid after its etcd client was closed", l.Resource())
		}
		var lost *lease.LostError
		if err := l.Err(); !errors.As(err, &lost) || lost.Reason != lease.ReasonRenewFailed || !errors.Is(err, etcdlease.ErrClientClosed) {
			t.Fatalf("lease %s after the close: %v, want a LostError (renewals failed) wrapping ErrClientClosed", l.Resource(), err)
		}
		if err := l.Release(ctx); !errors.Is(err, etcdlease.ErrClientClosed) {
			t.Fatalf("Release after the close: %v, want ErrClientClosed", err)
		}
	}
}

// trial x26 F5, the etcd side: the base key is rewound by hand (as a
// snapshot restore rewinds it with the revision) to exactly the value
// at which the next acquire mints the token this Client minted last.
// The acquisition is revoked unused, and the regression is reported by
// Acquire itself (event with the token minted again, error record),
// although base + revision is back at that token, so that Advance finds
// nothing to raise; no acquired event is sent for the duplicate.
func TestMintedAgainIsReportedAsRegression(t *testing.T) {
	e := etcdfaults.Start(t, 1)
	cli := e.Client()
	ev := &events{}
	var logs syncBuf
	c := etcdlease.New(cli, &etcdlease.Options{TTL: ttl, Observer: ev.observer(),
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	ctx := ctxT(t, 60*time.Second)
	const r = "r"
	if _, err := c.Advance(ctx, r, 1000); err != nil {
		t.Fatal(err)
	}
	l, err := c.Acquire(ctx, r, 0)
	if err != nil {
		t.Fatal(err)
	}
	minted := l.Token()
	if err := l.Release(ctx); err != nil {
		t.Fatal(err)
	}
	_, baseKey := c.Keys(r)
	g, err := cli.Get(ctx, baseKey)
	if err != nil {
		t.Fatal(err)
	}
	// The put is the next revision (this test's member has no other
	// writer), and the acquire transaction the one after it.
	next := g.Header.Revision + 1
	p, err := cli.Put(ctx, baseKey, strconv.FormatInt(int64(minted)-(next+1), 10))
	if err != nil {
		t.Fatal(err)
	}
	if p.Header.Revision != next {
		t.Fatalf("base put at revision %d, want %d: another writer on the test's member", p.Header.Revision, next)
	}
	ev.mu.Lock()
	before := len(ev.all)
	ev.mu.Unlock()
	l, err = c.Acquire(ctx, r, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release(ctx)
	if l.Token() <= minted {
		t.Fatalf("token %d after the base was rewound, at or below %d minted before", l.Token(), minted)
	}
	ev.mu.Lock()
	got := slices.Clone(ev.all[before:])
	ev.mu.Unlock()
	if len(got) != 2 || got[0].Kind != lease.EventCounterRegressed || got[0].Token != minted || got[0].From != minted || got[0].To < minted ||
		got[1].Kind != lease.EventAcquired || got[1].Token != l.Token() {
		t.Fatalf("events %+v, want one regression with Token and From %d, then the acquisition of %d", got, minted, l.Token())
	}
	if out, want := logs.String(), fmt.Sprintf("minted=%d from=%d", minted, minted); !strings.Contains(out, "level=ERROR") || !strings.Contains(out, want) {
		t.Fatalf("no error record with %q:\n%s", want, out)
	}
}
