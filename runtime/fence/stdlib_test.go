package fence

import (
	"go/build"
	"strings"
	"testing"
)

// TestStandardLibraryOnly: the package imports nothing outside the
// standard library, so an application that reads its types pulls no
// driver and no Redis client into its build.
func TestStandardLibraryOnly(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pkg.Imports {
		if first, _, _ := strings.Cut(p, "/"); strings.Contains(first, ".") {
			t.Errorf("runtime/fence imports %s", p)
		}
	}
}
