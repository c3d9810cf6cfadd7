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
	badSchema, badQueries          bool // reported already
}

func (l *loader) v2Entry(n ast.Node, cfg *Config) {
	e := &entry{pos: n}
	p := &e.pkg
	p.Pos = posOf(n)
	hasGo := false
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
			"*": ignore, // json, kotlin, …: other generators
		})
	}
	fs["codegen"] = ignore
	l.mapping("sql entry", n, fs)
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
	e := &entry{pos: n}
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
		"schema":                 l.reported(&e.badSchema, l.strs(&p.Schema)),
		"queries":                l.reported(&e.badQueries, l.strs(&p.Queries)),
		"fence":                  func(k string, v ast.Node) { p.Fence = l.fence(v) },
		"database":               ignore,
		"analyzer":               ignore,
		"rules":                  ignore,
		"strict_function_checks": ignore,
		"strict_order_by":        ignore,
	}
}
