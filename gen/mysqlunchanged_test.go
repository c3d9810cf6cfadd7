package gen_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// TestMySQLUnchangedRetryOnMariaDB (issue 27, trial t27s F1): a guarded
// UPDATE by key (and of several rows) that changes nothing, a retry, on
// a table with a trigger (which clears the reply's last-insert id, so
// that only the locked read tells it from a write that matched no row),
// is written under either affected-rows rule of the DSN, also where the
// value equals the stored one only as the column stores it: a Go time
// with microseconds into DATETIME, DATETIME(3) and TIMESTAMP(2), a string
// "12" into DECIMAL(12,2) (12.00), a time into DATE; plain ints and
// strings too. Run as the generated methods run them, on MariaDB, with
// both DSNs, without a trigger, with an audit trigger and with
// fencegen's generated guard triggers. A row that does not hold what the
// write writes (a trigger keeps the old value, as a concurrent writer
// would leave it) is still no success without clientFoundRows: the read
// finds it different and the write ends in fence.ErrConcurrentChange.
// The database's rows are the oracle.
func TestMySQLUnchangedRetryOnMariaDB(t *testing.T) {
	const schema = `CREATE TABLE ev (
  id BIGINT PRIMARY KEY,
  at DATETIME NULL,
  at3 DATETIME(3) NULL,
  ts TIMESTAMP(2) NULL,
  amount DECIMAL(12,2) NOT NULL DEFAULT 0,
  n INT NOT NULL DEFAULT 0,
  body VARCHAR(40) NOT NULL DEFAULT '',
  day DATE NULL,
  fence_token BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token'
)`
	cols := []string{"at", "at3", "ts", "amount", "n", "body", "day"}
	var queries strings.Builder
	for _, c := range cols {
		queries.WriteString("-- name: Set" + c + " :execrows\nUPDATE ev SET " + c + " = ? WHERE id = ?;\n\n")
		queries.WriteString("-- name: SetAll" + c + " :execrows\nUPDATE ev SET " + c + " = ? WHERE id >= ?;\n\n")
	}
	out, err := gen.Generate(context.Background(), mysqlGuardProject(t, schema+";\n", queries.String()))
	if err != nil {
		t.Fatal(err)
	}
	code := string(out.Files["out/q.sql.go"])
	for _, want := range []string{
		"CAST(CAST((?) AS DATETIME(0)) AS BINARY)",
		"CAST(CAST((?) AS DATETIME(3)) AS BINARY)",
		"CAST(CAST((?) AS DATETIME(2)) AS BINARY)",
		"CAST(CAST((?) AS DECIMAL(12,2)) AS BINARY)",
		"CAST(CAST((?) AS DATE) AS BINARY)",
		"return q.db.ExecContext(ctx, setat, arg.At, int64(token), arg.ID, int64(token))",
		"return q.db.QueryContext(ctx, fenceStoredSetat, arg.At, arg.At, int64(token), arg.ID)",
		"return q.db.QueryContext(ctx, fenceStoredSetAllat, int64(token), int64(token), arg.At, arg.At, int64(token), arg.ID)",
	} {
		if !strings.Contains(code, want) {
			t.Fatalf("generated code lacks %q:\n%s", want, code)
		}
	}
	guardTrigs := guardTriggers(t, string(out.Files["out/fencegen_guard.sql"]))
	ctx := context.Background()
	// set runs query Set<col> (by key) or SetAll<col> as its generated
	// method does, with the parameter order checked above.
	set := func(db *sql.DB, all bool, col string, v any, token fence.Token) (int64, error) {
		run := func() (sql.Result, error) {
			name := "set" + col
			if all {
				return db.ExecContext(ctx, generatedConst(t, code, "setAll"+col), v, int64(token), int64(1), int64(1), int64(token))
			}
			return db.ExecContext(ctx, generatedConst(t, code, name), v, int64(token), int64(1), int64(token))
		}
		if all {
			return fenceimpl.MySQLAll(ctx, "SetAll", "ev", fence.NonStrict, token, run, func(ctx context.Context) (*sql.Rows, error) {
				return db.QueryContext(ctx, generatedConst(t, code, "fenceStoredSetAll"+col), int64(token), int64(token), v, v, int64(token), int64(1))
			})
		}
		return fenceimpl.MySQLByKey(ctx, "Set", "ev", fence.NonStrict, token, run, func(ctx context.Context) (*sql.Rows, error) {
			return db.QueryContext(ctx, generatedConst(t, code, "fenceStoredSet"+col), v, v, int64(token), int64(1))
		})
	}
	at := time.Date(2026, 12, 7, 8, 9, 10, 987654321, time.UTC)
	cases := []struct {
		col  string
		v    any
		want string // the row's value as MariaDB returns it
	}{
		{"at", at, "2026-12-07 08:09:10"},
		{"at3", at, "2026-12-07 08:09:10.987"},
		{"ts", at, "2026-12-07 08:09:10.98"},
		{"amount", "12", "12.00"},
		{"amount", int64(13), "13.00"},
		{"n", int64(7), "7"},
		{"body", "héllo", "héllo"},
		{"day", at, "2026-12-07"},
	}
	const audit = "CREATE TRIGGER audit BEFORE UPDATE ON ev FOR EACH ROW SET @fencegen_test_updates = COALESCE(@fencegen_test_updates, 0) + 1"
	for _, dsn := range []string{"", "clientFoundRows=true"} {
		for _, trig := range []string{"none", "audit", "guard"} {
			t.Run("dsn="+dsn+"/trigger="+trig, func(t *testing.T) {
				stmts := []string{schema}
				switch trig {
				case "audit":
					stmts = append(stmts, audit)
				case "guard":
					stmts = append(stmts, guardTrigs...)
				}
				stmts = append(stmts, "INSERT INTO ev (id, fence_token) VALUES (1, 1)")
				params := "time_zone=%27%2B00%3A00%27"
				if dsn != "" {
					params += "&" + dsn
				}
				db := testenv.MySQL(t, params, stmts...)
				for _, all := range []bool{false, true} {
					for _, c := range cases {
						for attempt := range 2 {
							n, err := set(db, all, c.col, c.v, 5)
							// The first write changes the row; the retry
							// changes nothing: MySQLByKey says 1 (the row),
							// MySQLAll MySQL's count (0 changed, 1 matched).
							want := int64(1)
							if all && attempt == 1 && dsn == "" {
								want = 0
							}
							if err != nil || n != want {
								t.Fatalf("all=%v %s = %v, attempt %d: %d, %v; want %d, nil", all, c.col, c.v, attempt, n, err, want)
							}
						}
						var got string
						var tok int64
						if err := db.QueryRowContext(ctx, "SELECT CAST("+c.col+" AS CHAR), fence_token FROM ev WHERE id = 1").Scan(&got, &tok); err != nil {
							t.Fatal(err)
						}
						if got != c.want || tok != 5 {
							t.Fatalf("%s = %v: row holds %q, token %d; want %q, 5", c.col, c.v, got, tok, c.want)
						}
						// Move the column off the value (token 5 kept) for
						// the next case's first write to change it.
						if _, err := db.ExecContext(ctx, "UPDATE ev SET at = NULL, at3 = NULL, ts = NULL, amount = 1, n = 1, body = '', day = NULL WHERE id = 1"); err != nil {
							t.Fatal(err)
						}
					}
				}
				// A trigger that keeps the stored n, as a concurrent
				// writer would leave the row: the write changes nothing,
				// and the row does not hold 8.
				if _, err := db.ExecContext(ctx, "CREATE TRIGGER keep BEFORE UPDATE ON ev FOR EACH ROW SET NEW.n = OLD.n"); err != nil {
					t.Fatal(err)
				}
				for _, all := range []bool{false, true} {
					n, err := set(db, all, "n", int64(8), 5)
					if dsn == "" {
						if !errors.Is(err, fence.ErrConcurrentChange) {
							t.Fatalf("all=%v: a write the row does not hold after: %d, %v; want fence.ErrConcurrentChange", all, n, err)
						}
					} else if err != nil || n != 1 {
						// clientFoundRows: MySQL's count, the row matched.
						t.Fatalf("all=%v, clientFoundRows: %d, %v; want 1, nil", all, n, err)
					}
				}
				var got int64
				if err := db.QueryRowContext(ctx, "SELECT n FROM ev WHERE id = 1").Scan(&got); err != nil || got != 1 {
					t.Fatalf("n = %d, %v; want 1 (kept)", got, err)
				}
				// A stale token is still stale.
				var se *fence.StaleError
				if _, err := set(db, false, "body", "", 4); !errors.As(err, &se) || se.Stored != 5 {
					t.Fatalf("stale retry: %v; want a *fence.StaleError stored 5", err)
				}
			})
		}
	}
}
