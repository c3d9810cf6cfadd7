//go:build linux

package mysqlguard_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fencegen/fencegen/gen/internal/guard/mysqlguard"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// BenchmarkGuardedUpdateParts (Linux) takes BenchmarkGuardedUpdateByKey's guarded
// UPDATE apart on MariaDB (MYSQL_URL): the unguarded UPDATE ("bare"), then
// each part of the guard added in turn: the token written from a plain
// parameter ("set-token"), written through LAST_INSERT_ID(?)
// ("set-lastid"), a plain token comparison added to the WHERE clause
// ("where-plain"), the guarded statement as Rewrite writes it, sent with a
// bare ExecContext ("guarded-sql"), and the generated path
// (fenceimpl.CheckToken, fenceimpl.MySQLByKey; "generated"); and the
// unguarded UPDATE again as a control ("bare-again": its difference from
// "bare" is the noise). Each variant runs partsBlock times in a row, the
// variants in rotating order, on one connection; b.N is rounded up to
// whole rounds of partsBlock calls of every variant.
//
// For each variant it logs the medians over its blocks of the wall time,
// the server's CPU time and the client's CPU time per call (µs), and its
// allocations per call on the client. The server's CPU time is that of
// the connection's thread (MariaDB's information_schema.PROCESSLIST.TID,
// one thread per connection), read from Linux's /proc/<tid>/schedstat;
// NaN when the server is not a local process this one can read. The
// client's is this process's user and system time (getrusage), garbage
// collection included. It reports the generated path's and the bare
// UPDATE's medians as metrics.
//
// Sub-benchmarks: commit=tx runs the statements inside a transaction,
// rolled back after every round, so that no call waits for a log flush
// and the times are the statements' own (a round trip, parsing, the
// update); commit=auto runs them in autocommit, as an application does.
// Each for the driver's default DSN (server-side prepared statements:
// prepare, execute, close per call) and interpolateParams=true (one text
// query).
func BenchmarkGuardedUpdateParts(b *testing.B) {
	for _, commit := range []string{"tx", "auto"} {
		for _, params := range []string{"", "interpolateParams=true"} {
			b.Run(fmt.Sprintf("commit=%s/dsn=%s", commit, params), func(b *testing.B) {
				benchParts(b, commit == "tx", params)
			})
		}
	}
}

// partsBlock is the number of calls of a variant in a row that
// BenchmarkGuardedUpdateParts measures as one block.
const partsBlock = 50

func benchParts(b *testing.B, inTx bool, params string) {
	ctx := context.Background()
	db := testenv.MySQL(b, params, schema, "INSERT INTO accounts (id, balance, fence_token) VALUES (1, 0, 7)")
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	conn, err := db.Conn(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	var tid int
	if err := conn.QueryRowContext(ctx, "SELECT TID FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()").Scan(&tid); err != nil {
		b.Logf("no server thread id (%v): server CPU not measured", err)
	}
	const query = "UPDATE accounts SET balance = balance + ? WHERE id = ?"
	g, err := mysqlguard.Rewrite(query, mysqlguard.Spec{Column: "fence_token", Key: []string{"id"}, Param: 3, Table: "accounts", Name: "accounts"})
	if err != nil {
		b.Fatal(err)
	}
	const token = fence.Token(7)
	args := [3]any{int64(1), int64(1), int64(token)}
	bound := make([]any, len(g.Params))
	for i, p := range g.Params {
		bound[i] = args[p-1]
	}
	exec := func(q string, args ...any) func() error {
		return func() error {
			_, err := conn.ExecContext(ctx, q, args...)
			return err
		}
	}
	variants := []struct {
		name string
		op   func() error
	}{
		{"bare", exec(query, int64(1), int64(1))},
		{"set-token", exec("UPDATE accounts SET balance = balance + ?, fence_token = ? WHERE id = ?", int64(1), int64(token), int64(1))},
		{"set-lastid", exec("UPDATE accounts SET balance = balance + ?, fence_token = LAST_INSERT_ID(?) WHERE id = ?", int64(1), int64(token), int64(1))},
		{"where-plain", exec("UPDATE accounts SET balance = balance + ?, fence_token = LAST_INSERT_ID(?) WHERE (id = ?) AND fence_token <= ?", int64(1), int64(token), int64(1), int64(token))},
		{"guarded-sql", exec(g.SQL, bound...)},
		{"generated", func() error {
			if err := fenceimpl.CheckToken("CreditAccount", "accounts", token); err != nil {
				return err
			}
			_, err := fenceimpl.MySQLByKey(ctx, "CreditAccount", "accounts", fence.NonStrict, token, func() (sql.Result, error) {
				return conn.ExecContext(ctx, g.SQL, bound...)
			}, nil)
			return err
		}},
		{"bare-again", exec(query, int64(1), int64(1))},
	}
	n := len(variants)
	begin := func(stmt string) {
		if inTx {
			if _, err := conn.ExecContext(ctx, stmt); err != nil {
				b.Fatal(err)
			}
		}
	}
	wall, server, client := make([][]float64, n), make([][]float64, n), make([][]float64, n)
	begin("BEGIN")
	b.ResetTimer()
	for r := 0; r*partsBlock < b.N; r++ {
		for j := range n {
			k := (r + j) % n
			s0, c0, w0 := threadCPU(tid), processCPU(), time.Now()
			for range partsBlock {
				if err := variants[k].op(); err != nil {
					b.Fatal(variants[k].name, err)
				}
			}
			w := time.Since(w0)
			s1, c1 := threadCPU(tid), processCPU()
			wall[k] = append(wall[k], float64(w.Nanoseconds())/partsBlock/1e3)
			server[k] = append(server[k], float64(s1-s0)/partsBlock/1e3)
			client[k] = append(client[k], float64(c1-c0)/partsBlock/1e3)
		}
		begin("ROLLBACK")
		begin("BEGIN")
	}
	b.StopTimer()
	median := func(x []float64) float64 {
		slices.Sort(x)
		return x[len(x)/2]
	}
	var table strings.Builder
	fmt.Fprintf(&table, "%-12s %9s %9s %9s %7s\n", "variant", "wall µs", "server µs", "client µs", "allocs")
	for k, v := range variants {
		allocs := testing.AllocsPerRun(20, func() {
			if err := v.op(); err != nil {
				b.Fatal(err)
			}
		})
		w, s, c := median(wall[k]), median(server[k]), median(client[k])
		fmt.Fprintf(&table, "%-12s %9.1f %9.1f %9.1f %7.0f\n", v.name, w, s, c, allocs)
		if v.name == "bare" || v.name == "generated" {
			b.ReportMetric(w, v.name+"-wall-µs")
			b.ReportMetric(s, v.name+"-server-µs")
			b.ReportMetric(c, v.name+"-client-µs")
		}
	}
	begin("ROLLBACK")
	if b.N < partsBlock {
		return // the framework's probe run
	}
	b.Logf("medians over %d blocks of %d calls:\n%s", len(wall[0]), partsBlock, table.String())
}

// threadCPU is the CPU time thread tid of a local process has run
// (/proc/<tid>/schedstat's first field, ns), NaN when it cannot be read
// or the thread is not a MariaDB or MySQL server's.
func threadCPU(tid int) float64 {
	if tid == 0 {
		return nan
	}
	comm, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/comm")
	if err != nil || !strings.Contains(string(comm), "mysqld") && !strings.Contains(string(comm), "mariadbd") {
		return nan
	}
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(tid) + "/schedstat")
	if err != nil {
		return nan
	}
	f := strings.Fields(string(stat))
	if len(f) == 0 {
		return nan
	}
	v, err := strconv.ParseFloat(f[0], 64)
	if err != nil {
		return nan
	}
	return v
}

var nan = math.NaN()

// processCPU is this process's user and system CPU time (ns).
func processCPU() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return nan
	}
	return float64(ru.Utime.Nano() + ru.Stime.Nano())
}
