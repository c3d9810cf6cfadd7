package stdlibtest_test

import (
	"context"
	"database/sql"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fencegen/fencegen/gen/internal/golang/stdlibtest/pgxdb"
	"github.com/fencegen/fencegen/gen/internal/golang/stdlibtest/sqldb"
)

// storedReadHook runs before the stored-token read of a write by key (the
// query fencegen sends only when the write touched no row).
type storedReadHook func(query string)

func isStoredRead(query string) bool { return strings.Contains(query, "(stored token, sent only when") }

// pgxHooked is a pgxdb.DBTX that calls hook before each stored-token read.
type pgxHooked struct {
	pgxdb.DBTX
	hook storedReadHook
}

func (h pgxHooked) Query(ctx context.Context, query string, args ...any) (pgx.Rows, error) {
	if isStoredRead(query) {
		h.hook(query)
	}
	return h.DBTX.Query(ctx, query, args...)
}

// sqlHooked is a sqldb.DBTX that calls hook before each stored-token read.
type sqlHooked struct {
	sqldb.DBTX
	hook storedReadHook
}

func (h sqlHooked) QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error) {
	if isStoredRead(query) {
		h.hook(query)
	}
	return h.DBTX.QueryContext(ctx, query, args...)
}

// TestWriteByKeyStoredReadHonoursContext: the second statement of a write
// by key that wrote nothing (here a stale token), which reads the stored
// token, runs under the caller's context. Another transaction locks the
// table between the write and the read, so the read waits; with a caller's
// deadline of 300ms the method must return soon after it, with an error
// that wraps the context's and says nothing was written, not 5 seconds
// later (the bound the read once had after the caller's context ended).
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
			q := pgxdb.New(pgxHooked{conn, hook})
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
			if elapsed > deadline+2*time.Second {
				t.Fatalf("SetStatus returned %v after its context's %v deadline: the stored-token read outlived the caller's context (%v)", elapsed, deadline, err)
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
		q := sqldb.New(sqlHooked{openSQL(t, driver, dsn), hook})
		return func(ctx context.Context) error {
			return q.SetStatus(ctx, sqldb.SetStatusParams{ID: 1, Status: "late"}, 4)
		}
	}
}
