package pgtest_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/golang/pgtest/pgtestdb"
)

// TestAddColumnAfterGenerate: the code was generated before a migration
// added columns to the tables it reads and writes (the usual order of a
// deploy: migrate, then roll out the new code). Every query with a star
// (SELECT *, t.*, a star in a subquery, RETURNING * of plain and fenced
// writes, of a fenced upsert of one row and of many) must still run and
// scan: the generator spells each star out in the statement it sends, so
// the fenced forms' UNION ALL branches keep matching too.
func TestAddColumnAfterGenerate(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	exec(t, pool, `INSERT INTO sources VALUES (1, 'active', 'ann'), (2, 'idle', NULL);
		INSERT INTO jobs (id, status, owner, tok) VALUES (1, 'new', 'ann', 3), (2, 'skip', NULL, 0)`)
	// Added in the middle of nowhere: before and after the token column,
	// with defaults and without.
	for _, tbl := range []string{"jobs", "sources", "ledgers"} {
		exec(t, pool, `ALTER TABLE `+tbl+` ADD COLUMN added_late TEXT DEFAULT 'late', ADD COLUMN added_int BIGINT`)
	}

	l, err := q.AddLedger(ctx, pgtestdb.AddLedgerParams{ID: 1, Total: 10}, 5)
	if err != nil || l != (pgtestdb.Ledger{ID: 1, Total: 10, Tok: 5}) {
		t.Fatalf("AddLedger: %+v, %v", l, err)
	}
	l, err = q.UpsertLedger(ctx, pgtestdb.UpsertLedgerParams{ID: 1, Total: 11}, 6)
	if err != nil || l != (pgtestdb.Ledger{ID: 1, Total: 11, Tok: 6}) {
		t.Fatalf("UpsertLedger (update): %+v, %v", l, err)
	}
	// The refusal branch of the upsert's UNION ALL.
	_, err = q.UpsertLedger(ctx, pgtestdb.UpsertLedgerParams{ID: 1, Total: 12}, 6)
	stale(t, "UpsertLedger with the stored token of a strict table", err, 6, 0)
	ls, err := q.UpsertLedgers(ctx, pgtestdb.UpsertLedgersParams{Ids: []int64{1, 2}, Totals: []int64{20, 21}}, 7)
	if err != nil || !reflect.DeepEqual(ls, []pgtestdb.Ledger{{ID: 1, Total: 20, Tok: 7}, {ID: 2, Total: 21, Tok: 7}}) {
		t.Fatalf("UpsertLedgers: %+v, %v", ls, err)
	}
	_, err = q.UpsertLedgers(ctx, pgtestdb.UpsertLedgersParams{Ids: []int64{2, 3}, Totals: []int64{30, 31}}, 7)
	stale(t, "UpsertLedgers with the stored token", err, 7, 1)
	l, err = q.SetLedgerTotal(ctx, pgtestdb.SetLedgerTotalParams{ID: 2, Total: 22}, 8)
	if err != nil || l != (pgtestdb.Ledger{ID: 2, Total: 22, Tok: 8}) {
		t.Fatalf("SetLedgerTotal: %+v, %v", l, err)
	}
	_, err = q.SetLedgerTotal(ctx, pgtestdb.SetLedgerTotalParams{ID: 2, Total: 23}, 8)
	stale(t, "SetLedgerTotal with the stored token", err, 8, 0)

	jobs, err := q.ListJobs(ctx)
	if err != nil || len(jobs) != 2 || jobs[0].Status != "new" || jobs[0].Tok != 3 {
		t.Fatalf("ListJobs: %+v, %v", jobs, err)
	}
	j, err := q.RenameOne(ctx, pgtestdb.RenameOneParams{Status: "renamed", ID: 1}, 4)
	if err != nil || j.Status != "renamed" || j.Tok != 4 || j.Owner != pgtypeText("ann") {
		t.Fatalf("RenameOne: %+v, %v", j, err)
	}
	ws, err := q.JobsWithSources(ctx)
	if err != nil || len(ws) != 2 || ws[0].Status != "renamed" || ws[0].SourceStatus != "active" || ws[1].SourceStatus != "idle" {
		t.Fatalf("JobsWithSources: %+v, %v", ws, err)
	}
	sub, err := q.JobsFromSubquery(ctx, "skip")
	if err != nil || len(sub) != 1 || sub[0].ID != 1 {
		t.Fatalf("JobsFromSubquery: %+v, %v", sub, err)
	}
	both, err := q.JobsAndSources(ctx)
	if err != nil || len(both) != 2 || both[0].Status != "renamed" || both[0].Status_2 != "active" || both[1].Owner.Valid {
		t.Fatalf("JobsAndSources: %+v, %v", both, err)
	}
}
