package mysqlguard_test

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

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
