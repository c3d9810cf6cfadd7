package mysqlguard_test

import (
	"context"
	"database/sql"
	"testing"
	"time"

	"github.com/fencegen/fencegen/gen/internal/guard/mysqlguard"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// BenchmarkGuardedUpdateByKey compares, on MariaDB (MYSQL_URL), a fenced
// UPDATE by key as generated code runs it (fenceimpl.CheckToken, the
// guarded statement from Rewrite, fenceimpl.MySQLByKey) with the same
// UPDATE unguarded, on one connection, the two in turn in every iteration
// (interleaved, in alternating order) so that both see the same load on a
// shared machine. It
// reports each one's mean time and guarded/unguarded-speed, the guarded
// write's throughput as a fraction of the unguarded one's (the ratio of
// their times). Sub-benchmarks: the driver's default (server-side
// prepared statements: prepare, execute, close) and interpolateParams=true
// (one text query).
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
			guarded := func() error {
				if err := fenceimpl.CheckToken("CreditAccount", "accounts", token); err != nil {
					return err
				}
				args := [3]any{int64(1), int64(1), int64(token)}
				bound := make([]any, len(g.Params))
				for i, p := range g.Params {
					bound[i] = args[p-1]
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
			var sums [2]time.Duration
			ops := [2]func() error{guarded, unguarded}
			for i := 0; i < b.N; i++ {
				// Which one goes first alternates, so that neither always
				// follows the other's commit.
				for j := range 2 {
					k := (i + j) % 2
					start := time.Now()
					if err := ops[k](); err != nil {
						b.Fatal(err)
					}
					sums[k] += time.Since(start)
				}
			}
			b.ReportMetric(float64(sums[0].Nanoseconds())/float64(b.N), "guarded-ns/op")
			b.ReportMetric(float64(sums[1].Nanoseconds())/float64(b.N), "unguarded-ns/op")
			b.ReportMetric(float64(sums[1])/float64(sums[0]), "guarded/unguarded-speed")
		})
	}
}
