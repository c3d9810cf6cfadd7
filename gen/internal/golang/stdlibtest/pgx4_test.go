package stdlibtest_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	pgx4 "github.com/jackc/pgx/v4"
	"github.com/jackc/pgx/v5"

	"github.com/fencegen/fencegen/gen/internal/golang/stdlibtest/pgx4db"
	"github.com/fencegen/fencegen/gen/internal/golang/stdlibtest/pgxdb"
	"github.com/fencegen/fencegen/runtime/fence"
)

// TestFencedWritesMatchPgxV4 runs every step on pgx/v4 (pgx4db, generated
// with sql_package: pgx/v4, on a github.com/jackc/pgx/v4 connection) and
// on pgx/v5: each step's outcome and the rows after it must be the same,
// the stale token and the missing row told apart by the same errors.
func TestFencedWritesMatchPgxV4(t *testing.T) {
	ctx := context.Background()
	conn5, err := pgx.Connect(ctx, newDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn5.Close(ctx)
	want := transcript(t, "pgx/v5", pgxAPI{pgxdb.New(conn5)})
	conn4, err := pgx4.Connect(ctx, newDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn4.Close(ctx)
	compare(t, "pgx/v4", want, transcript(t, "pgx/v4", pgx4API{pgx4db.New(conn4)}))
}

// TestRefusalsUnderGermanServerPgxV4 is TestRefusalsUnderGermanServer on
// pgx/v4: with every server message in German, each refusal path gives
// pgx/v5's outcome, read from pgx/v4's *pgconn.PgError
// (github.com/jackc/pgconn) by its protocol fields.
func TestRefusalsUnderGermanServerPgxV4(t *testing.T) {
	ctx := context.Background()
	conn5, err := pgx.Connect(ctx, germanDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn5.Close(ctx)
	want := transcript(t, "pgx/v5 (de)", pgxAPI{pgxdb.New(conn5)})
	conn4, err := pgx4.Connect(ctx, germanDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn4.Close(ctx)
	checkGerman(t, "pgx/v4", func(ctx context.Context, q string) error { _, err := conn4.Exec(ctx, q); return err })
	compare(t, "pgx/v4 (de)", want, transcript(t, "pgx/v4 (de)", pgx4API{pgx4db.New(conn4)}))
}

// TestPgxV4BatchAndCopyFrom: a fenced :copyfrom stores the token in every
// row; each item of a fenced :batchexec, :batchone and :batchmany reports
// its own outcome (written, stale token, missing row), and a refused item
// writes nothing.
func TestPgxV4BatchAndCopyFrom(t *testing.T) {
	ctx := context.Background()
	conn, err := pgx4.Connect(ctx, newDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	q := pgx4db.New(conn)
	n, err := q.CopyJobs(ctx, []pgx4db.CopyJobsParams{{ID: 1, Status: "new"}, {ID: 2, Status: "new"}}, 5)
	if err != nil || n != 2 {
		t.Fatalf("CopyJobs = %d, %v; want 2 rows", n, err)
	}
	if err := q.AddJob(ctx, pgx4db.AddJobParams{ID: 3, Status: "new", Owner: nullStr("ann"), Tags: []string{}}, 9); err != nil {
		t.Fatal(err)
	}
	if got, err := q.Dump(ctx); err != nil || got != "1:new::{}:5 2:new::{}:5 3:new:ann:{}:9" {
		t.Fatalf("after CopyJobs: %q, %v", got, err)
	}

	var execs []string
	q.SetStatusBatch(ctx, []pgx4db.SetStatusBatchParams{{Status: "run", ID: 1}, {Status: "run", ID: 3}, {Status: "run", ID: 99}}, 6).
		Exec(func(_ int, err error) { execs = append(execs, outcome(nil, err)) })
	wantExecs := []string{"ok <nil>", "stale presented=6 stored=9 rows=1 mode=non-strict", "notfound"}
	if strings.Join(execs, "; ") != strings.Join(wantExecs, "; ") {
		t.Errorf(":batchexec outcomes %q\nwant %q", execs, wantExecs)
	}

	var ones []string
	q.TagBatch(ctx, []pgx4db.TagBatchParams{{Tags: []string{"a"}, ID: 2}, {Tags: []string{"b"}, ID: 3}, {Tags: []string{"c"}, ID: 99}}, 7).
		QueryRow(func(_ int, r pgx4db.TagBatchRow, err error) {
			ones = append(ones, outcome(fmt.Sprint(r.ID, " ", r.Tags, " ", r.Tok), err))
		})
	wantOnes := []string{"ok 2 [a] 7", "stale presented=7 stored=9 rows=1 mode=non-strict", "notfound norows"}
	if strings.Join(ones, "; ") != strings.Join(wantOnes, "; ") {
		t.Errorf(":batchone outcomes %q\nwant %q", ones, wantOnes)
	}

	var manys []string
	q.TagOwnerBatch(ctx, []pgx4db.TagOwnerBatchParams{{Tags: []string{"x"}, Owner: nullStr("ann")}, {Tags: []string{"y"}, Owner: nullStr("bob")}}, 8).
		Query(func(_ int, ids []int64, err error) { manys = append(manys, outcome(ids, err)) })
	wantManys := []string{"stale presented=8 stored=9 rows=1 mode=non-strict", "notfound"}
	if strings.Join(manys, "; ") != strings.Join(wantManys, "; ") {
		t.Errorf(":batchmany outcomes %q\nwant %q", manys, wantManys)
	}

	if got, err := q.Dump(ctx); err != nil || got != "1:run::{}:6 2:new::{a}:7 3:new:ann:{}:9" {
		t.Errorf("after the batches: %q, %v; want only the accepted items written", got, err)
	}
	if _, err := q.CopyJobs(ctx, []pgx4db.CopyJobsParams{{ID: 1, Status: "dup"}}, 10); err == nil {
		t.Error("CopyJobs of an existing id: no error")
	} else if errors.Is(err, fence.ErrStaleToken) {
		t.Errorf("CopyJobs of an existing id: %v; a unique violation is not a stale token", err)
	}
}

// pgx4API is sqlAPI on pgx4db: pgx/v4 output has database/sql's null
// types (sql.NullString) and pgconn.CommandTag for :execresult.
type pgx4API struct{ q *pgx4db.Queries }

func (a pgx4API) AddJob(ctx context.Context, id int64, status, owner string, tags []string, tok fence.Token) error {
	return a.q.AddJob(ctx, pgx4db.AddJobParams{ID: id, Status: status, Owner: nullStr(owner), Tags: tags}, tok)
}
func (a pgx4API) AddJobs(ctx context.Context, ids []int64, status string, tok fence.Token) (int64, error) {
	return a.q.AddJobs(ctx, pgx4db.AddJobsParams{Ids: ids, Status: status}, tok)
}
func (a pgx4API) SetStatus(ctx context.Context, id int64, status string, tok fence.Token) error {
	return a.q.SetStatus(ctx, pgx4db.SetStatusParams{ID: id, Status: status}, tok)
}
func (a pgx4API) SetStatusRows(ctx context.Context, id int64, status string, tok fence.Token) (int64, error) {
	return a.q.SetStatusRows(ctx, pgx4db.SetStatusRowsParams{ID: id, Status: status}, tok)
}
func (a pgx4API) SetStatusResult(ctx context.Context, id int64, status string, tok fence.Token) (int64, error) {
	tag, err := a.q.SetStatusResult(ctx, pgx4db.SetStatusResultParams{ID: id, Status: status}, tok)
	return tag.RowsAffected(), err
}
func (a pgx4API) SetOwnerStatus(ctx context.Context, owner, status string, tok fence.Token) (int64, error) {
	return a.q.SetOwnerStatus(ctx, pgx4db.SetOwnerStatusParams{Owner: nullStr(owner), Status: status}, tok)
}
func (a pgx4API) SetOwnerStatusResult(ctx context.Context, owner, status string, tok fence.Token) (int64, error) {
	tag, err := a.q.SetOwnerStatusResult(ctx, pgx4db.SetOwnerStatusResultParams{Owner: nullStr(owner), Status: status}, tok)
	return tag.RowsAffected(), err
}
func (a pgx4API) SetStatusIfNew(ctx context.Context, id int64, status string, tok fence.Token) error {
	return a.q.SetStatusIfNew(ctx, pgx4db.SetStatusIfNewParams{ID: id, Status: status}, tok)
}
func (a pgx4API) Tag(ctx context.Context, id int64, tags []string, tok fence.Token) (string, error) {
	j, err := a.q.Tag(ctx, pgx4db.TagParams{ID: id, Tags: tags}, tok)
	return fmt.Sprint(j.ID, " ", j.Status, " ", j.Owner.String, " ", j.Tags, " ", j.Tok), err
}
func (a pgx4API) TagOwner(ctx context.Context, owner string, tags []string, tok fence.Token) (string, error) {
	rows, err := a.q.TagOwner(ctx, pgx4db.TagOwnerParams{Owner: nullStr(owner), Tags: tags}, tok)
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprint("[", r.ID, " ", r.Tags, "]"))
	}
	sort.Strings(out) // RETURNING has no order
	return strings.Join(out, " "), err
}
func (a pgx4API) RemoveJob(ctx context.Context, id int64, tok fence.Token) error {
	return a.q.RemoveJob(ctx, id, tok)
}
func (a pgx4API) RemoveOwnerJobs(ctx context.Context, owner string, tok fence.Token) (int64, error) {
	return a.q.RemoveOwnerJobs(ctx, nullStr(owner), tok)
}
func (a pgx4API) PutJob(ctx context.Context, id int64, status string, tok fence.Token) (string, error) {
	r, err := a.q.PutJob(ctx, pgx4db.PutJobParams{ID: id, Status: status}, tok)
	return fmt.Sprint(r.ID, " ", r.Status), err
}
func (a pgx4API) PutJobs(ctx context.Context, ids []int64, status string, tok fence.Token) (int64, error) {
	return a.q.PutJobs(ctx, pgx4db.PutJobsParams{Ids: ids, Status: status}, tok)
}
func (a pgx4API) CteCount(ctx context.Context, id int64, status string, tok fence.Token) (int64, error) {
	return a.q.CteCount(ctx, pgx4db.CteCountParams{ID: id, Status: status}, tok)
}
func (a pgx4API) CteByOwner(ctx context.Context, owner, status string, tok fence.Token) ([]int64, error) {
	return a.q.CteByOwner(ctx, pgx4db.CteByOwnerParams{Owner: nullStr(owner), Status: status}, tok)
}
func (a pgx4API) CteLog(ctx context.Context, id int64, status string, tok fence.Token) error {
	return a.q.CteLog(ctx, pgx4db.CteLogParams{ID: id, Status: status}, tok)
}
func (a pgx4API) AddStrictJob(ctx context.Context, id int64, status string, tok fence.Token) error {
	return a.q.AddStrictJob(ctx, pgx4db.AddStrictJobParams{ID: id, Status: status}, tok)
}
func (a pgx4API) SetStrictStatus(ctx context.Context, id int64, status string, tok fence.Token) (int64, error) {
	return a.q.SetStrictStatus(ctx, pgx4db.SetStrictStatusParams{ID: id, Status: status}, tok)
}
func (a pgx4API) RepairExec(ctx context.Context, id int64, status string) error {
	return a.q.RepairExec(ctx, pgx4db.RepairExecParams{ID: id, Status: status})
}
func (a pgx4API) RepairOne(ctx context.Context, id int64, status string) (string, error) {
	return a.q.RepairOne(ctx, pgx4db.RepairOneParams{ID: id, Status: status})
}
func (a pgx4API) RepairMany(ctx context.Context, minID int64, status string) ([]int64, error) {
	return a.q.RepairMany(ctx, pgx4db.RepairManyParams{MinID: minID, Status: status})
}
func (a pgx4API) ListJobs(ctx context.Context) (string, error) {
	rows, err := a.q.ListJobs(ctx)
	var out []string
	for _, j := range rows {
		out = append(out, fmt.Sprint("[", j.ID, " ", j.Status, " ", j.Owner.String, " ", j.Tags, " ", j.Tok, "]"))
	}
	return strings.Join(out, " "), err
}
func (a pgx4API) Dump(ctx context.Context) (string, error)       { return a.q.Dump(ctx) }
func (a pgx4API) DumpStrict(ctx context.Context) (string, error) { return a.q.DumpStrict(ctx) }
func (a pgx4API) CountLog(ctx context.Context) (int64, error)    { return a.q.CountLog(ctx) }
