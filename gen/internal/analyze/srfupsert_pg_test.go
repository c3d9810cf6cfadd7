package analyze

import (
	"context"
	"testing"
	"time"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestSetReturningUpsertAgainstPostgreSQL (trial F13): an upsert whose one
// VALUES row calls a set-returning function (VALUES (unnest($1),
// unnest($2))) inserts a row per element, so it is guarded as an upsert
// of many rows. Guarded as one row, its conflict check put unnest() in a
// WHERE, which PostgreSQL refuses: every call of the method failed. Here
// PostgreSQL runs the guarded statement: holder 7 writes both rows, stale
// holder 6 writes neither. A VALUES row whose set-returning call is in a
// subquery is one row, as before.
func TestSetReturningUpsertAgainstPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	for _, q := range []string{
		"insert into jobs (id, k, parent_id) values (unnest(@ids::bigint[]), unnest(@ks::int[]), 1) on conflict (id) do update set k = excluded.k",
		"insert into jobs (id, k, parent_id) values (unnest(@ids::bigint[]), unnest(@ks::int[]) + 0, 1) on conflict (id) do update set k = excluded.k, parent_id = excluded.parent_id",
	} {
		files, msgs := analyzeSrc(t, pgJobs, "-- name: Q :exec\n"+q+";\n")
		if len(msgs) > 0 {
			t.Fatalf("%s: %q", q, msgs)
		}
		qq := files[0].Queries[0]
		if qq.Fence == nil || !qq.Fence.ManyRows || qq.Fence.TokenParam != 3 {
			t.Fatalf("%s: fence %+v, want an upsert of many rows, token $3", q, qq.Fence)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.Exec(ctx, pgJobs+pgSeed); err != nil {
			t.Fatal(err)
		}
		state := func() (out [][3]int64) {
			rows, err := tx.Query(ctx, "select id, k, tok from jobs order by id")
			if err != nil {
				t.Fatal(err)
			}
			defer rows.Close()
			for rows.Next() {
				var r [3]int64
				if err := rows.Scan(&r[0], &r[1], &r[2]); err != nil {
					t.Fatal(err)
				}
				out = append(out, r)
			}
			return out
		}
		if _, err := tx.Exec(ctx, qq.SQL, []int64{1, 2}, []int32{10, 20}, int64(7)); err != nil {
			t.Errorf("%s: holder 7: PostgreSQL: %v", q, err)
		} else if got := state(); len(got) != 2 || got[0] != [3]int64{1, 10, 7} || got[1] != [3]int64{2, 20, 7} {
			t.Errorf("%s: holder 7 wrote %v, want rows 1 and 2 with token 7", q, got)
		} else if _, err := tx.Exec(ctx, qq.SQL, []int64{1, 2}, []int32{11, 21}, int64(6)); err != nil {
			t.Errorf("%s: stale holder 6: PostgreSQL: %v", q, err)
		} else if got := state(); len(got) != 2 || got[0] != [3]int64{1, 10, 7} || got[1] != [3]int64{2, 20, 7} {
			t.Errorf("%s: stale holder 6's write landed: %v", q, got)
		}
		tx.Rollback(ctx)
		cancel()
	}
	files, msgs := analyzeSrc(t, pgJobs, "-- name: Q :exec\ninsert into jobs (id, k) values (@id, (select max(x) from unnest(@ks::int[]) x)) on conflict (id) do update set k = excluded.k;\n")
	if len(msgs) > 0 || files[0].Queries[0].Fence == nil || files[0].Queries[0].Fence.ManyRows {
		t.Errorf("set-returning call in a subquery: %q, want an upsert of one row", msgs)
	}
}
