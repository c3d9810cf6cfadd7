package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestProbesMatchSqlc runs the corpus over testdata/probes (about 170
// queries of select-list expressions and parameter positions, for pgx/v5
// and database/sql, the same for pgx/v4 (pgx4_*), every type sqlc
// maps for pgx/v4 (pgx4_types), and slice overrides of every form on
// database/sql (stdlib_overrides), none fenced) against sqlc v1.31.1: with
// postgresql_types off, as for any configuration sqlc reads, every line
// of sqlc's exported API must be fencegen's, every file must have sqlc's
// text after the header, and fencegen's code must compile and vet. sqlc is $SQLC, else sqlc on PATH, else
// $(go env GOPATH)/bin/sqlc; without it the test is skipped (failed with
// CI=true).
func TestProbesMatchSqlc(t *testing.T) {
	bin := testenv.SqlcBinary()
	if bin == "" {
		msg := "SKIP: sqlc v1.31.1 not found (set SQLC, or install it on PATH or in $(go env GOPATH)/bin)"
		if testenv.InCI() {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	report := filepath.Join(t.TempDir(), "probes.json")
	var stdout, stderr bytes.Buffer
	if rc := realMain([]string{"-q", "-sqlc", bin, "-json", report, filepath.Join("testdata", "probes")}, &stdout, &stderr); rc != 0 {
		t.Fatalf("corpus exited %d: %s", rc, stderr.String())
	}
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	var r struct{ Cases []Case }
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Cases) != 16 {
		t.Fatalf("%d cases, want the 16 of testdata/probes", len(r.Cases))
	}
	for _, c := range r.Cases {
		if c.SqlcStatus != "ok" || c.Result != resGenerated {
			t.Errorf("%s: sqlc %s %v, fencegen %s %v", c.Name, c.SqlcStatus, c.SqlcErr, c.Result, c.Errors)
			continue
		}
		if c.APITotal == 0 || c.APISame != c.APITotal {
			t.Errorf("%s: %d of %d API lines identical: %+v", c.Name, c.APISame, c.APITotal, c.Diffs)
		}
		if c.Text != "identical" {
			t.Errorf("%s: file text %s, %d lines differ from sqlc's: %v", c.Name, c.Text, c.TextLines, c.TextFiles)
		}
		if c.Compile != "OK" || c.Vet != "OK" {
			t.Errorf("%s: compile %s %v, vet %s %v", c.Name, c.Compile, c.CompileErr, c.Vet, c.VetErr)
		}
	}
}
