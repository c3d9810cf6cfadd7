package main

import (
	"context"
	"database/sql"
	"errors"
	"runtime"
	"slices"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fencegen/fencegen/examples/accounts/accountsdb"
	"github.com/fencegen/fencegen/examples/accounts/accountssql"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
)

// BenchmarkCredit compares, on one pgx connection to a real PostgreSQL, the
// generated fenced single-row UPDATE with the same UPDATE unguarded and with
// the seed article's hand-written version (BeginTx, guarded UPDATE,
// RowsAffected, Commit: three round trips). See BENCHMARKS.md for the command and the ratios.
func BenchmarkCredit(b *testing.B) {
	ctx := context.Background()
	pool := testenv.Database(b, schemaSQL)
	conn, err := pool.Acquire(ctx)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Release()
	db := conn.Conn()
	q := accountsdb.New(db)
	if _, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: 1, Balance: numeric("0.00")}, 1); err != nil {
		b.Fatal(err)
	}
	amount := numeric("1.00")
	variants := []benchVariant{
		{"fenced-generated", func() error {
			return q.CreditAccount(ctx, accountsdb.CreditAccountParams{Amount: amount, ID: 1}, 7)
		}},
		{"unguarded", func() error {
			_, err := db.Exec(ctx, unguardedCredit, amount, int64(1))
			return err
		}},
		{"hand-written-tx", func() error { return handWrittenCredit(ctx, db, 1, amount, 7) }},
	}
	// Every variant pays the commit's WAL flush; with synchronous_commit
	// off (a session setting) what is left is the round trips, which is
	// what the generated statement saves.
	b.Run("nosync", func(b *testing.B) {
		if _, err := db.Exec(ctx, "SET synchronous_commit = off"); err != nil {
			b.Fatal(err)
		}
		defer db.Exec(ctx, "SET synchronous_commit = on")
		runVariants(b, variants, "")
	})
	runVariants(b, variants, "")
	// The database-side guard (accountsdb/fencegen_guard.sql) adds a
	// trigger call to every UPDATE.
	if _, err := db.Exec(ctx, guardSQL); err != nil {
		b.Fatal(err)
	}
	runVariants(b, variants, "+trigger", "fenced-generated", "unguarded")
}

// benchVariant is one way to credit an account, benchmarked against the
// others.
type benchVariant struct {
	name string
	op   func() error
}

// runVariants runs each of variants (only those named in names, when
// given) as the sub-benchmark name+suffix.
func runVariants(b *testing.B, variants []benchVariant, suffix string, names ...string) {
	for _, v := range variants {
		if len(names) > 0 && !slices.Contains(names, v.name) {
			continue
		}
		b.Run(v.name+suffix, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := v.op(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// handWrittenUpdate is the seed article's guarded UPDATE ($1 amount, $2
// account id, $3 fencing token), sent by handWrittenCredit and
// handWrittenCreditSQL.
const handWrittenUpdate = `UPDATE account_balances SET balance = balance + $1, last_fencing_token = $3
		WHERE id = $2 AND last_fencing_token <= $3`

// handWrittenCredit is the seed article's version: a transaction that
// updates with the token in the WHERE clause and checks RowsAffected, which
// cannot tell a missing row from a stale token.
func handWrittenCredit(ctx context.Context, db *pgx.Conn, id int64, amount any, token fence.Token) error {
	tx, err := db.BeginTx(ctx, pgx.TxOptions{})
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	tag, err := tx.Exec(ctx, handWrittenUpdate, amount, id, int64(token))
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return errors.New("stale token or no such row")
	}
	return tx.Commit(ctx)
}

// BenchmarkCreditParallel is BenchmarkCredit's throughput with eight
// concurrent writers on a pool, each on its own row: concurrent commits
// share WAL flushes (group commit), as they do in a service with many
// workers, so round trips weigh as they do in production.
func BenchmarkCreditParallel(b *testing.B) {
	ctx := context.Background()
	pool := testenv.Database(b, schemaSQL)
	q := accountsdb.New(pool)
	const writers = 8
	for id := int64(1); id <= writers*4; id++ {
		if _, err := q.OpenAccount(ctx, accountsdb.OpenAccountParams{ID: id, Balance: numeric("0.00")}, 1); err != nil {
			b.Fatal(err)
		}
	}
	amount := numeric("1.00")
	var next atomic.Int64
	row := func() int64 { return next.Add(1)%(writers*4) + 1 }
	run := func(b *testing.B, f func(id int64) error) {
		b.SetParallelism(writers / runtime.GOMAXPROCS(0))
		b.RunParallel(func(pb *testing.PB) {
			id := row()
			for pb.Next() {
				if err := f(id); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	b.Run("fenced-generated", func(b *testing.B) {
		run(b, func(id int64) error {
			return q.CreditAccount(ctx, accountsdb.CreditAccountParams{Amount: amount, ID: id}, 7)
		})
	})
	b.Run("unguarded", func(b *testing.B) {
		run(b, func(id int64) error {
			_, err := pool.Exec(ctx, unguardedCredit, amount, id)
			return err
		})
	})
	b.Run("hand-written-tx", func(b *testing.B) {
		run(b, func(id int64) error {
			c, err := pool.Acquire(ctx)
			if err != nil {
				return err
			}
			defer c.Release()
			return handWrittenCredit(ctx, c.Conn(), id, amount, 7)
		})
	})
}

// BenchmarkCreditDatabaseSQL is BenchmarkCredit on database/sql, the seed
// article's API, with its driver (github.com/lib/pq): one *sql.DB held to
// one connection, the generated accountssql.CreditAccount against the same
// UPDATE unguarded and against the article's BeginTx, ExecContext,
// RowsAffected, Commit. See BENCHMARKS.md for the command and the ratios.
func BenchmarkCreditDatabaseSQL(b *testing.B) {
	ctx := context.Background()
	db, err := sql.Open("postgres", testenv.NewDatabase(b))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	if _, err := db.ExecContext(ctx, schemaSQL); err != nil {
		b.Fatal(err)
	}
	q := accountssql.New(db)
	if _, err := q.OpenAccount(ctx, accountssql.OpenAccountParams{ID: 1, Balance: "0.00"}, 1); err != nil {
		b.Fatal(err)
	}
	variants := []benchVariant{
		{"fenced-generated", func() error {
			return q.CreditAccount(ctx, accountssql.CreditAccountParams{Amount: "1.00", ID: 1}, 7)
		}},
		{"unguarded", func() error {
			_, err := db.ExecContext(ctx, unguardedCredit, "1.00", int64(1))
			return err
		}},
		{"hand-written-tx", func() error { return handWrittenCreditSQL(ctx, db, 1, "1.00", 7) }},
	}
	// interleaved runs the three in turn in every iteration and reports
	// each one's mean time and the ratios: on a shared machine whose load
	// changes from one sub-benchmark to the next, the variants then see
	// the same load.
	interleaved := func(b *testing.B) {
		sums := make([]time.Duration, len(variants))
		for i := 0; i < b.N; i++ {
			for k, v := range variants {
				start := time.Now()
				if err := v.op(); err != nil {
					b.Fatal(err)
				}
				sums[k] += time.Since(start)
			}
		}
		for k, v := range variants {
			b.ReportMetric(float64(sums[k].Nanoseconds())/float64(b.N), v.name+"-ns/op")
		}
		b.ReportMetric(float64(sums[1])/float64(sums[0]), "generated/unguarded-speed")
		b.ReportMetric(float64(sums[2])/float64(sums[0]), "generated/hand-written-speed")
	}
	b.Run("nosync", func(b *testing.B) {
		if _, err := db.ExecContext(ctx, "SET synchronous_commit = off"); err != nil {
			b.Fatal(err)
		}
		defer db.ExecContext(ctx, "SET synchronous_commit = on")
		runVariants(b, variants, "")
		b.Run("interleaved", interleaved)
	})
	runVariants(b, variants, "")
	b.Run("interleaved", interleaved)
}

// handWrittenCreditSQL is the seed article's database/sql version: a
// transaction that updates with the token in the WHERE clause and checks
// RowsAffected, which cannot tell a missing row from a stale token.
func handWrittenCreditSQL(ctx context.Context, db *sql.DB, id int64, amount string, token fence.Token) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, handWrittenUpdate, amount, id, int64(token))
	if err != nil {
		return err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return errors.New("stale token or no such row")
	}
	return tx.Commit()
}
