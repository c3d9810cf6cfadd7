package stdlibtest_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/golang/stdlibtest/sqldb"
	"github.com/fencegen/fencegen/gen/internal/golang/stdlibtest/sqlprepdb"
	"github.com/fencegen/fencegen/runtime/fence"
)

// sliceAPI is slices.sql's methods in types sqldb and sqlprepdb share;
// any selects the = ANY(sqlc.slice) twin of a fenced IN (sqlc.slice).
type sliceAPI interface {
	AddJob(ctx context.Context, id int64, status string, tok fence.Token) error
	JobsIn(ctx context.Context, notStatus string, ids []int64) ([]int64, error)
	JobsNotIn(ctx context.Context, ids []int64) ([]int64, error)
	JobsInTwoLists(ctx context.Context, ids []int64, owners []string) ([]int64, error)
	SetStatus(ctx context.Context, any bool, status string, ids []int64, tok fence.Token) (int64, error)
	Tag(ctx context.Context, any bool, tags []string, ids []int64, tok fence.Token) ([]int64, error)
	Remove(ctx context.Context, any bool, ids []int64, status string, tok fence.Token) (int64, error)
	Dump(ctx context.Context) (string, error)
}

type sliceSQL struct{ q *sqldb.Queries }

func (a sliceSQL) AddJob(ctx context.Context, id int64, status string, tok fence.Token) error {
	owner := sqldb.AddJobParams{ID: id, Status: status, Tags: []string{}}
	owner.Owner.String, owner.Owner.Valid = fmt.Sprint("o", id%2), true
	return a.q.AddJob(ctx, owner, tok)
}
func (a sliceSQL) JobsIn(ctx context.Context, notStatus string, ids []int64) ([]int64, error) {
	return a.q.JobsIn(ctx, sqldb.JobsInParams{NotStatus: notStatus, Ids: ids})
}
func (a sliceSQL) JobsNotIn(ctx context.Context, ids []int64) ([]int64, error) {
	return a.q.JobsNotIn(ctx, ids)
}
func (a sliceSQL) JobsInTwoLists(ctx context.Context, ids []int64, owners []string) ([]int64, error) {
	return a.q.JobsInTwoLists(ctx, sqldb.JobsInTwoListsParams{Ids: ids, Owners: owners})
}
func (a sliceSQL) SetStatus(ctx context.Context, any bool, status string, ids []int64, tok fence.Token) (int64, error) {
	if any {
		return a.q.SetStatusAny(ctx, sqldb.SetStatusAnyParams{Status: status, Ids: ids}, tok)
	}
	return a.q.SetStatusIn(ctx, sqldb.SetStatusInParams{Status: status, Ids: ids}, tok)
}
func (a sliceSQL) Tag(ctx context.Context, any bool, tags []string, ids []int64, tok fence.Token) ([]int64, error) {
	if any {
		return a.q.TagAny(ctx, sqldb.TagAnyParams{Tags: tags, Ids: ids}, tok)
	}
	return a.q.TagIn(ctx, sqldb.TagInParams{Tags: tags, Ids: ids}, tok)
}
func (a sliceSQL) Remove(ctx context.Context, any bool, ids []int64, status string, tok fence.Token) (int64, error) {
	if any {
		return a.q.RemoveJobsAny(ctx, sqldb.RemoveJobsAnyParams{Ids: ids, Status: status}, tok)
	}
	return a.q.RemoveJobsIn(ctx, sqldb.RemoveJobsInParams{Ids: ids, Status: status}, tok)
}
func (a sliceSQL) Dump(ctx context.Context) (string, error) { return a.q.Dump(ctx) }

type slicePrep struct{ q *sqlprepdb.Queries }

func (a slicePrep) AddJob(ctx context.Context, id int64, status string, tok fence.Token) error {
	owner := sqlprepdb.AddJobParams{ID: id, Status: status, Tags: []string{}}
	owner.Owner.String, owner.Owner.Valid = fmt.Sprint("o", id%2), true
	return a.q.AddJob(ctx, owner, tok)
}
func (a slicePrep) JobsIn(ctx context.Context, notStatus string, ids []int64) ([]int64, error) {
	return a.q.JobsIn(ctx, sqlprepdb.JobsInParams{NotStatus: notStatus, Ids: ids})
}
func (a slicePrep) JobsNotIn(ctx context.Context, ids []int64) ([]int64, error) {
	return a.q.JobsNotIn(ctx, ids)
}
func (a slicePrep) JobsInTwoLists(ctx context.Context, ids []int64, owners []string) ([]int64, error) {
	return a.q.JobsInTwoLists(ctx, sqlprepdb.JobsInTwoListsParams{Ids: ids, Owners: owners})
}
func (a slicePrep) SetStatus(ctx context.Context, any bool, status string, ids []int64, tok fence.Token) (int64, error) {
	if any {
		return a.q.SetStatusAny(ctx, sqlprepdb.SetStatusAnyParams{Status: status, Ids: ids}, tok)
	}
	return a.q.SetStatusIn(ctx, sqlprepdb.SetStatusInParams{Status: status, Ids: ids}, tok)
}
func (a slicePrep) Tag(ctx context.Context, any bool, tags []string, ids []int64, tok fence.Token) ([]int64, error) {
	if any {
		return a.q.TagAny(ctx, sqlprepdb.TagAnyParams{Tags: tags, Ids: ids}, tok)
	}
	return a.q.TagIn(ctx, sqlprepdb.TagInParams{Tags: tags, Ids: ids}, tok)
}
func (a slicePrep) Remove(ctx context.Context, any bool, ids []int64, status string, tok fence.Token) (int64, error) {
	if any {
		return a.q.RemoveJobsAny(ctx, sqlprepdb.RemoveJobsAnyParams{Ids: ids, Status: status}, tok)
	}
	return a.q.RemoveJobsIn(ctx, sqlprepdb.RemoveJobsInParams{Ids: ids, Status: status}, tok)
}
func (a slicePrep) Dump(ctx context.Context) (string, error) { return a.q.Dump(ctx) }

// TestInSliceLists runs IN (sqlc.slice) lists of no, one and several
// elements through both drivers, plain and prepared: the reads return
// what the list selects (an empty IN list nothing, an empty NOT IN list
// nothing, as sqlc's NULL), and each fenced write gives, step by step,
// the outcome and the rows of its = ANY(sqlc.slice) twin, stale and
// not-found results included.
func TestInSliceLists(t *testing.T) {
	ctx := context.Background()
	for _, driver := range []string{"postgres", "pgx"} {
		for _, prepared := range []bool{false, true} {
			name := fmt.Sprintf("%s prepared=%v", driver, prepared)
			open := func() sliceAPI {
				db := openSQL(t, driver, newDatabase(t))
				if !prepared {
					return sliceSQL{sqldb.New(db)}
				}
				q, err := sqlprepdb.Prepare(ctx, db)
				if err != nil {
					t.Fatalf("%s: Prepare: %v", name, err)
				}
				t.Cleanup(func() { q.Close() })
				return slicePrep{q}
			}
			var transcripts [2][]string
			for k, any := range []bool{false, true} {
				a := open()
				for id := int64(1); id <= 4; id++ {
					if err := a.AddJob(ctx, id, "new", 5); err != nil {
						t.Fatalf("%s: AddJob: %v", name, err)
					}
				}
				if !any {
					for _, c := range []struct {
						what string
						got  func() ([]int64, error)
						want string
					}{
						{"IN (1, 3)", func() ([]int64, error) { return a.JobsIn(ctx, "x", []int64{1, 3}) }, "[1 3]"},
						{"IN (2)", func() ([]int64, error) { return a.JobsIn(ctx, "x", []int64{2}) }, "[2]"},
						{"IN ()", func() ([]int64, error) { return a.JobsIn(ctx, "x", nil) }, "[]"},
						{"IN (1..4) status <> new", func() ([]int64, error) { return a.JobsIn(ctx, "new", []int64{1, 2, 3, 4}) }, "[]"},
						{"NOT IN (1, 4)", func() ([]int64, error) { return a.JobsNotIn(ctx, []int64{1, 4}) }, "[2 3]"},
						{"NOT IN ()", func() ([]int64, error) { return a.JobsNotIn(ctx, []int64{}) }, "[]"},
						{"IN (4) OR owner IN (o1)", func() ([]int64, error) { return a.JobsInTwoLists(ctx, []int64{4}, []string{"o1"}) }, "[1 3 4]"},
						{"IN () OR owner IN (o0, o1)", func() ([]int64, error) { return a.JobsInTwoLists(ctx, nil, []string{"o0", "o1"}) }, "[1 2 3 4]"},
					} {
						ids, err := c.got()
						if got := fmt.Sprint(ids); err != nil || got != c.want && !(c.want == "[]" && ids == nil) {
							t.Errorf("%s: %s: got %v, %v; want %s", name, c.what, ids, err, c.want)
						}
					}
				}
				steps := []func() string{
					func() string { return outcome(a.SetStatus(ctx, any, "a", []int64{1, 2}, 6)) },
					func() string { return outcome(a.SetStatus(ctx, any, "b", []int64{1, 3}, 5)) },
					func() string { return outcome(a.SetStatus(ctx, any, "c", []int64{9}, 7)) },
					func() string { return outcome(a.SetStatus(ctx, any, "d", nil, 7)) },
					func() string { return outcome(a.SetStatus(ctx, any, "e", []int64{3}, 5)) },
					func() string { return outcome(a.Tag(ctx, any, []string{"t"}, []int64{2, 3, 4}, 7)) },
					func() string { return outcome(a.Tag(ctx, any, []string{"u"}, []int64{1, 2}, 6)) },
					func() string { return outcome(a.Remove(ctx, any, []int64{3, 4}, "new", 7)) },
					func() string { return outcome(a.Remove(ctx, any, []int64{1, 2}, "a", 6)) },
					func() string { return outcome(a.Remove(ctx, any, []int64{2, 3}, "t", 8)) },
					func() string { return outcome(a.Dump(ctx)) },
				}
				for _, s := range steps {
					transcripts[k] = append(transcripts[k], s())
				}
			}
			compare(t, name+" IN vs = ANY", transcripts[1], transcripts[0])
			if t.Failed() || testing.Verbose() {
				t.Logf("%s: IN transcript: %q", name, transcripts[0])
			}
		}
	}
}
