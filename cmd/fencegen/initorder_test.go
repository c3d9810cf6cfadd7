package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestInitOrder: the collector's settings (package gcstart) are in place
// before TiDB's parser and character sets and before the generator's own
// packages initialise, so that their allocations do not start a
// collection before main. This test binary links the same
// packages as the command; GODEBUG=inittrace=1 prints one line per package
// initialised, in order.
func TestInitOrder(t *testing.T) {
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
	const (
		gcstart = "github.com/fencegen/fencegen/cmd/fencegen/internal/gcstart"
	)
	for _, c := range []struct {
		first string
		later []string
	}{
		{gcstart, []string{
			"github.com/pingcap/tidb/pkg/parser",
			"github.com/pingcap/tidb/pkg/parser/charset",
			"github.com/fencegen/fencegen/gen/internal/catalog",
			"github.com/fencegen/fencegen/gen/internal/analyze",
		}},
	} {
		if _, ok := order[c.first]; !ok {
			t.Fatalf("no init line for %s in:\n%s", c.first, out)
		}
		for _, later := range c.later {
			i, ok := order[later]
			if !ok {
				t.Errorf("no init line for %s", later)
				continue
			}
			if i < order[c.first] {
				t.Errorf("%s initialised before %s (line %d, %d)", later, c.first, i, order[c.first])
			}
		}
	}
}

// TestInitAllocations: no package of fencegen's own allocates more than
// initBudget bytes at initialisation, which every run pays before main
// whatever its configuration. A table, regular expression or descriptor
// lookup that a run may not need is built on first use (sync.OnceValue):
// the write analysis's PL/pgSQL ALIAS expression, compiled at start-up,
// made package writes allocate 78 KB there (issue 23). The bytes are the
// runtime's count (GODEBUG=inittrace=1), not a time.
func TestInitAllocations(t *testing.T) {
	const initBudget = 64 << 10
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	seen := 0
	for _, line := range strings.Split(string(out), "\n") {
		// init <package> @<t> ms, <t> ms clock, <bytes> bytes, <n> allocs
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/fencegen/fencegen/") || f[8] != "bytes," {
			continue
		}
		seen++
		n, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if n > initBudget {
			t.Errorf("%s allocates %d bytes at initialisation, more than %d: build what a run may not need on first use", f[1], n, initBudget)
		}
	}
	if seen < 5 {
		t.Fatalf("%d init lines of fencegen's packages in:\n%s", seen, out)
	}
}
