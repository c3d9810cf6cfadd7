package gen

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/config"
)

// sqlcSchemaReads returns, for an entry with engine mysql of a
// configuration sqlc reads too (sqlcReads), the function that says why a
// guard migration must not be written at a path (guard.SetSqlcSchema):
// sqlc reads that file as one of the entry's schema files (a file the
// schema key names, a SQL file of a directory it names, a match of a
// pattern), and sqlc v1.31.1's MySQL parser stops at CREATE TRIGGER with
// a syntax error, so sqlc generate would fail (trial t27h F1). The
// refusal says where the guard migrations go instead: a directory of the
// schema key of the fencegen.yaml that extends the configuration, which
// fencegen reads and sqlc does not. It returns nil for any other entry.
func sqlcSchemaReads(cfg *Config, pkg config.Package) func(string) error {
	if pkg.Engine != config.EngineMySQL || !sqlcReads(cfg.Path, pkg) {
		return nil
	}
	return func(path string) error {
		abs, err := filepath.Abs(path)
		if err != nil {
			return nil
		}
		read := false
		for _, e := range pkg.Schema {
			p := filepath.FromSlash(e)
			if !filepath.IsAbs(p) {
				p = filepath.Join(cfg.Dir, p)
			}
			p, err := filepath.Abs(p)
			if err != nil {
				continue
			}
			if strings.ContainsAny(e, "*?[") {
				ok, _ := filepath.Match(p, abs)
				read = read || ok && isSQLFile(filepath.Base(abs))
				continue
			}
			if info, err := os.Stat(p); err == nil && info.IsDir() {
				read = read || filepath.Dir(abs) == p && isSQLFile(filepath.Base(abs))
				continue
			}
			read = read || p == abs
		}
		if !read {
			return nil
		}
		return errors.New(sqlcReadsMessage(cfg, pkg))
	}
}

// sqlcReadsMessage is the refusal of sqlcSchemaReads: what sqlc does
// with the file, and where the guard migrations go instead.
func sqlcReadsMessage(cfg *Config, pkg config.Package) string {
	base := filepath.Base(cfg.Path)
	msg := fmt.Sprintf("sqlc reads it as a schema file of the engine mysql entry of %s (schema: %s), and sqlc v1.31.1 cannot parse the CREATE TRIGGER statements of a guard migration (syntax error), so sqlc generate would fail", base, strings.Join(pkg.Schema, ", "))
	if cfg.Extension == "" {
		return msg + fmt.Sprintf(": keep the guard migrations in a directory sqlc does not read, named in the schema key of a fencegen.yaml beside %s (extends: %s, schema: migrations/guard; fencegen reads those files in version order among the migrations of %s), run fencegen with it, and give that directory to -dir", base, base, base)
	}
	ext := filepath.Base(cfg.Extension)
	var dirs []string
	for _, s := range pkg.FencegenSchema {
		p := filepath.FromSlash(s)
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(cfg.Extension), p)
		}
		if info, err := os.Stat(p); err == nil && info.IsDir() {
			dirs = append(dirs, displayName(p))
		}
	}
	if len(dirs) > 0 {
		return msg + fmt.Sprintf(": write them to a directory that the schema key of %s lists, which only fencegen reads (in version order among the migrations of %s): -dir %s", ext, base, strings.Join(dirs, " or -dir "))
	}
	return msg + fmt.Sprintf(": keep the guard migrations in a directory sqlc does not read, name it in the schema key of %s (schema: migrations/guard; fencegen reads those files in version order among the migrations of %s), and give it to -dir", ext, base)
}
