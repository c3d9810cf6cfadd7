// Package pgscratch creates the scratch databases that fencegen vet's
// PREPARE check (gen/vetprepare.go), the write oracle
// (gen/internal/writeoracle) and cmd pgcatalog (internal/pgcatalog)
// apply a schema to and drop after.
package pgscratch

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
)

// Create creates a database named prefix and 12 random hex digits
// (fencegen_vet_3f9a0c1d2e4b) through admin, a connection to the server
// whose user may create databases, and returns its name and drop, which
// drops it through admin (DROP DATABASE IF EXISTS ... WITH (FORCE),
// ending the sessions still on it), also once ctx has ended; drop waits
// at most timeout, or for as long as the server takes when timeout is 0.
// drop's error is left out: the database is scratch. err is the server's
// refusal of CREATE DATABASE (a *pgconn.PgError: no CREATEDB privilege),
// or ctx's end.
func Create(ctx context.Context, admin *pgconn.PgConn, prefix string, timeout time.Duration) (name string, drop func(), err error) {
	var b [6]byte
	_, _ = rand.Read(b[:])
	name = prefix + hex.EncodeToString(b[:])
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name).ReadAll(); err != nil {
		return "", nil, err
	}
	drop = func() {
		dctx := context.WithoutCancel(ctx)
		if timeout > 0 {
			var cancel context.CancelFunc
			dctx, cancel = context.WithTimeout(dctx, timeout)
			defer cancel()
		}
		_, _ = admin.Exec(dctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)").ReadAll()
	}
	return name, drop, nil
}
