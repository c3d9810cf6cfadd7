package main

import (
	"context"
	"testing"
	"time"

	"github.com/fencegen/fencegen/examples/accounts/accountsmy"
	"github.com/fencegen/fencegen/internal/testenv"
)

// BenchmarkCreditMySQL is BenchmarkCreditDatabaseSQL on MariaDB
// (MYSQL_URL): the generated accountsmy.CreditAccount (one guarded
// statement, read by fenceimpl.MySQLByKey) against the same UPDATE
// unguarded, on one connection, the two in turn in every iteration and
// in alternating order (interleaved), so that both see the same load and
// neither always follows the other's commit. It reports each one's mean
// time and generated/unguarded-speed, the generated method's throughput
// as a fraction of the unguarded UPDATE's. See BENCHMARKS.md.
func BenchmarkCreditMySQL(b *testing.B) {
	ctx := context.Background()
	db := testenv.MySQL(b, "", mysqlSchemaSQL)
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	q := accountsmy.New(db)
	if err := q.OpenAccount(ctx, accountsmy.OpenAccountParams{ID: 1, Balance: "0.00"}, 1); err != nil {
		b.Fatal(err)
	}
	ops := [2]func() error{
		func() error {
			return q.CreditAccount(ctx, accountsmy.CreditAccountParams{Amount: "1.00", ID: 1}, 7)
		},
		func() error {
			_, err := db.ExecContext(ctx, unguardedCreditMySQL, "1.00", int64(1))
			return err
		},
	}
	b.Run("interleaved", func(b *testing.B) {
		var sums [2]time.Duration
		for i := 0; i < b.N; i++ {
			for j := range 2 {
				k := (i + j) % 2
				start := time.Now()
				if err := ops[k](); err != nil {
					b.Fatal(err)
				}
				sums[k] += time.Since(start)
			}
		}
		b.ReportMetric(float64(sums[0].Nanoseconds())/float64(b.N), "fenced-generated-ns/op")
		b.ReportMetric(float64(sums[1].Nanoseconds())/float64(b.N), "unguarded-ns/op")
		b.ReportMetric(float64(sums[1])/float64(sums[0]), "generated/unguarded-speed")
	})
}
