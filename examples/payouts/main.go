// Command payouts shows what fencing does not cover, against a real
// PostgreSQL, Redis and payment provider (an HTTP server on 127.0.0.1
// standing in for one): a payout worker takes a lease on the payout, calls
// the provider, and marks the payout paid with a fenced write. Worker 1 is
// frozen past its TTL after deciding to pay; worker 2 takes over and pays;
// worker 1 wakes and pays too. PostgreSQL refuses worker 1's stale write,
// but the provider has already paid twice. The demo runs that timeline
// three times:
//
//   - no key, no outbox: the double payment;
//   - idempotency key: the first holder stores "payout:<id>/<token>" in the
//     payout with a fenced write, every holder calls the provider with the
//     stored key, and the provider deduplicates worker 1's call;
//   - outbox: the fenced status change and an outbox row commit in one
//     transaction, worker 1's is refused and rolled back, and a dispatcher
//     sends the one row once.
//
// Usage:
//
//	go run ./examples/payouts [-ttl 1s]
//	go run ./examples/payouts -pay 42   # pay payout 42 out once, with PayOut
//
// With -pay, unlike the demo, it sets nothing up but the provider:
// schema.sql must be loaded into the database at DATABASE_URL and the
// payout must exist (README, "Your first fenced worker").
//
// DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) and
// REDIS_URL (default redis://127.0.0.1:6379/0) say where the servers are.
// The demo works in a schema of its own, dropped at the end, and under a
// lease key prefix of its own, so its tokens start at 1 on every run.
//
// The generated repository lives in ./payoutsdb; regenerate it with
// `go generate ./...` after editing schema.sql or queries.sql.
package main

//go:generate go tool fencegen generate

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/examples/payouts/payoutsdb"
	"github.com/fencegen/fencegen/internal/demo"
	"github.com/fencegen/fencegen/runtime/lease"
)

func main() {
	if os.Getenv(workerEnv) != "" {
		os.Exit(workerMain())
	}
	ttl := flag.Duration("ttl", time.Second, "lease TTL; worker 1 is frozen for 1.5×TTL")
	pay := flag.Int64("pay", 0, "instead of the demo, pay this payout (which must exist) out once with PayOut")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	databaseURL := envOr("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable")
	redisURL := envOr("REDIS_URL", "redis://127.0.0.1:6379/0")
	var err error
	if *pay != 0 {
		err = payCommand(ctx, databaseURL, redisURL, *pay, os.Stdout)
	} else {
		_, err = RunDemo(ctx, DemoConfig{DatabaseURL: databaseURL, RedisURL: redisURL, TTL: *ttl, Out: os.Stdout})
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "payouts:", err)
		os.Exit(1)
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// payCommand is -pay: it starts the provider, pays payout id out with
// payOnce, and prints the payout's row and how often the provider moved
// money in this run.
func payCommand(ctx context.Context, databaseURL, redisURL string, id int64, out io.Writer) error {
	provider, err := StartProvider()
	if err != nil {
		return err
	}
	defer provider.Close()
	if err := payOnce(ctx, databaseURL, redisURL, provider.URL(), id); err != nil {
		return err
	}
	pool, err := demo.OpenPool(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	p, err := payoutsdb.New(pool).GetPayout(ctx, id)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "payout %d: %s, provider reference %s; the provider moved money %s in this run\n", id, p.Status, p.ProviderRef.String, times(provider.Payments(id)))
	return nil
}

// payOnce connects to PostgreSQL and Redis, and pays payout id out with
// PayOut through the provider at providerURL.
func payOnce(ctx context.Context, databaseURL, redisURL, providerURL string, id int64) error {
	pool, err := pgxpool.New(ctx, databaseURL)
	if err != nil {
		return err
	}
	defer pool.Close()
	opt, err := redis.ParseURL(redisURL)
	if err != nil {
		return err
	}
	opt.ContextTimeoutEnabled = true // deadlines on the socket: docs/lease.md
	rdb := redis.NewClient(opt)
	defer rdb.Close()
	locker := lease.New(rdb, nil) // key prefix "fencegen", TTL 10s
	return PayOut(ctx, locker, payoutsdb.New(pool), providerURL, id)
}
