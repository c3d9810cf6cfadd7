package main

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/fencegen/fencegen/examples/payouts/payoutsdb"
	"github.com/fencegen/fencegen/internal/demo"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
)

//go:embed schema.sql
var schemaSQL string

// amountCents is every payout's amount: 100.00.
const amountCents = 100_00

// Environment of worker 1, the child process the demo freezes.
const (
	workerEnv         = "FENCEGEN_PAYOUTS_WORKER" // the mode
	workerDBEnv       = "FENCEGEN_PAYOUTS_DB"
	workerRedisEnv    = "FENCEGEN_PAYOUTS_REDIS"
	workerPrefixEnv   = "FENCEGEN_PAYOUTS_PREFIX"
	workerTTLEnv      = "FENCEGEN_PAYOUTS_TTL"
	workerPayoutEnv   = "FENCEGEN_PAYOUTS_PAYOUT"
	workerProviderEnv = "FENCEGEN_PAYOUTS_PROVIDER"
)

// DemoConfig configures RunDemo.
type DemoConfig struct {
	DatabaseURL string
	RedisURL    string
	// KeyPrefix is the lease key prefix; RunDemo picks a fresh one when it
	// is empty, so that every run's tokens start at 1.
	KeyPrefix string
	// TTL is the lease TTL; worker 1 is frozen for 1.5×TTL.
	TTL time.Duration
	// Out receives the timeline.
	Out io.Writer
}

// RunResult is what one run of the timeline produced, read from the
// provider and the database, not from the workers' reports.
type RunResult struct {
	Mode         string
	Payout       int64
	Worker1Token fence.Token
	Worker2Token fence.Token
	// Worker1Refused is set when worker 1's fenced write came back as a
	// *fence.StaleError; Worker1Stored is the stored token it carried.
	Worker1Refused bool
	Worker1Stored  fence.Token
	// Payments is how many times the provider moved money for the payout.
	Payments int
	// Status and StoredToken are the payout row's at the end.
	Status      string
	StoredToken fence.Token
	// OutboxRows and OutboxSent count the payout's outbox rows, and those
	// a dispatcher sent.
	OutboxRows int
	OutboxSent int
}

// RunDemo starts the payment provider and runs the timeline once per
// mode (Plain, Keyed, Outboxed), each on a payout of its own. It works in
// a schema of its own in cfg.DatabaseURL's database, dropped at the end,
// and under a lease key prefix of its own.
func RunDemo(ctx context.Context, cfg DemoConfig) ([]RunResult, error) {
	if cfg.TTL <= 0 {
		cfg.TTL = time.Second
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	suffix := demo.RandomSuffix()
	if cfg.KeyPrefix == "" {
		cfg.KeyPrefix = "fencegen-payouts-" + suffix
	}
	sc, err := demo.OpenScratch(ctx, cfg.DatabaseURL, cfg.RedisURL, "fencegen_payouts_"+suffix, schemaSQL, cfg.KeyPrefix)
	if err != nil {
		return nil, err
	}
	defer sc.Close()
	provider, err := StartProvider()
	if err != nil {
		return nil, err
	}
	defer provider.Close()

	var results []RunResult
	for i, mode := range Modes {
		r, err := runTimeline(ctx, cfg, mode, int64(42+i), sc, provider)
		if err != nil {
			return results, fmt.Errorf("%s run: %w", mode, err)
		}
		results = append(results, r)
	}
	fmt.Fprintln(cfg.Out)
	for _, r := range results {
		verdict := "RIGHT"
		if r.Payments != 1 {
			verdict = "WRONG (double payment)"
		}
		fmt.Fprintf(cfg.Out, "%-18s payout %d paid out %s, expected once: %s\n", r.Mode+":", r.Payout, times(r.Payments), verdict)
	}
	return results, nil
}

func times(n int) string {
	if n == 1 {
		return "once"
	}
	return strconv.Itoa(n) + " times"
}

func runTimeline(ctx context.Context, cfg DemoConfig, mode string, payout int64, sc *demo.Scratch, provider *Provider) (RunResult, error) {
	pool := sc.Pool
	r := RunResult{Mode: mode, Payout: payout}
	tl := &demo.Timeline{Out: cfg.Out, Start: time.Now(), Width: 10}
	fmt.Fprintf(cfg.Out, "\n== %s: job \"pay out payout %d (100.00), exactly once\" ==\n", mode, payout)
	q := payoutsdb.New(pool)
	if err := q.CreatePayout(ctx, payoutsdb.CreatePayoutParams{ID: payout, AmountCents: amountCents}); err != nil {
		return r, fmt.Errorf("create payout: %w", err)
	}
	resource := Resource(payout)

	// Worker 1: a child process, so that SIGSTOP freezes all of it,
	// heartbeat included.
	w1, err := demo.StartWorker1(ctx,
		workerEnv+"="+mode, workerDBEnv+"="+sc.DatabaseURL, workerRedisEnv+"="+cfg.RedisURL,
		workerPrefixEnv+"="+cfg.KeyPrefix, workerTTLEnv+"="+cfg.TTL.String(),
		workerPayoutEnv+"="+strconv.FormatInt(payout, 10), workerProviderEnv+"="+provider.URL())
	if err != nil {
		return r, err
	}
	defer w1.Close()
	// relay prints worker 1's lines until one starting with stop, and
	// returns the rest of that line.
	relay := func(stop string) (string, error) {
		return w1.Relay(stop, func(line string) { tl.Say("worker 1", "%s", line) })
	}
	if r.Worker1Token, err = w1.Ready(func(line string) { tl.Say("worker 1", "%s", line) }); err != nil {
		return r, err
	}
	pause := cfg.TTL * 3 / 2
	if err := w1.Freeze(pause); err != nil {
		return r, err
	}
	tl.Say("worker 1", "FROZEN (SIGSTOP for %s, longer than the %s TTL)", pause, cfg.TTL)

	// Worker 2: waits until worker 1's lease has expired in Redis.
	l2, err := demo.TakeOver(ctx, sc.Redis, cfg.KeyPrefix, resource, cfg.TTL, tl.Sayer("worker 2"))
	if err != nil {
		return r, err
	}
	r.Worker2Token = l2.Token()
	w2 := Worker{Pool: pool, ProviderURL: provider.URL(), Say: tl.Sayer("worker 2")}
	plan, err := w2.Prepare(l2.Context(), mode, payout, l2.Token())
	if err != nil {
		return r, fmt.Errorf("worker 2: %w", err)
	}
	out, err := w2.Finish(l2.Context(), mode, plan, l2.Token())
	if err == nil {
		err = out.Write
	}
	if err != nil {
		return r, fmt.Errorf("worker 2: %w", err)
	}
	if err := l2.Release(ctx); err != nil {
		return r, fmt.Errorf("worker 2 release: %w", err)
	}
	tl.Say("worker 2", "released the lease")

	if err := w1.Resume(); err != nil {
		return r, err
	}
	tl.Say("worker 1", "wakes up; what it decided before the pause goes ahead with token %d", r.Worker1Token)
	res, err := relay("RESULT ")
	if err != nil {
		return r, err
	}
	if s, ok := strings.CutPrefix(res, "stale "); ok {
		r.Worker1Refused = true
		n, _ := strconv.ParseInt(s, 10, 64)
		r.Worker1Stored = fence.Token(n)
	} else if res != "written" {
		return r, fmt.Errorf("worker 1: %s", res)
	}
	if _, err := relay(""); !errors.Is(err, demo.ErrWorkerExited) { // the rest of its lines
		return r, err
	}
	if err := w1.Wait(); err != nil {
		return r, fmt.Errorf("worker 1: %w", err)
	}

	if mode == Outboxed {
		// Two dispatchers at once: each row is sent by one of them.
		var wg sync.WaitGroup
		var errs [2]error
		for i := range errs {
			wg.Go(func() {
				_, errs[i] = Dispatch(ctx, pool, provider.URL(), tl.Sayer("dispatcher"))
			})
		}
		wg.Wait()
		if err := errors.Join(errs[:]...); err != nil {
			return r, err
		}
	}

	r.Payments = provider.Payments(payout)
	tl.Say("provider", "payout %d: money sent %s", payout, times(r.Payments))
	p, err := q.GetPayout(ctx, payout)
	if err != nil {
		return r, err
	}
	r.Status, r.StoredToken = p.Status, p.LastFencingToken
	rows, err := q.OutboxRows(ctx, payout)
	if err != nil {
		return r, err
	}
	r.OutboxRows = len(rows)
	for _, row := range rows {
		if row.SentAt.Valid {
			r.OutboxSent++
		}
	}
	outbox := ""
	if mode == Outboxed {
		outbox = fmt.Sprintf(", outbox rows %d (sent %d)", r.OutboxRows, r.OutboxSent)
	}
	tl.Say("database", "payout %d: status %s, last_fencing_token %d%s", payout, r.Status, r.StoredToken, outbox)
	return r, nil
}

// workerMain is worker 1, run as a child process: acquire the lease,
// Prepare, announce READY, then wait for GO (the parent freezes the
// process in between) and Finish with the token it got before the pause.
func workerMain() int {
	mode := os.Getenv(workerEnv)
	payout, _ := strconv.ParseInt(os.Getenv(workerPayoutEnv), 10, 64)
	ttl, _ := time.ParseDuration(os.Getenv(workerTTLEnv))
	ctx := context.Background()
	fail := func(err error) int {
		fmt.Println("RESULT error", err)
		return 1
	}
	pool, err := demo.OpenPool(ctx, os.Getenv(workerDBEnv))
	if err != nil {
		return fail(err)
	}
	defer pool.Close()
	rdb, err := demo.RedisClient(os.Getenv(workerRedisEnv))
	if err != nil {
		return fail(err)
	}
	defer rdb.Close()
	locker := lease.New(rdb, &lease.Options{KeyPrefix: os.Getenv(workerPrefixEnv)})
	l, err := locker.Acquire(ctx, Resource(payout), ttl)
	if err != nil {
		return fail(fmt.Errorf("acquire: %w", err))
	}
	fmt.Printf("acquired lease %s, fencing token %d\n", l.Resource(), l.Token())
	w := Worker{Pool: pool, ProviderURL: os.Getenv(workerProviderEnv), Say: func(format string, args ...any) { fmt.Printf(format+"\n", args...) }}
	plan, err := w.Prepare(l.Context(), mode, payout, l.Token())
	if err != nil {
		return fail(err)
	}
	if l.Context().Err() == nil {
		next := "call the provider"
		if mode == Outboxed {
			next = "queue the payment (status and outbox row, one transaction)"
		}
		fmt.Printf("payout %d is pending; lease still valid: about to %s\n", payout, next)
	}
	fmt.Printf("READY %d\n", l.Token())
	in := bufio.NewScanner(os.Stdin)
	in.Scan() // frozen here by SIGSTOP; GO arrives after SIGCONT
	// What follows was decided before the pause, and goes out with its
	// token. (Checking l.Context() here would narrow the window, never
	// close it: the pause can fall between the check and the bytes
	// leaving the socket.)
	wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	out, err := w.Finish(wctx, mode, plan, l.Token())
	if err != nil {
		return fail(err)
	}
	var stale *fence.StaleError
	switch {
	case out.Write == nil:
		fmt.Println("RESULT written")
	case errors.As(out.Write, &stale):
		fmt.Printf("RESULT stale %d\n", stale.Stored)
	default:
		return fail(out.Write)
	}
	rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer rcancel()
	_ = l.Release(rctx) // lost during the pause: lease.ErrNotHeld
	return 0
}
