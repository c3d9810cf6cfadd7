package stdlibtest_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencegen/fencegen/gen/internal/golang/stdlibtest/pgxdb"
	"github.com/fencegen/fencegen/gen/internal/golang/stdlibtest/sqldb"
	"github.com/fencegen/fencegen/runtime/fence"
)

// storedReadHook runs before the stored-token read of a write by key (the
// query fencegen sends only when the write touched no row).
type storedReadHook func(query string)

func isStoredRead(query string) bool { return strings.Contains(query, "(stored token, sent only when") }

// pgxHooked is a pgxdb.DBTX that counts the statements it sends and calls
// hook (if not nil) before each stored-token read.
type pgxHooked struct {
	pgxdb.DBTX
	hook storedReadHook
	sent *int
}

func (h pgxHooked) Query(ctx context.Context, query string, args ...any) (pgx.Rows, error) {
	h.count(query)
	return h.DBTX.Query(ctx, query, args...)
}

func (h pgxHooked) QueryRow(ctx context.Context, query string, args ...any) pgx.Row {
	h.count(query)
	return h.DBTX.QueryRow(ctx, query, args...)
}

func (h pgxHooked) Exec(ctx context.Context, query string, args ...any) (pgconn.CommandTag, error) {
	h.count(query)
	return h.DBTX.Exec(ctx, query, args...)
}

func (h pgxHooked) count(query string) {
	if h.sent != nil {
		*h.sent++
	}
	if h.hook != nil && isStoredRead(query) {
		h.hook(query)
	}
}

// sqlHooked is sqldb.DBTX's pgxHooked.
type sqlHooked struct {
	sqldb.DBTX
	hook storedReadHook
	sent *int
}

func (h sqlHooked) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	h.count(query)
	return h.DBTX.QueryContext(ctx, query, args...)
}

func (h sqlHooked) QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row {
	h.count(query)
	return h.DBTX.QueryRowContext(ctx, query, args...)
}

func (h sqlHooked) ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error) {
	h.count(query)
	return h.DBTX.ExecContext(ctx, query, args...)
}

func (h sqlHooked) count(query string) {
	if h.sent != nil {
		*h.sent++
	}
	if h.hook != nil && isStoredRead(query) {
		h.hook(query)
	}
}

// TestWriteByKeyRoundTrips: a write by key that writes sends one
// statement (one round trip, the cost BENCHMARKS.md measures); one that
// is refused sends the stored-token read too; pgx/v5 and database/sql.
func TestWriteByKeyRoundTrips(t *testing.T) {
	ctx := context.Background()
	dsn := newDatabase(t)
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, `INSERT INTO jobs (id, status, tok) VALUES (1, 'new', 6)`); err != nil {
		t.Fatal(err)
	}
	var sent int
	pgxQ := pgxdb.New(pgxHooked{DBTX: conn, sent: &sent})
	sqlQ := sqldb.New(sqlHooked{DBTX: openSQL(t, "postgres", dsn), sent: &sent})
	for _, tt := range []struct {
		name  string
		write func(tok int64) error
	}{
		{"pgx/v5", func(tok int64) error {
			return pgxQ.SetStatus(ctx, pgxdb.SetStatusParams{ID: 1, Status: "x"}, fence.Token(tok))
		}},
		{"database/sql", func(tok int64) error {
			return sqlQ.SetStatus(ctx, sqldb.SetStatusParams{ID: 1, Status: "y"}, fence.Token(tok))
		}},
	} {
		sent = 0
		if err := tt.write(7); err != nil || sent != 1 {
			t.Errorf("%s: written: %v after %d statements, want nil after 1", tt.name, err, sent)
		}
		sent = 0
		if err := tt.write(5); !errors.Is(err, fence.ErrStaleToken) || sent != 2 {
			t.Errorf("%s: refused: %v after %d statements, want stale after 2", tt.name, err, sent)
		}
	}
}

// TestWriteByKeyStoredReadHonoursContext: the second statement of a write
// by key that wrote nothing (here a stale token), which reads the stored
// token, runs under the caller's context. Another transaction locks the
// table between the write and the read, so the read waits; with a caller's
// deadline of 300ms the method must return soon after it, with an error
// that wraps the context's and says nothing was written. The lock is held
// until SetStatus has returned, so a read that ignored the caller's
// context would never return and the test would fail at go test's
// -timeout; no wall-clock threshold is asserted (the time is logged).
// errors.Is(err, context.DeadlineExceeded) holds on every driver (lib/pq
// itself reports only the cancelled statement's SQLSTATE 57014).
// pgx/v5, and database/sql with lib/pq and with pgx's stdlib.
func TestWriteByKeyStoredReadHonoursContext(t *testing.T) {
	const deadline = 300 * time.Millisecond
	backends := []struct {
		name string
		// setStatus opens the backend on dsn with hook and returns its
		// SetStatus (by key).
		open func(t *testing.T, dsn string, hook storedReadHook) func(ctx context.Context) error
	}{
		{"pgx/v5", func(t *testing.T, dsn string, hook storedReadHook) func(ctx context.Context) error {
			conn, err := pgx.Connect(context.Background(), dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { conn.Close(context.Background()) })
			q := pgxdb.New(pgxHooked{DBTX: conn, hook: hook})
			return func(ctx context.Context) error {
				return q.SetStatus(ctx, pgxdb.SetStatusParams{ID: 1, Status: "late"}, 4)
			}
		}},
		{"database/sql postgres", sqlSetStatus("postgres")},
		{"database/sql pgx", sqlSetStatus("pgx")},
	}
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := newDatabase(t)
			locker, err := pgx.Connect(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer locker.Close(ctx)
			if _, err := locker.Exec(ctx, `INSERT INTO jobs (id, status, tok) VALUES (1, 'new', 6)`); err != nil {
				t.Fatal(err)
			}
			tx, err := locker.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			reads := 0
			setStatus := b.open(t, dsn, func(string) {
				reads++
				// The write has returned (and committed): lock the
				// table so that the read waits.
				if _, err := tx.Exec(ctx, `LOCK TABLE jobs IN ACCESS EXCLUSIVE MODE`); err != nil {
					t.Errorf("lock: %v", err)
				}
			})
			cctx, cancel := context.WithTimeout(ctx, deadline)
			defer cancel()
			start := time.Now()
			err = setStatus(cctx)
			elapsed := time.Since(start)
			if reads != 1 {
				t.Fatalf("%d stored-token reads, want 1 (token 4 against 6 is refused)", reads)
			}
			t.Logf("after %v: %v", elapsed.Round(time.Millisecond), err)
			if err == nil || !strings.Contains(err.Error(), "wrote nothing") {
				t.Fatalf("SetStatus = %v; want an error saying nothing was written", err)
			}
			if !errors.Is(err, context.DeadlineExceeded) {
				t.Fatalf("SetStatus = %v; want it to wrap context.DeadlineExceeded", err)
			}
		})
	}
}

// sqlSetStatus opens sqldb on dsn with driver and hook and returns its
// SetStatus (by key).
func sqlSetStatus(driver string) func(t *testing.T, dsn string, hook storedReadHook) func(ctx context.Context) error {
	return func(t *testing.T, dsn string, hook storedReadHook) func(ctx context.Context) error {
		q := sqldb.New(sqlHooked{DBTX: openSQL(t, driver, dsn), hook: hook})
		return func(ctx context.Context) error {
			return q.SetStatus(ctx, sqldb.SetStatusParams{ID: 1, Status: "late"}, 4)
		}
	}
}
