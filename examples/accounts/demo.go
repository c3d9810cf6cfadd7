package main

import (
	"bufio"
	"context"
	"database/sql"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"
	_ "github.com/lib/pq" // database/sql driver "postgres", the seed article's

	"github.com/fencegen/fencegen/examples/accounts/accountsdb"
	"github.com/fencegen/fencegen/examples/accounts/accountssql"
	"github.com/fencegen/fencegen/internal/demo"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
)

//go:embed schema.sql
var schemaSQL string

// unguardedCredit is what a team writes by hand: the lease is supposed to
// make it safe, and nothing in the statement checks the token.
const unguardedCredit = `UPDATE account_balances SET balance = balance + $1 WHERE id = $2`

// createAccount opens an account with a zero balance outside any lease.
const createAccount = `INSERT INTO account_balances (id, balance) VALUES ($1, 0)`

// Environment of the worker child process.
const (
	workerEnv       = "FENCEGEN_ACCOUNTS_WORKER"
	workerDBEnv     = "FENCEGEN_ACCOUNTS_DB"
	workerRedisEnv  = "FENCEGEN_ACCOUNTS_REDIS"
	workerPrefixEnv = "FENCEGEN_ACCOUNTS_PREFIX"
	workerTTLEnv    = "FENCEGEN_ACCOUNTS_TTL"
	workerAcctEnv   = "FENCEGEN_ACCOUNTS_ACCOUNT"
	workerSQLEnv    = "FENCEGEN_ACCOUNTS_SQL_PACKAGE"
)

// The SQL packages the demo's workers credit through (DemoConfig.SQLPackage).
const (
	PgxV5       = "pgx/v5"
	DatabaseSQL = "database/sql"
)

// Modes of a run.
const (
	Unguarded = "unguarded"
	Guarded   = "guarded"
)

// creditAmount is the credit each job makes, exactly once.
const creditAmount = "100.00"

// DemoConfig configures RunDemo.
type DemoConfig struct {
	DatabaseURL string
	RedisURL    string
	// TTL is the lease TTL; worker 1 is frozen for 1.5×TTL.
	TTL time.Duration
	// Out receives the timeline.
	Out io.Writer
	// SQLPackage is what both workers credit through: PgxV5 (accountsdb
	// on a pgx pool, the default), DatabaseSQL (accountssql on a
	// *sql.DB with github.com/lib/pq, as in the seed article), or MySQL
	// (accountsmy on go-sql-driver/mysql, at MySQLURL instead of
	// DatabaseURL).
	SQLPackage string
	// MySQLURL is the go-sql-driver/mysql DSN of the MySQL or MariaDB
	// server the MySQL demo runs on.
	MySQLURL string
}

// RunResult is what one run of the timeline produced.
type RunResult struct {
	Mode           string
	SQLPackage     string
	Account        int64
	Worker1Token   fence.Token
	Worker2Token   fence.Token
	Worker1Result  string // "applied", or the error worker 1 got
	Worker1Stale   bool
	Worker1Stored  fence.Token // the stored token in worker 1's stale error
	FinalBalance   string
	ExpectedAmount string
	StoredToken    fence.Token
}

// RunDemo runs the timeline unguarded, then guarded, and returns both
// results. It creates a schema of its own in cfg.DatabaseURL's database
// and drops it at the end.
func RunDemo(ctx context.Context, cfg DemoConfig) ([]RunResult, error) {
	if cfg.TTL <= 0 {
		cfg.TTL = time.Second
	}
	if cfg.Out == nil {
		cfg.Out = io.Discard
	}
	switch cfg.SQLPackage {
	case "":
		cfg.SQLPackage = PgxV5
	case PgxV5, DatabaseSQL, MySQL:
	default:
		return nil, fmt.Errorf("SQL package %q: want %s, %s or %s", cfg.SQLPackage, PgxV5, DatabaseSQL, MySQL)
	}
	suffix := demo.RandomSuffix()
	var sc *demo.Scratch
	var myDB *sql.DB // the MySQL demo's database
	var err error
	if cfg.SQLPackage == MySQL {
		var my *mysqlScratch
		if sc, my, err = openMySQLDemo(ctx, cfg, suffix); err != nil {
			return nil, err
		}
		defer my.Close()
		myDB = my.db
	} else if sc, err = demo.OpenScratch(ctx, cfg.DatabaseURL, cfg.RedisURL, "fencegen_demo_"+suffix, schemaSQL, "fencegen-demo-"+suffix); err != nil {
		return nil, err
	}
	defer sc.Close()

	var results []RunResult
	for i, mode := range []string{Unguarded, Guarded} {
		r, err := runTimeline(ctx, cfg, mode, int64(42+i), sc, myDB)
		if err != nil {
			return results, fmt.Errorf("%s run: %w", mode, err)
		}
		results = append(results, r)
	}
	fmt.Fprintln(cfg.Out)
	for _, r := range results {
		verdict := "RIGHT"
		if r.FinalBalance != r.ExpectedAmount {
			verdict = "WRONG (phantom write)"
		}
		fmt.Fprintf(cfg.Out, "%-9s%s final balance %s, expected %s: %s\n", r.Mode, packageLabel(r.SQLPackage), r.FinalBalance, r.ExpectedAmount, verdict)
	}
	return results, nil
}

func numeric(s string) pgtype.Numeric {
	var n pgtype.Numeric
	if err := n.Scan(s); err != nil {
		panic(err)
	}
	return n
}

// packageLabel names the SQL package in the timeline, except the default.
func packageLabel(sqlPackage string) string {
	switch sqlPackage {
	case DatabaseSQL:
		return " (" + DatabaseSQL + ")"
	case MySQL:
		return " (MariaDB/MySQL)"
	}
	return ""
}

// creditor credits through one of the two generated packages.
type creditor interface {
	credit(ctx context.Context, mode string, account int64, token fence.Token) error
	Close()
}

// openCreditor connects to dsn for sqlPackage (PgxV5, DatabaseSQL or MySQL).
func openCreditor(ctx context.Context, sqlPackage, dsn string) (creditor, error) {
	if sqlPackage != DatabaseSQL && sqlPackage != MySQL {
		pool, err := demo.OpenPool(ctx, dsn)
		if err != nil {
			return nil, err
		}
		return pgxCreditor{pool}, nil
	}
	driver := "postgres"
	if sqlPackage == MySQL {
		driver = "mysql"
	}
	db, err := sql.Open(driver, dsn)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := db.PingContext(cctx); err != nil {
		db.Close()
		return nil, err
	}
	if sqlPackage == MySQL {
		return mysqlCreditor{db}, nil
	}
	return sqlCreditor{db}, nil
}

type pgxCreditor struct{ pool *pgxpool.Pool }

func (c pgxCreditor) credit(ctx context.Context, mode string, account int64, token fence.Token) error {
	return credit(ctx, c.pool, mode, account, token)
}

func (c pgxCreditor) Close() { c.pool.Close() }

// sqlCreditor is the database/sql path: the unguarded credit is the
// statement a hand-written database/sql worker sends, the guarded one the
// generated accountssql.CreditAccount (numeric is a string there, as in
// sqlc's database/sql output).
type sqlCreditor struct{ db *sql.DB }

func (c sqlCreditor) credit(ctx context.Context, mode string, account int64, token fence.Token) error {
	if mode == Unguarded {
		_, err := c.db.ExecContext(ctx, unguardedCredit, creditAmount, account)
		return err
	}
	return accountssql.New(c.db).CreditAccount(ctx, accountssql.CreditAccountParams{Amount: creditAmount, ID: account}, token)
}

func (c sqlCreditor) Close() { c.db.Close() }

func credit(ctx context.Context, db accountsdb.DBTX, mode string, account int64, token fence.Token) error {
	if mode == Unguarded {
		_, err := db.Exec(ctx, unguardedCredit, numeric(creditAmount), account)
		return err
	}
	return accountsdb.New(db).CreditAccount(ctx, accountsdb.CreditAccountParams{Amount: numeric(creditAmount), ID: account}, token)
}

func runTimeline(ctx context.Context, cfg DemoConfig, mode string, account int64, sc *demo.Scratch, myDB *sql.DB) (RunResult, error) {
	pool, dbURL := sc.Pool, sc.DatabaseURL
	r := RunResult{Mode: mode, SQLPackage: cfg.SQLPackage, Account: account, ExpectedAmount: creditAmount}
	tl := &demo.Timeline{Out: cfg.Out, Start: time.Now(), Width: 9}
	fmt.Fprintf(cfg.Out, "\n== %s%s: job \"credit account %d with %s, exactly once\" ==\n", mode, packageLabel(cfg.SQLPackage), account, creditAmount)
	// The account is created outside any lease, as an API would: the row
	// keeps the token column's default, 0, which every lease's token beats
	// (docs/guard.md, "Rows created outside a lease").
	if myDB != nil {
		_, err := myDB.ExecContext(ctx, `INSERT INTO account_balances (id, balance) VALUES (?, 0)`, account)
		if err != nil {
			return r, fmt.Errorf("open account: %w", err)
		}
	} else if _, err := pool.Exec(ctx, createAccount, account); err != nil {
		return r, fmt.Errorf("open account: %w", err)
	}
	resource := fmt.Sprintf("account:%d", account)

	// Worker 1: a child process, so that SIGSTOP freezes all of it.
	w1, err := demo.StartWorker1(ctx,
		workerEnv+"="+mode, workerDBEnv+"="+dbURL, workerRedisEnv+"="+cfg.RedisURL,
		workerPrefixEnv+"="+sc.Prefix, workerTTLEnv+"="+cfg.TTL.String(),
		workerAcctEnv+"="+strconv.FormatInt(account, 10), workerSQLEnv+"="+cfg.SQLPackage)
	if err != nil {
		return r, err
	}
	defer w1.Close()
	say1 := func(line string) { tl.Say("worker 1", "%s", line) }
	if r.Worker1Token, err = w1.Ready(say1); err != nil {
		return r, err
	}
	pause := cfg.TTL * 3 / 2
	if err := w1.Freeze(pause); err != nil {
		return r, err
	}
	tl.Say("worker 1", "FROZEN (SIGSTOP for %s, longer than the %s TTL: a stop-the-world GC pause)", pause, cfg.TTL)

	// Worker 2: waits until worker 1's lease has expired in Redis.
	l2, err := demo.TakeOver(ctx, sc.Redis, sc.Prefix, resource, cfg.TTL, tl.Sayer("worker 2"))
	if err != nil {
		return r, err
	}
	r.Worker2Token = l2.Token()
	// On pgx/v5 worker 2 credits through the timeline's pool; database/sql
	// needs a *sql.DB of its own.
	var w2 creditor = pgxCreditor{pool}
	if cfg.SQLPackage == DatabaseSQL || cfg.SQLPackage == MySQL {
		db, err := openCreditor(ctx, cfg.SQLPackage, dbURL)
		if err != nil {
			return r, fmt.Errorf("worker 2 connect: %w", err)
		}
		defer db.Close()
		w2 = db
	}
	if err := w2.credit(l2.Context(), mode, account, l2.Token()); err != nil {
		return r, fmt.Errorf("worker 2 credit: %w", err)
	}
	tl.Say("worker 2", "credited %s with token %d: job done", creditAmount, l2.Token())
	if err := l2.Release(ctx); err != nil {
		return r, fmt.Errorf("worker 2 release: %w", err)
	}
	tl.Say("worker 2", "released the lease")

	if err := w1.Resume(); err != nil {
		return r, err
	}
	tl.Say("worker 1", "wakes up; its credit with token %d was already on its way", r.Worker1Token)
	res, err := w1.Relay("RESULT ", say1)
	if err != nil {
		return r, err
	}
	r.Worker1Result = res
	if s, ok := strings.CutPrefix(res, "stale "); ok {
		r.Worker1Stale = true
		n, _ := strconv.ParseInt(strings.Fields(s)[0], 10, 64)
		r.Worker1Stored = fence.Token(n)
	}
	switch {
	case r.Worker1Result == "applied":
		tl.Say("worker 1", "credited %s with stale token %d: PHANTOM WRITE landed", creditAmount, r.Worker1Token)
	case r.Worker1Stale:
		tl.Say("worker 1", "credit refused by %s: fence.ErrStaleToken (stored token %d > %d)", serverName(cfg.SQLPackage), r.Worker1Stored, r.Worker1Token)
	default:
		tl.Say("worker 1", "credit failed: %s", r.Worker1Result)
	}
	_, _ = w1.Relay("", say1) // the rest of its lines
	if err := w1.Wait(); err != nil {
		return r, fmt.Errorf("worker 1: %w", err)
	}
	if myDB != nil {
		if r.FinalBalance, r.StoredToken, err = mysqlAccount(ctx, myDB, account); err != nil {
			return r, err
		}
	} else {
		acct, err := accountsdb.New(pool).GetAccount(ctx, account)
		if err != nil {
			return r, err
		}
		v, err := acct.Balance.Value()
		if err != nil {
			return r, err
		}
		r.FinalBalance, r.StoredToken = fmt.Sprint(v), acct.LastFencingToken
	}
	tl.Say("database", "account %d: balance %s, last_fencing_token %d", account, r.FinalBalance, r.StoredToken)
	return r, nil
}

// workerMain is worker 1, run as a child process: acquire, check the lease,
// announce READY, then wait for GO (the parent freezes the process in
// between) and credit with the token it got before the pause.
// serverName names the database server of sqlPackage in the timeline.
func serverName(sqlPackage string) string {
	if sqlPackage == MySQL {
		return "MariaDB/MySQL"
	}
	return "PostgreSQL"
}

func workerMain() int {
	mode := os.Getenv(workerEnv)
	account, _ := strconv.ParseInt(os.Getenv(workerAcctEnv), 10, 64)
	ttl, _ := time.ParseDuration(os.Getenv(workerTTLEnv))
	ctx := context.Background()
	db, err := openCreditor(ctx, os.Getenv(workerSQLEnv), os.Getenv(workerDBEnv))
	if err != nil {
		fmt.Println("RESULT error", err)
		return 1
	}
	defer db.Close()
	rdb, err := demo.RedisClient(os.Getenv(workerRedisEnv))
	if err != nil {
		fmt.Println("RESULT error", err)
		return 1
	}
	defer rdb.Close()
	locker := lease.New(rdb, &lease.Options{KeyPrefix: os.Getenv(workerPrefixEnv)})
	resource := fmt.Sprintf("account:%d", account)
	l, err := locker.Acquire(ctx, resource, ttl)
	if err != nil {
		fmt.Println("RESULT error acquire:", err)
		return 1
	}
	fmt.Printf("acquired lease %s, fencing token %d\n", resource, l.Token())
	if l.Context().Err() == nil {
		fmt.Println("lease still valid: about to credit")
	}
	fmt.Printf("READY %d\n", l.Token())
	in := bufio.NewScanner(os.Stdin)
	in.Scan() // frozen here by SIGSTOP; GO arrives after SIGCONT
	// The write goes out with the token from before the pause. (Checking
	// l.Context() here would narrow the window, never close it: the pause
	// can fall between the check and the bytes leaving the socket.)
	wctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	err = db.credit(wctx, mode, account, l.Token())
	var stale *fence.StaleError
	switch {
	case err == nil:
		fmt.Println("RESULT applied")
	case errors.As(err, &stale):
		fmt.Printf("RESULT stale %d\n", stale.Stored)
	default:
		fmt.Println("RESULT error", err)
	}
	if cause := context.Cause(l.Context()); cause != nil {
		fmt.Printf("its lease context was cancelled: %v\n", cause)
	}
	rctx, rcancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer rcancel()
	if err := l.Release(rctx); err != nil {
		fmt.Printf("release: %v (worker 2's key untouched)\n", err)
	}
	return 0
}
