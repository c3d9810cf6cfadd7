package pgscratch

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestCreateAndDropAfterCtxEnded: Create makes a database of the prefix
// and 12 hex digits; drop removes it, with a session still on it, after
// the context Create was given has ended.
func TestCreateAndDropAfterCtxEnded(t *testing.T) {
	testenv.Database(t) // one loud skip when PostgreSQL is unreachable
	bg := context.Background()
	admin, err := pgconn.Connect(bg, testenv.DatabaseURL())
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(bg)
	exists := func(name string) bool {
		res, err := admin.Exec(bg, "SELECT 1 FROM pg_database WHERE datname = '"+name+"'").ReadAll()
		if err != nil {
			t.Fatal(err)
		}
		return len(res[0].Rows) == 1
	}
	ctx, cancel := context.WithCancel(bg)
	name, drop, err := Create(ctx, admin, "fg_scratch_", 30*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(name, "fg_scratch_") || len(name) != len("fg_scratch_")+12 || !exists(name) {
		t.Fatalf("Create gave %q (exists: %v)", name, exists(name))
	}
	cfg, err := pgconn.ParseConfig(testenv.DatabaseURL())
	if err != nil {
		t.Fatal(err)
	}
	cfg.Database = name
	session, err := pgconn.ConnectConfig(bg, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer session.Close(bg)
	cancel()
	drop()
	if exists(name) {
		t.Errorf("%s still exists after drop", name)
	}
}
