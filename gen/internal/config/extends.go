package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	"github.com/goccy/go-yaml/ast"

	"github.com/fencegen/fencegen/gen/internal/diag"
)

// extension reads a configuration that extends another, so that sqlc
// keeps reading its own file untouched (sqlc refuses a fence key: "field
// fence not found"):
//
//	# fencegen.yaml, next to sqlc.yaml
//	extends: sqlc.yaml
//	fence:
//	  tables:
//	    - {table: account_balances, column: last_fencing_token}
//
// The result is the extended configuration (Path, Dir and every entry as
// Load reads that file, relative paths relative to it) with the fence
// tables added to every sql entry: a table is fenced in each entry whose
// schema has it, and one that no entry's schema has is an error (see
// FenceTable.AnyEntry). The keys allowed are extends, fence, version
// ("2") and gen.go.postgresql_types and gen.go.mysql_types, fencegen's
// options that sqlc refuses in its own file, each set for every entry of
// its engine (fence may then be left out), and schema, files sqlc
// cannot parse that fencegen reads after every engine mysql entry's own
// schema (Package.FencegenSchema). The extended file may be any
// configuration Load reads, but not itself an extension.
func (l *loader) extension(root ast.Node) *Config {
	var base string
	var baseNode, fenceNode ast.Node
	var tables []FenceTable
	var pgTypes, myTypes *bool
	var pgNode, myNode ast.Node
	var schema []string
	var schemaPos []Position
	var schemaNode ast.Node
	l.mapping("configuration", root, fields{
		"version": func(k string, v ast.Node) {
			if s, ok := l.scalar(k, v); ok && s != "2" {
				l.errorf(v, `version %q not supported: a configuration with extends is version "2"`, s)
			}
		},
		"extends": record(&baseNode, l.str(&base)),
		// Schema files only fencegen reads: the stored programs of a
		// MySQL schema, which sqlc cannot parse (issue 27).
		"schema": record(&schemaNode, l.paths(&schema, &schemaPos)),
		"fence": func(k string, v ast.Node) {
			fenceNode = v
			tables = l.fence(v)
		},
		// fencegen's own Go options, which sqlc refuses in its file
		// ("field postgresql_types not found"): they apply to every
		// entry of the extended file.
		"gen": func(k string, v ast.Node) {
			l.mapping(k, v, fields{
				"go": func(k string, v ast.Node) {
					l.mapping(k, v, fields{
						"postgresql_types": record(&pgNode, l.boolPtr(&pgTypes)),
						"mysql_types":      record(&myNode, l.boolPtr(&myTypes)),
					})
				},
			})
		},
	})
	// A problem of this file's keys does not stop the run: the extended
	// file is still read, so that its problems and those of its entries'
	// files come in the same run (trial tnew F1); the configuration
	// returned is then LoadAll's, not generated from.
	if base == "" {
		l.errorf(or(baseNode, root), "extends: want the path of the sqlc configuration to extend, e.g. extends: sqlc.yaml")
		return nil
	}
	if len(tables) == 0 && (fenceNode != nil || pgTypes == nil && myTypes == nil && schemaNode == nil) && len(l.errs) == 0 {
		l.errorf(or(fenceNode, root), "fence: a configuration with extends adds fenced tables (list them under fence.tables), fencegen's options (gen.go.postgresql_types, gen.go.mysql_types) or schema files only fencegen reads (schema)")
		return nil
	}
	p := filepath.FromSlash(base)
	if !filepath.IsAbs(p) {
		p = filepath.Join(filepath.Dir(l.file), p)
	}
	if filepath.Clean(p) == filepath.Clean(l.file) {
		l.errorf(baseNode, "extends: %s is this file", base)
		return nil
	}
	cfg, err := LoadAll(p)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			// At the extends value, with the closest file, as a missing
			// schema or queries path is (trial tnew F11).
			at := posOf(baseNode)
			l.errs.AddErr(&diag.Error{File: l.file, Line: at.Line, Col: at.Col, Err: err,
				Msg: fmt.Sprintf("extends: %s does not exist%s", base, nearName(p, base))})
			return nil
		}
		// The extended file's own problems, at their places in it.
		list := diag.As(err)
		if len(list) == 0 {
			l.errorf(baseNode, "extends %s: %v", base, err)
		} else {
			l.errs = append(l.errs, list...)
		}
		if cfg == nil {
			return nil
		}
	}
	if cfg.Extension != "" {
		l.errorf(baseNode, "extends %s, which extends %s in turn: name the sqlc configuration itself", base, cfg.Extension)
		return nil
	}
	cfg.Extension = l.file
	// Each option applies to the entries of its engine, and one that no
	// entry's engine reads is an error naming the one it does.
	engines := map[string]bool{}
	for i := range cfg.Packages {
		p := &cfg.Packages[i]
		engines[p.Engine] = true
		if pgTypes != nil && p.Engine != EngineMySQL {
			v := *pgTypes
			p.Go.PostgreSQLTypes = &v
		}
		if myTypes != nil && p.Engine == EngineMySQL {
			v := *myTypes
			p.Go.MySQLTypes = &v
		}
		if p.Engine == EngineMySQL {
			p.FencegenSchema, p.FencegenSchemaPos = schema, schemaPos
		}
	}
	if pgTypes != nil && !engines[EnginePostgreSQL] {
		l.errorf(pgNode, "postgresql_types applies to engine %q entries, and %s has none: use mysql_types for its engine %q entries", EnginePostgreSQL, base, EngineMySQL)
		return nil
	}
	if len(schema) > 0 && !engines[EngineMySQL] {
		l.errorf(schemaNode, "schema adds files to engine %q entries, whose stored programs sqlc cannot parse, and %s has none: sqlc reads a PostgreSQL schema's functions and triggers, so list them in %s's schema", EngineMySQL, base, base)
		return nil
	}
	if myTypes != nil && !engines[EngineMySQL] {
		l.errorf(myNode, "mysql_types applies to engine %q entries, and %s has none: use postgresql_types for its engine %q entries", EngineMySQL, base, EnginePostgreSQL)
		return nil
	}
	for i := range tables {
		tables[i].File = l.file
		tables[i].AnyEntry = true
	}
	for i := range cfg.Packages {
		pkg := &cfg.Packages[i]
		for _, t := range tables {
			dup := false
			for _, own := range pkg.Fence {
				dup = dup || own.Table == t.Table
			}
			if dup {
				l.errorf(baseNode, "table %q is fenced both here and in %s", t.Table, base)
				return nil
			}
		}
		pkg.Fence = append(pkg.Fence, tables...)
	}
	l.notes = append(cfg.Notes, l.notes...)
	return cfg
}

// nearName is " (did you mean X?)" naming the file beside the missing
// path p whose name is closest to p's, written as the configuration's
// value e would name it, or "".
func nearName(p, e string) string {
	ents, err := os.ReadDir(filepath.Dir(p))
	if err != nil {
		return ""
	}
	var names []string
	for _, de := range ents {
		if !de.IsDir() {
			names = append(names, de.Name())
		}
	}
	// Only a close name: a configuration file is named by few letters,
	// so a distant one (nope.yaml for typo.yaml) would mislead.
	if c := Closest(filepath.Base(p), names); c != "" && diag.Distance(filepath.Base(p), c) <= 2 {
		return fmt.Sprintf(" (did you mean %s?)", path.Join(path.Dir(filepath.ToSlash(e)), c))
	}
	return ""
}
