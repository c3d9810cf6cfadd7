package mysqlguard_test

import (
	"context"
	"database/sql"
	"errors"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/guard/mysqlguard"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// TestGuardedUpdateByKeyStatementsOnMariaDB counts, with the server's own
// session counters (SHOW SESSION STATUS: Com_update, Com_select), the
// statements a guarded UPDATE by key sends as generated code runs it
// (fenceimpl.MySQLByKey with the locked read), under each DSN rule
// (changed rows, clientFoundRows=true, and interpolateParams=true's text
// protocol): one UPDATE and no read when it writes, when it matched and
// changed nothing (a retry of a write already done), and when it is
// refused (the stored token comes back in the UPDATE's own reply); one
// UPDATE and the locked read when no row matched, the one case whose
// reply does not tell.
func TestGuardedUpdateByKeyStatementsOnMariaDB(t *testing.T) {
	const query = "UPDATE accounts SET balance = balance + ? WHERE id = ?"
	g, err := mysqlguard.Rewrite(query, mysqlguard.Spec{Column: "fence_token", Key: []string{"id"}, Param: 3, Table: "accounts", Name: "accounts"})
	if err != nil || g.Form != mysqlguard.ByKey {
		t.Fatal(g, err)
	}
	for _, params := range []string{"", "clientFoundRows=true", "interpolateParams=true"} {
		t.Run("dsn="+params, func(t *testing.T) {
			ctx := context.Background()
			db := testenv.MySQL(t, params, schema, "INSERT INTO accounts (id, balance, fence_token) VALUES (1, 0, 5)")
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			counters := func() (updates, selects int64) {
				t.Helper()
				rows, err := conn.QueryContext(ctx, "SHOW SESSION STATUS WHERE Variable_name IN ('Com_update', 'Com_select')")
				if err != nil {
					t.Fatal(err)
				}
				defer rows.Close()
				for rows.Next() {
					var name string
					var v int64
					if err := rows.Scan(&name, &v); err != nil {
						t.Fatal(err)
					}
					if name == "Com_update" {
						updates = v
					} else {
						selects = v
					}
				}
				if err := rows.Err(); err != nil {
					t.Fatal(err)
				}
				return updates, selects
			}
			// What reading the counters itself adds to them.
			u0, s0 := counters()
			u1, s1 := counters()
			readU, readS := u1-u0, s1-s0
			write := func(amount, id int64, token fence.Token) (n int64, err error, updates, selects int64) {
				t.Helper()
				args := [3]any{amount, id, int64(token)}
				bound := make([]any, len(g.Params))
				for i, p := range g.Params {
					bound[i] = args[p-1]
				}
				stored := make([]any, len(g.StoredParams))
				for i, p := range g.StoredParams {
					stored[i] = args[p-1]
				}
				u0, s0 := counters()
				n, err = fenceimpl.MySQLByKey(ctx, "Credit", "accounts", fence.NonStrict, token, func() (sql.Result, error) {
					return conn.ExecContext(ctx, g.SQL, bound...)
				}, func(ctx context.Context) (*sql.Rows, error) {
					return conn.QueryContext(ctx, g.Stored, stored...)
				})
				u1, s1 := counters()
				return n, err, u1 - u0 - readU, s1 - s0 - readS
			}
			tests := []struct {
				name             string
				amount, id       int64
				token            fence.Token
				wantN            int64
				wantErr          error
				updates, selects int64
			}{
				{"writes", 1, 1, 7, 1, nil, 1, 0},
				{"changes nothing", 0, 1, 7, 1, nil, 1, 0},
				{"stale", 1, 1, 6, 0, fence.ErrStaleToken, 1, 0},
				{"no row", 1, 2, 7, 0, fence.ErrNotFound, 1, 1},
			}
			for _, tt := range tests {
				n, err, updates, selects := write(tt.amount, tt.id, tt.token)
				if n != tt.wantN || !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
					t.Errorf("%s: got %d, %v; want %d, %v", tt.name, n, err, tt.wantN, tt.wantErr)
				}
				var se *fence.StaleError
				if errors.As(err, &se) && se.Stored != 7 {
					t.Errorf("%s: Stored %d, want 7", tt.name, se.Stored)
				}
				if updates != tt.updates || selects != tt.selects {
					t.Errorf("%s: the server ran %d UPDATE and %d SELECT, want %d and %d", tt.name, updates, selects, tt.updates, tt.selects)
				}
			}
		})
	}
}
