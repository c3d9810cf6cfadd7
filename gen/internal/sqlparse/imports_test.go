package sqlparse_test

import (
	"go/build"
	"strings"
	"testing"
)

// Package sqlparse parses, deparses and quotes; the guard and everything
// generated code reads at run time live elsewhere (gen/internal/guard,
// runtime/...). It imports no package of runtime/, directly or through
// another package of this module.
func TestImportsNothingFromRuntime(t *testing.T) {
	const module = "github.com/fencegen/fencegen/"
	seen := map[string]bool{}
	var visit func(path, dir string)
	visit = func(path, dir string) {
		if seen[path] {
			return
		}
		seen[path] = true
		pkg, err := build.Import(path, dir, 0)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		for _, imp := range pkg.Imports {
			if !strings.HasPrefix(imp, module) {
				continue
			}
			if strings.HasPrefix(imp, module+"runtime/") {
				t.Errorf("%s imports %s: sqlparse must not depend on runtime/", path, imp)
			}
			visit(imp, pkg.Dir)
		}
	}
	visit(module+"gen/internal/sqlparse", ".")
	if len(seen) < 2 {
		t.Fatalf("found only %v: the walk did not read the imports", seen)
	}
}
