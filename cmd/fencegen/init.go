package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
)

// sqlcInitV2 and sqlcInitV1 are the files sqlc v1.31.1's init writes,
// byte for byte (sqlc init, sqlc init --v1).
const (
	sqlcInitV2 = `version: "2"
cloud:
    organization: ""
    project: ""
    hostname: ""
servers: []
sql: []
overrides:
    go: null
plugins: []
rules: []
options: {}
`
	sqlcInitV1 = `version: "1"
cloud:
    organization: ""
    project: ""
    hostname: ""
packages: []
rules: []
`
)

// runInit is fencegen init, as sqlc init: it writes sqlc's empty
// configuration file to the -f path (sqlc.yaml by default) unless a file
// is already there, and says which on stdout, in sqlc's words.
func runInit(args []string, stdout, stderr io.Writer) int {
	flags, cfgPath, _ := newFlagSet("init", false, stderr)
	v1 := flags.Bool("v1", false, "write a version 1 configuration file")
	flags.Bool("v2", true, "write a version 2 configuration file")
	if code, ok := parseFlags(flags, args, stdout, stderr); !ok {
		return code
	}
	// As sqlc's init: arguments are ignored, both versions named is an
	// error, and -v2=false still writes version 2.
	v2Set := false
	flags.Visit(func(f *flag.Flag) { v2Set = v2Set || f.Name == "v2" })
	if *v1 && v2Set {
		fmt.Fprintln(stderr, "fencegen: init: -v1 and -v2 cannot be given together")
		return exitUsage
	}
	text := sqlcInitV2
	if *v1 {
		text = sqlcInitV1
	}
	path := *cfgPath
	if path == "" {
		path = "sqlc.yaml"
	}
	if _, err := os.Stat(path); err == nil {
		fmt.Fprintf(stdout, "%s is already created\n", path)
		return exitOK
	} else if !errors.Is(err, os.ErrNotExist) {
		report(stderr, err)
		return exitError
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		report(stderr, err)
		return exitError
	}
	fmt.Fprintf(stdout, "%s is added. Please visit https://docs.sqlc.dev/en/stable/reference/config.html to learn more about configuration\n", path)
	return exitOK
}
