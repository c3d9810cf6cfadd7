// Package gen is fencegen's generator: it reads a PostgreSQL schema in which
// columns are marked as fencing tokens and sqlc-style annotated query files,
// and renders typed pgx/v5 repository code in which every write to a fenced
// table takes a fence.Token and is guarded in the same statement.
//
// The stages are separate packages under gen/internal, as in sqlc: parse
// (the only importer of pg_query_go) → catalog → analyze → emit. Generate
// never touches the disk: it returns every file's bytes, and Write writes
// them only after all have rendered.
package gen

import (
	"github.com/fencegen/fencegen/gen/internal/config"
)

// Config is a loaded configuration file; see LoadConfig.
type Config = config.Config

// Output is the result of Generate.
type Output struct {
	// Files maps a slash-separated path, relative to the configuration
	// file's directory, to the file's complete contents.
	Files map[string][]byte
	// Dirs are the output directories of the run's sql entries, sorted,
	// slash-separated and relative like the names of Files ("." for the
	// configuration's own directory). fencegen owns the files there that
	// carry its generated header (see Write): Write removes those
	// that Files no longer holds, and Check reports them as stale. Files
	// without the header, and subdirectories, are never touched.
	Dirs []string
	// Packages, Queries and Fenced count what the run generated: the sql
	// entries (version 1: packages), their queries, and those of the
	// queries that write a fenced table through the guard (opted-out
	// queries are not counted as fenced).
	Packages, Queries, Fenced int
	// Guards are the database-side guards of the sql entries with fenced
	// tables, in configuration order: the SQL of their GuardFile, to be
	// written as a migration (Guard.Migration).
	Guards []*Guard
	// Vet lists notes that are not errors, e.g. queries that opted out of
	// fencing, as "file:line:col: message".
	Vet []string
}
