package pgcatalog_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/fencegen/fencegen/gen/internal/catalog/pgcatalog"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/jackc/pgx/v5"
)

const output = "gen/internal/catalog/pgcatalog/builtin.go"

// TestCheckedInOutputIsCurrent regenerates builtin.go from the server at
// DATABASE_URL into a temporary file and compares it with the checked-in
// one. The output depends on the server's major version: against another
// major version than the one the file records, the test is skipped with a
// loud line.
func TestCheckedInOutputIsCurrent(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, testenv.DatabaseURL())
	if err != nil {
		testenv.Unavailable(t, "PostgreSQL", "DATABASE_URL", err)
	}
	var num string
	err = conn.QueryRow(ctx, "SELECT current_setting('server_version_num')").Scan(&num)
	conn.Close(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if major := strings.TrimLeft(num[:len(num)-4], "0"); major != pgcatalog.ServerMajor {
		t.Skipf("SKIP: the server at DATABASE_URL is PostgreSQL %s, but %s was generated from PostgreSQL %s; its output cannot be compared", major, output, pgcatalog.ServerMajor)
	}
	tmp := filepath.Join(t.TempDir(), "builtin.go")
	cmd := exec.CommandContext(ctx, "go", "run", "./internal/pgcatalog", "-o", tmp)
	cmd.Dir = filepath.Join("..", "..", "..", "..")
	cmd.Env = append(os.Environ(), "DATABASE_URL="+testenv.DatabaseURL())
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./internal/pgcatalog: %v\n%s", err, out)
	}
	got, err := os.ReadFile(tmp)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("builtin.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("%s is not current (regenerate with go run ./internal/pgcatalog): first difference at line %d:\n got  %s\n file %s", output, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("%s is not current (regenerate with go run ./internal/pgcatalog): %d lines generated, %d in the file", output, len(gl), len(wl))
	}
}

// TestExtensionObjectsAreMarked checks that extension functions and types
// carry their extension's name, and pg_catalog's none.
func TestExtensionObjectsAreMarked(t *testing.T) {
	for _, tc := range []struct{ fn, ext string }{{"digest", "pgcrypto"}, {"uuid_generate_v4", "uuid-ossp"}, {"similarity", "pg_trgm"}, {"now", ""}} {
		fs := pgcatalog.Funcs(tc.fn)
		if len(fs) == 0 {
			t.Errorf("%s: not recorded", tc.fn)
			continue
		}
		for _, f := range fs {
			if f.Extension != tc.ext {
				t.Errorf("%s: extension %q, want %q", tc.fn, f.Extension, tc.ext)
			}
		}
	}
	if ty := pgcatalog.LookupType("citext"); ty == nil || ty.Extension != "citext" {
		t.Errorf("citext type: %+v", ty)
	}
	if r := pgcatalog.LookupRelation("pg_catalog", "pg_class"); r == nil || !r.Columns[0].NotNull {
		t.Errorf("pg_class: %+v", r)
	}
}

// Operator names that hold the data's separator (|) load whole.
func TestOperatorsWithBarsInTheirNames(t *testing.T) {
	for name, want := range map[string][3]string{
		"||":  {"text", "text", "text"},
		"|":   {"int4", "int4", "int4"},
		"||/": {"", "float8", "float8"},
		"|/":  {"", "float8", "float8"},
	} {
		found := false
		for _, o := range pgcatalog.Operators(name) {
			if o.Name != name {
				t.Errorf("Operators(%q) holds %q", name, o.Name)
			}
			found = found || o.Left == want[0] && o.Right == want[1] && o.Result == want[2]
		}
		if !found {
			t.Errorf("Operators(%q) lacks %s %s %s -> %s", name, want[0], name, want[1], want[2])
		}
	}
}
