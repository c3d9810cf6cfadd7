package pgtest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/gen/internal/golang/pgtest/pgtestdb"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
)

// TestGeneratedCodeIsCurrent fails when pgtestdb is not what the generator
// makes of fencegen.yaml now (run go generate).
func TestGeneratedCodeIsCurrent(t *testing.T) {
	cfg, err := gen.LoadConfig("fencegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	diff, err := out.Check(".")
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Fatalf("pgtestdb is stale; run go generate in gen/internal/golang/pgtest:\n%s", diff)
	}
}

// setup returns a fresh database with the schema and the generated guard
// migration applied.
func setup(t *testing.T) (*pgxpool.Pool, *pgtestdb.Queries) {
	t.Helper()
	var sql []string
	for _, f := range []string{"schema.sql", "shapes_schema.sql", "pgtestdb/" + gen.GuardFile} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		sql = append(sql, string(b))
	}
	pool := testenv.Database(t, sql...)
	return pool, pgtestdb.New(pool)
}

func exec(t *testing.T, pool *pgxpool.Pool, sql string) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), sql); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// TestOptedOutWriteRefusedByTrigger: an opted-out UPDATE of a strict table
// leaves the token as it is, which the database-side guard refuses with
// SQLSTATE fenceimpl.SQLState. Every form of the method must report it as a
// *fence.StaleError (errors.Is fence.ErrStaleToken), as fenceimpl.SQLState's
// documentation promises, not as a raw *pgconn.PgError; and write nothing.
func TestOptedOutWriteRefusedByTrigger(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	exec(t, pool, "INSERT INTO strict_jobs (id, status, tok) VALUES (1, 'new', 5)")
	p := func(status string) (string, int64) { return status, 1 }
	calls := map[string]func() error{
		"RepairExec": func() error {
			s, id := p("x")
			return q.RepairExec(ctx, pgtestdb.RepairExecParams{Status: s, ID: id})
		},
		"RepairExecRows": func() error {
			s, id := p("x")
			n, err := q.RepairExecRows(ctx, pgtestdb.RepairExecRowsParams{Status: s, ID: id})
			if n != 0 {
				return fmt.Errorf("%d rows", n)
			}
			return err
		},
		"RepairExecResult": func() error {
			s, id := p("x")
			_, err := q.RepairExecResult(ctx, pgtestdb.RepairExecResultParams{Status: s, ID: id})
			return err
		},
		"RepairOne": func() error {
			s, id := p("x")
			_, err := q.RepairOne(ctx, pgtestdb.RepairOneParams{Status: s, ID: id})
			return err
		},
		"RepairMany": func() error {
			items, err := q.RepairMany(ctx, pgtestdb.RepairManyParams{Status: "x", MinID: 1})
			if items != nil {
				return fmt.Errorf("items %v", items)
			}
			return err
		},
		"RepairBatch": func() (err error) {
			q.RepairBatch(ctx, []pgtestdb.RepairBatchParams{{Status: "x", ID: 1}}).Exec(func(_ int, e error) { err = e })
			return err
		},
		"RepairBatchOne": func() (err error) {
			q.RepairBatchOne(ctx, []pgtestdb.RepairBatchOneParams{{Status: "x", ID: 1}}).QueryRow(func(_ int, _ string, e error) { err = e })
			return err
		},
		"RepairBatchMany": func() (err error) {
			q.RepairBatchMany(ctx, []pgtestdb.RepairBatchManyParams{{Status: "x", MinID: 1}}).Query(func(_ int, _ []int64, e error) { err = e })
			return err
		},
	}
	for name, call := range calls {
		t.Run(name, func(t *testing.T) {
			err := call()
			var se *fence.StaleError
			if !errors.As(err, &se) || !errors.Is(err, fence.ErrStaleToken) {
				t.Fatalf("got %v (%T), want a *fence.StaleError", err, err)
			}
			want := fence.StaleError{Query: name, Table: "strict_jobs", Presented: 5, Stored: 5, Rows: 1, Mode: fence.Strict}
			if *se != want {
				t.Errorf("got %+v, want %+v", *se, want)
			}
			var status string
			if err := pool.QueryRow(ctx, "SELECT status FROM strict_jobs WHERE id = 1").Scan(&status); err != nil || status != "new" {
				t.Errorf("status %q (%v), want new: the refused write wrote", status, err)
			}
		})
	}
}

// TestBatchParameterNamedBatch: a batch whose one parameter is named batch
// compiles (the parameter is batch_) and runs.
func TestBatchParameterNamedBatch(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	exec(t, pool, "INSERT INTO jobs (id, status, tok) VALUES (1, 'new', 0), (2, 'new', 9)")
	var errs []error
	q.MarkBatch(ctx, []int64{1, 2, 3}, 5).Exec(func(_ int, err error) { errs = append(errs, err) })
	if len(errs) != 3 || errs[0] != nil || !errors.Is(errs[1], fence.ErrStaleToken) || !errors.Is(errs[2], fence.ErrNotFound) {
		t.Fatalf("outcomes %v; want nil, stale, not found", errs)
	}
}

// TestCopyFromStoresToken: a fenced :copyfrom stores the token in every
// row it copies.
func TestCopyFromStoresToken(t *testing.T) {
	ctx := context.Background()
	_, q := setup(t)
	n, err := q.CopyJobs(ctx, []pgtestdb.CopyJobsParams{{ID: 1, Status: "new"}, {ID: 2, Status: "new"}}, 7)
	if err != nil || n != 2 {
		t.Fatalf("CopyJobs = %d, %v", n, err)
	}
	jobs, err := q.ListJobs(ctx)
	if err != nil || len(jobs) != 2 || jobs[0].Tok != 7 || jobs[1].Tok != 7 {
		t.Fatalf("jobs %+v, %v; want two with token 7", jobs, err)
	}
}

// outcome is what one call or batch item returned: its value and its
// error's kind.
type outcome struct {
	Value any
	Err   string
}

func classify(v any, err error) outcome {
	var se *fence.StaleError
	switch {
	case err == nil:
		return outcome{Value: v}
	case errors.As(err, &se):
		if errors.Is(err, fence.ErrNotFound) {
			return outcome{Err: "stale and not found"}
		}
		return outcome{Err: fmt.Sprintf("stale (stored %d, presented %d)", se.Stored, se.Presented)}
	case errors.Is(err, fence.ErrNotFound):
		return outcome{Err: "not found"}
	case errors.Is(err, pgx.ErrNoRows):
		return outcome{Err: "no rows"}
	}
	return outcome{Err: err.Error()}
}

// state is what the database holds after a run.
type state struct {
	Jobs []pgtestdb.Job
	Log  int64
}

// TestFencedWriteInWithBatchMatchesMethod sends the same items through the
// method of a query whose fenced UPDATE is a WITH entry (one call per
// item) and through its :batch* twin (one batch), each from the same
// starting rows. The outcomes and what is written must be the same, and
// as the README's rule for writes in WITH says: a refusal is a
// *fence.StaleError and writes nothing; no rows is not an error (a :one
// gets pgx.ErrNoRows); and no item that wrote reports fence.ErrNotFound.
func TestFencedWriteInWithBatchMatchesMethod(t *testing.T) {
	ctx := context.Background()
	const token fence.Token = 5
	// Jobs 1 and 2 belong to o1 and accept token 5; job 3 (o2) stores 9.
	start := func(t *testing.T) (*pgxpool.Pool, *pgtestdb.Queries) {
		pool, q := setup(t)
		exec(t, pool, "INSERT INTO jobs (id, status, owner, tok) VALUES (1, 'new', 'o1', 0), (2, 'new', 'o1', 0), (3, 'new', 'o2', 9)")
		return pool, q
	}
	read := func(t *testing.T, q *pgtestdb.Queries) state {
		jobs, err := q.ListJobs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		n, err := q.CountLog(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return state{Jobs: jobs, Log: n}
	}
	job := func(id int64, status, owner string, tok fence.Token) pgtestdb.Job {
		return pgtestdb.Job{ID: id, Status: status, Owner: pgtypeText(owner), Tok: tok}
	}
	stale := outcome{Err: "stale (stored 9, presented 5)"}
	// Each written job stores the token: 1 and 2 written, 3 refused.
	written := func(s1, s2 string) []pgtestdb.Job {
		return []pgtestdb.Job{job(1, s1, "o1", 5), job(2, s2, "o1", 5), job(3, "new", "o2", 9)}
	}
	tests := []struct {
		name   string
		single func(q *pgtestdb.Queries) []outcome
		batch  func(q *pgtestdb.Queries) []outcome
		want   []outcome
		state  state
	}{
		{
			name: "exec, main statement filters the written row",
			single: func(q *pgtestdb.Queries) (out []outcome) {
				for _, a := range []pgtestdb.CteFilterParams{{Status: "run", ID: 1}, {Status: "skip", ID: 2}, {Status: "run", ID: 99}, {Status: "run", ID: 3}} {
					out = append(out, classify(nil, q.CteFilter(ctx, a, token)))
				}
				return out
			},
			// No batch twin: a statement that writes besides its fenced
			// entry is refused as a batch item.
			want:  []outcome{{}, {}, {}, stale},
			state: state{Jobs: written("run", "skip"), Log: 1},
		},
		{
			name: "one, count of the written rows",
			single: func(q *pgtestdb.Queries) (out []outcome) {
				for _, a := range []pgtestdb.CteCountParams{{Status: "a", ID: 1}, {Status: "b", ID: 2}, {Status: "c", ID: 99}, {Status: "d", ID: 3}} {
					n, err := q.CteCount(ctx, a, token)
					out = append(out, classify(n, err))
				}
				return out
			},
			batch: func(q *pgtestdb.Queries) (out []outcome) {
				q.BatchCteCount(ctx, []pgtestdb.BatchCteCountParams{{Status: "a", ID: 1}, {Status: "b", ID: 2}, {Status: "c", ID: 99}, {Status: "d", ID: 3}}, token).
					QueryRow(func(_ int, n int64, err error) { out = append(out, classify(n, err)) })
				return out
			},
			// A missing row: the statement returns count 0, which is its
			// answer (the main query decides).
			want:  []outcome{{Value: int64(1)}, {Value: int64(1)}, {Value: int64(0)}, stale},
			state: state{Jobs: written("a", "b")},
		},
		{
			name: "one, main statement filters the written row",
			single: func(q *pgtestdb.Queries) (out []outcome) {
				for _, a := range []pgtestdb.CteFilteredParams{{Status: "run", ID: 1}, {Status: "skip", ID: 2}, {Status: "run", ID: 99}, {Status: "run", ID: 3}} {
					r, err := q.CteFiltered(ctx, a, token)
					if err != nil {
						r = pgtestdb.CteFilteredRow{}
					}
					out = append(out, classify(r, err))
				}
				return out
			},
			batch: func(q *pgtestdb.Queries) (out []outcome) {
				q.BatchCteFiltered(ctx, []pgtestdb.BatchCteFilteredParams{{Status: "run", ID: 1}, {Status: "skip", ID: 2}, {Status: "run", ID: 99}, {Status: "run", ID: 3}}, token).
					QueryRow(func(_ int, r pgtestdb.BatchCteFilteredRow, err error) {
						if err != nil {
							r = pgtestdb.BatchCteFilteredRow{}
						}
						out = append(out, classify(pgtestdb.CteFilteredRow(r), err))
					})
				return out
			},
			want:  []outcome{{Value: pgtestdb.CteFilteredRow{ID: 1, Status: "run"}}, {Err: "no rows"}, {Err: "no rows"}, stale},
			state: state{Jobs: written("run", "skip")},
		},
		{
			name: "many, all or nothing",
			single: func(q *pgtestdb.Queries) (out []outcome) {
				for _, a := range []pgtestdb.CteByOwnerParams{{Status: "run", Owner: pgtypeText("o1")}, {Status: "skip", Owner: pgtypeText("o1")}, {Status: "run", Owner: pgtypeText("o2")}, {Status: "run", Owner: pgtypeText("o3")}} {
					ids, err := q.CteByOwner(ctx, a, token)
					out = append(out, classify(ids, err))
				}
				return out
			},
			batch: func(q *pgtestdb.Queries) (out []outcome) {
				q.BatchCteByOwner(ctx, []pgtestdb.BatchCteByOwnerParams{{Status: "run", Owner: pgtypeText("o1")}, {Status: "skip", Owner: pgtypeText("o1")}, {Status: "run", Owner: pgtypeText("o2")}, {Status: "run", Owner: pgtypeText("o3")}}, token).
					Query(func(_ int, ids []int64, err error) { out = append(out, classify(ids, err)) })
				return out
			},
			want:  []outcome{{Value: []int64{1, 2}}, {Value: []int64(nil)}, {Err: "stale (stored 9, presented 5)"}, {Value: []int64(nil)}},
			state: state{Jobs: written("skip", "skip")},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, q := start(t)
			single := tt.single(q)
			singleState := read(t, q)
			if !reflect.DeepEqual(single, tt.want) {
				t.Errorf("one call per item: %+v\nwant %+v", single, tt.want)
			}
			if !reflect.DeepEqual(singleState, tt.state) {
				t.Errorf("after one call per item: %+v\nwant %+v", singleState, tt.state)
			}
			if tt.batch == nil {
				return
			}
			_, q = start(t)
			batch := tt.batch(q)
			batchState := read(t, q)
			if !reflect.DeepEqual(batch, tt.want) {
				t.Errorf("batch: %+v\nwant %+v", batch, tt.want)
			}
			if !reflect.DeepEqual(batchState, tt.state) {
				t.Errorf("after the batch: %+v\nwant %+v", batchState, tt.state)
			}
		})
	}
}

func pgtypeText(s string) pgtype.Text { return pgtype.Text{String: s, Valid: true} }
