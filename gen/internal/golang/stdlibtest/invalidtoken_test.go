package stdlibtest_test

import (
	"context"
	"sync/atomic"
	"testing"

	pgx4 "github.com/jackc/pgx/v4"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

	"github.com/fencegen/fencegen/gen/internal/golang/stdlibtest/pgx4db"
	"github.com/fencegen/fencegen/gen/internal/golang/stdlibtest/sqldb"
	"github.com/fencegen/fencegen/gen/internal/golang/stdlibtest/sqlprepdb"
	"github.com/fencegen/fencegen/internal/tokentest"
)

// TestInvalidTokenRefusedBeforeAnyRoundTrip: through database/sql (pgx's
// stdlib driver, whose connections a pgx tracer watches), every generated
// method that takes a token refuses token 0 and a negative token with a
// *fence.InvalidTokenError and sends nothing; token 1 is sent. With
// emit_prepared_queries too (the statements are prepared before the count
// starts).
func TestInvalidTokenRefusedBeforeAnyRoundTrip(t *testing.T) {
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(newDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	tr := &tokentest.Tracer{}
	cfg.Tracer = tr
	db := stdlib.OpenDB(*cfg)
	defer db.Close()
	if n := tokentest.Refused(t, sqldb.New(db), tr.Sent); n < 20 {
		t.Fatalf("sqldb: checked %d methods taking a token", n)
	}
	prep, err := sqlprepdb.Prepare(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Close()
	if n := tokentest.Refused(t, prep, tr.Sent); n < 20 {
		t.Fatalf("sqlprepdb: checked %d methods taking a token", n)
	}
}

// The same on pgx/v4 (pgx4db on a github.com/jackc/pgx/v4 connection),
// whose connection logs every statement, batch and COPY it sends at level
// info: the log is the count.
func TestInvalidTokenRefusedBeforeAnyRoundTripPgxV4(t *testing.T) {
	ctx := context.Background()
	cfg, err := pgx4.ParseConfig(newDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	var sent atomic.Int64
	cfg.LogLevel = pgx4.LogLevelInfo
	cfg.Logger = pgx4.LoggerFunc(func(_ context.Context, _ pgx4.LogLevel, msg string, _ map[string]any) {
		switch msg {
		case "Query", "Exec", "SendBatch", "CopyFrom", "Prepare":
			sent.Add(1)
		}
	})
	conn, err := pgx4.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if n := tokentest.Refused(t, pgx4db.New(conn), sent.Load); n < 20 {
		t.Fatalf("pgx4db: checked %d methods taking a token", n)
	}
}
