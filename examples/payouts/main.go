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
	"os"
	"os/signal"
	"syscall"
	"time"
)

func main() {
	if os.Getenv(workerEnv) != "" {
		os.Exit(workerMain())
	}
	ttl := flag.Duration("ttl", time.Second, "lease TTL; worker 1 is frozen for 1.5×TTL")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	_, err := RunDemo(ctx, DemoConfig{
		DatabaseURL: envOr("DATABASE_URL", "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"),
		RedisURL:    envOr("REDIS_URL", "redis://127.0.0.1:6379/0"),
		TTL:         *ttl,
		Out:         os.Stdout,
	})
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
