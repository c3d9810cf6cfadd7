package config

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"

	"github.com/fencegen/fencegen/gen/internal/diag"
)

// Fence modes accepted in a fence table entry.
const (
	ModeStrict    = "strict"
	ModeNonStrict = "non-strict"
	// ModeRequired is non-strict, and the database-side guard also
	// refuses an UPDATE that does not set the token column.
	ModeRequired = "required"
)

// EnginePostgreSQL is PostgreSQL, fencegen's first engine.
const EnginePostgreSQL = "postgresql"

// EngineMySQL is sqlc's engine for MySQL and MariaDB (database/sql with
// github.com/go-sql-driver/mysql): parsed by the TiDB parser
// (mysqlparse), through the same catalog, analysis and emit.
const EngineMySQL = "mysql"

// The sql_package values fencegen emits, sqlc's three. An empty
// sql_package means database/sql, as in sqlc (its golang codegen's
// parseDriver). pgx/v4 is github.com/jackc/pgx/v4 with
// github.com/jackc/pgconn and github.com/jackc/pgtype, in maintenance
// upstream; sqlc still generates it, so fencegen does.
const (
	SQLPackagePgxV5  = "pgx/v5"
	SQLPackageStdlib = "database/sql"
	SQLPackagePgxV4  = "pgx/v4"
)

// Names are the configuration file names Find looks for, in order.
var Names = []string{"fencegen.yaml", "fencegen.yml", "sqlc.yaml", "sqlc.yml", "sqlc.json"}

// ErrNotFound is wrapped by Find's error when the directory holds none of
// Names.
var ErrNotFound = errors.New("no configuration file found")

// ErrBothConfigs is Find's error when dir holds no fencegen.yaml or
// fencegen.yml but sqlc.json beside sqlc.yaml or sqlc.yml: sqlc refuses
// to choose (exiting 1 with "both sqlc.json and sqlc.(yaml|yml) files
// present"), and so does fencegen rather than read one sqlc does not.
var ErrBothConfigs = errors.New("both sqlc.json and sqlc.(yaml|yml) files present")

// Find returns the configuration file in dir: the first of Names that
// exists there, joined to dir (so the result is relative when dir is).
// It returns an error wrapping ErrNotFound when there is none, one
// wrapping ErrBothConfigs when the first is a sqlc configuration and
// sqlc.json is there beside sqlc.yaml or sqlc.yml (sqlc's check: any
// file system entry of the name counts), and any other error from
// os.Stat as is.
func Find(dir string) (string, error) {
	for _, name := range Names {
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		switch {
		case err == nil && !fi.IsDir():
			if strings.HasPrefix(name, "sqlc.") && exists(filepath.Join(dir, "sqlc.json")) &&
				(exists(filepath.Join(dir, "sqlc.yaml")) || exists(filepath.Join(dir, "sqlc.yml"))) {
				return "", fmt.Errorf("%s: %w: name one with -f", filepath.Join(dir, "sqlc.json"), ErrBothConfigs)
			}
			return p, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", err
		}
	}
	return "", fmt.Errorf("%w in %s (looked for %s)", ErrNotFound, dir, strings.Join(Names, ", "))
}

// exists reports whether path names a file system entry, as sqlc tests
// its configuration names (os.Stat not failing with fs.ErrNotExist).
func exists(path string) bool {
	_, err := os.Stat(path)
	return !errors.Is(err, fs.ErrNotExist)
}

// Load reads and validates the configuration file at path, which is kept
// as given in Config.Path and in messages. Every problem found is
// reported: the error is a diag.List of "path:line:col: message" entries.
// A file that cannot be read gives a one-entry list whose error wraps the
// os error (errors.Is(err, fs.ErrNotExist) works).
func Load(path string) (*Config, error) {
	src, err := read(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, src)
}

// read reads the configuration file at path; its error is Load's.
func read(path string) ([]byte, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = pe.Err.Error()
		}
		return nil, diag.List{{File: path, Msg: "cannot read configuration file: " + msg, Err: err}}.Err()
	}
	return src, nil
}

// LoadAll is Load that, when the file has located problems, also returns
// the configuration as far as it could be read (every sql entry with the
// keys that were valid), so that a caller can report the problems of its
// files in the same run; the Config is nil when the file could not be
// read or is no configuration at all. It must not be generated from.
func LoadAll(path string) (*Config, error) {
	src, err := read(path)
	if err != nil {
		return nil, err
	}
	return parseAll(path, src)
}

// Parse is Load for a file already read: path is used for Config.Path,
// Config.Dir and messages only.
func Parse(path string, src []byte) (*Config, error) {
	cfg, err := parseAll(path, src)
	if err != nil {
		return nil, err
	}
	return cfg, nil
}

// parseAll is Parse that returns the configuration read so far with its
// error (see LoadAll).
func parseAll(path string, src []byte) (*Config, error) {
	l := &loader{file: path}
	// Editors on Windows save UTF-8 with a byte order mark, which YAML
	// 1.2 allows at the start of a stream and sqlc's YAML reader skips.
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	cfg := l.parse(src)
	if err := l.errs.Err(); err != nil {
		return cfg, err
	}
	if cfg == nil {
		// A document that is no mapping: parse reported nothing.
		return nil, diag.List{{File: path, Line: 1, Col: 1, Msg: `missing key "version": want "1" or "2"`}}.Err()
	}
	cfg.Notes = l.notes
	return cfg, nil
}

// global holds the settings that apply to every package: version 1's
// top-level overrides and rename, version 2's overrides.go.
type global struct {
	overrides []Override
	rename    map[string]string
}

// rulesNote notes sqlc vet's rules (CEL expressions over each query):
// fencegen vet does not run them, so a CI step that relies on them keeps
// sqlc vet.
func (l *loader) rulesNote(_ string, v ast.Node) {
	if isNull(l.resolve(v)) || l.rulesNoted {
		return
	}
	l.rulesNoted = true
	l.notef(v, "rules are sqlc vet's: fencegen vet does not run them (keep sqlc vet for them)")
}

// nearExtends reports whether root, a file with neither extends nor sql
// entries (sql, packages), has a key that is a misspelling of extends
// ("extend: sqlc.yaml"): it is read as the extension it means to be, so
// that the message names the typo rather than a missing "version" (trial
// tnew F11).
func (l *loader) nearExtends(root ast.Node) bool {
	if l.lookup(root, "sql") != nil || l.lookup(root, "packages") != nil {
		return false
	}
	values, _ := l.mapValues(root, "configuration")
	for _, kv := range values {
		if k := keyText(kv.Key); !kv.Key.IsMergeKey() && k != "extends" && suggest(k, fields{"extends": ignore}) == "extends" {
			return true
		}
	}
	return false
}

func (l *loader) parse(src []byte) *Config {
	f, err := parser.ParseBytes(src, 0)
	if err != nil {
		var ye yaml.Error
		if errors.As(err, &ye) {
			p := tokenPos(ye.GetToken())
			l.errs.Add(l.file, p.Line, p.Col, "%s", ye.GetMessage())
		} else {
			l.errs.Add(l.file, 1, 1, "%v", err)
		}
		return nil
	}
	var docs []*ast.DocumentNode
	for _, d := range f.Docs {
		if d != nil && d.Body != nil {
			docs = append(docs, d)
		}
	}
	if len(docs) == 0 {
		l.errs.Add(l.file, 1, 1, "empty configuration file")
		return nil
	}
	if len(docs) > 1 {
		p := posOf(docs[1].Body)
		l.errs.Add(l.file, p.Line, p.Col, "a configuration file holds one YAML document, found %d", len(docs))
	}
	l.collectAnchors(docs[0])
	root := docs[0].Body

	if l.lookup(root, "extends") != nil || l.nearExtends(root) {
		return l.extension(root)
	}
	cfg := &Config{Path: l.file, Dir: filepath.Dir(l.file)}
	vnode := l.lookup(root, "version")
	if vnode == nil {
		if _, ok := l.mapValues(root, "configuration"); ok {
			l.errorf(root, `missing key "version": want "1" or "2"`)
		}
		return nil
	}
	cfg.Version, _ = l.scalar("version", vnode)
	var g global
	// A top-level fence key applies to every entry (spreadFences).
	var top []FenceTable
	topFence := func(k string, v ast.Node) { top = l.fence(v) }
	switch cfg.Version {
	case "1":
		l.mapping("configuration", root, fields{
			"version":  ignore,
			"fence":    topFence,
			"packages": l.seq(func(n ast.Node) { l.v1Package(n, cfg) }),
			"overrides": func(k string, v ast.Node) {
				g.overrides = globalOverrides(l.overrides(k, v))
			},
			"rename":  l.strMap(&g.rename),
			"cloud":   ignore,
			"project": ignore,
			"rules":   l.rulesNote,
		})
	case "2":
		l.mapping("configuration", root, fields{
			"version": ignore,
			"fence":   topFence,
			"sql":     l.seq(func(n ast.Node) { l.v2Entry(n, cfg) }),
			"overrides": func(k string, v ast.Node) {
				l.mapping(k, v, fields{
					"go": func(k string, v ast.Node) {
						l.mapping(k, v, fields{
							"overrides": func(k string, v ast.Node) {
								g.overrides = globalOverrides(l.overrides(k, v))
							},
							"rename": l.strMap(&g.rename),
						})
					},
					"*": ignore, // other languages' overrides
				})
			},
			"cloud":   ignore,
			"servers": ignore,
			"plugins": l.plugins,
			"rules":   l.rulesNote,
			"options": ignore,
		})
	default:
		l.errorf(vnode, `version %q not supported: want "1" or "2"`, cfg.Version)
		return nil
	}
	unsupported := l.resolveCodegen(cfg)
	l.spreadFences(cfg, top)
	// sqlc's check of global overrides (its validateGlobalOverrides):
	// with entries of several engines, each names its engine.
	engines := map[string]bool{}
	for _, p := range cfg.Packages {
		engines[p.Engine] = true
	}
	for _, sk := range cfg.Skipped {
		engines[sk.Engine] = true
	}
	if len(engines) > 1 {
		for _, o := range g.overrides {
			if o.Engine == "" {
				l.errs.Add(l.file, o.Pos.Line, o.Pos.Col, "global override: set engine (postgresql or mysql): the configuration has entries of several engines (sqlc: the \"engine\" field is required for global type overrides because your configuration uses multiple database engines)")
			}
		}
	}
	// postgresql_types and mysql_types default on in fencegen's own file
	// only: a file sqlc reads keeps sqlc's API unless it says otherwise.
	own := strings.HasPrefix(filepath.Base(l.file), "fencegen.")
	for i := range cfg.Packages {
		if o := &cfg.Packages[i].Go; o.PostgreSQLTypes == nil {
			v := own
			o.PostgreSQLTypes = &v
		}
		if o := &cfg.Packages[i].Go; o.MySQLTypes == nil {
			v := own
			o.MySQLTypes = &v
		}
	}

	for i := range cfg.Packages {
		o := &cfg.Packages[i].Go
		// As sqlc: global overrides come first, global renames win.
		if len(g.overrides) > 0 {
			o.Overrides = append(append([]Override(nil), g.overrides...), o.Overrides...)
		}
		o.Overrides = forEngine(o.Overrides, cfg.Packages[i].Engine)
		if len(g.rename) > 0 {
			if o.Rename == nil {
				o.Rename = make(map[string]string, len(g.rename))
			}
			for k, v := range g.rename {
				o.Rename[k] = v
			}
		}
	}
	if len(cfg.Packages) == 0 && len(cfg.Skipped) > 0 {
		// Nothing fencegen can generate: the other engines' entries are
		// the problem.
		for _, sk := range cfg.Skipped {
			l.errs.Add(l.file, sk.Pos.Line, sk.Pos.Col, "engine %q not supported: fencegen generates code for %s and %s only", sk.Engine, EnginePostgreSQL, EngineMySQL)
		}
		cfg.Skipped = nil
	}
	for _, u := range unsupported {
		if len(cfg.Packages) == 0 {
			l.errorf(or(u.pluginNode, u.node), "codegen plugin %q not supported: fencegen runs no plugins; it generates Go from gen.go (or from the sqlc-gen-go plugin's options)", u.plugin)
		} else {
			l.notef(or(u.pluginNode, u.node), "skipping codegen plugin %q: fencegen runs no plugins", u.plugin)
		}
	}
	if len(cfg.Packages) == 0 && len(l.errs) == 0 {
		if cfg.Version == "1" {
			l.errorf(root, "no packages: nothing to generate")
		} else {
			l.errorf(root, "no sql entry has gen.go: nothing to generate")
		}
	}
	return cfg
}
