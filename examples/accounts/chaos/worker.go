package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/fencegen/fencegen/examples/accounts/accountsdb"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
	"github.com/fencegen/fencegen/runtime/lease/etcdlease"
)

// Environment of a worker process (the chaos binary re-executed).
const (
	envWorker   = "FENCEGEN_CHAOS_WORKER" // worker id
	envMode     = "FENCEGEN_CHAOS_MODE"   // guarded or unguarded
	envDB       = "FENCEGEN_CHAOS_DB"
	envRedis    = "FENCEGEN_CHAOS_REDIS" // the worker's proxy address
	envPrefix   = "FENCEGEN_CHAOS_PREFIX"
	envTTL      = "FENCEGEN_CHAOS_TTL"
	envAccounts = "FENCEGEN_CHAOS_ACCOUNTS"
	envStart    = "FENCEGEN_CHAOS_START" // CLOCK_MONOTONIC ns of the run start
	envSeed     = "FENCEGEN_CHAOS_SEED"
	envCoord    = "FENCEGEN_CHAOS_COORDINATOR" // redis or etcd
)

// unguardedCredit is the negative control: no guard, no token.
const unguardedCredit = `UPDATE account_balances SET balance = balance + $1 WHERE id = $2`

// Event is one JSON line a worker prints (and the coordinator records).
// T, Start and End are microseconds since the run start on CLOCK_MONOTONIC.
type Event struct {
	Ev      string `json:"ev"` // lease, lost, release, begin, end
	Worker  int    `json:"worker"`
	Account int64  `json:"account,omitempty"`
	Token   int64  `json:"token,omitempty"`
	Seq     int64  `json:"seq,omitempty"`    // write number within the worker
	Cents   int64  `json:"amount,omitempty"` // credit in cents; unique per write
	Result  string `json:"result,omitempty"` // applied, stale, error (end); ok, not-held (release)
	Stored  int64  `json:"stored,omitempty"` // a stale refusal's stored token
	Err     string `json:"err,omitempty"`
	T       int64  `json:"t"`
	Start   int64  `json:"start,omitempty"`
	End     int64  `json:"end,omitempty"`
}

// Results of a write.
const (
	Applied = "applied"
	Stale   = "stale"
	Failed  = "error"
	Unknown = "unknown" // no end line: the worker died during the write
)

func workerMain() int {
	id, _ := strconv.Atoi(os.Getenv(envWorker))
	unguarded := os.Getenv(envMode) == "unguarded"
	ttl, _ := time.ParseDuration(os.Getenv(envTTL))
	accounts, _ := strconv.Atoi(os.Getenv(envAccounts))
	start, _ := strconv.ParseInt(os.Getenv(envStart), 10, 64)
	seed, _ := strconv.ParseUint(os.Getenv(envSeed), 10, 64)
	if ttl <= 0 || accounts <= 0 || start == 0 {
		fmt.Fprintln(os.Stderr, "chaos worker: incomplete environment")
		return 2
	}
	rng := rand.New(rand.NewPCG(seed, uint64(id)))
	now := func() int64 { return (mono() - start) / 1e3 }
	var outMu sync.Mutex
	enc := json.NewEncoder(os.Stdout)
	emit := func(e Event) {
		e.Worker = id
		if e.T == 0 {
			e.T = now()
		}
		outMu.Lock()
		_ = enc.Encode(e)
		outMu.Unlock()
	}

	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	pcfg, err := pgxpool.ParseConfig(os.Getenv(envDB))
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos worker:", err)
		return 2
	}
	pcfg.MaxConns = 2
	pool, err := pgxpool.NewWithConfig(ctx, pcfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos worker:", err)
		return 2
	}
	defer pool.Close()
	env := &workerEnv{id: id, unguarded: unguarded, ttl: ttl, accounts: accounts, rng: rng, emit: emit, now: now, pool: pool, q: accountsdb.New(pool)}
	if os.Getenv(envCoord) == "etcd" {
		// The same worker on etcd: only the Locker's construction differs.
		cli, err := clientv3.New(clientv3.Config{Endpoints: []string{"http://" + os.Getenv(envRedis)},
			DialTimeout: ttl / 4, DialKeepAliveTime: ttl / 2, DialKeepAliveTimeout: ttl / 2, Logger: zap.NewNop()})
		if err != nil {
			fmt.Fprintln(os.Stderr, "chaos worker:", err)
			return 2
		}
		defer cli.Close()
		work(ctx, env, etcdlease.New(cli, &etcdlease.Options{KeyPrefix: os.Getenv(envPrefix)}))
		return 0
	}
	rdb := redis.NewClient(&redis.Options{Addr: os.Getenv(envRedis), DialTimeout: ttl / 4,
		ReadTimeout: ttl / 2, WriteTimeout: ttl / 2, ContextTimeoutEnabled: true, PoolSize: 4, MaxRetries: -1})
	defer rdb.Close()
	locker := lease.New(rdb, &lease.Options{
		KeyPrefix: os.Getenv(envPrefix),
		// After Redis lost its data, re-seed the counter above every token
		// PostgreSQL has stored for the account.
		HighWater: func(ctx context.Context, resource string) (fence.Token, error) {
			acct, err := strconv.ParseInt(strings.TrimPrefix(resource, "account:"), 10, 64)
			if err != nil {
				return 0, err
			}
			var t int64
			err = pool.QueryRow(ctx, `SELECT last_fencing_token FROM account_balances WHERE id = $1`, acct).Scan(&t)
			return fence.Token(t), err
		},
	})
	work(ctx, env, locker)
	return 0
}

// workerEnv is what a worker's loop uses besides its Locker.
type workerEnv struct {
	id        int
	unguarded bool
	ttl       time.Duration
	accounts  int
	rng       *rand.Rand
	emit      func(Event)
	now       func() int64
	pool      *pgxpool.Pool
	q         *accountsdb.Queries
}

// work is the worker's loop, written against lease.Locker so that it runs
// on Redis (lease.Client) and on etcd (etcdlease.Client) alike.
func work[L lease.Held](ctx context.Context, env *workerEnv, locker lease.Locker[L]) {
	id, unguarded, ttl, accounts, rng, emit, now, pool, q := env.id, env.unguarded, env.ttl, env.accounts, env.rng, env.emit, env.now, env.pool, env.q
	var seq int64
	for ctx.Err() == nil {
		acct := int64(1 + rng.IntN(accounts))
		resource := fmt.Sprintf("account:%d", acct)
		actx, cancel := context.WithTimeout(ctx, 2*ttl)
		l, err := locker.AcquireWait(actx, resource, ttl)
		cancel()
		if err != nil {
			continue
		}
		emit(Event{Ev: "lease", Account: acct, Token: int64(l.Token())})
		released := make(chan struct{})
		go func() {
			select {
			case <-l.Done():
				if cause := context.Cause(l.Context()); errors.Is(cause, lease.ErrLost) {
					emit(Event{Ev: "lost", Account: acct, Token: int64(l.Token()), Err: cause.Error()})
				}
			case <-released:
			}
		}()
		writes := 3 + rng.IntN(3)
		for i := 0; i < writes; i++ {
			select {
			case <-ctx.Done():
			case <-time.After(ttl / 5):
			}
			if ctx.Err() != nil {
				break
			}
			// The first write goes out whatever happened since Acquire: a
			// process frozen between Acquire and this write (the fault
			// injector freezes workers right after they announce a lease)
			// sends it late with its old token, Kleppmann's scenario. Later
			// writes check the lease first, as a careful worker would (it
			// narrows the window, never closes it).
			if i > 0 && l.Err() != nil {
				break
			}
			seq++
			cents := int64(id)*1_000_000 + seq
			e := Event{Ev: "begin", Account: acct, Token: int64(l.Token()), Seq: seq, Cents: cents}
			e.Start = now()
			e.T = e.Start
			emit(e)
			wctx, wcancel := context.WithTimeout(context.Background(), 5*time.Second)
			amount := pgtype.Numeric{Int: big.NewInt(cents), Exp: -2, Valid: true}
			if unguarded {
				_, err = pool.Exec(wctx, unguardedCredit, amount, acct)
			} else {
				err = q.CreditAccount(wctx, accountsdb.CreditAccountParams{Amount: amount, ID: acct}, l.Token())
			}
			wcancel()
			e.Ev, e.End = "end", now()
			e.T = e.End
			var stale *fence.StaleError
			switch {
			case err == nil:
				e.Result = Applied
			case errors.As(err, &stale):
				e.Result, e.Stored = Stale, int64(stale.Stored)
				// Superseded: raise the counter above the stored token.
				octx, ocancel := context.WithTimeout(context.Background(), ttl)
				_ = l.Observe(octx, err)
				ocancel()
			default:
				e.Result, e.Err = Failed, err.Error()
			}
			emit(e)
			if err != nil {
				break
			}
		}
		close(released)
		rctx, rcancel := context.WithTimeout(context.Background(), ttl)
		err = l.Release(rctx)
		rcancel()
		switch {
		case err == nil:
			emit(Event{Ev: "release", Account: acct, Token: int64(l.Token()), Result: "ok"})
		case errors.Is(err, lease.ErrNotHeld):
			emit(Event{Ev: "release", Account: acct, Token: int64(l.Token()), Result: "not-held"})
		default:
			emit(Event{Ev: "release", Account: acct, Token: int64(l.Token()), Result: "error", Err: err.Error()})
		}
	}
}
