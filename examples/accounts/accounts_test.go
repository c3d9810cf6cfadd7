package main

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/examples/accounts/accountsdb"
	"github.com/fencegen/fencegen/internal/demo"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
	"github.com/fencegen/fencegen/runtime/lease"
)

// TestMain lets the test binary act as worker 1 of the demo, as the demo's
// own binary does.
func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		os.Exit(workerMain())
	}
	if acct := os.Getenv(serveEnv); acct != "" {
		// A worker process for TestWorkerShutsDownGracefullyOnSIGTERM.
		id, _ := strconv.ParseInt(acct, 10, 64)
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM)
		defer stop()
		if err := serve(ctx, id, 600*time.Millisecond); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func setup(t *testing.T) (*pgxpool.Pool, *accountsdb.Queries) {
	t.Helper()
	pool := testenv.Database(t, schemaSQL)
	return pool, accountsdb.New(pool)
}

func balance(t *testing.T, q *accountsdb.Queries, id int64) (string, fence.Token) {
	t.Helper()
	a, err := q.GetAccount(context.Background(), id)
	if err != nil {
		t.Fatalf("GetAccount(%d): %v", id, err)
	}
	v, err := a.Balance.Value()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(v), a.LastFencingToken
}

// TestPhantomWriteRejectedWithGuard runs the demo's timeline with the
// generated packages: accountsdb on pgx/v5, accountssql on database/sql
// with lib/pq (the seed article's driver), and accountsmy on MariaDB
// (MYSQL_URL) with go-sql-driver/mysql. Unguarded, the frozen worker's
// credit lands twice; guarded, it is refused with the newer token.
func TestPhantomWriteRejectedWithGuard(t *testing.T) {
	for _, pkg := range []string{PgxV5, DatabaseSQL, MySQL} {
		t.Run(strings.ReplaceAll(pkg, "/", "_"), func(t *testing.T) { phantomWrite(t, pkg) })
	}
}

func phantomWrite(t *testing.T, sqlPackage string) {
	var dsn string
	if sqlPackage == MySQL {
		testenv.NewMySQLDatabase(t, "") // skip or fail loudly if MariaDB is unreachable
	} else {
		dsn = testenv.NewDatabase(t)
	}
	testenv.Redis(t) // skip or fail loudly if Redis is unreachable
	var out strings.Builder
	ttl := 500 * time.Millisecond
	if sqlPackage == PgxV5 {
		ttl = time.Second // the README's run, whose output it shows
	}
	results, err := RunDemo(context.Background(), DemoConfig{
		DatabaseURL: dsn, RedisURL: testenv.RedisURL(), TTL: ttl, Out: &out, SQLPackage: sqlPackage,
		MySQLURL: testenv.MySQLURL(),
	})
	t.Log("\n" + out.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(results) != 2 {
		t.Fatalf("got %d runs, want 2", len(results))
	}
	for _, r := range results {
		if r.SQLPackage != sqlPackage {
			t.Errorf("%s run through %s, want %s", r.Mode, r.SQLPackage, sqlPackage)
		}
		if r.Worker2Token <= r.Worker1Token {
			t.Errorf("%s: worker 2 token %d not above worker 1 token %d", r.Mode, r.Worker2Token, r.Worker1Token)
		}
	}
	un, g := results[0], results[1]
	if un.Mode != Unguarded || un.Worker1Result != "applied" || un.FinalBalance != "200.00" {
		t.Errorf("unguarded run: worker 1 %q, balance %s; want the phantom write applied and 200.00", un.Worker1Result, un.FinalBalance)
	}
	if g.Mode != Guarded || !g.Worker1Stale || g.FinalBalance != "100.00" {
		t.Errorf("guarded run: worker 1 %q, balance %s; want a stale-token refusal and 100.00", g.Worker1Result, g.FinalBalance)
	}
	if g.Worker1Stored != g.Worker2Token || g.StoredToken != g.Worker2Token {
		t.Errorf("guarded run: stale error carries stored token %d, row holds %d; want worker 2's token %d", g.Worker1Stored, g.StoredToken, g.Worker2Token)
	}
	if sqlPackage == PgxV5 {
		// The README shows the guarded run and the verdicts: the same
		// lines, but for the times in brackets.
		readme, err := os.ReadFile("../../README.md")
		if err != nil {
			t.Fatal(err)
		}
		times := regexp.MustCompile(`(?m)^\[[ 0-9.µms]+\]`)
		got := times.ReplaceAllString(out.String()[strings.Index(out.String(), "== "+Guarded+":"):], "[]")
		if !strings.Contains(times.ReplaceAllString(string(readme), "[]"), "```\n"+got+"```\n") {
			t.Errorf("README.md does not show the guarded run and the verdicts (times in brackets aside):\n%s", got)
		}
	}
}

func TestSameTokenWritesTwiceLowerTokenRefused(t *testing.T) {
	ctx := context.Background()
	_, q := setup(t)
	if _, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: 1, Balance: numeric("10.00")}, 1); err != nil {
		t.Fatal(err)
	}
	credit := func(tok fence.Token) error {
		return q.CreditAccount(ctx, accountsdb.CreditAccountParams{Amount: numeric("1.00"), ID: 1}, tok)
	}
	// The holder of token 5 writes the same row twice: both apply.
	for i := 0; i < 2; i++ {
		if err := credit(5); err != nil {
			t.Fatalf("credit %d with token 5: %v", i+1, err)
		}
	}
	if b, tok := balance(t, q, 1); b != "12.00" || tok != 5 {
		t.Fatalf("after two writes with token 5: balance %s token %d, want 12.00 and 5", b, tok)
	}
	// A lower token is refused, and the error carries the stored token.
	err := credit(4)
	var stale *fence.StaleError
	if !errors.Is(err, fence.ErrStaleToken) || !errors.As(err, &stale) {
		t.Fatalf("credit with token 4 = %v, want ErrStaleToken", err)
	}
	if stale.Stored != 5 || stale.Presented != 4 || stale.Rows != 1 || stale.Query != "CreditAccount" || stale.Table != "account_balances" {
		t.Errorf("stale error = %+v", stale)
	}
	if errors.Is(err, fence.ErrNotFound) {
		t.Errorf("stale error also matches ErrNotFound")
	}
	// A higher token applies and is stored.
	if err := credit(9); err != nil {
		t.Fatalf("credit with token 9: %v", err)
	}
	if b, tok := balance(t, q, 1); b != "13.00" || tok != 9 {
		t.Fatalf("after token 9: balance %s token %d, want 13.00 and 9", b, tok)
	}
}

func TestMissingRowIsNotFoundNotStale(t *testing.T) {
	ctx := context.Background()
	_, q := setup(t)
	err := q.CreditAccount(ctx, accountsdb.CreditAccountParams{Amount: numeric("1.00"), ID: 404}, 3)
	if !errors.Is(err, fence.ErrNotFound) || errors.Is(err, fence.ErrStaleToken) {
		t.Fatalf("credit of a missing row = %v, want ErrNotFound only", err)
	}
	var nf *fence.NotFoundError
	if !errors.As(err, &nf) || nf.Query != "CreditAccount" {
		t.Fatalf("not-found error = %#v", err)
	}
	if _, err := q.SetBalance(ctx, accountsdb.SetBalanceParams{Balance: numeric("1.00"), ID: 404}, 3); !errors.Is(err, fence.ErrNotFound) {
		t.Fatalf("SetBalance of a missing row = %v, want ErrNotFound", err)
	}
}

func TestReturningAndDeleteAreGuarded(t *testing.T) {
	ctx := context.Background()
	_, q := setup(t)
	if _, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: 7, Balance: numeric("0.00")}, 3); err != nil {
		t.Fatal(err)
	}
	if _, tok := balance(t, q, 7); tok != 3 {
		t.Fatalf("INSERT stored token %d, want the presented 3", tok)
	}
	row, err := q.SetBalance(ctx, accountsdb.SetBalanceParams{Balance: numeric("50.00"), ID: 7}, 6)
	if err != nil {
		t.Fatal(err)
	}
	if row.ID != 7 || row.LastFencingToken != 6 {
		t.Fatalf("SetBalance returned %+v, want id 7 and token 6", row)
	}
	if _, err := q.SetBalance(ctx, accountsdb.SetBalanceParams{Balance: numeric("0.00"), ID: 7}, 5); !errors.Is(err, fence.ErrStaleToken) {
		t.Fatalf("SetBalance with token 5 = %v, want ErrStaleToken", err)
	}
	if n, err := q.CloseAccount(ctx, 7, 5); !errors.Is(err, fence.ErrStaleToken) || n != 0 {
		t.Fatalf("CloseAccount with token 5 = %d, %v; want ErrStaleToken", n, err)
	}
	if b, _ := balance(t, q, 7); b != "50.00" {
		t.Fatalf("stale writes changed the balance to %s", b)
	}
	if n, err := q.CloseAccount(ctx, 7, 6); err != nil || n != 1 {
		t.Fatalf("CloseAccount with token 6 = %d, %v; want 1 row", n, err)
	}
	if _, err := q.CloseAccount(ctx, 7, 6); !errors.Is(err, fence.ErrNotFound) {
		t.Fatalf("second CloseAccount = %v, want ErrNotFound", err)
	}
}

func TestStrictQueryRefusesSecondWriteUnderOneLease(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	// Created outside any lease: the row stores the default token 0.
	if _, err := pool.Exec(ctx, `INSERT INTO account_balances (id, balance) VALUES (2, 100)`); err != nil {
		t.Fatal(err)
	}
	apply := func(tok fence.Token) error {
		return q.ApplyInterest(ctx, accountsdb.ApplyInterestParams{Rate: numeric("1.10"), ID: 2}, tok)
	}
	if err := apply(1); err != nil {
		t.Fatal(err)
	}
	err := apply(1)
	var stale *fence.StaleError
	if !errors.As(err, &stale) || stale.Mode != fence.Strict || stale.Stored != 1 {
		t.Fatalf("second ApplyInterest under token 1 = %v, want a strict stale-token error", err)
	}
	if b, _ := balance(t, q, 2); b != "110.00" {
		t.Fatalf("balance %s, want 110.00 (interest applied once)", b)
	}
	if err := apply(2); err != nil {
		t.Fatalf("ApplyInterest under token 2: %v", err)
	}
}

// Concurrent writers with different tokens: whatever the interleaving, the
// row ends holding the highest token, and no write with a lower token lands
// after a higher one (the stored token never decreases).
func TestConcurrentWritersNeverLowerTheToken(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	if _, err := pool.Exec(ctx, `CREATE TABLE token_history (seq BIGSERIAL, token BIGINT NOT NULL);
		CREATE FUNCTION record_token() RETURNS trigger LANGUAGE plpgsql AS $$
		BEGIN INSERT INTO token_history (token) VALUES (NEW.last_fencing_token); RETURN NEW; END $$;
		CREATE TRIGGER record_token AFTER UPDATE ON account_balances FOR EACH ROW EXECUTE FUNCTION record_token();`); err != nil {
		t.Fatal(err)
	}
	if _, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: 3, Balance: numeric("0.00")}, 1); err != nil {
		t.Fatal(err)
	}
	const workers, writes = 8, 25
	var wg sync.WaitGroup
	var mu sync.Mutex
	applied := 0
	for w := 1; w <= workers; w++ {
		wg.Add(1)
		go func(tok fence.Token) {
			defer wg.Done()
			for i := 0; i < writes; i++ {
				err := q.CreditAccount(ctx, accountsdb.CreditAccountParams{Amount: numeric("1.00"), ID: 3}, tok)
				switch {
				case err == nil:
					mu.Lock()
					applied++
					mu.Unlock()
				case errors.Is(err, fence.ErrStaleToken):
				default:
					t.Errorf("token %d: %v", tok, err)
				}
			}
		}(fence.Token(w))
	}
	wg.Wait()
	b, tok := balance(t, q, 3)
	if want := fmt.Sprintf("%d.00", applied); b != want {
		t.Errorf("balance %s, want %s (one per applied write)", b, want)
	}
	if tok != workers {
		t.Errorf("stored token %d, want the highest, %d", tok, workers)
	}
	rows, err := pool.Query(ctx, "SELECT token FROM token_history ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	prev, n := int64(0), 0
	for rows.Next() {
		var v int64
		if err := rows.Scan(&v); err != nil {
			t.Fatal(err)
		}
		if v < prev {
			t.Fatalf("write %d stored token %d after token %d", n, v, prev)
		}
		prev, n = v, n+1
	}
	if n != applied {
		t.Errorf("%d updates recorded, %d reported applied", n, applied)
	}
}

const serveEnv = "FENCEGEN_ACCOUNTS_SERVE"

func TestWorkerShutsDownGracefullyOnSIGTERM(t *testing.T) {
	ctx := context.Background()
	dsn := testenv.NewDatabase(t)
	rdb := testenv.Redis(t)
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()
	if _, err := pool.Exec(ctx, schemaSQL); err != nil {
		t.Fatal(err)
	}
	q := accountsdb.New(pool)
	if _, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: 5, Balance: numeric("0.00")}, 1); err != nil {
		t.Fatal(err)
	}
	prefix := "fencegen-test-" + demo.RandomSuffix()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), serveEnv+"=5", "DATABASE_URL="+dsn, "REDIS_URL="+testenv.RedisURL(), workerPrefixEnv+"="+prefix)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	lines := bufio.NewScanner(stdout)
	var log []string
	next := func() string {
		if !lines.Scan() {
			t.Fatalf("worker output ended; so far: %q", log)
		}
		log = append(log, lines.Text())
		return lines.Text()
	}
	if l := next(); !strings.Contains(l, "holding account:5") {
		t.Fatalf("first line %q", l)
	}
	lockKey := prefix + ":{account:5}:lock"
	if n, _ := rdb.Exists(ctx, lockKey).Result(); n != 1 {
		t.Fatalf("lock key %s missing while the worker runs", lockKey)
	}
	time.Sleep(700 * time.Millisecond) // longer than the TTL: the heartbeat must renew
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	for lines.Scan() {
		log = append(log, lines.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("worker exited with %v; output %q", err, log)
	}
	all := strings.Join(log, "\n")
	for _, want := range []string{"taking no new work", "drained", "released account:5"} {
		if !strings.Contains(all, want) {
			t.Errorf("worker output lacks %q:\n%s", want, all)
		}
	}
	// Order: stop taking work, drain, then release.
	if i, j := strings.Index(all, "drained"), strings.Index(all, "released"); i < 0 || j < i {
		t.Errorf("released before draining:\n%s", all)
	}
	if n, _ := rdb.Exists(ctx, lockKey).Result(); n != 0 {
		t.Errorf("lock key %s still exists after shutdown", lockKey)
	}
	b, tok := balance(t, q, 5)
	var applied int
	fmt.Sscanf(all[strings.Index(all, "after ")+len("after "):], "%d", &applied)
	if applied == 0 || b != fmt.Sprintf("%d.00", applied) || tok == 0 {
		t.Errorf("balance %s token %d after %d credits", b, tok, applied)
	}
}

//go:embed accountsdb/fencegen_guard.sql
var guardSQL string

// The database-side guard refuses a stale UPDATE from any writer (here a
// hand-written statement, as psql would send it), with SQLSTATE
// fenceimpl.SQLState; fenceimpl.Write reports that error as a *fence.StaleError.
func TestTriggerRefusesStaleWriteFromAnyWriter(t *testing.T) {
	ctx := context.Background()
	pool := testenv.Database(t, schemaSQL, guardSQL)
	q := accountsdb.New(pool)
	if _, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: 1, Balance: numeric("10.00")}, 1); err != nil {
		t.Fatal(err)
	}
	if err := q.CreditAccount(ctx, accountsdb.CreditAccountParams{Amount: numeric("1.00"), ID: 1}, 5); err != nil {
		t.Fatal(err)
	}
	// A writer that sets an older token by hand, without the WHERE guard.
	_, err := pool.Exec(ctx, `UPDATE account_balances SET balance = 0, last_fencing_token = 3 WHERE id = 1`)
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != fenceimpl.SQLState {
		t.Fatalf("stale hand-written UPDATE: %v, want SQLSTATE %s", err, fenceimpl.SQLState)
	}
	// The same error through fenceimpl.Write becomes a *fence.StaleError.
	_, err = fenceimpl.Write("HandWritten", "account_balances", fence.NonStrict, 3, 0, func() (fenceimpl.Rows, error) {
		return pool.Query(ctx, `UPDATE account_balances SET last_fencing_token = 3 WHERE id = 1 RETURNING NULL::bigint, NULL::bigint`)
	}, nil)
	var stale *fence.StaleError
	if !errors.As(err, &stale) || stale.Stored != 5 || stale.Presented != 3 {
		t.Fatalf("fenceimpl.Write over the trigger's error = %v, want a StaleError with stored 5", err)
	}
	// Writes that keep or raise the token pass; the row is unchanged by the
	// refused ones.
	if _, err := pool.Exec(ctx, `UPDATE account_balances SET balance = balance + 1 WHERE id = 1`); err != nil {
		t.Fatalf("UPDATE that does not touch the token: %v", err)
	}
	if b, tok := balance(t, q, 1); b != "12.00" || tok != 5 {
		t.Fatalf("balance %s token %d, want 12.00 and 5", b, tok)
	}
	if err := q.CreditAccount(ctx, accountsdb.CreditAccountParams{Amount: numeric("1.00"), ID: 1}, 4); !errors.Is(err, fence.ErrStaleToken) {
		t.Fatalf("generated method with a stale token under the trigger: %v", err)
	}
	// And from psql itself, when it is installed.
	psql, err := exec.LookPath("psql")
	if err != nil {
		t.Log("psql not installed: the psql check is left out")
		return
	}
	dsn := pool.Config().ConnString()
	out, err := exec.Command(psql, "-X", "-v", "ON_ERROR_STOP=1", "-v", "VERBOSITY=verbose", dsn,
		"-c", "UPDATE account_balances SET last_fencing_token = 1 WHERE id = 1").CombinedOutput()
	if err == nil || !strings.Contains(string(out), fenceimpl.SQLState) {
		t.Fatalf("psql stale UPDATE: err %v, output %s; want a failure with SQLSTATE %s", err, out, fenceimpl.SQLState)
	}
	if _, tok := balance(t, q, 1); tok != 5 {
		t.Fatalf("psql lowered the token to %d", tok)
	}
}

// runWorkerFor runs RunWorker on account against pool, with a Redis prefix of
// its own, and returns what it returned and logged; the worker must stop by
// itself well before the deadline.
func runWorkerFor(t *testing.T, q *accountsdb.Queries, account int64) (int64, string, error) {
	t.Helper()
	rdb := testenv.Redis(t)
	locker := lease.New(rdb, &lease.Options{KeyPrefix: "fencegen-test-" + demo.RandomSuffix()})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var log strings.Builder
	applied, err := RunWorker(ctx, locker, q, WorkerConfig{
		Account: account, TTL: 600 * time.Millisecond, Every: 60 * time.Millisecond, Drain: 300 * time.Millisecond, Log: &log,
	})
	if ctx.Err() != nil {
		t.Fatalf("the worker ran until its deadline instead of stopping; log:\n%s", log.String())
	}
	return applied, log.String(), err
}

// A worker started before its set-up (account missing, schema not loaded)
// logs the failed credit and stops with an error saying what is missing,
// after releasing its lease.
func TestWorkerStopsOnFailedCredit(t *testing.T) {
	t.Run("account missing", func(t *testing.T) {
		_, q := setup(t)
		applied, log, err := runWorkerFor(t, q, 7)
		if !errors.Is(err, fence.ErrNotFound) || !strings.Contains(err.Error(), "account 7 does not exist") {
			t.Errorf("RunWorker = %v, want fence.ErrNotFound naming account 7", err)
		}
		if applied != 0 {
			t.Errorf("%d credits applied", applied)
		}
		for _, want := range []string{"worker: credit failed: credit account 7", "stopping after the failed credit", "released account:7"} {
			if !strings.Contains(log, want) {
				t.Errorf("log lacks %q:\n%s", want, log)
			}
		}
	})
	t.Run("schema not loaded", func(t *testing.T) {
		pool := testenv.Database(t)
		_, log, err := runWorkerFor(t, accountsdb.New(pool), 7)
		var pgErr *pgconn.PgError
		if !errors.As(err, &pgErr) || pgErr.Code != "42P01" || !strings.Contains(err.Error(), "schema.sql") {
			t.Errorf("RunWorker = %v, want SQLSTATE 42P01 and a hint about schema.sql", err)
		}
		if !strings.Contains(log, "worker: credit failed:") {
			t.Errorf("log lacks the failed credit:\n%s", log)
		}
	})
}

// A worker whose credit is refused as stale (the row stores a higher token
// than the lease's) treats its lease as lost: it stops with a
// *lease.LostError, and the counter is raised above the stored token.
func TestWorkerStopsWhenSuperseded(t *testing.T) {
	ctx := context.Background()
	_, q := setup(t)
	if _, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: 8, Balance: numeric("0.00")}, 1000); err != nil {
		t.Fatal(err)
	}
	_, log, err := runWorkerFor(t, q, 8)
	var lost *lease.LostError
	if !errors.As(err, &lost) || lost.Reason != lease.ReasonSuperseded {
		t.Errorf("RunWorker = %v, want a *lease.LostError superseded", err)
	}
	for _, want := range []string{"worker: credit refused: fence: stale token", "released account:8"} {
		if !strings.Contains(log, want) {
			t.Errorf("log lacks %q:\n%s", want, log)
		}
	}
	if strings.Contains(log, "credit failed") {
		t.Errorf("a stale refusal was reported as a failure:\n%s", log)
	}
}

// Token 0 and negative tokens, which no lease mints, are refused by the
// generated methods before anything is sent (issue 24): token 0 used to
// credit a row created outside a lease (which stores 0), and an INSERT
// stored -5, after which every token could overwrite the row.
func TestInvalidTokenRefused(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	if _, err := pool.Exec(ctx, `INSERT INTO account_balances (id, balance) VALUES (1, 10)`); err != nil {
		t.Fatal(err)
	}
	invalid := func(what string, err error, tok fence.Token) {
		t.Helper()
		var ie *fence.InvalidTokenError
		if !errors.Is(err, fence.ErrInvalidToken) || !errors.As(err, &ie) || ie.Token != tok || ie.Table != "account_balances" {
			t.Fatalf("%s: %v; want a *fence.InvalidTokenError with token %d", what, err, tok)
		}
	}
	invalid("CreditAccount with token 0", q.CreditAccount(ctx, accountsdb.CreditAccountParams{Amount: numeric("5.00"), ID: 1}, 0), 0)
	_, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: 2, Balance: numeric("1.00")}, -5)
	invalid("OpenAccount with token -5", err, -5)
	var errs []error
	q.CreditAccounts(ctx, []accountsdb.CreditAccountsParams{{ID: 1, Amount: numeric("1.00")}, {ID: 1, Amount: numeric("2.00")}}, 0).Exec(func(_ int, err error) {
		errs = append(errs, err)
	})
	if len(errs) != 2 {
		t.Fatalf("batch items reported: %d, want 2", len(errs))
	}
	for _, err := range errs {
		invalid("CreditAccounts item with token 0", err, 0)
	}
	var rows string
	if err := pool.QueryRow(ctx, `SELECT string_agg(format('%s:%s:%s', id, balance, last_fencing_token), ' ' ORDER BY id) FROM account_balances`).Scan(&rows); err != nil {
		t.Fatal(err)
	}
	if rows != "1:10.00:0" {
		t.Fatalf("account_balances after the refused writes: %s, want 1:10.00:0", rows)
	}
}
