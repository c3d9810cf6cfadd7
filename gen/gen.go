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
	// Vet lists notes that are not errors, e.g. queries that opted out of
	// fencing, as "file:line:col: message".
	Vet []string
}
