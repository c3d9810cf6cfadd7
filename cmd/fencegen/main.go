// Command fencegen generates typed pgx/v5 repository code with fenced
// writes from a PostgreSQL schema and sqlc-style annotated queries.
//
// Usage:
//
//	fencegen generate [-f fencegen.yaml]
//	fencegen check [-f fencegen.yaml]
//	fencegen vet [-f fencegen.yaml]
//	fencegen guard -format goose|golang-migrate|dbmate|atlas [-dir migrations] [-f fencegen.yaml]
//	fencegen version
//
// Run "fencegen help" for details.
package main

import (
	"os"

	_ "github.com/fencegen/fencegen/cmd/fencegen/internal/gcstart" // the collector's settings for a run, set before the parsers initialise
)

func main() { os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr)) }
