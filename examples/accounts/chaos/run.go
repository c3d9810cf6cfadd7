package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/internal/demo"
	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/internal/faults/etcdfaults"
)

// Config configures Run.
type Config struct {
	Duration    time.Duration // how long faults are injected and workers run
	Seed        uint64        // the fault schedule and the workers' choices
	Workers     int           // worker processes alive at any time
	Accounts    int           // accounts the workers contend for
	TTL         time.Duration // lease TTL
	Unguarded   bool          // the negative control: plain UPDATE, no token
	Coordinator string        // "redis" (default) or "etcd": where leases come from
	DatabaseURL string        // a database in which Run creates and drops a schema
	Exe         string        // the binary that runs a worker when envWorker is set
	SVG         string        // where to write the timeline ("" for none)
	Out         io.Writer     // the report (and with Verbose, the history)
	Verbose     bool
}

// mode is "guarded", or "unguarded" for the negative control.
func (cfg Config) mode() string {
	if cfg.Unguarded {
		return "unguarded"
	}
	return "guarded"
}

// coordinator returns Coordinator, "redis" when unset.
func (cfg Config) coordinator() string {
	if cfg.Coordinator == "" {
		return "redis"
	}
	return cfg.Coordinator
}

// Fault is one injected fault, on the run's clock (µs).
type Fault struct {
	Kind   string
	Worker int // 0 for Redis-wide faults
	Start  int64
	End    int64
	// A pause's lease: the account and token the worker had just
	// announced when it was frozen.
	Account, Token int64
}

// Fault kinds.
const (
	FaultPause       = "pause"        // SIGSTOP a worker right after it acquired, longer than the TTL
	FaultKill        = "kill"         // SIGKILL a worker; a replacement starts
	FaultRestartKeep = "restart-keep" // restart Redis keeping its data; on etcd, kill and restart the leader
	FaultRestartLose = "restart-lose" // restart Redis losing its data (tokens regress)
	FaultPartition   = "partition"    // blackhole one worker's Redis traffic
	FaultStall       = "stall"        // slow one worker's Redis traffic
)

// Result is what a run produced.
type Result struct {
	Mode       string
	Events     []Event // worker lines, in arrival order
	Writes     []*Write
	Faults     []Fault
	Workers    []WorkerSpan
	History    []HistoryRow
	Initial    map[int64]int64 // cents
	Final      map[int64]int64 // cents
	Report     Report
	DurationUS int64
}

// WorkerSpan is a worker process's life on the run's clock.
type WorkerSpan struct {
	ID         int
	Start, End int64
	Killed     bool
}

type worker struct {
	id     int
	cmd    *exec.Cmd
	proxy  *faults.Proxy
	start  int64
	done   chan struct{} // closed when the output is drained and the process reaped
	end    int64
	killed bool
	paused bool
	// pauseAccount and pauseToken are the lease announcement that froze it.
	pauseAccount, pauseToken int64
}

type coordinator struct {
	cfg   Config
	h     *harness
	start int64
	redis *faults.Redis
	etcd  *etcdfaults.Etcd // instead of redis with Coordinator "etcd"
	dbURL string
	pref  string

	mu      sync.Mutex
	events  []Event
	faults  []Fault
	workers map[int]*worker
	order   []int
	nextID  int
	armed   bool         // freeze the next worker that announces a lease
	frozen  chan *worker // receives that worker
	rng     *mrand.Rand
}

func (c *coordinator) now() int64 { return (mono() - c.start) / 1e3 }

// Run runs one chaos run and checks its history. It returns an error only
// when the run itself could not be carried out; violations are in the
// Result's Report.
func Run(ctx context.Context, cfg Config) (*Result, error) {
	if cfg.Workers <= 0 {
		cfg.Workers = 4
	}
	if cfg.Accounts <= 0 {
		cfg.Accounts = 3
	}
	if cfg.TTL <= 0 {
		cfg.TTL = time.Second
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	if cfg.Exe == "" {
		exe, err := os.Executable()
		if err != nil {
			return nil, err
		}
		cfg.Exe = exe
	}
	c := &coordinator{cfg: cfg, h: &harness{}, start: mono(), workers: map[int]*worker{},
		frozen: make(chan *worker, 1), rng: mrand.New(mrand.NewPCG(cfg.Seed, 0x6368616f73))}
	defer c.h.close()

	// PostgreSQL: a schema of our own, dropped at the end.
	suffix := demo.RandomSuffix()
	schema := "fencegen_chaos_" + suffix
	admin, err := pgxpool.New(ctx, cfg.DatabaseURL)
	if err == nil {
		err = admin.Ping(ctx)
	}
	if err != nil {
		return nil, fmt.Errorf("connect to PostgreSQL: %w", err)
	}
	defer admin.Close()
	if _, err := admin.Exec(ctx, "CREATE SCHEMA "+schema); err != nil {
		return nil, fmt.Errorf("create schema: %w", err)
	}
	defer func() {
		dctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if _, err := admin.Exec(dctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			fmt.Fprintf(os.Stderr, "chaos: drop schema %s: %v\n", schema, err)
		}
	}()
	c.dbURL = demo.WithSearchPath(cfg.DatabaseURL, schema)
	pool, err := pgxpool.New(ctx, c.dbURL)
	if err != nil {
		return nil, err
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, schemaSQL); err != nil {
		return nil, fmt.Errorf("create tables: %w", err)
	}
	res := &Result{Mode: cfg.mode(), Initial: map[int64]int64{}}
	for a := int64(1); a <= int64(cfg.Accounts); a++ {
		const opening = 100000 // 1000.00
		if _, err := pool.Exec(ctx, `INSERT INTO account_balances (id, balance) VALUES ($1, $2::numeric / 100)`, a, opening); err != nil {
			return nil, fmt.Errorf("open account: %w", err)
		}
		res.Initial[a] = opening
	}

	// Redis: a private server, one TCP proxy per worker in front of it.
	// etcd: a private 3-member cluster, each worker's proxy in front of
	// one member (in turn).
	switch cfg.coordinator() {
	case "redis":
		if err := try(func() {
			c.redis = faults.StartRedis(c.h, faults.RedisOptions{MaxLifetime: cfg.Duration + 5*time.Minute})
		}); err != nil {
			return nil, fmt.Errorf("redis-server: %w", err)
		}
	case "etcd":
		if err := try(func() { c.etcd = etcdfaults.Start(c.h, 3) }); err != nil {
			return nil, fmt.Errorf("etcd: %w", err)
		}
	default:
		return nil, fmt.Errorf("coordinator %q: want redis or etcd", cfg.Coordinator)
	}
	c.pref = "chaos-" + suffix
	for range cfg.Workers {
		if err := c.startWorker(); err != nil {
			c.stopWorkers()
			return nil, err
		}
	}

	// Inject faults until the end of the run, then stop everything.
	runCtx, cancel := context.WithTimeout(ctx, cfg.Duration)
	defer cancel()
	injErr := c.inject(runCtx)
	c.stopWorkers()
	res.DurationUS = c.now()
	if injErr != nil {
		return nil, injErr
	}

	// The final state.
	qctx, qcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer qcancel()
	res.History, err = readHistory(qctx, pool)
	if err != nil {
		return nil, err
	}
	res.Final = map[int64]int64{}
	rows, err := pool.Query(qctx, `SELECT id, (balance * 100)::bigint FROM account_balances`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id, cents int64
		if err := rows.Scan(&id, &cents); err != nil {
			return nil, err
		}
		res.Final[id] = cents
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	c.mu.Lock()
	res.Events = slices.Clone(c.events)
	res.Faults = slices.Clone(c.faults)
	for _, id := range c.order {
		w := c.workers[id]
		res.Workers = append(res.Workers, WorkerSpan{ID: id, Start: w.start, End: w.end, Killed: w.killed})
	}
	c.mu.Unlock()
	res.Writes = collectWrites(res.Events)
	res.Report = Check(res)
	if cfg.Verbose {
		enc := json.NewEncoder(cfg.Out)
		for _, e := range res.Events {
			_ = enc.Encode(e)
		}
		for _, f := range res.Faults {
			_ = enc.Encode(map[string]any{"ev": "fault", "kind": f.Kind, "worker": f.Worker, "start": f.Start, "end": f.End, "account": f.Account, "token": f.Token})
		}
	}
	return res, nil
}

// schemaSQL is the accounts table of ../schema.sql (what the generated
// CreditAccount writes) plus the commit-order history the checker reads.
// The AFTER UPDATE trigger runs while the UPDATE holds the row lock, and
// each credit is its own transaction, so for one account the order of seq
// is the commit order.
const schemaSQL = `
CREATE TABLE account_balances (
    id                 BIGINT PRIMARY KEY,
    balance            NUMERIC(15, 2) NOT NULL,
    last_fencing_token BIGINT NOT NULL DEFAULT 0,
    closed_at          TIMESTAMPTZ
);
CREATE TABLE account_history (
    seq        BIGSERIAL PRIMARY KEY,
    account_id BIGINT NOT NULL,
    delta      NUMERIC(15, 2) NOT NULL,
    token      BIGINT NOT NULL,
    balance    NUMERIC(15, 2) NOT NULL,
    txid       BIGINT NOT NULL DEFAULT txid_current()
);
CREATE FUNCTION chaos_history() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO account_history (account_id, delta, token, balance)
    VALUES (NEW.id, NEW.balance - OLD.balance, NEW.last_fencing_token, NEW.balance);
    RETURN NULL;
END
$$;
CREATE TRIGGER chaos_history AFTER UPDATE ON account_balances
    FOR EACH ROW EXECUTE FUNCTION chaos_history();
`

// HistoryRow is one committed update of an account, in commit order.
type HistoryRow struct {
	Seq     int64
	Account int64
	Cents   int64 // the credit: identifies the write (amounts are unique)
	Token   int64 // the stored token after the update
}

func readHistory(ctx context.Context, pool *pgxpool.Pool) ([]HistoryRow, error) {
	rows, err := pool.Query(ctx, `SELECT seq, account_id, (delta * 100)::bigint, token FROM account_history ORDER BY seq`)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []HistoryRow
	for rows.Next() {
		var r HistoryRow
		if err := rows.Scan(&r.Seq, &r.Account, &r.Cents, &r.Token); err != nil {
			return nil, err
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

func (c *coordinator) startWorker() error {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.mu.Unlock()
	target := ""
	if c.etcd != nil {
		m := c.etcd.Members[id%len(c.etcd.Members)]
		target = fmt.Sprintf("127.0.0.1:%d", m.ClientPort)
	} else {
		target = c.redis.Addr()
	}
	var proxy *faults.Proxy
	if err := try(func() { proxy = faults.StartProxy(c.h, target) }); err != nil {
		return err
	}
	cmd := exec.Command(c.cfg.Exe)
	cmd.Env = append(os.Environ(),
		envWorker+"="+strconv.Itoa(id), envMode+"="+c.cfg.mode(), envDB+"="+c.dbURL,
		envRedis+"="+proxy.Addr(), envPrefix+"="+c.pref, envTTL+"="+c.cfg.TTL.String(),
		envAccounts+"="+strconv.Itoa(c.cfg.Accounts), envStart+"="+strconv.FormatInt(c.start, 10),
		envSeed+"="+strconv.FormatUint(c.cfg.Seed, 10), envCoord+"="+c.cfg.coordinator())
	cmd.Stderr = os.Stderr
	// A worker dies with the coordinator.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start worker: %w", err)
	}
	w := &worker{id: id, cmd: cmd, proxy: proxy, start: c.now(), done: make(chan struct{})}
	c.mu.Lock()
	c.workers[id] = w
	c.order = append(c.order, id)
	c.mu.Unlock()
	go func() {
		defer close(w.done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			var e Event
			if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
				fmt.Fprintf(os.Stderr, "chaos: worker %d: %s\n", id, sc.Text())
				continue
			}
			c.record(w, e)
		}
		_ = cmd.Wait()
		c.mu.Lock()
		w.end = c.now()
		c.mu.Unlock()
	}()
	return nil
}

// record stores a worker's event; a lease announcement freezes the worker
// at once when a pause is armed.
func (c *coordinator) record(w *worker, e Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e.Worker = w.id
	c.events = append(c.events, e)
	if e.Ev == "lease" && c.armed && !w.paused {
		if w.cmd.Process.Signal(syscall.SIGSTOP) == nil {
			c.armed = false
			w.paused = true
			w.pauseAccount, w.pauseToken = e.Account, e.Token
			c.frozen <- w
		}
	}
}

// inject runs the fault schedule until ctx ends; every fault it starts is
// undone before it returns.
func (c *coordinator) inject(ctx context.Context) error {
	ttl := c.cfg.TTL
	// Every other fault is a pause, the one that makes late writes; the
	// others come in an order shuffled from the seed, each once per cycle.
	others := []string{FaultKill, FaultRestartKeep, FaultRestartLose, FaultPartition, FaultStall}
	if c.etcd != nil {
		// etcd loses no acknowledged write on a restart; a snapshot
		// restore, which rewinds revisions, is runtime/lease/etcdlease's
		// own test.
		others = []string{FaultKill, FaultRestartKeep, FaultPartition, FaultStall}
	}
	var schedule []string
	sleep := func(d time.Duration) bool {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(d):
			return true
		}
	}
	// The workers need a moment to connect and take their first leases.
	if !sleep(ttl) {
		return nil
	}
	for {
		if len(schedule) == 0 {
			c.rng.Shuffle(len(others), func(i, j int) { others[i], others[j] = others[j], others[i] })
			for _, k := range others {
				schedule = append(schedule, FaultPause, k)
			}
		}
		kind := schedule[0]
		schedule = schedule[1:]
		if err := c.fault(ctx, kind); err != nil {
			return err
		}
		if !sleep(ttl/2 + time.Duration(c.rng.Int64N(int64(ttl)))) {
			return nil
		}
	}
}

func (c *coordinator) fault(ctx context.Context, kind string) error {
	ttl := c.cfg.TTL
	f := Fault{Kind: kind, Start: c.now()}
	switch kind {
	case FaultPause:
		c.mu.Lock()
		c.armed = true
		c.mu.Unlock()
		var w *worker
		select {
		case w = <-c.frozen:
		case <-time.After(3 * ttl):
		case <-ctx.Done():
		}
		c.mu.Lock()
		c.armed = false
		c.mu.Unlock()
		if w == nil {
			select { // armed fired just now
			case w = <-c.frozen:
			default:
				return nil
			}
		}
		c.mu.Lock()
		f.Worker, f.Start, f.Account, f.Token = w.id, c.now(), w.pauseAccount, w.pauseToken
		c.mu.Unlock()
		time.Sleep(ttl*2 + time.Duration(c.rng.Int64N(int64(ttl)))) // undone even after ctx ends
		c.mu.Lock()
		f.End = c.now() // before SIGCONT: the worker's next event is later
		_ = w.cmd.Process.Signal(syscall.SIGCONT)
		w.paused = false
		c.mu.Unlock()
	case FaultKill:
		w := c.pick()
		if w == nil {
			return nil
		}
		f.Worker = w.id
		c.mu.Lock()
		w.killed = true
		c.mu.Unlock()
		_ = w.cmd.Process.Kill()
		<-w.done
		w.proxy.Close()
		if err := c.startWorker(); err != nil {
			return err
		}
	case FaultRestartKeep, FaultRestartLose:
		if c.etcd != nil {
			if err := try(func() {
				m := c.etcd.Leader()
				m.Kill()
				m.Start()
			}); err != nil {
				return fmt.Errorf("restart the etcd leader: %w", err)
			}
			break
		}
		if err := try(func() { c.redis.Restart(kind == FaultRestartKeep) }); err != nil {
			return fmt.Errorf("restart redis: %w", err)
		}
	case FaultPartition, FaultStall:
		w := c.pick()
		if w == nil {
			return nil
		}
		f.Worker = w.id
		if kind == FaultPartition {
			w.proxy.Blackhole(faults.Both, true)
		} else {
			w.proxy.SetLatency(faults.Both, ttl/3)
		}
		time.Sleep(ttl*3/2 + time.Duration(c.rng.Int64N(int64(ttl)))) // undone even after ctx ends
		w.proxy.Heal()
	}
	if f.End == 0 {
		f.End = c.now()
	}
	c.mu.Lock()
	c.faults = append(c.faults, f)
	c.mu.Unlock()
	return nil
}

// pick returns a random running, unpaused worker.
func (c *coordinator) pick() *worker {
	c.mu.Lock()
	defer c.mu.Unlock()
	var live []*worker
	for _, id := range c.order {
		w := c.workers[id]
		select {
		case <-w.done:
			continue
		default:
		}
		if !w.paused {
			live = append(live, w)
		}
	}
	if len(live) == 0 {
		return nil
	}
	return live[c.rng.IntN(len(live))]
}

// stopWorkers sends SIGTERM (after SIGCONT) to every worker, waits a
// little for them to finish their writes and release, then kills the rest.
func (c *coordinator) stopWorkers() {
	c.mu.Lock()
	c.armed = false
	ws := make([]*worker, 0, len(c.workers))
	for _, w := range c.workers {
		ws = append(ws, w)
	}
	c.mu.Unlock()
	for _, w := range ws {
		w.proxy.Heal()
		_ = w.cmd.Process.Signal(syscall.SIGCONT)
		_ = w.cmd.Process.Signal(syscall.SIGTERM)
	}
	deadline := time.After(3*c.cfg.TTL + 5*time.Second)
	for _, w := range ws {
		select {
		case <-w.done:
		case <-deadline:
			_ = w.cmd.Process.Kill()
			<-w.done
		}
	}
}
