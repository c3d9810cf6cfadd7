package main

import (
	"bytes"
	"context"
	"encoding/xml"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestMain lets the test binary serve as the workers of the runs below.
func TestMain(m *testing.M) {
	if os.Getenv(envWorker) != "" {
		os.Exit(workerMain())
	}
	os.Exit(m.Run())
}

// requireServers skips (fails under CI=true) without PostgreSQL or the
// coordinator's binary (redis-server, etcd).
func requireServers(t *testing.T, coordinator string) {
	t.Helper()
	if coordinator == "etcd" {
		etcdfaults.EtcdBinary(t)
	} else {
		faults.RedisBinary(t, "redis-server")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	c, err := pgx.Connect(ctx, testenv.DatabaseURL())
	if err != nil {
		testenv.Unavailable(t, "PostgreSQL", "DATABASE_URL", err)
	}
	_ = c.Close(ctx)
}

func shortRun(t *testing.T, unguarded bool, coordinator string) (*Result, string, string) {
	t.Helper()
	requireServers(t, coordinator)
	if testing.Short() {
		t.Skip("SKIP: chaos run in -short mode")
	}
	var out bytes.Buffer
	d := 12 * time.Second
	if coordinator == "etcd" {
		// Long enough for a cycle of etcd's four faults between the
		// pauses (a pause waits for a lease announcement, 2-3 TTLs).
		d = 24 * time.Second
	}
	cfg := Config{Duration: d, Seed: 1, Workers: 4, Accounts: 3, TTL: time.Second,
		Unguarded: unguarded, Coordinator: coordinator, DatabaseURL: testenv.DatabaseURL(), Out: &out,
		SVG: filepath.Join(t.TempDir(), "chaos.svg")}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	res, err := Run(ctx, cfg)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	ok := PrintReport(&out, cfg, res)
	t.Logf("\n%s", out.String())
	svg := SVG(res, cfg)
	if err := wellFormed(svg); err != nil {
		t.Errorf("SVG not well-formed: %v", err)
	}
	if !ok {
		t.Errorf("PrintReport verdict: not the expected outcome")
	}
	return res, out.String(), svg
}

func TestGuardedRunHasNoViolations(t *testing.T) { guardedRun(t, "redis") }

// The same run with leases from a 3-member etcd cluster
// (runtime/lease/etcdlease): the worker differs only in how its Locker is
// constructed, and restart-keep kills and restarts the leader.
func TestGuardedRunOnEtcdHasNoViolations(t *testing.T) { guardedRun(t, "etcd") }

func guardedRun(t *testing.T, coordinator string) {
	res, out, svg := shortRun(t, false, coordinator)
	r := res.Report
	if r.Total() != 0 {
		t.Errorf("guarded run: %d violations:\n%s", r.Total(), strings.Join(r.Violations, "\n"))
	}
	nf := 0
	for _, n := range r.Faults {
		nf += n
	}
	if nf < 4 || r.Faults[FaultPause] == 0 {
		t.Errorf("faults %v: want at least 4, including a pause", r.Faults)
	}
	if r.Refused == 0 || r.AfterPauseRefused == 0 {
		t.Errorf("no stale write refused (%d refused, %d right after a pause): the schedule did not exercise the fence", r.Refused, r.AfterPauseRefused)
	}
	if r.Applied == 0 || r.Leases == 0 {
		t.Errorf("no work done: %d leases, %d writes applied", r.Leases, r.Applied)
	}
	if !strings.Contains(out, "verdict: OK, zero violations") {
		t.Errorf("report lacks the verdict:\n%s", out)
	}
	if !strings.Contains(svg, "#d62728") {
		t.Errorf("SVG shows no refused write")
	}
}

func TestUnguardedControlFindsViolations(t *testing.T) { unguardedRun(t, "redis") }

func TestUnguardedControlOnEtcdFindsViolations(t *testing.T) { unguardedRun(t, "etcd") }

func unguardedRun(t *testing.T, coordinator string) {
	res, out, _ := shortRun(t, true, coordinator)
	r := res.Report
	if r.ByCheck[1] == 0 {
		t.Errorf("control: no token-order violation found; the fault schedule is too weak")
	}
	if r.AfterPauseLate == 0 {
		t.Errorf("control: no write landed out of order after a SIGSTOP")
	}
	if r.Refused != 0 {
		t.Errorf("control: %d writes refused, want none (no guard)", r.Refused)
	}
	if !strings.Contains(out, "violations found, as expected") {
		t.Errorf("report lacks the control verdict:\n%s", out)
	}
}

// TestCheckerSynthetic feeds the checker hand-made histories.
func TestCheckerSynthetic(t *testing.T) {
	w := func(worker int, seq, acct, tok, cents, start, end int64, result string) Event {
		return Event{Ev: "end", Worker: worker, Seq: seq, Account: acct, Token: tok, Cents: cents, Start: start, End: end, Result: result}
	}
	mk := func(mode string, ends []Event, hist []HistoryRow, final int64) Report {
		var evs []Event
		for _, e := range ends {
			b := e
			b.Ev, b.Result, b.End = "begin", "", 0
			evs = append(evs, b)
			if e.Result != Unknown {
				evs = append(evs, e)
			}
		}
		res := &Result{Mode: mode, Events: evs, History: hist, Initial: map[int64]int64{1: 1000}, Final: map[int64]int64{1: final}}
		res.Writes = collectWrites(evs)
		return Check(res)
	}
	// A clean history: token 1 then token 2, a stale refusal of token 1,
	// an unknown write that landed.
	ok := mk("guarded", []Event{
		w(1, 1, 1, 1, 11, 10, 20, Applied),
		w(2, 1, 1, 2, 21, 30, 40, Applied),
		w(1, 2, 1, 1, 12, 50, 60, Stale),
		w(2, 2, 1, 2, 22, 70, 0, Unknown),
	}, []HistoryRow{{1, 1, 11, 1}, {2, 1, 21, 2}, {3, 1, 22, 2}}, 1000+11+21+22)
	if ok.Total() != 0 {
		t.Errorf("clean history: %v", ok.Violations)
	}
	// A late write (1), a wrong balance (2), a lost acknowledged write (3)
	// and a refusal with no higher token applied (4).
	bad := mk("unguarded", []Event{
		w(1, 1, 1, 2, 11, 10, 20, Applied),
		w(2, 1, 1, 1, 21, 30, 40, Applied),
		w(3, 1, 1, 3, 31, 50, 60, Applied),
		w(1, 2, 1, 5, 12, 70, 80, Stale),
	}, []HistoryRow{{1, 1, 11, 0}, {2, 1, 21, 0}}, 1000+11+21+5)
	for i, want := range []int{0, 1, 1, 1, 1} {
		if bad.ByCheck[i] != want {
			t.Errorf("check %d: %d violations, want %d: %v", i, bad.ByCheck[i], want, bad.Violations)
		}
	}
}

func wellFormed(s string) error {
	d := xml.NewDecoder(strings.NewReader(s))
	for {
		if _, err := d.Token(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
	}
}

// TestCheckerAfterPause: every write sent right after a pause under the
// paused lease is counted in exactly one class, and a write under a lease
// taken after waking (another account, same token number) is not counted.
func TestCheckerAfterPause(t *testing.T) {
	var evs []Event
	write := func(worker int, seq, acct, tok, cents, start, end int64, result string, stored int64) {
		evs = append(evs,
			Event{Ev: "begin", Worker: worker, Seq: seq, Account: acct, Token: tok, Cents: cents, Start: start},
			Event{Ev: "end", Worker: worker, Seq: seq, Account: acct, Token: tok, Cents: cents, Start: start, End: end, Result: result, Stored: stored})
	}
	write(2, 1, 1, 2, 21, 50, 60, Applied, 0)   // the newer holder of account 1
	write(1, 1, 1, 1, 11, 100, 110, Stale, 2)   // pause A: refused
	write(1, 2, 2, 1, 12, 200, 210, Applied, 0) // a new lease on account 2 with token 1: not counted
	write(3, 1, 2, 2, 31, 300, 310, Applied, 0) // pause B: landed in token order
	write(4, 1, 1, 3, 41, 400, 410, Failed, 0)  // pause C: failed, did not land
	res := &Result{
		Mode:   "guarded",
		Events: evs,
		Faults: []Fault{
			{Kind: FaultPause, Worker: 1, Start: 0, End: 100, Account: 1, Token: 1},
			{Kind: FaultPause, Worker: 3, Start: 0, End: 300, Account: 2, Token: 2},
			{Kind: FaultPause, Worker: 4, Start: 0, End: 400, Account: 1, Token: 3},
		},
		History: []HistoryRow{{1, 1, 21, 2}, {2, 2, 12, 1}, {3, 2, 31, 2}},
		Initial: map[int64]int64{1: 1000, 2: 1000},
		Final:   map[int64]int64{1: 1021, 2: 1043},
	}
	res.Writes = collectWrites(evs)
	r := Check(res)
	if r.Total() != 0 {
		t.Fatalf("violations: %v", r.Violations)
	}
	got := [6]int{r.AfterPause, r.AfterPauseLate, r.AfterPauseRefused, r.AfterPauseInOrder, r.AfterPauseFailed, r.AfterPauseMissing}
	if want := [6]int{3, 0, 1, 1, 1, 0}; got != want {
		t.Errorf("after pause (total, late, refused, in order, failed, missing) = %v, want %v", got, want)
	}
	var out bytes.Buffer
	PrintReport(&out, Config{Seed: 1, Workers: 4, Accounts: 2, TTL: time.Second}, &Result{Mode: "guarded", Report: r})
	if want := "writes sent right after a SIGSTOP with the token from before it: 3: landed out of token order 0, refused as stale 1, landed in token order 1 (no newer holder had written the account yet), failed or no outcome 1\n"; !strings.Contains(out.String(), want) {
		t.Errorf("report lacks %q:\n%s", want, out.String())
	}
}

func TestDisplayPath(t *testing.T) {
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{filepath.Join(wd, "out.svg"), "out.svg"},
		{"out.svg", "out.svg"},
		{filepath.Join(os.TempDir(), "fencegen-chaos-guarded-7.svg"), filepath.Join("${TMPDIR:-/tmp}", "fencegen-chaos-guarded-7.svg")},
	} {
		if got := displayPath(c.in); got != c.want {
			t.Errorf("displayPath(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if got := displayPath(filepath.Join(filepath.Dir(wd), "elsewhere.svg")); filepath.IsAbs(got) {
		t.Errorf("displayPath of a file outside the current and temp directories = %q: absolute", got)
	}
}
