package lease

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestMonotonicClockOnly is a static check that lease validity is computed
// only from time.Now values (which carry the monotonic reading) with
// Since/Until/Add, and never from wall-clock arithmetic or the server clock.
func TestMonotonicClockOnly(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	etcd, err := filepath.Glob("etcdlease/*.go") // the etcd lease keeps the same rule
	if err != nil || len(etcd) == 0 {
		t.Fatalf("etcdlease sources: %v %v", etcd, err)
	}
	files = append(files, etcd...)
	lua, err := filepath.Glob("*.lua")
	if err != nil {
		t.Fatal(err)
	}
	forbidden := map[string][]string{
		".go":  {"UnixNano", "UnixMilli", ".Round(0)", ".Truncate(", "time.Unix(", "PTTL", "\"TIME\"", "TimeToLive("},
		".lua": {"PTTL", "'TIME'", "\"TIME\""},
	}
	for _, f := range append(files, lua...) {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			code := strings.TrimSpace(line)
			if strings.HasPrefix(code, "//") || strings.HasPrefix(code, "--") {
				continue // prose may name what the code avoids
			}
			for _, bad := range forbidden[filepath.Ext(f)] {
				if strings.Contains(code, bad) {
					t.Errorf("%s:%d uses %s", f, i+1, bad)
				}
			}
		}
	}
}
