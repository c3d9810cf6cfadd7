package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestGCStartRunsBeforeTheWarmUp: the collector's settings (package
// gcstart) are in place before gen/internal/sqlparse initialises and
// starts protobuf's set-up on a goroutine, and before TiDB's parser and
// character sets initialise, so that their allocations do not start a
// collection before main. This test binary links the same packages as the
// command; GODEBUG=inittrace=1 prints one line per package initialised, in
// order.
func TestGCStartRunsBeforeTheWarmUp(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	order := map[string]int{}
	for i, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 2 && f[0] == "init" {
			order[f[1]] = i
		}
	}
	const gcstart = "github.com/fencegen/fencegen/cmd/fencegen/internal/gcstart"
	if _, ok := order[gcstart]; !ok {
		t.Fatalf("no init line for %s in:\n%s", gcstart, out)
	}
	for _, later := range []string{
		"github.com/fencegen/fencegen/gen/internal/sqlparse",
		"github.com/pingcap/tidb/pkg/parser",
		"github.com/pingcap/tidb/pkg/parser/charset",
	} {
		i, ok := order[later]
		if !ok {
			t.Errorf("no init line for %s", later)
			continue
		}
		if i < order[gcstart] {
			t.Errorf("%s initialised before %s (line %d, %d)", later, gcstart, i, order[gcstart])
		}
	}
}
