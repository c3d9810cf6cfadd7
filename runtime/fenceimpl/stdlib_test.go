package fenceimpl

import (
	"errors"
	"go/build"
	"strings"
	"testing"
)

// TestStandardLibraryOnly: the package imports nothing outside the
// standard library but package fence (database/sql included, no driver),
// so generated code for either SQL package pulls no driver into a user's
// build.
func TestStandardLibraryOnly(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkg.Imports {
		if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") && p != "github.com/fencegen/fencegen/runtime/fence" {
			t.Errorf("runtime/fenceimpl imports %s", p)
		}
	}
}

func TestResult(t *testing.T) {
	r := Result(3)
	if n, err := r.RowsAffected(); n != 3 || err != nil {
		t.Errorf("RowsAffected = %d, %v; want 3", n, err)
	}
	if _, err := r.LastInsertId(); err == nil {
		t.Error("LastInsertId succeeded; PostgreSQL has no last insert id")
	}
}

func TestSQLRowsPassesTheQueryError(t *testing.T) {
	want := errors.New("connection refused")
	if rows, err := SQLRows(nil, want); rows != nil || err != want {
		t.Errorf("SQLRows(nil, err) = %v, %v; want nil, err", rows, err)
	}
}
