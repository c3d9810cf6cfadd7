package stdlibtest_test

import (
	"context"
	"errors"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencegen/fencegen/gen/internal/golang/stdlibtest/pgxdb"
	"github.com/fencegen/fencegen/gen/internal/golang/stdlibtest/sqldb"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
)

// germanLocale is the server locale of the refusal tests below: its
// message catalog translates PostgreSQL's messages (quotes included:
// »…« instead of "…"), so a refusal read from message text would not be
// recognised. .ci/run generates it when the machine lacks it.
const germanLocale = "de_DE.UTF-8"

// germanDatabase is newDatabase whose server messages are German: every
// session opened on it runs with lc_messages = germanLocale (ALTER
// DATABASE ... SET, so pgx, lib/pq and pgx's stdlib all get it). It skips
// the test, or fails it under CI=true, when the server cannot use the
// locale or has no German message catalog.
func germanDatabase(t *testing.T) string {
	t.Helper()
	dsn := newDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	missing := func(why string, err error) {
		t.Helper()
		msg := "PostgreSQL " + why + " (on Debian: localedef -i de_DE -f UTF-8 --no-archive de_DE.UTF-8, as .ci/run does; the catalog comes with the postgresql package's translations)"
		if err != nil {
			msg += ": " + err.Error()
		}
		if testenv.InCI() {
			t.Fatalf("CI=true: %s", msg)
		}
		t.Skipf("SKIP: %s", msg)
	}
	if _, err := conn.Exec(ctx, "SET lc_messages = '"+germanLocale+"'"); err != nil {
		missing("cannot use locale "+germanLocale, err)
	}
	_, err = conn.Exec(ctx, "SELECT 1/0")
	var pe *pgconn.PgError
	if !errors.As(err, &pe) || pe.Code != "22012" {
		t.Fatalf("SELECT 1/0: %v, want SQLSTATE 22012", err)
	}
	if pe.Message == "division by zero" {
		missing("has no German message catalog (SELECT 1/0 says "+pe.Message+")", nil)
	}
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	name := strings.TrimPrefix(u.Path, "/")
	if _, err := conn.Exec(ctx, "ALTER DATABASE "+name+" SET lc_messages = '"+germanLocale+"'"); err != nil {
		t.Fatal(err)
	}
	return dsn
}

// checkGerman fails t unless a fresh session of a speaks German.
func checkGerman(t *testing.T, name string, query func(ctx context.Context, sql string) error) {
	t.Helper()
	err := query(context.Background(), "SELECT 'x'::bigint")
	if err == nil || !strings.Contains(err.Error(), "ungültige Eingabesyntax") {
		t.Fatalf("%s: SELECT 'x'::bigint: %v; want the German message", name, err)
	}
}

// TestRefusalsUnderGermanServer runs the transcript of
// TestFencedWritesMatchPgx against a server whose messages are German:
// every refusal path (the in-statement guard by key and of many rows, the
// stored-token read of a write by key, the upsert of one and of many rows,
// the raising guard of a write in WITH beside another write, and the
// database-side trigger) must give the outcome it gives in English, with
// the same tokens, on pgx/v5 and on database/sql with lib/pq and with
// pgx's stdlib. Recognition reads protocol fields and the cast's verbatim
// text, never the translated sentence.
func TestRefusalsUnderGermanServer(t *testing.T) {
	ctx := context.Background()
	dsn := germanDatabase(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	checkGerman(t, "pgx/v5", func(ctx context.Context, q string) error { _, err := conn.Exec(ctx, q); return err })
	want := transcript(t, "pgx/v5 (de)", pgxAPI{pgxdb.New(conn)})
	for _, driver := range []string{"postgres", "pgx"} {
		db := openSQL(t, driver, germanDatabase(t))
		checkGerman(t, driver, func(ctx context.Context, q string) error { _, err := db.ExecContext(ctx, q); return err })
		compare(t, "database/sql "+driver+" (de)", want, transcript(t, "database/sql "+driver+" (de)", sqlAPI{sqldb.New(db)}))
	}
}

// TestUpsertRaceUnderGermanServer: an upsert of many rows that conflicts
// with a row a concurrent transaction inserted after the upsert locked
// and checked the rows it conflicts with (READ COMMITTED: ON CONFLICT sees
// it, the statement's snapshot does not) fails in its raising guard, a
// cast whose error message is German; it must still come back as a
// *fence.StaleError with the concurrent row's token, nothing written, on
// each driver.
func TestUpsertRaceUnderGermanServer(t *testing.T) {
	ctx := context.Background()
	backends := []struct {
		name string
		open func(t *testing.T, dsn string) putJobs
	}{
		{"pgx/v5", func(t *testing.T, dsn string) putJobs {
			conn, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close(context.Background()) })
			q := pgxdb.New(conn)
			return func(ctx context.Context, ids []int64, tok fence.Token) (int64, error) {
				return q.PutJobs(ctx, pgxdb.PutJobsParams{Ids: ids, Status: "race"}, tok)
			}
		}},
		{"database/sql postgres", sqlPutJobs("postgres")},
		{"database/sql pgx", sqlPutJobs("pgx")},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			dsn := germanDatabase(t)
			put := b.open(t, dsn)
			admin, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer admin.Close(ctx)
			other, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer other.Close(ctx)
			tx, err := other.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			if _, err := tx.Exec(ctx, `INSERT INTO jobs (id, status, tok) VALUES (100, 'other', 10)`); err != nil {
				t.Fatal(err)
			}
			var otherPID int
			if err := tx.QueryRow(ctx, `SELECT pg_backend_pid()`).Scan(&otherPID); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := put(ctx, []int64{50, 100}, 5)
				done <- err
			}()
			// Commit only once the upsert waits for the other
			// transaction's insert of id 100: past its lock and check,
			// in its INSERT.
			for deadline := time.Now().Add(10 * time.Second); ; {
				var waiting int
				if err := admin.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity
					WHERE datname = current_database() AND wait_event_type = 'Lock' AND $1 = ANY (pg_blocking_pids(pid))`, otherPID).Scan(&waiting); err != nil {
					t.Fatal(err)
				}
				if waiting == 1 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("the upsert never waited for the concurrent insert")
				}
				time.Sleep(5 * time.Millisecond)
			}
			if err := tx.Commit(ctx); err != nil {
				t.Fatal(err)
			}
			err = <-done
			var se *fence.StaleError
			if !errors.As(err, &se) || !errors.Is(err, fence.ErrStaleToken) || se.Stored != 10 || se.Presented != 5 {
				t.Fatalf("upsert racing a concurrent insert with token 10 under a German server: %v; want a *fence.StaleError with stored 10, presented 5", err)
			}
			var written int
			if err := admin.QueryRow(ctx, `SELECT count(*) FROM jobs WHERE tok = 5`).Scan(&written); err != nil || written != 0 {
				t.Fatalf("%d rows written by a refused upsert (%v)", written, err)
			}
		})
	}
}

// putJobs is a backend's PutJobs with status "race".
type putJobs func(ctx context.Context, ids []int64, tok fence.Token) (int64, error)

// sqlPutJobs opens sqldb on dsn with driver and returns its PutJobs.
func sqlPutJobs(driver string) func(t *testing.T, dsn string) putJobs {
	return func(t *testing.T, dsn string) putJobs {
		q := sqldb.New(openSQL(t, driver, dsn))
		return func(ctx context.Context, ids []int64, tok fence.Token) (int64, error) {
			return q.PutJobs(ctx, sqldb.PutJobsParams{Ids: ids, Status: "race"}, tok)
		}
	}
}
