package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestInitOrder: package gen/internal/pgwarm, which starts protobuf's
// set-up of pg_query's messages on a goroutine, initialises before TiDB's
// parser and character sets, so that the set-up runs beside their
// initialisation; and the collector's settings (package gcstart) are in
// place before those TiDB packages and before the generator's own
// packages initialise, so that their allocations and the set-up's do not
// start a collection before main. This test binary links the same
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
		pgwarm  = "github.com/fencegen/fencegen/gen/internal/pgwarm"
	)
	for _, c := range []struct {
		first string
		later []string
	}{
		{pgwarm, []string{"github.com/pingcap/tidb/pkg/parser", "github.com/pingcap/tidb/pkg/parser/charset"}},
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
