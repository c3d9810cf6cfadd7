package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/fencegen/fencegen/examples/payouts/payoutsdb"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/lease"
)

// TestMain lets the test binary act as worker 1 of the demo, as the demo's
// own binary does.
func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		os.Exit(workerMain())
	}
	os.Exit(m.Run())
}

// TestDoublePaymentWithoutKeyOrOutbox runs the demo against real
// PostgreSQL and Redis: without an idempotency key or an outbox the
// provider pays the payout twice although PostgreSQL refuses the frozen
// worker's write; with either, once. The counts are the provider's and the
// database's, not the workers' reports. The demo runs with the default TTL
// so that its output can be compared with docs/demo.md's.
func TestDoublePaymentWithoutKeyOrOutbox(t *testing.T) {
	dsn := testenv.NewDatabase(t)
	testenv.Redis(t) // skip, or fail under CI=true, when Redis is unreachable
	var out strings.Builder
	results, err := RunDemo(context.Background(), DemoConfig{DatabaseURL: dsn, RedisURL: testenv.RedisURL(), Out: &out})
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != len(Modes) {
		t.Fatalf("got %d runs, want %d", len(results), len(Modes))
	}
	want := map[string]int{Plain: 2, Keyed: 1, Outboxed: 1}
	for _, r := range results {
		if r.Payments != want[r.Mode] {
			t.Errorf("%s: the provider paid payout %d %d times, want %d", r.Mode, r.Payout, r.Payments, want[r.Mode])
		}
		if r.Worker2Token <= r.Worker1Token {
			t.Errorf("%s: worker 2's token %d is not above worker 1's %d", r.Mode, r.Worker2Token, r.Worker1Token)
		}
		if !r.Worker1Refused || r.Worker1Stored != r.Worker2Token || r.StoredToken != r.Worker2Token {
			t.Errorf("%s: worker 1 refused %v (stored %d), row token %d; want worker 1's fenced write refused with worker 2's token %d stored",
				r.Mode, r.Worker1Refused, r.Worker1Stored, r.StoredToken, r.Worker2Token)
		}
		wantRows := 0
		if r.Mode == Outboxed {
			wantRows = 1
		}
		if r.OutboxRows != wantRows || r.OutboxSent != wantRows {
			t.Errorf("%s: %d outbox rows, %d sent; want %d and %d", r.Mode, r.OutboxRows, r.OutboxSent, wantRows, wantRows)
		}
	}

	// docs/demo.md shows this output, but for the times in brackets.
	doc, err := os.ReadFile("../../docs/demo.md")
	if err != nil {
		t.Fatal(err)
	}
	times := regexp.MustCompile(`(?m)^\[[ 0-9.µms]+\]`)
	got := times.ReplaceAllString(out.String(), "[]")
	found := false
	for _, block := range codeBlocks(string(doc)) {
		if times.ReplaceAllString(block, "[]") == strings.TrimPrefix(got, "\n") {
			found = true
		}
	}
	if !found {
		t.Errorf("docs/demo.md does not show the payouts demo's output (times in brackets aside); it is:\n%s", out.String())
	}
	// The README shows its last lines.
	summary := out.String()[strings.Index(out.String(), "\n\n"+Plain+": ")+2:]
	if !slices.Contains(codeBlocks(readme(t)), summary) {
		t.Errorf("README.md does not show the payouts demo's last lines:\n%s", summary)
	}
}

func readme(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// codeBlocks returns the bodies of a Markdown document's fenced code
// blocks.
func codeBlocks(doc string) []string {
	var bodies []string
	for _, b := range fencedBlocks(doc) {
		bodies = append(bodies, b.body)
	}
	return bodies
}

type fencedBlock struct{ lang, body string }

// fencedBlocks returns a Markdown document's fenced code blocks, with the
// language named after the opening fence.
func fencedBlocks(doc string) []fencedBlock {
	parts := strings.Split(doc, "```")[1:]
	var blocks []fencedBlock
	for i := 0; i < len(parts); i += 2 {
		if lang, body, ok := strings.Cut(parts[i], "\n"); ok {
			blocks = append(blocks, fencedBlock{lang, body})
		}
	}
	return blocks
}

// TestDispatchSendsEachRowOnce queues payments, then runs four dispatchers
// at once, after a dispatcher that "crashed" between the provider's answer
// and its commit (the provider was called with a row's key, the row is
// still unsent): every payout is paid exactly once.
func TestDispatchSendsEachRowOnce(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Database(t, schemaSQL)
	q := payoutsdb.New(pool)
	provider, err := StartProvider()
	if err != nil {
		t.Fatal(err)
	}
	defer provider.Close()
	const n = 20
	w := Worker{Pool: pool, ProviderURL: provider.URL()}
	for id := int64(1); id <= n; id++ {
		if err := q.CreatePayout(ctx, payoutsdb.CreatePayoutParams{ID: id, AmountCents: 5_00}); err != nil {
			t.Fatal(err)
		}
		p, err := q.GetPayout(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.queue(ctx, p, 3); err != nil {
			t.Fatal(err)
		}
	}
	// The crashed dispatcher's call for payout 1.
	if _, err := Pay(ctx, provider.URL(), PaymentRequest{PayoutID: 1, AmountCents: 5_00}, IdempotencyKey(1, 3)); err != nil {
		t.Fatal(err)
	}

	var wg sync.WaitGroup
	var mu sync.Mutex
	total := 0
	for range 4 {
		wg.Go(func() {
			sent, err := Dispatch(ctx, pool, provider.URL(), nil)
			if err != nil {
				t.Error(err)
			}
			mu.Lock()
			total += sent
			mu.Unlock()
		})
	}
	wg.Wait()
	if total != n {
		t.Errorf("dispatchers sent %d rows, want %d", total, n)
	}
	for id := int64(1); id <= n; id++ {
		if got := provider.Payments(id); got != 1 {
			t.Errorf("payout %d paid %d times, want once", id, got)
		}
	}
	if sent, err := Dispatch(ctx, pool, provider.URL(), nil); err != nil || sent != 0 {
		t.Errorf("a dispatcher after the others sent %d (%v), want 0", sent, err)
	}
}

// TestProviderDeduplicatesByKey checks the stand-in provider itself: a
// repeated Idempotency-Key gets the first answer and moves no money;
// requests without a key are all paid.
func TestProviderDeduplicatesByKey(t *testing.T) {
	ctx := context.Background()
	p, err := StartProvider()
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	req := PaymentRequest{PayoutID: 9, AmountCents: 1_00}
	first, err := Pay(ctx, p.URL(), req, "payout:9/4")
	if err != nil {
		t.Fatal(err)
	}
	again, err := Pay(ctx, p.URL(), req, "payout:9/4")
	if err != nil || again.Ref != first.Ref || !again.Replayed || first.Replayed {
		t.Fatalf("same key twice: %+v then %+v (%v); want the first answer replayed", first, again, err)
	}
	for i := range 2 {
		if _, err := Pay(ctx, p.URL(), req, ""); err != nil {
			t.Fatal(fmt.Errorf("request %d without a key: %w", i, err))
		}
	}
	if got := p.Payments(9); got != 3 {
		t.Fatalf("payments %d, want 3 (one keyed, two without a key)", got)
	}
}

// TestPayOut runs PayOut, the README's worker, from several goroutines at
// once and then again: the payout is paid once and stored as paid with the
// provider's reference.
func TestPayOut(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Database(t, schemaSQL)
	q := payoutsdb.New(pool)
	locker := newLocker(t, testenv.Redis(t))
	provider, err := StartProvider()
	if err != nil {
		t.Fatal(err)
	}
	defer provider.Close()
	if err := q.CreatePayout(ctx, payoutsdb.CreatePayoutParams{ID: 7, AmountCents: 25_00}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			err := PayOut(ctx, locker, q, provider.URL(), 7)
			if err != nil && !errors.Is(err, lease.ErrNotAcquired) {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if err := PayOut(ctx, locker, q, provider.URL(), 7); err != nil {
		t.Fatal(err)
	}
	if got := provider.Payments(7); got != 1 {
		t.Fatalf("payout 7 paid %d times, want once", got)
	}
	p, err := q.GetPayout(ctx, 7)
	if err != nil || p.Status != "paid" || !p.ProviderRef.Valid || !p.IdempotencyKey.Valid {
		t.Fatalf("payout 7: %+v (%v); want paid, with its key and the provider's reference", p, err)
	}
}
