package stdlibtest_test

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/stdlib"

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
	if n := tokentest.Refused(t, sqldb.New(db), tr); n < 20 {
		t.Fatalf("sqldb: checked %d methods taking a token", n)
	}
	prep, err := sqlprepdb.Prepare(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer prep.Close()
	if n := tokentest.Refused(t, prep, tr); n < 20 {
		t.Fatalf("sqlprepdb: checked %d methods taking a token", n)
	}
}
