package gen_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestPrepareRebindsDriverStatement (trial t24f A): pgx caches each
// statement it prepares under the name stmtcache_<first 24 bytes of the
// SHA-256 of its SQL, in hex>, and executes it by that name afterwards.
// A query that DEALLOCATEs that name and PREPAREs a write of fenced
// table jobs under it makes the next call of the generated read run the
// write, unguarded (shown on PostgreSQL below). So a PREPARE of a write
// of a fenced table is refused at its write, whatever its name; a
// DEALLOCATE, DEALLOCATE ALL and a PREPARE of a read or of an unfenced
// table's write are generated.
func TestPrepareRebindsDriverStatement(t *testing.T) {
	const schema = `CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT 'new', tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';
CREATE TABLE notes (id bigint PRIMARY KEY, body text);
`
	const getJob = "SELECT id, status, tok FROM jobs WHERE id = $1"
	sum := sha256.Sum256([]byte(getJob))
	name := "stmtcache_" + hex.EncodeToString(sum[:24])
	reprepare := fmt.Sprintf("PREPARE %s (bigint) AS UPDATE jobs SET status = 'poisoned' WHERE id = 2 RETURNING id, status, tok", name)

	generate := func(queries string) error {
		dir := t.TempDir()
		for n, s := range map[string]string{
			"schema.sql":    schema,
			"q.sql":         queries,
			"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, sql_package: pgx/v5}}}\n",
		} {
			if err := os.WriteFile(filepath.Join(dir, n), []byte(s), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = gen.Generate(context.Background(), cfg)
		return err
	}
	err := generate("-- name: GetJob :one\n" + getJob + ";\n-- name: Dealloc :exec\nDEALLOCATE " + name + ";\n-- name: Reprepare :exec\n" + reprepare + ";\n")
	if want := "q.sql:6:" + fmt.Sprint(strings.Index(reprepare, "jobs")+1) + ": query Reprepare prepares UPDATE on fenced table jobs (PREPARE)"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("PREPARE of an UPDATE of jobs under pgx's name of GetJob: %v, want %q", err, want)
	}
	if err := generate("-- name: GetJob :one\n" + getJob + ";\n-- name: Dealloc :exec\nDEALLOCATE " + name + ";\n-- name: DeallocAll :exec\nDEALLOCATE ALL;\n" +
		"-- name: PrepareRead :exec\nPREPARE " + name + " (bigint) AS SELECT id, status, tok FROM jobs WHERE id = $1;\n" +
		"-- name: PrepareNotes :exec\nPREPARE p_notes AS UPDATE notes SET body = 'x' WHERE id = 2;\n"); err != nil {
		t.Errorf("DEALLOCATE and PREPARE of a read or of an unfenced write: %v, want them generated", err)
	}

	// What the refusal prevents: the driver runs the write as GetJob.
	pool := testenv.Database(t, schema, "INSERT INTO jobs VALUES (1, 'a', 5), (2, 'b', 7)")
	ctx := context.Background()
	conn, err := pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Release()
	var id, tok int64
	var status string
	if err := conn.QueryRow(ctx, getJob, int64(1)).Scan(&id, &status, &tok); err != nil || status != "a" {
		t.Fatalf("GetJob(1): %v %q", err, status)
	}
	if _, err := conn.Exec(ctx, "DEALLOCATE "+name); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(ctx, reprepare); err != nil {
		t.Fatal(err)
	}
	if err := conn.QueryRow(ctx, getJob, int64(1)).Scan(&id, &status, &tok); err != nil || id != 2 || status != "poisoned" {
		t.Errorf("GetJob(1) after the PREPARE: %v, row %d %q; want pgx to run the prepared UPDATE of row 2 under its cached name %s", err, id, status, name)
	}
}
