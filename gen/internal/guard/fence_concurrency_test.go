package guard_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/gen/internal/guard"
	"github.com/fencegen/fencegen/internal/testenv"
)

// Concurrent fenced writes to the same rows, at every isolation level,
// must stay all or nothing and must never let a stale token win.
//
// Group 1 holds five rows; row 3 starts with token blockToken, the others
// with 0, so every write with a lower token must be refused as a whole
// (a per-row guard would write the other four). Workers race the same
// multi-row UPDATE with rising tokens that are distinct across all
// statements (worker w uses tokens ≡ w+1 mod workers), each statement in
// its own transaction at READ COMMITTED, REPEATABLE READ or SERIALIZABLE.
// An AFTER UPDATE row trigger logs every row change with its transaction
// id, old and new token and counter, so the checks below see exactly what
// each committed statement did.

const concSchema = `
CREATE TABLE items (id int PRIMARY KEY, grp int NOT NULL, n int NOT NULL DEFAULT 0, tok bigint NOT NULL DEFAULT 0);
CREATE INDEX ON items (grp);
CREATE TABLE history (
    seq     bigserial PRIMARY KEY,
    txid    bigint NOT NULL,
    id      int NOT NULL,
    old_tok bigint NOT NULL,
    new_tok bigint NOT NULL,
    old_n   int NOT NULL,
    new_n   int NOT NULL
);
CREATE FUNCTION log_items() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO history (txid, id, old_tok, new_tok, old_n, new_n)
    VALUES (txid_current(), OLD.id, OLD.tok, NEW.tok, OLD.n, NEW.n);
    RETURN NULL;
END $$;
CREATE TRIGGER items_log AFTER UPDATE ON items FOR EACH ROW EXECUTE FUNCTION log_items();
`

const (
	concGroup   = 1
	concRows    = 5  // rows in group 1
	blockRow    = 3  // the row that starts with blockToken
	blockToken  = 40 // row blockRow's initial token
	concWorkers = 6
)

const concRowsSQL = `
TRUNCATE history;
DELETE FROM items;
INSERT INTO items (id, grp, tok) SELECT g, 1, CASE g WHEN 3 THEN 40 ELSE 0 END FROM generate_series(1, 5) g;
INSERT INTO items (id, grp, tok) SELECT g, 2, 0 FROM generate_series(6, 8) g;
`

var isolations = []pgx.TxIsoLevel{pgx.ReadCommitted, pgx.RepeatableRead, pgx.Serializable}

type attempt struct {
	worker     int
	token      int64
	iso        pgx.TxIsoLevel
	start, end time.Time // before BEGIN, after COMMIT or ROLLBACK
	// result is "written", "refused" or "failed" (serialization failure
	// or deadlock: not applied).
	result          string
	stored, refused int64
	written         int
}

// concWorkload runs the workers for d (or until each made maxAttempts
// attempts) with the given statement and returns every attempt plus the
// violations seen by the clients themselves.
func concWorkload(t *testing.T, pool *pgxpool.Pool, sql string, d time.Duration, maxAttempts int) ([]attempt, []string) {
	t.Helper()
	if _, err := pool.Exec(context.Background(), concRowsSQL); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), d+20*time.Second)
	defer cancel()
	deadline := time.Now().Add(d)
	var (
		mu         sync.Mutex
		attempts   []attempt
		violations []string
		wg         sync.WaitGroup
	)
	violate := func(format string, args ...any) {
		mu.Lock()
		violations = append(violations, fmt.Sprintf(format, args...))
		mu.Unlock()
	}
	for w := range concWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(w), 42))
			step := int64(0)
			for i := 0; i < maxAttempts && time.Now().Before(deadline); i++ {
				a := attempt{worker: w, token: step*concWorkers + int64(w) + 1, iso: isolations[(w+i)%len(isolations)]}
				step += 1 + rng.Int64N(3)
				a.start = time.Now()
				err := concOnce(ctx, pool, sql, &a)
				a.end = time.Now()
				var pgErr *pgconn.PgError
				switch {
				case errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01"):
					a.result = "failed"
				case err != nil:
					violate("worker %d token %d (%s): %v", w, a.token, a.iso, err)
					return
				}
				mu.Lock()
				attempts = append(attempts, a)
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return attempts, violations
}

// concOnce runs one fenced statement in its own transaction.
func concOnce(ctx context.Context, pool *pgxpool.Pool, sql string, a *attempt) error {
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: a.iso})
	if err != nil {
		return err
	}
	defer tx.Rollback(context.Background())
	rows, err := tx.Query(ctx, sql, int32(concGroup), a.token)
	if err != nil {
		return err
	}
	n := 0
	for rows.Next() {
		n++
		var stored, refused, tok *int64
		var id, cnt *int32
		if err := rows.Scan(&stored, &refused, &id, &cnt, &tok); err != nil {
			rows.Close()
			return fmt.Errorf("scan: %v", err)
		}
		if stored != nil {
			// A refusal row: NULLs in the query's own columns.
			if refused == nil || id != nil || cnt != nil || tok != nil {
				rows.Close()
				return fmt.Errorf("refusal row with fence_rows %v and own columns %v, %v, %v", refused, id, cnt, tok)
			}
			a.result, a.stored, a.refused = "refused", *stored, *refused
			continue
		}
		if refused != nil || id == nil || tok == nil {
			rows.Close()
			return fmt.Errorf("written row with fence_rows %v, id %v, token %v", refused, id, tok)
		}
		if *tok != a.token {
			rows.Close()
			return fmt.Errorf("written row %d returns token %d, want %d", *id, *tok, a.token)
		}
		a.written++
	}
	if err := rows.Err(); err != nil {
		return err
	}
	switch {
	case a.result == "refused" && (n != 1 || a.written != 0):
		return fmt.Errorf("refusal mixed with %d written rows (%d rows in all)", a.written, n)
	case a.result == "" && a.written > 0:
		a.result = "written"
	case a.result == "":
		return fmt.Errorf("no rows returned, but the group always matches %d rows", concRows)
	}
	return tx.Commit(ctx)
}

type histRow struct {
	seq, txid      int64
	id             int32
	oldTok, newTok int64
	oldN, newN     int32
}

// concCheck checks the invariants after a run and returns the violations.
func concCheck(t *testing.T, pool *pgxpool.Pool, attempts []attempt) []string {
	t.Helper()
	ctx := context.Background()
	var v []string
	bad := func(format string, args ...any) { v = append(v, fmt.Sprintf(format, args...)) }

	succeeded := map[int64]bool{}
	var maxOK int64 = -1
	var successes int
	for _, a := range attempts {
		switch a.result {
		case "written":
			successes++
			succeeded[a.token] = true
			maxOK = max(maxOK, a.token)
			// All or nothing, as the client sees it.
			if a.written != concRows {
				bad("token %d (%s) wrote %d of the %d rows of the group", a.token, a.iso, a.written, concRows)
			}
		case "refused":
			if a.stored <= a.token {
				bad("token %d (%s) refused with stored %d, which it beats", a.token, a.iso, a.stored)
			}
			// The group's rows only ever hold one token, or the
			// initial (0, 0, blockToken, 0, 0).
			if !(a.refused == concRows || (a.refused == 1 && a.stored == blockToken)) {
				bad("token %d (%s) refused with stored %d, %d rows refused: the group held mixed tokens", a.token, a.iso, a.stored, a.refused)
			}
		}
	}

	// No stale token wins: a statement that began after another had
	// committed a higher token must not succeed, and if refused must have
	// seen at least that token.
	for _, s := range attempts {
		if s.result != "written" {
			continue
		}
		for _, a := range attempts {
			if !a.start.After(s.end) || a.token >= s.token {
				continue
			}
			switch a.result {
			case "written":
				bad("token %d (%s) succeeded after token %d had committed", a.token, a.iso, s.token)
			case "refused":
				if a.stored < s.token {
					bad("token %d (%s) was refused with stored %d although token %d had committed before it began", a.token, a.iso, a.stored, s.token)
				}
			}
		}
	}

	// Final state.
	rows, err := pool.Query(ctx, "SELECT id, grp, n, tok FROM items ORDER BY id")
	if err != nil {
		t.Fatal(err)
	}
	type item struct {
		id, grp, n int32
		tok        int64
	}
	items, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (item, error) {
		var it item
		return it, r.Scan(&it.id, &it.grp, &it.n, &it.tok)
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		if it.grp != concGroup {
			if it.n != 0 || it.tok != 0 {
				bad("row %d outside the group was written: n %d, token %d", it.id, it.n, it.tok)
			}
			continue
		}
		want := maxOK
		if successes == 0 {
			want = 0
			if it.id == blockRow {
				want = blockToken
			}
		}
		if it.tok != want {
			bad("row %d ends with token %d, want %d (the highest that succeeded)", it.id, it.tok, want)
		}
		if int(it.n) != successes {
			bad("row %d ends with n = %d, want %d (the number of successful statements)", it.id, it.n, successes)
		}
	}

	// History: each committed statement changed every row of the group,
	// with one token; per row, tokens never decrease and every change
	// starts from the previous one (no lost or hidden write).
	hrows, err := pool.Query(ctx, "SELECT seq, txid, id, old_tok, new_tok, old_n, new_n FROM history ORDER BY seq")
	if err != nil {
		t.Fatal(err)
	}
	hist, err := pgx.CollectRows(hrows, func(r pgx.CollectableRow) (histRow, error) {
		var h histRow
		return h, r.Scan(&h.seq, &h.txid, &h.id, &h.oldTok, &h.newTok, &h.oldN, &h.newN)
	})
	if err != nil {
		t.Fatal(err)
	}
	byTx := map[int64][]histRow{}
	last := map[int32]*histRow{}
	for i, h := range hist {
		byTx[h.txid] = append(byTx[h.txid], h)
		if h.newTok < h.oldTok {
			bad("txid %d lowered row %d's token from %d to %d", h.txid, h.id, h.oldTok, h.newTok)
		}
		if h.newN != h.oldN+1 {
			bad("txid %d changed row %d's n from %d to %d", h.txid, h.id, h.oldN, h.newN)
		}
		if p := last[h.id]; p != nil && (p.newTok != h.oldTok || p.newN != h.oldN) {
			bad("row %d: txid %d started from token %d, n %d, but txid %d had left token %d, n %d", h.id, h.txid, h.oldTok, h.oldN, p.txid, p.newTok, p.newN)
		}
		last[h.id] = &hist[i]
	}
	tokens := map[int64]bool{}
	for txid, hs := range byTx {
		ids := map[int32]bool{}
		for _, h := range hs {
			ids[h.id] = true
			if h.newTok != hs[0].newTok {
				bad("txid %d stored tokens %d and %d", txid, hs[0].newTok, h.newTok)
			}
		}
		if len(ids) != concRows || len(hs) != concRows {
			var got []string
			for id := range ids {
				got = append(got, fmt.Sprint(id))
			}
			sort.Strings(got)
			bad("txid %d (token %d) updated a strict subset of the group: rows %s", txid, hs[0].newTok, strings.Join(got, ","))
		}
		tokens[hs[0].newTok] = true
		if !succeeded[hs[0].newTok] {
			bad("token %d was committed by txid %d, but its statement did not report success", hs[0].newTok, txid)
		}
	}
	for tok := range succeeded {
		if !tokens[tok] {
			bad("token %d reported success, but no committed change holds it", tok)
		}
	}
	if len(byTx) != successes {
		bad("%d transactions changed the group, %d statements reported success", len(byTx), successes)
	}
	return v
}

func TestFenceWriteConcurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("concurrency test against PostgreSQL skipped under -short")
	}
	pool := testenv.Database(t, concSchema)
	sql, err := guard.FenceWrite("UPDATE items SET n = n + 1 WHERE grp = $1 RETURNING id, n, tok",
		guard.Spec{Column: "tok", Key: []string{"id"}, Param: 2, Columns: 3})
	if err != nil {
		t.Fatal(err)
	}

	start := time.Now()
	attempts, violations := concWorkload(t, pool, sql, 3*time.Second, 800)
	violations = append(violations, concCheck(t, pool, attempts)...)
	for i, v := range violations {
		if i == 20 {
			t.Errorf("... and %d more violations", len(violations)-20)
			break
		}
		t.Error(v)
	}

	// The run must have exercised every outcome at every level.
	count := map[string]int{}
	for _, a := range attempts {
		count[a.result]++
		count[a.result+" "+string(a.iso)]++ // e.g. "written read committed"
	}
	t.Logf("%d statements in %v: %d written, %d refused, %d serialization failures or deadlocks; per level %v",
		len(attempts), time.Since(start).Round(time.Millisecond), count["written"], count["refused"], count["failed"], count)
	for _, r := range []string{"written", "refused"} {
		if count[r] == 0 {
			t.Errorf("no statement was %s: the run proves nothing", r)
		}
	}
	if count["refused "+string(pgx.ReadCommitted)] == 0 {
		t.Errorf("no READ COMMITTED statement was refused")
	}
}

// The checks above can fail: the same workload with a per-row guard only
// (the old shape, without lock and check) writes the four rows around the
// blocking one.
func TestFenceWriteConcurrentChecksCanFail(t *testing.T) {
	if testing.Short() {
		t.Skip("concurrency test against PostgreSQL skipped under -short")
	}
	pool := testenv.Database(t, concSchema)
	perRow := `WITH fence_write AS (
    UPDATE items SET n = n + 1, tok = $2 WHERE grp = $1 AND tok <= $2 RETURNING id, n, tok
)
SELECT NULL::bigint AS fence_stored, NULL::bigint AS fence_rows, fence_write.* FROM fence_write`
	attempts, violations := concWorkload(t, pool, perRow, 500*time.Millisecond, 40)
	violations = append(violations, concCheck(t, pool, attempts)...)
	found := false
	for _, v := range violations {
		if strings.Contains(v, "strict subset") {
			found = true
		}
	}
	t.Logf("per-row guard: %d violations, e.g. %q", len(violations), violations[:min(3, len(violations))])
	if !found {
		t.Errorf("a per-row guard shows no partial write; violations: %q", violations)
	}
}
