package gen

import (
	"context"

	"github.com/fencegen/fencegen/gen/internal/config"
	"github.com/fencegen/fencegen/gen/internal/diag"
)

// Problem is one located problem in an input file. Line and Col are
// 1-based (0 when unknown); its Error method prints
// "file:line:col: message".
type Problem = diag.Error

// Problems returns the located problems err carries (the errors of
// LoadConfig and Generate), sorted by file, line and column, or nil when
// err carries none.
func Problems(err error) []*Problem { return diag.As(err).Sort() }

// ErrNoConfig is wrapped by FindConfig's error when a directory holds no
// configuration file.
var ErrNoConfig = config.ErrNotFound

// LoadConfig reads the configuration file at path: fencegen.yaml (sqlc's
// version 2 format plus a fence key, in an sql entry or at the top level;
// a table fenced anywhere is fenced in every entry whose schema has it),
// a fencegen.yaml that extends an sqlc configuration, or an existing sqlc
// configuration (sqlc.yaml, sqlc.yml or sqlc.json, version "1" or "2")
// read as-is. Relative paths in the file are relative to its directory,
// Config.Dir.
//
// Every problem is reported at once: the error lists them as
// "path:line:col: message", with path as given. Unknown keys are errors;
// every key sqlc v1.31.1 accepts is accepted, and those fencegen does not
// act on (database, analyzer, rules, cloud, …) leave a note in
// Config.Notes when sqlc would have acted on them. Entries for other
// generators (no gen.go, or a codegen plugin other than sqlc-gen-go) are
// skipped; an entry that generates Go must use engine postgresql and
// sql_package pgx/v5 (the default when unset). A UTF-8 byte order mark at
// the start of the file is ignored. With the configuration's problems
// come those of the schema and queries paths its entries name (a file or
// directory that does not exist), so that one run reports them all.
func LoadConfig(path string) (*Config, error) {
	cfg, err := config.LoadAll(path)
	if err == nil {
		return cfg, nil
	}
	errs := diag.As(err)
	if cfg == nil || len(errs) == 0 {
		return nil, err
	}
	var rest []config.Package
	for _, pkg := range cfg.Packages {
		_, serr := expandAt(cfg, pkg.Schema, pkg.Pos, pkg.SchemaPos)
		_, xerr := fencegenSchemaFiles(cfg, pkg)
		serr = append(serr, xerr...)
		_, qerr := expandAt(cfg, pkg.Queries, pkg.Pos, pkg.QueriesPos)
		errs = append(append(errs, serr...), qerr...)
		// An entry analysed with sqlc's database key is left out: loading
		// a configuration asks no server.
		if len(serr) == 0 && len(qerr) == 0 && !pkg.Doubtful && pkg.Database == nil {
			rest = append(rest, pkg)
		}
	}
	// The entries whose files are there are still generated, nothing
	// written, so that the problems of their schemas and queries (a
	// query kind typo, a fenced table the schemas do not have) come in
	// the same run as the configuration's (trial tnew F1). A key that
	// is misspelled is read as its suggestion (config's loader), so what
	// follows from the typo is not reported again.
	if len(rest) > 0 {
		part := *cfg
		part.Packages = rest
		if _, gerr := generate(context.Background(), &part, false, false); gerr != nil {
			errs = append(errs, diag.As(gerr)...)
		}
	}
	return nil, errs.Err()
}

// FindConfig returns the configuration file fencegen uses by default in
// dir: the first of fencegen.yaml, fencegen.yml, sqlc.yaml, sqlc.yml and
// sqlc.json that exists, joined to dir. The error wraps ErrNoConfig when
// there is none.
func FindConfig(dir string) (string, error) { return config.Find(dir) }
