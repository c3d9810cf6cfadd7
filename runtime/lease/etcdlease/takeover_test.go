package etcdlease_test

import (
	"context"
	"errors"
	"fmt"
	"math/big"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/fencegen/fencegen/examples/accounts/accountsdb"
	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease/etcdlease"
)

// workerEnv makes the test binary a worker child process (see TestMain
// and startWorker) instead of running the tests.
const workerEnv = "FENCEGEN_ETCDLEASE_TEST_WORKER"

func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		os.Exit(workerMain())
	}
	os.Exit(m.Run())
}

// S01 on etcd (etcd-io/etcd#10811: a concurrency.Mutex holder cut off
// from etcd kept writing after its lease expired, while the next holder
// wrote too; redisson#5698 on Redis): worker A, a child process holding
// an etcd lease and crediting account 1 in PostgreSQL with guarded writes
// that ignore its context, is frozen with SIGSTOP, heartbeat included.
// B's AcquireWait gets the lease only after etcd expired A's, with a
// higher token (a later create revision), and writes. When A resumes
// after 2×TTL, its next write is refused as stale, the row keeps B's
// write and token, A's release leaves B's lock key alone, and B's lease
// lives on.
func TestFrozenProcessIsFencedOutAfterTakeover(t *testing.T) {
	const wttl = time.Second
	schema, err := os.ReadFile("../../../examples/accounts/schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	pool := testenv.Database(t, string(schema))
	e := etcdfaults.Start(t, 1)
	cli := e.Client()
	q := accountsdb.New(pool)
	ctx := ctxT(t, 60*time.Second)
	if _, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: 1, Balance: num(0)}, 1); err != nil {
		t.Fatal(err)
	}
	a := startWorker(t, e.Members[0].Endpoint(), pool.Config().ConnString(), "acct:1", 1, wttl, 50*time.Millisecond)
	tA := tokenOf(t, a.Expect("acquired ", 20*time.Second))
	a.Expect("write "+tA.String()+" ok", 10*time.Second)

	a.Pause()
	paused := time.Now()
	c := etcdlease.New(cli, &etcdlease.Options{TTL: 10 * time.Second})
	bctx, cancel := context.WithTimeout(ctx, 10*wttl)
	defer cancel()
	b, err := c.AcquireWait(bctx, "acct:1", 0)
	if err != nil {
		t.Fatalf("B AcquireWait: %v", err)
	}
	defer b.Release(context.Background())
	waited := time.Since(paused)
	if waited < wttl-wttl/3-wttl/10 {
		t.Fatalf("B acquired %v after A froze: before A's etcd lease (renewed at most TTL/3 earlier) could expire", waited)
	}
	if b.Token() <= tA {
		t.Fatalf("tB = %d, not above tA = %d", b.Token(), tA)
	}
	if err := q.CreditAccount(b.Context(), accountsdb.CreditAccountParams{ID: 1, Amount: num(100)}, b.Token()); err != nil {
		t.Fatalf("B's write: %v", err)
	}
	if d := 2*wttl - time.Since(paused); d > 0 {
		time.Sleep(d) // A stays frozen for at least 2×TTL in all
	}
	bRow, err := q.GetAccount(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	lock, _ := c.Keys("acct:1")
	bKey, err := cli.Get(ctx, lock)
	if err != nil || len(bKey.Kvs) != 1 {
		t.Fatalf("B's lock key: %v %v", bKey, err)
	}

	a.Resume()
	a.Expect("write "+tA.String()+" stale", 10*time.Second)
	if l := a.Expect("done ", 10*time.Second); !strings.Contains(l, "stale token") {
		t.Fatalf("worker A ended with %q, want the stale-token error", l)
	}
	row, err := q.GetAccount(ctx, 1)
	if err != nil {
		t.Fatal(err)
	}
	if row.LastFencingToken != b.Token() || row.Balance.Int.Cmp(bRow.Balance.Int) != 0 {
		t.Fatalf("row = balance %v token %d after A resumed, want B's %v and %d", row.Balance.Int, row.LastFencingToken, bRow.Balance.Int, b.Token())
	}
	after, err := cli.Get(ctx, lock)
	if err != nil || len(after.Kvs) != 1 || after.Kvs[0].CreateRevision != bKey.Kvs[0].CreateRevision || after.Kvs[0].Lease != bKey.Kvs[0].Lease {
		t.Fatalf("B's lock key after A's release: %v %v, want %v", after, err, bKey.Kvs)
	}
	if err := b.Err(); err != nil {
		t.Fatalf("B's lease ended: %v", err)
	}
}

func num(n int64) pgtype.Numeric { return pgtype.Numeric{Int: big.NewInt(n), Valid: true} }

func tokenOf(t *testing.T, line string) fence.Token {
	t.Helper()
	f := strings.Fields(line)
	n, err := strconv.ParseInt(f[len(f)-1], 10, 64)
	if err != nil {
		t.Fatalf("no token in %q", line)
	}
	return fence.Token(n)
}

// startWorker runs a worker child that takes the lease on resource from
// the etcd member at endpoint (DoWait), then credits account id in the
// database dsn by 1 every 20ms with its token until its context ends.
// With ignoreCtx it writes with context.Background (a user bug: ignoring
// the work context) and keeps writing for ignoreCtx after it saw its
// context end, or until a write is stale. SIGTERM ends DoWait's context.
// It prints "acquired <token>", "write <token> ok|stale|<err>",
// "work-end" when the work returns, and "done <err>" lines.
func startWorker(t *testing.T, endpoint, dsn, resource string, id int64, ttl, ignoreCtx time.Duration) *faults.Child {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), workerEnv+"=1", "W_ETCD="+endpoint, "W_DSN="+dsn, "W_RESOURCE="+resource,
		"W_ID="+strconv.FormatInt(id, 10), "W_TTL="+ttl.String(), "W_IGNORE="+ignoreCtx.String())
	return faults.StartChild(t, cmd)
}

func workerMain() int {
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
	defer stop()
	ttl, _ := time.ParseDuration(os.Getenv("W_TTL"))
	ignore, _ := time.ParseDuration(os.Getenv("W_IGNORE"))
	id, _ := strconv.ParseInt(os.Getenv("W_ID"), 10, 64)
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{os.Getenv("W_ETCD")}, DialTimeout: 2 * time.Second,
		DialKeepAliveTime: time.Second, DialKeepAliveTimeout: time.Second, Logger: zap.NewNop()})
	if err != nil {
		fmt.Println("done", err)
		return 1
	}
	defer cli.Close()
	pool, err := pgxpool.New(ctx, os.Getenv("W_DSN"))
	if err != nil {
		fmt.Println("done", err)
		return 1
	}
	defer pool.Close()
	q := accountsdb.New(pool)
	c := etcdlease.New(cli, &etcdlease.Options{DrainTimeout: ttl / 3})
	err = c.DoWait(ctx, os.Getenv("W_RESOURCE"), ttl, func(wctx context.Context, token fence.Token) error {
		fmt.Println("acquired", token)
		defer fmt.Println("work-end")
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
			case errors.Is(err, fence.ErrStaleToken):
				fmt.Println("write", token, "stale")
				return err
			default:
				fmt.Println("write", token, err)
			}
			if wctx.Err() != nil {
				if ended.IsZero() {
					ended = time.Now()
				}
				if time.Since(ended) >= ignore {
					return wctx.Err()
				}
			}
			time.Sleep(20 * time.Millisecond)
		}
	})
	fmt.Println("done", err)
	return 0
}
