// Command chaos is a Jepsen-style proof of the accounts example under
// faults. Several worker processes (this binary, re-executed) contend for
// Redis leases on a few accounts and credit them through the generated,
// fenced CreditAccount, while a fault injector, on a schedule drawn from
// -seed, freezes workers with SIGSTOP for longer than the TTL right after
// they acquired, kills them with SIGKILL, restarts a private redis-server
// with and without its data, and partitions or slows each worker's Redis
// traffic through a TCP proxy. Every write is logged as a JSON line; at the
// end a checker reads that history and the database's commit-order history
// and verifies that tokens never go backwards, that balances add up, that
// no acknowledged write is missing and that every stale refusal was right.
//
// Usage:
//
//	go run ./examples/accounts/chaos -duration 60s -seed 7
//	go run ./examples/accounts/chaos -duration 60s -seed 7 -unguarded
//
// With -coordinator etcd the leases come from a private 3-member etcd
// cluster (runtime/lease/etcdlease) instead, and the Redis restarts become
// kills and restarts of the etcd leader.
//
// With -unguarded the workers use a plain UPDATE without the token: the
// negative control, which must find violations. The exit status is 0 when
// the guarded run has no violation or the control found some, 1 otherwise.
// DATABASE_URL (default postgres://postgres@127.0.0.1:5432/postgres) is
// where a schema of the run's own is created and dropped; redis-server must
// be on PATH. -svg writes a timeline of the run; the report prints its path
// relative to the current directory, or as ${TMPDIR:-/tmp}/... when it is
// in the temp directory (the default), never as an absolute path.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"
)

func main() {
	if os.Getenv(envWorker) != "" {
		os.Exit(workerMain())
	}
	cfg := Config{}
	flag.DurationVar(&cfg.Duration, "duration", 60*time.Second, "how long workers run under faults")
	flag.Uint64Var(&cfg.Seed, "seed", 1, "seed of the fault schedule and of the workers' choices")
	flag.IntVar(&cfg.Workers, "workers", 4, "worker processes")
	flag.IntVar(&cfg.Accounts, "accounts", 3, "accounts the workers contend for")
	flag.DurationVar(&cfg.TTL, "ttl", time.Second, "lease TTL")
	flag.StringVar(&cfg.Coordinator, "coordinator", "redis", "where leases come from: redis (a private redis-server) or etcd (a private 3-member etcd cluster)")
	flag.BoolVar(&cfg.Unguarded, "unguarded", false, "negative control: credit with a plain UPDATE, no fencing token")
	flag.StringVar(&cfg.SVG, "svg", "", "write the timeline here (default: fencegen-chaos-<mode>-<seed>.svg in the temp directory; \"-\" for none)")
	flag.BoolVar(&cfg.Verbose, "v", false, "print the history (JSON lines) before the report")
	flag.Parse()
	cfg.DatabaseURL = os.Getenv("DATABASE_URL")
	if cfg.DatabaseURL == "" {
		cfg.DatabaseURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	}
	if cfg.SVG == "" {
		mode := "guarded"
		if cfg.Unguarded {
			mode = "unguarded"
		}
		cfg.SVG = filepath.Join(os.TempDir(), fmt.Sprintf("fencegen-chaos-%s-%d.svg", mode, cfg.Seed))
	} else if cfg.SVG == "-" {
		cfg.SVG = ""
	}
	cfg.Out = os.Stdout
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, cfg))
}

// run runs the chaos run, prints the report, writes the picture and
// returns the exit status.
func run(ctx context.Context, cfg Config) int {
	res, err := Run(ctx, cfg)
	if err != nil {
		fmt.Fprintln(os.Stderr, "chaos:", err)
		return 2
	}
	ok := PrintReport(cfg.Out, cfg, res)
	if cfg.SVG != "" {
		if err := os.WriteFile(cfg.SVG, []byte(SVG(res, cfg)), 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "chaos:", err)
			return 2
		}
		fmt.Fprintf(cfg.Out, "timeline: %s\n", displayPath(cfg.SVG))
	}
	if !ok {
		return 1
	}
	return 0
}

// displayPath is how the report names a file it wrote, never as an
// absolute path: relative to the current directory when the file is under
// it, as ${TMPDIR:-/tmp}/... when it is under the temp directory
// (os.TempDir: $TMPDIR, or /tmp when that is unset; the shell expands the
// printed path to the file either way), and otherwise relative to the
// current directory all the same.
func displayPath(p string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return filepath.Base(p)
	}
	wd, _ := os.Getwd()
	if rel, err := filepath.Rel(wd, abs); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	if rel, err := filepath.Rel(os.TempDir(), abs); err == nil && filepath.IsLocal(rel) {
		return "${TMPDIR:-/tmp}" + string(filepath.Separator) + rel
	}
	if rel, err := filepath.Rel(wd, abs); err == nil && !filepath.IsAbs(rel) {
		return rel
	}
	return filepath.Base(p)
}

// PrintReport prints the counts and the verdict and says whether the run
// passed: no violation in a guarded run, some in the control.
func PrintReport(out io.Writer, cfg Config, res *Result) bool {
	r := res.Report
	fmt.Fprintf(out, "chaos %s run: seed %d, %d workers (%d processes), %d accounts, TTL %s, %.1fs\n",
		res.Mode, cfg.Seed, cfg.Workers, len(res.Workers), cfg.Accounts, cfg.TTL, float64(res.DurationUS)/1e6)
	fmt.Fprintf(out, "leases taken %d, lost %d; writes applied %d, refused as stale %d, failed %d, unknown (worker killed) %d, unacknowledged that landed %d\n",
		r.Leases, r.Lost, r.Applied, r.Refused, r.Errors, r.Unknown, r.LandedOther)
	fmt.Fprintf(out, "writes sent right after a SIGSTOP with the token from before it: %d: landed out of token order %d, refused as stale %d, "+
		"landed in token order %d (no newer holder had written the account yet), failed or no outcome %d",
		r.AfterPause, r.AfterPauseLate, r.AfterPauseRefused, r.AfterPauseInOrder, r.AfterPauseFailed)
	if r.AfterPauseMissing > 0 {
		fmt.Fprintf(out, ", acknowledged but not in the history %d", r.AfterPauseMissing)
	}
	fmt.Fprintln(out)
	fmt.Fprintf(out, "faults:")
	total := 0
	for _, k := range []string{FaultPause, FaultKill, FaultRestartKeep, FaultRestartLose, FaultPartition, FaultStall} {
		fmt.Fprintf(out, " %s %d", k, r.Faults[k])
		total += r.Faults[k]
	}
	fmt.Fprintf(out, " (total %d)\n", total)
	fmt.Fprintf(out, "violations: %d (unmatched commits %d; (1) token order %d; (2) balance %d; (3) lost ack %d; (4) wrong refusal %d)\n",
		r.Total(), r.ByCheck[0], r.ByCheck[1], r.ByCheck[2], r.ByCheck[3], r.ByCheck[4])
	for i, v := range r.Violations {
		if i == 10 {
			fmt.Fprintf(out, "  ... %d more\n", len(r.Violations)-10)
			break
		}
		fmt.Fprintf(out, "  %s\n", v)
	}
	if cfg.Unguarded {
		if r.Total() > 0 {
			fmt.Fprintf(out, "control: %d violations found, as expected\n", r.Total())
			return true
		}
		fmt.Fprintln(out, "control found no violation: the fault schedule is too weak")
		return false
	}
	if r.Total() == 0 {
		fmt.Fprintln(out, "verdict: OK, zero violations")
		return true
	}
	fmt.Fprintln(out, "verdict: FAILED")
	return false
}
