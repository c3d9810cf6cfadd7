package pgtest_test

import (
	"context"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/gen/internal/golang/pgtest/pgtestdb"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// The write shapes of shapes.sql, run through their generated methods
// against real PostgreSQL with the guard migration applied: each refuses a
// lower token with the stored one, writes nothing when refused, and stores
// the token when it writes.

// stale fails unless err is a *fence.StaleError with stored token stored
// (and, if rows > 0, that many refused rows).
func stale(t *testing.T, what string, err error, stored fence.Token, rows int64) {
	t.Helper()
	var se *fence.StaleError
	if !errors.As(err, &se) || !errors.Is(err, fence.ErrStaleToken) || se.Stored != stored || (rows > 0 && se.Rows != rows) {
		t.Fatalf("%s: %v; want a stale token error with stored %d (%d rows)", what, err, stored, rows)
	}
}

func text(t *testing.T, pool *pgxpool.Pool, sql string) string {
	t.Helper()
	var s string
	if err := pool.QueryRow(context.Background(), sql).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

// SET (a, b) = (SELECT ...): the subquery's parameter is its own, not the
// token's (a defect once wrote the row named by the token).
func TestShapeMultiColumnSetFromSubquery(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	exec(t, pool, `INSERT INTO sources VALUES (1, 'from-one', 'ann'), (9, 'from-nine', 'bob');
		INSERT INTO jobs (id, status, tok) VALUES (1, 'new', 5)`)
	if err := q.CopyFromSource(ctx, pgtestdb.CopyFromSourceParams{Source: 1, ID: 1}, 9); err != nil {
		t.Fatal(err)
	}
	if got := text(t, pool, `SELECT format('%s %s %s', status, owner, tok) FROM jobs WHERE id = 1`); got != "from-one ann 9" {
		t.Fatalf("row after CopyFromSource(source 1, token 9): %s", got)
	}
	stale(t, "token 8", q.CopyFromSource(ctx, pgtestdb.CopyFromSourceParams{Source: 9, ID: 1}, 8), 9, 0)
}

// A partition of a fenced table is fenced: a write named on it is guarded
// and an insert into it stores the token; the trigger cloned from the
// partitioned table refuses a lower token written by hand.
func TestShapePartitionWrites(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	exec(t, pool, `INSERT INTO events VALUES (1, 'eu', 'a', 5)`)
	stale(t, "partition, token 4", q.SetPayloadEU(ctx, pgtestdb.SetPayloadEUParams{Payload: "b", ID: 1}, 4), 5, 0)
	if err := q.SetPayloadEU(ctx, pgtestdb.SetPayloadEUParams{Payload: "b", ID: 2}, 6); !errors.Is(err, fence.ErrNotFound) {
		t.Fatalf("missing row: %v", err)
	}
	if err := q.SetPayloadEU(ctx, pgtestdb.SetPayloadEUParams{Payload: "b", ID: 1}, 6); err != nil {
		t.Fatal(err)
	}
	if err := q.AddEventUS(ctx, pgtestdb.AddEventUSParams{ID: 7, Payload: "c"}, 3); err != nil {
		t.Fatal(err)
	}
	if got := text(t, pool, `SELECT string_agg(format('%s:%s:%s', id, payload, tok), ' ' ORDER BY id) FROM events`); got != "1:b:6 7:c:3" {
		t.Fatalf("events: %s", got)
	}
	if _, err := pool.Exec(ctx, `UPDATE events_us SET tok = 1 WHERE id = 7`); !errors.Is(fenceimpl.TriggerError("psql", err, "events_us"), fence.ErrStaleToken) {
		t.Fatalf("lowering a partition's token by hand: %v, want the guard trigger's refusal", err)
	}
}

// A fenced parent with INHERITS children: a write by the parent's key also
// matches a child's row with that key, so a newer token there refuses the
// whole write instead of writing the parent's row alone.
func TestShapeInheritanceParentByKey(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	exec(t, pool, `INSERT INTO things VALUES (1, 'p', 5); INSERT INTO special_things VALUES (1, 'c', 9, 'x')`)
	stale(t, "token 7 against 5 and 9", q.SetThing(ctx, pgtestdb.SetThingParams{V: "n", ID: 1}, 7), 9, 1)
	if got := text(t, pool, `SELECT string_agg(v, ',' ORDER BY tok) FROM things`); got != "p,c" {
		t.Fatalf("a refused write wrote: %s", got)
	}
	if err := q.SetThing(ctx, pgtestdb.SetThingParams{V: "n", ID: 1}, 9); err != nil {
		t.Fatal(err)
	}
	if got := text(t, pool, `SELECT string_agg(format('%s:%s', v, tok), ',') FROM things`); got != "n:9,n:9" {
		t.Fatalf("things after token 9: %s", got)
	}
}

// An UPDATE with its own WITH clause is guarded all or nothing.
func TestShapeUpdateWithOwnWithClause(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	exec(t, pool, `INSERT INTO sources VALUES (1, 'active', NULL), (2, 'active', NULL), (3, 'idle', NULL);
		INSERT INTO jobs (id, status, tok) VALUES (1, 'new', 1), (2, 'new', 8), (3, 'new', 1)`)
	ids, err := q.RetireActive(ctx, 5)
	stale(t, "token 5 against 1 and 8", err, 8, 1)
	if len(ids) != 0 || text(t, pool, `SELECT string_agg(status, ',' ORDER BY id) FROM jobs`) != "new,new,new" {
		t.Fatalf("a refused write wrote: %v", ids)
	}
	if ids, err = q.RetireActive(ctx, 8); err != nil || len(ids) != 2 {
		t.Fatalf("token 8: %v, %v", ids, err)
	}
}

// Upserts: by constraint name; of many rows (all or nothing, the refusal
// counting the stale rows); inside WITH (the statement's other write is
// not done when refused).
func TestShapeUpserts(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	exec(t, pool, `INSERT INTO settings VALUES (1, 'a', 'old', 5), (2, 'b', 'old', 9)`)
	stale(t, "by constraint, token 4", q.SetSetting(ctx, pgtestdb.SetSettingParams{ID: 10, Name: "a", Value: "x"}, 4), 5, 0)
	if err := q.SetSetting(ctx, pgtestdb.SetSettingParams{ID: 10, Name: "a", Value: "x"}, 6); err != nil {
		t.Fatal(err)
	}
	before := text(t, pool, `SELECT string_agg(format('%s:%s:%s:%s', id, name, value, tok), ' ' ORDER BY id) FROM settings`)
	if before != "1:a:x:6 2:b:old:9" {
		t.Fatalf("settings: %s", before)
	}
	ids, err := q.SetSettings(ctx, pgtestdb.SetSettingsParams{Ids: []int64{1, 2, 3}, Names: []string{"a", "b", "c"}, Value: "y"}, 7)
	stale(t, "many rows, token 7 against 6 and 9", err, 9, 1)
	n, err2 := q.SetTwoSettings(ctx, pgtestdb.SetTwoSettingsParams{Id1: 1, Name1: "a", Id2: 4, Name2: "d", Value: "z"}, 5)
	stale(t, "two VALUES rows, token 5 against 6", err2, 6, 1)
	if after := text(t, pool, `SELECT string_agg(format('%s:%s:%s:%s', id, name, value, tok), ' ' ORDER BY id) FROM settings`); after != before || len(ids) != 0 || n != 0 {
		t.Fatalf("refused upserts wrote: %s (was %s), %v, %d", after, before, ids, n)
	}
	if ids, err = q.SetSettings(ctx, pgtestdb.SetSettingsParams{Ids: []int64{1, 2, 3}, Names: []string{"a", "b", "c"}, Value: "y"}, 9); err != nil || len(ids) != 3 {
		t.Fatalf("many rows, token 9: %v, %v", ids, err)
	}
	stale(t, "in WITH, token 8", q.SetSettingLogged(ctx, pgtestdb.SetSettingLoggedParams{ID: 3, Name: "c", Value: "w"}, 8), 9, 1)
	if err := q.SetSettingLogged(ctx, pgtestdb.SetSettingLoggedParams{ID: 3, Name: "c", Value: "w"}, 10); err != nil {
		t.Fatal(err)
	}
	if got := text(t, pool, `SELECT format('%s %s', (SELECT string_agg(format('%s:%s:%s', id, value, tok), ' ' ORDER BY id) FROM settings), (SELECT string_agg(msg, ',') FROM plain_log))`); got != "1:y:9 2:y:9 3:w:10 setting 3" {
		t.Fatalf("after the upserts: %s", got)
	}
}

// A non-strict query on a strict table: the generated guard trigger
// follows it (and vet says so), so the holder's second write under one
// token applies.
func TestShapeNonStrictQueryOnStrictTable(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	exec(t, pool, `INSERT INTO ledgers VALUES (1, 0, 0)`)
	for range 2 {
		if err := q.AddToLedger(ctx, pgtestdb.AddToLedgerParams{Amount: 5, ID: 1}, 3); err != nil {
			t.Fatal(err)
		}
	}
	stale(t, "token 2", q.AddToLedger(ctx, pgtestdb.AddToLedgerParams{Amount: 5, ID: 1}, 2), 3, 0)
	if got := text(t, pool, `SELECT format('%s:%s', total, tok) FROM ledgers`); got != "10:3" {
		t.Fatalf("ledger: %s", got)
	}
}

// :execresult on a fenced write returns the command tag of the write as
// written (UPDATE n), and the stale-token error when refused.
func TestShapeExecResult(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	exec(t, pool, `INSERT INTO jobs (id, status, tok) VALUES (1, 'new', 5), (2, 'new', 1)`)
	tag, err := q.RenameJob(ctx, pgtestdb.RenameJobParams{Status: "a", ID: 1}, 5)
	if err != nil || tag.String() != "UPDATE 1" || !tag.Update() || tag.RowsAffected() != 1 {
		t.Fatalf("by key: %q, %v", tag, err)
	}
	_, err = q.RenameJobs(ctx, pgtestdb.RenameJobsParams{Status: "b", MinID: 1}, 4)
	stale(t, "many rows, token 4 against 5 and 1", err, 5, 1)
	if tag, err = q.RenameJobs(ctx, pgtestdb.RenameJobsParams{Status: "b", MinID: 1}, 6); err != nil || tag.String() != "UPDATE 2" {
		t.Fatalf("many rows, token 6: %q, %v", tag, err)
	}
}

// An upsert of many rows keeps char(n) and bit(n) values whole, ignores
// rows outside its partial arbiter index, and on a parent with INHERITS
// children conflicts with the parent's own rows only.
func TestShapeUpsertTargets(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	if err := q.SetCodes(ctx, pgtestdb.SetCodesParams{Id1: 1, C1: "abc", B1: pgtype.Bits{Bytes: []byte{0xa0}, Len: 3, Valid: true}, Id2: 2, C2: "de", B2: pgtype.Bits{Bytes: []byte{0x20}, Len: 3, Valid: true}}, 1); err != nil {
		t.Fatal(err)
	}
	if got := text(t, pool, `SELECT string_agg(format('%s:[%s]:%s', id, c3, b3), ' ' ORDER BY id) FROM codes`); got != "1:[abc]:101 2:[de ]:001" {
		t.Fatalf("codes: %s", got)
	}
	exec(t, pool, `INSERT INTO users VALUES (1, 'a@x', true, 9)`)
	if ids, err := q.AddUsers(ctx, pgtestdb.AddUsersParams{Ids: []int64{2, 3}, Emails: []string{"a@x", "b@x"}}, 5); err != nil || len(ids) != 2 {
		t.Fatalf("a deleted row (token 9) outside the arbiter index: %v, %v; want both inserted", ids, err)
	}
	exec(t, pool, `INSERT INTO sub_bases VALUES (1, 'child', 9)`)
	if n, err := q.AddBases(ctx, []int64{1, 2}, 5); err != nil || n != 2 {
		t.Fatalf("a child's row (token 9) with the same key: %d, %v; want 2 rows inserted into the parent", n, err)
	}
}

// A non-strict query on a partition of a strict partitioned table: the
// trigger the partition runs is its partitioned table's, so that one is
// made non-strict, and the holder's second write applies.
func TestShapeNonStrictQueryOnStrictPartition(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	exec(t, pool, `INSERT INTO logs VALUES (1, 5, 'a', 0)`)
	for range 2 {
		if err := q.EditEarlyLog(ctx, pgtestdb.EditEarlyLogParams{Msg: "b", ID: 1, Day: 5}, 3); err != nil {
			t.Fatal(err)
		}
	}
	stale(t, "token 2", q.EditEarlyLog(ctx, pgtestdb.EditEarlyLogParams{Msg: "c", ID: 1, Day: 5}, 2), 3, 0)
}

// A by-key write with a further condition: when a newer holder's write
// changed what the condition tests, a stale token is still reported as
// stale (not as a missing row, which would hide the lost lease); a row
// that does not match and holds an older token is not found.
func TestShapeByKeyWithConditionStaleNotNotFound(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	exec(t, pool, `INSERT INTO jobs (id, status, tok) VALUES (1, 'failed', 1), (2, 'running', 1)`)
	if err := q.RequeueFailed(ctx, 1, 2); err != nil {
		t.Fatal(err)
	}
	stale(t, "stale holder after the newer one requeued", q.RequeueFailed(ctx, 1, 1), 2, 0)
	if err := q.RequeueFailed(ctx, 2, 3); !errors.Is(err, fence.ErrNotFound) {
		t.Fatalf("a running job with an older token: %v, want not found", err)
	}
	var errs []error
	q.RequeueFailedBatch(ctx, []int64{1, 2, 99}, 1).Exec(func(_ int, err error) { errs = append(errs, err) })
	if len(errs) != 3 || !errors.Is(errs[0], fence.ErrStaleToken) || !errors.Is(errs[1], fence.ErrNotFound) || !errors.Is(errs[2], fence.ErrNotFound) {
		t.Fatalf("batch: %v; want stale, not found, not found", errs)
	}
}

// A fenced :one that matches no row returns a *fence.NotFoundError that is
// also pgx.ErrNoRows, as sqlc's :one returns.
func TestShapeOneNotFoundIsErrNoRows(t *testing.T) {
	ctx := context.Background()
	_, q := setup(t)
	_, err := q.RenameOne(ctx, pgtestdb.RenameOneParams{Status: "x", ID: 42}, 1)
	if !errors.Is(err, fence.ErrNotFound) || !errors.Is(err, pgx.ErrNoRows) {
		t.Fatalf("RenameOne of a missing row: %v; want fence.ErrNotFound and pgx.ErrNoRows", err)
	}
}

// Upserts whose INSERT has a WITH clause of its own (once refused, before
// that generated SQL that failed with "relation does not exist"): the
// entries join the guard's WITH list, and the generated methods refuse a
// lower token with the stored one, all or nothing, and store the token.
func TestShapeUpsertOwnWith(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	exec(t, pool, `INSERT INTO settings VALUES (1, 'a', 'old', 5), (2, 'b', 'old', 9)`)
	state := func() string {
		return text(t, pool, `SELECT string_agg(format('%s:%s:%s', id, value, tok), ' ' ORDER BY id) FROM settings`)
	}
	ids, err := q.SetSettingsFrom(ctx, pgtestdb.SetSettingsFromParams{Ids: []int64{1, 2, 3}, Value: "y"}, 7)
	stale(t, "many rows, token 7 against 5 and 9", err, 9, 1)
	if got := state(); got != "1:old:5 2:old:9" || len(ids) != 0 {
		t.Fatalf("a refused upsert of many rows wrote: %s, %v", got, ids)
	}
	if ids, err = q.SetSettingsFrom(ctx, pgtestdb.SetSettingsFromParams{Ids: []int64{1, 2, 3}, Value: "y"}, 9); err != nil || len(ids) != 3 {
		t.Fatalf("many rows, token 9: %v, %v", ids, err)
	}
	stale(t, "one row, token 8 against 9", q.SetSettingFrom(ctx, pgtestdb.SetSettingFromParams{ID: 3, Name: "n3", Value: "z"}, 8), 9, 0)
	if err := q.SetSettingFrom(ctx, pgtestdb.SetSettingFromParams{ID: 3, Name: "n3", Value: "z"}, 10); err != nil {
		t.Fatal(err)
	}
	if err := q.SetSettingFrom(ctx, pgtestdb.SetSettingFromParams{ID: 4, Name: "n4", Value: "new"}, 1); err != nil {
		t.Fatal(err)
	}
	if got := state(); got != "1:y:9 2:y:9 3:z:10 4:new:1" {
		t.Fatalf("after the upserts: %s", got)
	}
}

// A hand-written token comparison (tok <= @token) takes the method's one
// token: the method writes with it, refuses a lower one with the stored
// token, and stores it (issue 24: it was a second token argument that could
// disagree with the method's own).
func TestShapeTokenComparedByHand(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	exec(t, pool, `INSERT INTO jobs (id, status, tok) VALUES (1, 'new', 5)`)
	set := func(status string, tok fence.Token) error {
		return q.SetStatusClassic(ctx, pgtestdb.SetStatusClassicParams{Status: status, ID: 1}, tok)
	}
	stale(t, "token 4", set("a", 4), 5, 1)
	if err := set("b", 5); err != nil {
		t.Fatalf("token 5 (the stored one, non-strict): %v", err)
	}
	if err := set("c", 7); err != nil {
		t.Fatalf("token 7: %v", err)
	}
	if got := text(t, pool, `SELECT format('%s %s', status, tok) FROM jobs WHERE id = 1`); got != "c 7" {
		t.Fatalf("row after token 7: %s", got)
	}
	if err := q.SetStatusClassic(ctx, pgtestdb.SetStatusClassicParams{Status: "d", ID: 2}, 8); !errors.Is(err, fence.ErrNotFound) {
		t.Fatalf("missing row: %v", err)
	}
}

// A sweep (-- @fence sweep) that finds no row writes 0 rows and returns no
// error, where a fenced :execrows returns a *fence.NotFoundError; one that
// finds rows requeues them all under the token, all or nothing: a row a
// newer holder wrote refuses the sweep (nothing written), unless the
// query's own tok <= @token skips that row. A batch item is swept the same
// way.
func TestShapeSweep(t *testing.T) {
	ctx := context.Background()
	pool, q := setup(t)
	owner := pgtype.Text{String: "w1", Valid: true}
	if n, err := q.RequeueOwned(ctx, owner, 5); n != 0 || err != nil {
		t.Fatalf("sweep of no row: %d, %v; want 0, nil", n, err)
	}
	exec(t, pool, `INSERT INTO jobs (id, status, owner, tok) VALUES (1, 'running', 'w1', 3), (2, 'running', 'w1', 4), (3, 'running', 'w1', 9), (4, 'done', 'w1', 1)`)
	_, err := q.RequeueOwned(ctx, owner, 5)
	stale(t, "sweep over a row holding token 9", err, 9, 1)
	if got := text(t, pool, `SELECT string_agg(format('%s:%s:%s', id, status, tok), ' ' ORDER BY id) FROM jobs`); got != "1:running:3 2:running:4 3:running:9 4:done:1" {
		t.Fatalf("rows after the refused sweep: %s", got)
	}
	if n, err := q.RequeueOwnedBeaten(ctx, owner, 5); n != 2 || err != nil {
		t.Fatalf("sweep skipping the newer row: %d, %v; want 2, nil", n, err)
	}
	if got := text(t, pool, `SELECT string_agg(format('%s:%s:%s', id, status, tok), ' ' ORDER BY id) FROM jobs`); got != "1:queued:5 2:queued:5 3:running:9 4:done:1" {
		t.Fatalf("rows after the sweep: %s", got)
	}
	if n, err := q.RequeueOwnedBeaten(ctx, owner, 6); n != 0 || err != nil {
		t.Fatalf("second sweep, nothing left it may write: %d, %v; want 0, nil", n, err)
	}
	var errs []error
	q.RequeueOwnedBatch(ctx, []pgtype.Text{{String: "nobody", Valid: true}, owner}, 10).Exec(func(_ int, err error) { errs = append(errs, err) })
	if len(errs) != 2 || errs[0] != nil || errs[1] != nil {
		t.Fatalf("batch sweep: %v; want no error for the owner with no row and for w1", errs)
	}
	if got := text(t, pool, `SELECT status || ':' || tok FROM jobs WHERE id = 3`); got != "queued:10" {
		t.Fatalf("row 3 after the batch sweep with token 10: %s", got)
	}
}
