package config

import (
	"go/token"
	"path"
	"path/filepath"

	"github.com/goccy/go-yaml/ast"
)

// entry collects the nodes of a package that validation points at.
type entry struct {
	pkg                            Package
	pos                            ast.Node // the entry itself
	engine, goNode, out, goPackage ast.Node
	sqlPackage, paramLimit         ast.Node
	sqlDriver                      ast.Node
	pgTypes, myTypes               ast.Node // postgresql_types, mysql_types
	database                       ast.Node // sqlc's database key, when set
	analyzerDB                     *bool    // sqlc's analyzer.database
	dbURI                          string   // database.uri
	dbManaged                      bool     // database.managed
	badSchema, badQueries          bool     // reported already
	errsBefore                     int      // loader.serious() before the entry
}

func (l *loader) v2Entry(n ast.Node, cfg *Config) {
	e := &entry{pos: n, errsBefore: l.serious()}
	p := &e.pkg
	p.Pos = posOf(n)
	hasGo := false
	var jsonNode ast.Node
	var jsonOut, jsonFile string
	fs := l.entryFields(e)
	fs["gen"] = func(k string, v ast.Node) {
		l.mapping(k, v, fields{
			"go": func(k string, v ast.Node) {
				if isNull(l.resolve(v)) {
					return
				}
				hasGo = true
				e.goNode = v
				gfs := l.goFields(e)
				gfs["out"] = record(&e.out, l.str(&p.Go.Out))
				gfs["rename"] = l.strMap(&p.Go.Rename)
				l.mapping(k, v, gfs)
			},
			// sqlc's gen.json writes its codegen request (the whole
			// catalog, pg_catalog included, as protojson): fencegen
			// has no such request to write, and says so rather than
			// leave the file out without a word. Other keys (kotlin,
			// python) are sqlc's error too: its gen has go and json.
			"json": func(k string, v ast.Node) {
				if isNull(l.resolve(v)) {
					return
				}
				jsonNode = v
				l.mapping("gen.json", v, fields{
					"out":      l.str(&jsonOut),
					"indent":   ignore,
					"filename": l.str(&jsonFile),
				})
			},
		})
	}
	var uses []*codegenUse
	fs["codegen"] = l.seq(func(n ast.Node) {
		u := &codegenUse{node: n}
		l.mapping("codegen", n, fields{
			"plugin":  record(&u.pluginNode, l.str(&u.plugin)),
			"out":     l.str(&u.out),
			"options": func(_ string, v ast.Node) { u.options = v },
		})
		if isMapping(l.resolve(n)) {
			uses = append(uses, u)
		}
	})
	l.mapping("sql entry", n, fs)
	if jsonNode != nil && jsonOut == "" {
		// sqlc's ErrNoOutPath ("no output path").
		l.errorf(jsonNode, `gen.json: missing key "out"`)
	} else if jsonNode != nil {
		if jsonFile == "" {
			jsonFile = "codegen_request.json"
		}
		l.notef(jsonNode, "gen.json: fencegen does not write %s (sqlc's codegen request as JSON); keep sqlc generate for it", path.Join(jsonOut, jsonFile))
	}
	for _, u := range uses {
		// Each codegen item is a package of its own, with the entry's
		// schema and queries; which plugin it runs is known once the
		// top-level plugins are read (see resolveCodegen).
		u.entry = &entry{pos: u.node, engine: e.engine, database: e.database, analyzerDB: e.analyzerDB, dbURI: e.dbURI, dbManaged: e.dbManaged, badSchema: e.badSchema, badQueries: e.badQueries}
		u.entry.pkg = Package{
			Name: p.Name, Engine: p.Engine, Schema: p.Schema, Queries: p.Queries, Fence: p.Fence,
			StrictFunctionChecks: p.StrictFunctionChecks, StrictOrderBy: p.StrictOrderBy,
			Pos: posOf(u.node),
		}
		l.codegen = append(l.codegen, u)
	}
	if !hasGo {
		return // an entry for another generator: not ours
	}
	if p.Engine == "" {
		l.errorf(n, `missing key "engine": want %q`, EnginePostgreSQL)
	}
	if p.Go.Out == "" {
		l.errorf(e.goNode, `gen.go: missing key "out"`)
	}
	if p.Go.Package == "" {
		p.Go.Package = defaultPackage(p.Go.Out)
	}
	l.add(cfg, e)
}

func (l *loader) v1Package(n ast.Node, cfg *Config) {
	e := &entry{pos: n, errsBefore: l.serious()}
	p := &e.pkg
	p.Pos = posOf(n)
	fs := l.entryFields(e)
	for k, h := range l.goFields(e) {
		fs[k] = h
	}
	delete(fs, "package") // version 1 names the package with name
	fs["name"] = record(&e.goPackage, l.str(&p.Name))
	fs["path"] = record(&e.out, l.str(&p.Go.Out))
	l.mapping("package", n, fs)
	if p.Engine == "" {
		p.Engine = EnginePostgreSQL // sqlc's version 1 default
	}
	if p.Go.Out == "" {
		l.errorf(n, `missing key "path"`)
	}
	p.Go.Package = p.Name
	if p.Go.Package == "" {
		p.Go.Package = defaultPackage(p.Go.Out)
	}
	l.add(cfg, e)
}

// defaultPackage is sqlc's default package name, the output directory's
// base name, or "" when that is not a Go identifier (e.g. out: .); the
// caller may then use $GOPACKAGE.
func defaultPackage(out string) string {
	if out == "" {
		return ""
	}
	base := path.Base(filepath.ToSlash(out))
	if !token.IsIdentifier(base) {
		return ""
	}
	return base
}

// entryFields are the keys a version 1 package and a version 2 sql entry
// share.
func (l *loader) entryFields(e *entry) fields {
	p := &e.pkg
	return fields{
		"name":                   l.str(&p.Name),
		"engine":                 record(&e.engine, l.str(&p.Engine)),
		"schema":                 l.reported(&e.badSchema, l.paths(&p.Schema, &p.SchemaPos)),
		"queries":                l.reported(&e.badQueries, l.paths(&p.Queries, &p.QueriesPos)),
		"fence":                  func(k string, v ast.Node) { p.Fence = l.fence(v) },
		"strict_function_checks": l.boolean(&p.StrictFunctionChecks),
		"strict_order_by":        l.boolPtr(&p.StrictOrderBy),
		// sqlc's database and analyzer keys choose whether sqlc asks a
		// live (or sqlc Cloud managed) database to analyse the queries:
		// fencegen asks a uri's database as sqlc does (Package.Database,
		// gen's dbtypes.go); a MySQL entry's database (sqlc v1.31.1 has
		// no MySQL analyzer) gets a note.
		"database": func(k string, v ast.Node) {
			var uri string
			var managed bool
			l.mapping(k, v, fields{"uri": l.str(&uri), "managed": l.boolean(&managed)})
			if !isNull(l.resolve(v)) {
				e.database = v
				e.dbURI, e.dbManaged = uri, managed
				if uri == "" && !managed {
					// sqlc's Validate refuses it before anything else.
					l.errorf(v, "database: set uri or managed: true (sqlc: database must be managed or have a non-empty URI), or remove the key to analyse the queries without a database")
				}
			}
		},
		"analyzer": func(k string, v ast.Node) {
			l.mapping(k, v, fields{"database": func(k string, v ast.Node) {
				// A boolean in sqlc v1.31.1; later versions also take
				// a string ("only"), which uses the database too.
				if _, ok := l.resolve(v).(*ast.BoolNode); ok {
					l.boolPtr(&e.analyzerDB)(k, v)
				} else {
					l.scalar(k, v)
				}
			}})
		},
		// rules name sqlc vet rules (sqlc/db-prepare, or the top-level
		// ones): they check queries, they do not change what is
		// generated, and fencegen vet does not run them, which the
		// file's one rules note says.
		"rules": l.rulesNote,
	}
}
