// Command accounts replays the phantom write of Kleppmann's "How to do
// distributed locking" (2016) against a real PostgreSQL and Redis, twice:
// once with a hand-written, unguarded UPDATE, where the paused worker's
// write lands and the balance ends wrong, and once with the fenced method
// fencegen generated from queries.sql, where PostgreSQL refuses the stale
// write and the balance is right.
//
// Usage:
//
//	go run ./examples/accounts [-ttl 1s]
//	go run ./examples/accounts -worker 42   # a worker; stop it with SIGTERM
//
// The worker, unlike the demo, sets nothing up: schema.sql must be loaded
// into the database at DATABASE_URL and the account must exist (README,
// "Try it"). It logs the first failed credit and stops with an error
// saying what is missing.
//
// DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) and
// REDIS_URL (default redis://127.0.0.1:6379/0) say where the servers are.
// The demo works in a schema of its own, dropped at the end, and in Redis
// keys with a prefix of its own. Worker 1 runs as a child process that the
// demo freezes with SIGSTOP, a real stop-the-world pause of the whole
// process, heartbeat included.
//
// The generated repository lives in ./accountsdb; regenerate it with
// `go generate ./...` after editing schema.sql or queries.sql.
package main

//go:generate go tool fencegen generate

import (
	"context"
	"errors"

	"github.com/redis/go-redis/v9"

	"flag"
	"fmt"
	"github.com/fencegen/fencegen/examples/accounts/accountsdb"
	"github.com/fencegen/fencegen/internal/demo"
	"github.com/fencegen/fencegen/runtime/lease"
	"os"
	"os/signal"
	"syscall"
	"time"
)

// defaultMySQLURL is the local MariaDB, as a go-sql-driver/mysql DSN.
const defaultMySQLURL = "root@tcp(127.0.0.1:3306)/test"

func main() {
	if os.Getenv(workerEnv) != "" {
		os.Exit(workerMain())
	}
	ttl := flag.Duration("ttl", time.Second, "lease TTL; in the demo worker 1 is frozen for 1.5×TTL")
	sqlPackage := flag.String("sql-package", PgxV5, "what the demo's workers credit through: "+PgxV5+" (accountsdb), "+DatabaseSQL+" (accountssql on lib/pq) or "+MySQL+" (accountsmy on MariaDB or MySQL at MYSQL_URL)")
	work := flag.Int64("worker", 0, "instead of the demo, run a worker that credits this account (which must exist) until SIGTERM")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if *work != 0 {
		if err := serve(ctx, *work, *ttl); err != nil {
			fmt.Fprintln(os.Stderr, "accounts:", err)
			os.Exit(1)
		}
		return
	}
	_, err := RunDemo(ctx, DemoConfig{
		DatabaseURL: envOr("DATABASE_URL", defaultDatabaseURL),
		RedisURL:    envOr("REDIS_URL", defaultRedisURL),
		TTL:         *ttl,
		Out:         os.Stdout,
		SQLPackage:  *sqlPackage,
		MySQLURL:    envOr("MYSQL_URL", defaultMySQLURL),
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "accounts:", err)
		os.Exit(1)
	}
}

const (
	defaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	defaultRedisURL    = "redis://127.0.0.1:6379/0"
)

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}

// serve runs RunWorker on account until ctx ends (SIGTERM or Ctrl-C).
func serve(ctx context.Context, account int64, ttl time.Duration) error {
	pool, err := demo.OpenPool(ctx, envOr("DATABASE_URL", defaultDatabaseURL))
	if err != nil {
		return err
	}
	defer pool.Close()
	ropt, err := redis.ParseURL(envOr("REDIS_URL", defaultRedisURL))
	if err != nil {
		return err
	}
	ropt.ContextTimeoutEnabled = true // deadlines on the socket: see docs/lease.md
	rdb := redis.NewClient(ropt)
	defer rdb.Close()
	locker := lease.New(rdb, &lease.Options{KeyPrefix: envOr(workerPrefixEnv, "fencegen")})
	// The start-up probe: a Redis that can evict the fence counter or lose
	// it on restart lets tokens regress; say so before taking work.
	if err := locker.Check(ctx); errors.Is(err, lease.ErrUnsafeConfig) {
		fmt.Fprintf(os.Stderr, "accounts: warning: %v\n", err)
	} else if err != nil {
		return err
	}
	_, err = RunWorker(ctx, locker, accountsdb.New(pool), WorkerConfig{
		Account: account, TTL: ttl, Every: ttl / 10, Drain: ttl / 2, Log: os.Stdout,
	})
	return err
}
