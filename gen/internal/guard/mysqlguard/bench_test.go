package mysqlguard_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/fencegen/fencegen/gen/internal/guard/mysqlguard"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// BenchmarkGuardedUpdateByKey compares, on MariaDB (MYSQL_URL), a fenced
// UPDATE by key as generated code runs it (fenceimpl.CheckToken, the
// guarded statement from Rewrite with its arguments in the statement's
// order, fenceimpl.MySQLByKey) with the same UPDATE unguarded, on one
// connection, in autocommit (each write waits for its commit's log
// flush), and a second copy of the unguarded UPDATE as a control. The
// three run in turn in every iteration, in rotating order, so that all
// see the same load on a shared machine and none always follows another.
// Generated code has the guarded statement's argument order compiled in,
// so the guarded write's arguments are bound once, outside the timed
// loop, as the unguarded one's are.
//
// It reports each one's mean time (ns per write) and two throughput
// ratios, the guarded write's throughput as a fraction of the unguarded
// one's (the unguarded time over the guarded time):
//   - guarded/unguarded-speed: over the whole run (the ratio of the
//     summed times);
//   - guarded/unguarded-median: the median of the ratios of blocks of
//     speedBlock iterations, which a stall of the shared disk or CPU in
//     one block does not move (NaN when b.N < speedBlock);
//
// and control/unguarded-median, the same median for the control: the
// harness's own noise (1 when it has none). Sub-benchmarks: the driver's
// default (server-side prepared statements: prepare, execute, close) and
// interpolateParams=true (one text query).
func BenchmarkGuardedUpdateByKey(b *testing.B) {
	for _, params := range []string{"", "interpolateParams=true"} {
		b.Run("dsn="+params, func(b *testing.B) {
			ctx := context.Background()
			db := testenv.MySQL(b, params, schema, "INSERT INTO accounts (id, balance, fence_token) VALUES (1, 0, 0)")
			db.SetMaxOpenConns(1)
			db.SetMaxIdleConns(1)
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
			guarded := func() error {
				if err := fenceimpl.CheckToken("CreditAccount", "accounts", token); err != nil {
					return err
				}
				_, err := fenceimpl.MySQLByKey(ctx, "CreditAccount", "accounts", fence.NonStrict, token, func() (sql.Result, error) {
					return db.ExecContext(ctx, g.SQL, bound...)
				}, nil)
				return err
			}
			unguarded := func() error {
				_, err := db.ExecContext(ctx, query, int64(1), int64(1))
				return err
			}
			sums := interleave(b, guarded, unguarded, unguarded)
			b.ReportMetric(float64(sums.total[0].Nanoseconds())/float64(b.N), "guarded-ns/op")
			b.ReportMetric(float64(sums.total[1].Nanoseconds())/float64(b.N), "unguarded-ns/op")
			b.ReportMetric(float64(sums.total[1])/float64(sums.total[0]), "guarded/unguarded-speed")
			b.ReportMetric(sums.medianSpeed(0, 1), "guarded/unguarded-median")
			b.ReportMetric(sums.medianSpeed(2, 1), "control/unguarded-median")
		})
	}
}

// speedBlock is the number of iterations of a block whose times
// interleave compares.
const speedBlock = 100

// interleaved holds the times interleave measured: total[k] is ops[k]'s
// summed time, blocks[i][k] its summed time in block i.
type interleaved struct {
	total  []time.Duration
	blocks [][]time.Duration
}

// interleave runs every op once in each of b.N iterations, in rotating
// order (iteration i starts with ops[i % len(ops)]), timing each call; a
// failing call ends the benchmark.
func interleave(b *testing.B, ops ...func() error) interleaved {
	r := interleaved{total: make([]time.Duration, len(ops))}
	block := make([]time.Duration, len(ops))
	for i := 0; i < b.N; i++ {
		for j := range ops {
			k := (i + j) % len(ops)
			start := time.Now()
			if err := ops[k](); err != nil {
				b.Fatal(err)
			}
			d := time.Since(start)
			r.total[k] += d
			block[k] += d
		}
		if (i+1)%speedBlock == 0 {
			r.blocks = append(r.blocks, block)
			block = make([]time.Duration, len(ops))
		}
	}
	return r
}

// medianSpeed is the median over the blocks of ops[base]'s time over
// ops[k]'s (ops[k]'s throughput as a fraction of ops[base]'s), NaN
// without a whole block.
func (r interleaved) medianSpeed(k, base int) float64 {
	if len(r.blocks) == 0 {
		return math.NaN()
	}
	speeds := make([]float64, len(r.blocks))
	for i, bl := range r.blocks {
		speeds[i] = float64(bl[base]) / float64(bl[k])
	}
	slices.Sort(speeds)
	if n := len(speeds); n%2 == 0 {
		return (speeds[n/2-1] + speeds[n/2]) / 2
	}
	return speeds[len(speeds)/2]
}

// BenchmarkGuardedUpdateAll compares, on MariaDB (MYSQL_URL), three ways
// to run an UPDATE of every row of a group (WHERE status = ?, an indexed
// column) all or nothing, on one connection, interleaved in rotating
// order as BenchmarkGuardedUpdateByKey does: the guarded statement of
// form All as generated code runs it (fenceimpl.MySQLAll: one statement),
// the candidate it was chosen over (BEGIN; SELECT COUNT of the group's
// rows holding a token the presented one does not beat, FOR UPDATE; the
// UPDATE storing the token; COMMIT: four round trips), and the UPDATE
// unguarded. It reports each one's mean time and the speed of the two
// guarded ones relative to the unguarded one. Sub-benchmarks: groups of
// 10 and 100 rows, in a table of 10 groups.
func BenchmarkGuardedUpdateAll(b *testing.B) {
	for _, size := range []int{10, 100} {
		b.Run(fmt.Sprintf("rows=%d", size), func(b *testing.B) {
			ctx := context.Background()
			db := testenv.MySQL(b, "", schema, "CREATE INDEX by_status ON accounts (status)")
			for id := range 10 * size {
				if _, err := db.Exec("INSERT INTO accounts (id, balance, status) VALUES (?, 0, ?)", id, fmt.Sprintf("g%d", id/size)); err != nil {
					b.Fatal(err)
				}
			}
			db.SetMaxOpenConns(1)
			db.SetMaxIdleConns(1)
			const query = "UPDATE accounts SET balance = balance + ? WHERE status = ?"
			g, err := mysqlguard.Rewrite(query, mysqlguard.Spec{Column: "fence_token", Key: []string{"id"}, Param: 3, Table: "accounts", Name: "accounts"})
			if err != nil || g.Form != mysqlguard.All {
				b.Fatal(g, err)
			}
			const token = fence.Token(7)
			args := [3]any{int64(1), "g3", int64(token)}
			bind := func(params []int) []any {
				out := make([]any, len(params))
				for i, p := range params {
					out[i] = args[p-1]
				}
				return out
			}
			stmt, read := bind(g.Params), bind(g.StoredParams)
			guarded := func() error {
				n, err := fenceimpl.MySQLAll(ctx, "CreditGroup", "accounts", fence.NonStrict, token, func() (sql.Result, error) {
					return db.ExecContext(ctx, g.SQL, stmt...)
				}, func(ctx context.Context) (*sql.Rows, error) { return db.QueryContext(ctx, g.Stored, read...) })
				if err == nil && n != int64(size) {
					err = fmt.Errorf("%d rows written, want %d", n, size)
				}
				return err
			}
			locked := func() error {
				tx, err := db.BeginTx(ctx, nil)
				if err != nil {
					return err
				}
				defer tx.Rollback()
				var stale int64
				if err := tx.QueryRowContext(ctx, "SELECT COUNT(*) FROM accounts WHERE status = ? AND NOT (fence_token <= ?) FOR UPDATE", "g3", int64(token)).Scan(&stale); err != nil {
					return err
				}
				if stale > 0 {
					return fence.ErrStaleToken
				}
				if _, err := tx.ExecContext(ctx, "UPDATE accounts SET balance = balance + ?, fence_token = ? WHERE status = ?", int64(1), int64(token), "g3"); err != nil {
					return err
				}
				return tx.Commit()
			}
			unguarded := func() error {
				_, err := db.ExecContext(ctx, query, int64(1), "g3")
				return err
			}
			var sums [3]time.Duration
			ops := [3]func() error{guarded, locked, unguarded}
			for i := 0; i < b.N; i++ {
				for j := range 3 {
					k := (i + j) % 3
					start := time.Now()
					if err := ops[k](); err != nil {
						b.Fatal(err)
					}
					sums[k] += time.Since(start)
				}
			}
			b.ReportMetric(float64(sums[0].Nanoseconds())/float64(b.N), "guarded-ns/op")
			b.ReportMetric(float64(sums[1].Nanoseconds())/float64(b.N), "locked-tx-ns/op")
			b.ReportMetric(float64(sums[2].Nanoseconds())/float64(b.N), "unguarded-ns/op")
			b.ReportMetric(float64(sums[2])/float64(sums[0]), "guarded/unguarded-speed")
			b.ReportMetric(float64(sums[2])/float64(sums[1]), "locked-tx/unguarded-speed")
		})
	}
}
