package mysqlguard_test

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/guard/mysqlguard"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
)

// TestConcurrentWritersByKeyOnMariaDB: writers with tokens in random
// order race guarded UPDATEs, upserts and DELETE-then-reinserts of the
// same rows, under REPEATABLE READ and READ COMMITTED (where InnoDB's
// semi-consistent read evaluates the WHERE clause on a locked row's last
// committed version). MariaDB is the oracle: an AFTER UPDATE/INSERT
// trigger records, in commit order, every token written, and the test
// checks that the recorded tokens of each row never go down (no stale
// write landed), that every write reported written is recorded, and that
// every write reported stale presented a token below one recorded before.
func TestConcurrentWritersByKeyOnMariaDB(t *testing.T) {
	for _, params := range []string{"", "tx_isolation=%27READ-COMMITTED%27", "clientFoundRows=true&tx_isolation=%27READ-COMMITTED%27"} {
		t.Run("dsn="+params, func(t *testing.T) {
			db := testenv.MySQL(t, params, schema,
				`CREATE TABLE history (seq BIGINT AUTO_INCREMENT PRIMARY KEY, id BIGINT NOT NULL, tok BIGINT NOT NULL, balance BIGINT NOT NULL)`,
				`CREATE TRIGGER record_update AFTER UPDATE ON accounts FOR EACH ROW INSERT INTO history (id, tok, balance) VALUES (NEW.id, NEW.fence_token, NEW.balance)`,
				`CREATE TRIGGER record_insert AFTER INSERT ON accounts FOR EACH ROW INSERT INTO history (id, tok, balance) VALUES (NEW.id, NEW.fence_token, NEW.balance)`,
				"INSERT INTO accounts (id, balance) VALUES (1, 0), (2, 0), (3, 0)")
			db.SetMaxOpenConns(8)
			set := newGuarded(t, db, "UPDATE accounts SET balance = ? WHERE id = ?", spec(2, false))
			up := newGuarded(t, db, "INSERT INTO accounts (id, balance) VALUES (?, ?) ON DUPLICATE KEY UPDATE balance = VALUES(balance)", spec(2, false))
			const writers, writes = 6, 40
			type outcome struct {
				id, token, balance int64
				upsert             bool
				err                error
			}
			results := make(chan outcome, writers*writes)
			var wg sync.WaitGroup
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewPCG(uint64(w), 7))
					for i := range writes {
						id := int64(1 + r.IntN(3))
						token := int64(1 + i + r.IntN(8))  // rising, with overlaps between writers
						balance := int64(1 + w*100000 + i) // unique, and not the rows' first 0: no write is a no-op
						var err error
						upsert := r.IntN(2) != 0
						if !upsert {
							_, err = set.run(fence.Token(token), balance, id)
						} else {
							_, err = up.run(fence.Token(token), id, balance)
						}
						results <- outcome{id, token, balance, upsert, err}
					}
				}()
			}
			wg.Wait()
			close(results)
			recorded := map[[2]int64]bool{} // (id, balance) written
			maxBefore := map[int64]int64{}  // id -> highest token recorded so far
			rows, err := db.Query("SELECT id, tok, balance FROM history ORDER BY seq")
			if err != nil {
				t.Fatal(err)
			}
			highest := map[int64]int64{}
			for rows.Next() {
				var id, tok, bal int64
				if err := rows.Scan(&id, &tok, &bal); err != nil {
					t.Fatal(err)
				}
				if tok < maxBefore[id] {
					t.Errorf("row %d: token %d written after token %d: a stale write landed", id, tok, maxBefore[id])
				}
				maxBefore[id] = max(maxBefore[id], tok)
				recorded[[2]int64{id, bal}] = true
				highest[id] = max(highest[id], tok)
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			var written, stale int
			for o := range results {
				var se *fence.StaleError
				switch {
				case o.err == nil:
					written++
					if !recorded[[2]int64{o.id, o.balance}] {
						t.Errorf("write of row %d with token %d reported written, not in the history", o.id, o.token)
					}
				case errors.As(o.err, &se):
					stale++
					if recorded[[2]int64{o.id, o.balance}] {
						t.Errorf("write (upsert %v) of row %d with token %d reported stale (%v), but it landed", o.upsert, o.id, o.token, o.err)
					}
					if int64(se.Stored) <= o.token || int64(se.Stored) > highest[o.id] {
						t.Errorf("stale write of row %d presented %d, stored %d (highest recorded %d)", o.id, o.token, se.Stored, highest[o.id])
					}
				case errors.Is(o.err, fence.ErrConcurrentChange):
				default:
					t.Errorf("row %d token %d: %v", o.id, o.token, o.err)
				}
			}
			if written == 0 || stale == 0 {
				t.Errorf("%d written, %d stale: the race exercised one outcome only", written, stale)
			}
			t.Logf("%d written, %d stale", written, stale)
		})
	}
}

// TestConcurrentWritersAllOrNothingOnMariaDB: writers with tokens in
// random order race guarded UPDATEs of a whole group of rows (WHERE
// status = ?, all or nothing), UPDATEs by key of one row of it, and
// upserts of two rows, under REPEATABLE READ and READ COMMITTED, with
// and without clientFoundRows. Each write stores a balance no other
// write stores. MariaDB is the oracle: an AFTER UPDATE trigger records,
// in commit order, every (row, token, balance) written. The test checks
// that the recorded tokens of each row never go down, that a write
// reported written is recorded for every row it reported (the three rows
// of its group, the two of an upsert), and that a write reported stale
// is recorded for none: no write landed in part.
func TestConcurrentWritersAllOrNothingOnMariaDB(t *testing.T) {
	for _, params := range []string{"", "tx_isolation=%27READ-COMMITTED%27", "clientFoundRows=true&tx_isolation=%27READ-COMMITTED%27"} {
		t.Run("dsn="+params, func(t *testing.T) {
			db := testenv.MySQL(t, params, schema,
				`CREATE TABLE history (seq BIGINT AUTO_INCREMENT PRIMARY KEY, id BIGINT NOT NULL, tok BIGINT NOT NULL, balance BIGINT NOT NULL)`,
				`CREATE TRIGGER record_update AFTER UPDATE ON accounts FOR EACH ROW INSERT INTO history (id, tok, balance) VALUES (NEW.id, NEW.fence_token, NEW.balance)`,
				"INSERT INTO accounts (id, balance, status) VALUES (1, 0, 'a'), (2, 0, 'a'), (3, 0, 'a'), (4, 0, 'b'), (5, 0, 'b'), (6, 0, 'b')")
			db.SetMaxOpenConns(8)
			group := newGuarded(t, db, "UPDATE accounts SET balance = ? WHERE status = ?", spec(2, false))
			one := newGuarded(t, db, "UPDATE accounts SET balance = ? WHERE id = ?", spec(2, false))
			pair := newGuarded(t, db, "INSERT INTO accounts (id, balance, status) VALUES (?, ?, ?), (?, ?, ?) ON DUPLICATE KEY UPDATE balance = VALUES(balance)", spec(6, false))
			if group.g.Form != mysqlguard.All || one.g.Form != mysqlguard.ByKey || pair.g.Rows != 2 {
				t.Fatalf("forms %v %v, upsert rows %d", group.g.Form, one.g.Form, pair.g.Rows)
			}
			const writers, writes = 6, 40
			type outcome struct {
				kind           string
				token, balance int64
				n              int64
				err            error
			}
			results := make(chan outcome, writers*writes)
			var wg sync.WaitGroup
			for w := range writers {
				wg.Add(1)
				go func() {
					defer wg.Done()
					r := rand.New(rand.NewPCG(uint64(w), 11))
					for i := range writes {
						token := int64(1 + i + r.IntN(8))
						balance := int64(1 + w*100000 + i)
						status := []string{"a", "b"}[r.IntN(2)]
						o := outcome{token: token, balance: balance}
						switch r.IntN(3) {
						case 0:
							o.kind = "group"
							o.n, o.err = group.run(fence.Token(token), balance, status)
						case 1:
							o.kind = "one"
							o.n, o.err = one.run(fence.Token(token), balance, int64(1+r.IntN(6)))
						default:
							o.kind = "pair"
							id := int64(1 + r.IntN(5))
							st := map[bool]string{true: "a", false: "b"}
							o.n, o.err = pair.run(fence.Token(token), id, balance, st[id <= 3], id+1, balance, st[id+1 <= 3])
						}
						results <- o
					}
				}()
			}
			wg.Wait()
			close(results)
			recorded := map[int64]int64{} // balance -> rows recorded with it
			maxBefore := map[int64]int64{}
			rows, err := db.Query("SELECT id, tok, balance FROM history ORDER BY seq")
			if err != nil {
				t.Fatal(err)
			}
			var highest int64
			for rows.Next() {
				var id, tok, bal int64
				if err := rows.Scan(&id, &tok, &bal); err != nil {
					t.Fatal(err)
				}
				if tok < maxBefore[id] {
					t.Errorf("row %d: token %d written after token %d: a stale write landed", id, tok, maxBefore[id])
				}
				maxBefore[id] = max(maxBefore[id], tok)
				highest = max(highest, tok)
				recorded[bal]++
			}
			if err := rows.Err(); err != nil {
				t.Fatal(err)
			}
			counts := map[string]int{}
			for o := range results {
				var se *fence.StaleError
				switch {
				case o.err == nil:
					counts[o.kind+" written"]++
					want := map[string]int64{"group": 3, "one": 1, "pair": 2}[o.kind]
					if o.n != want || recorded[o.balance] != want {
						t.Errorf("%s write with token %d reported %d rows written, %d recorded; want %d", o.kind, o.token, o.n, recorded[o.balance], want)
					}
				case errors.As(o.err, &se):
					counts[o.kind+" stale"]++
					if recorded[o.balance] != 0 {
						t.Errorf("%s write with token %d reported stale (%v), but %d of its rows landed", o.kind, o.token, o.err, recorded[o.balance])
					}
					if o.kind != "pair" && (int64(se.Stored) <= o.token || int64(se.Stored) > highest) {
						t.Errorf("stale %s write presented %d, stored %d (highest recorded %d)", o.kind, o.token, se.Stored, highest)
					}
				case errors.Is(o.err, fence.ErrConcurrentChange):
					counts[o.kind+" concurrent"]++
					if recorded[o.balance] != 0 {
						t.Errorf("%s write with token %d reported a concurrent change, but %d of its rows landed", o.kind, o.token, recorded[o.balance])
					}
				default:
					t.Errorf("%s write with token %d: %v", o.kind, o.token, o.err)
				}
			}
			if counts["group written"] == 0 || counts["group stale"] == 0 {
				t.Errorf("outcomes %v: the race exercised one outcome of the group write only", counts)
			}
			t.Logf("outcomes %v", counts)
		})
	}
}
