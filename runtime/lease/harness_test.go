package lease

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/examples/accounts/accountsdb"
	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
)

// accounts is one test's PostgreSQL database with the examples/accounts
// schema and the generated, fenced accountsdb repository.
type accounts struct {
	dsn  string
	pool *pgxpool.Pool
	q    *accountsdb.Queries
}

// newAccounts creates a database with examples/accounts/schema.sql and opens
// account id with balance 0 and last_fencing_token 0.
func newAccounts(t *testing.T, id int64) *accounts {
	t.Helper()
	schema, err := os.ReadFile("../../examples/accounts/schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	dsn := testenv.NewDatabase(t)
	ctx, cancel := context.WithTimeout(bg, 30*time.Second)
	defer cancel()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(pool.Close)
	if _, err := pool.Exec(ctx, string(schema)); err != nil {
		t.Fatalf("apply schema: %v", err)
	}
	a := &accounts{dsn: dsn, pool: pool, q: accountsdb.New(pool)}
	if _, err := a.q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: id, Balance: num(0)}, 1); err != nil {
		t.Fatalf("open account: %v", err)
	}
	return a
}

func num(n int64) pgtype.Numeric { return pgtype.Numeric{Int: big.NewInt(n), Valid: true} }

// credit adds amount to account id with token.
func (a *accounts) credit(ctx context.Context, id, amount int64, token fence.Token) error {
	return a.q.CreditAccount(ctx, accountsdb.CreditAccountParams{ID: id, Amount: num(amount)}, token)
}

// row returns the balance (whole units) and stored token of account id.
func (a *accounts) row(t *testing.T, id int64) (int64, fence.Token) {
	t.Helper()
	r, err := a.q.GetAccount(bg, id)
	if err != nil {
		t.Fatal(err)
	}
	f, err := r.Balance.Int64Value()
	if err != nil {
		t.Fatal(err)
	}
	return f.Int64, r.LastFencingToken
}

// setToken overwrites the stored token (a row left by an earlier history).
func (a *accounts) setToken(t *testing.T, id int64, token fence.Token) {
	t.Helper()
	if _, err := a.pool.Exec(bg, "UPDATE account_balances SET last_fencing_token = $1 WHERE id = $2", int64(token), id); err != nil {
		t.Fatal(err)
	}
}

// isStale reports whether err is a *fence.StaleError.
func isStale(err error) bool {
	var se *fence.StaleError
	return errors.As(err, &se)
}

// private starts a private redis-server through the fault harness and
// returns it with a client whose context deadlines apply to its sockets.
func private(t *testing.T, opts faults.RedisOptions) (*faults.Redis, *redis.Client) {
	t.Helper()
	r := faults.StartRedis(t, opts)
	return r, r.Client(&redis.Options{MaxRetries: -1, ContextTimeoutEnabled: true, DialTimeout: 200 * time.Millisecond})
}

// proxied starts a private redis-server and a fault proxy in front of it,
// and returns a client that talks through the proxy.
func proxied(t *testing.T) (*faults.Redis, *faults.Proxy, *redis.Client) {
	t.Helper()
	r := faults.StartRedis(t, faults.RedisOptions{})
	p := faults.StartProxy(t, r.Addr())
	c := redis.NewClient(&redis.Options{Addr: p.Addr(), MaxRetries: -1, ContextTimeoutEnabled: true,
		DialTimeout: 200 * time.Millisecond})
	t.Cleanup(func() { _ = c.Close() })
	return r, p, c
}

// Worker child process: the test binary re-executed with workerEnv set runs
// workerMain instead of the tests (see TestMain).
const workerEnv = "FENCEGEN_LEASE_TEST_WORKER"

// startWorker runs a worker child that takes the lease on resource from the
// Redis at redisAddr (waiting for it), then credits account id in the
// database dsn by 1 every 20ms with its token until its context ends. With
// ignoreCtx it writes with context.Background (a user bug: ignoring the work
// context) and keeps writing for ignoreCtx after it saw its context end (so
// a worker frozen during a write that went through still makes a write
// after it resumes), or until a write is stale. It
// prints "acquired <token>", "write <token> ok|stale|<err>", "ctxdone <cause>",
// "work-end" and "done <err>" lines, and stops on SIGTERM.
func startWorker(t *testing.T, redisAddr, dsn, resource string, id int64, ttl, ignoreCtx time.Duration) *faults.Child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"=1", "W_REDIS="+redisAddr, "W_DSN="+dsn, "W_RESOURCE="+resource,
		"W_ID="+strconv.FormatInt(id, 10), "W_TTL="+ttl.String(), "W_IGNORE="+ignoreCtx.String())
	return faults.StartChild(t, cmd)
}

func workerMain() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	ttl, _ := time.ParseDuration(os.Getenv("W_TTL"))
	ignore, _ := time.ParseDuration(os.Getenv("W_IGNORE"))
	id, _ := strconv.ParseInt(os.Getenv("W_ID"), 10, 64)
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv("W_REDIS"), ContextTimeoutEnabled: true, MaxRetries: -1})
	defer rdb.Close()
	pool, err := pgxpool.New(ctx, os.Getenv("W_DSN"))
	if err != nil {
		fmt.Println("done", err)
		return 1
	}
	defer pool.Close()
	q := accountsdb.New(pool)
	c := New(rdb, &Options{DrainTimeout: ttl / 3})
	err = c.DoWait(ctx, os.Getenv("W_RESOURCE"), ttl, func(wctx context.Context, token fence.Token) error {
		fmt.Println("acquired", token)
		context.AfterFunc(wctx, func() { fmt.Println("ctxdone", context.Cause(wctx)) })
		var ended time.Time // when the work first saw wctx end
		for {
			wc := wctx
			if ignore > 0 {
				wc = context.Background()
			}
			err := q.CreditAccount(wc, accountsdb.CreditAccountParams{ID: id, Amount: num(1)}, token)
			switch {
			case err == nil:
				fmt.Println("write", token, "ok")
			case isStale(err):
				fmt.Println("write", token, "stale")
				fmt.Println("work-end")
				return err
			default:
				fmt.Println("write", token, err)
			}
			if wctx.Err() != nil {
				if ended.IsZero() {
					ended = time.Now()
				}
				if time.Since(ended) >= ignore {
					fmt.Println("work-end")
					return wctx.Err()
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	fmt.Println("done", err)
	return 0
}

// privateOpts is the configuration of most private servers: no persistence,
// noeviction.
var privateOpts = faults.RedisOptions{}

func getKey(t *testing.T, rdb *redis.Client, key string) string {
	t.Helper()
	v, err := rdb.Get(bg, key).Result()
	if errors.Is(err, redis.Nil) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return v
}
