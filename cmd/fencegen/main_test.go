// The CLI scenarios live in testdata/script/*.txtar and run with
// testscript, each in its own $WORK directory. To rewrite the files that
// `cmp` compares against after an intended change:
//
//	go test ./cmd/fencegen -run TestScripts -update
package main

import (
	"flag"
	"os"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "rewrite the cmp files of failing testscripts")

func TestMain(m *testing.M) {
	testscript.Main(m, map[string]func(){
		"fencegen": func() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) },
	})
}

func TestScripts(t *testing.T) {
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		UpdateScripts:       *update,
	})
}
