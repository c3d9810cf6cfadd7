package config

import (
	"path"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// sqlc runs code generators other than its built-in gen.go and gen.json as
// plugins: a top-level plugins list names each one (a WebAssembly module
// or a process), and a sql entry's codegen list runs them with
// plugin-specific options. fencegen runs no plugins. The one plugin whose
// meaning it knows is sqlc-gen-go, sqlc's Go generator built as a plugin,
// whose options are gen.go's: a codegen item that runs it is read as a
// gen.go with out set to the item's out.

// plugin is one entry of the top-level plugins list.
type plugin struct {
	name, url, cmd string
}

// codegenUse is one item of a sql entry's codegen list.
type codegenUse struct {
	node, pluginNode ast.Node
	plugin, out      string
	options          ast.Node
	entry            *entry // the sql entry's keys, for a new package
}

// plugins decodes the top-level plugins list.
func (l *loader) plugins(k string, v ast.Node) {
	l.plugin = map[string]plugin{}
	l.seq(func(n ast.Node) {
		var p plugin
		var nameNode, process, wasm ast.Node
		l.mapping("plugin", n, fields{
			"name": record(&nameNode, l.str(&p.name)),
			"env":  l.list(new([]string)),
			"process": func(k string, v ast.Node) {
				process = v
				l.mapping(k, v, fields{"cmd": l.str(&p.cmd), "format": ignore})
			},
			"wasm": func(k string, v ast.Node) {
				wasm = v
				l.mapping(k, v, fields{"url": l.str(&p.url), "sha256": ignore})
			},
		})
		if !isMapping(l.resolve(n)) {
			return
		}
		// sqlc's checks of the list (its config's v2ParseConfig), each
		// an error there too, with its message.
		_, dup := l.plugin[p.name]
		switch {
		case p.name == "":
			l.errorf(n, "plugin: missing name (sqlc: missing plugin name)")
		case p.name == "go" || p.name == "json":
			l.errorf(nameNode, "plugin name %q is sqlc's built-in gen.%s (sqlc: a built-in plugin with that name already exists)", p.name, p.name)
		case dup:
			l.errorf(nameNode, "plugin %q: a plugin with that name already exists", p.name)
		case process == nil && wasm == nil:
			l.errorf(n, "plugin %q: field process or wasm required", p.name)
		case process != nil && wasm != nil:
			l.errorf(n, "plugin %q: process and wasm cannot both be defined", p.name)
		case process != nil && p.cmd == "":
			l.errorf(process, "plugin %q: missing process command (process.cmd)", p.name)
		}
		if p.name != "" && !dup {
			l.plugin[p.name] = p
		}
	})(k, v)
}

// isSqlcGenGo reports whether p is sqlc-gen-go, by the name of its
// WebAssembly module (sqlc-gen-go_1.3.0.wasm) or of its command.
func (p plugin) isSqlcGenGo() bool {
	for _, s := range []string{p.url, p.cmd} {
		if s != "" && strings.HasPrefix(path.Base(s), "sqlc-gen-go") {
			return true
		}
	}
	return false
}

// resolveCodegen turns the codegen items that run sqlc-gen-go into
// packages; the others are listed in unsupported.
func (l *loader) resolveCodegen(cfg *Config) (unsupported []*codegenUse) {
	for _, u := range l.codegen {
		p, ok := l.plugin[u.plugin]
		switch {
		case u.plugin == "":
			l.errorf(u.node, `codegen: missing key "plugin"`)
			continue
		case !ok:
			l.errorf(or(u.pluginNode, u.node), "codegen: plugin %q is not defined in plugins", u.plugin)
			continue
		case !p.isSqlcGenGo():
			if u.out == "" {
				// sqlc's ErrNoOutPath, for every codegen item.
				l.errorf(u.node, `codegen: missing key "out"`)
				continue
			}
			unsupported = append(unsupported, u)
			continue
		}
		e := u.entry
		e.goNode = or(u.options, u.node)
		if u.options != nil {
			gfs := l.goFields(e)
			gfs["out"] = ignore // the plugin writes under the codegen item's out
			gfs["rename"] = l.strMap(&e.pkg.Go.Rename)
			l.mapping("options", u.options, gfs)
		}
		e.pkg.Go.Out = u.out
		if e.pkg.Go.Out == "" {
			l.errorf(u.node, `codegen: missing key "out"`)
		}
		if e.pkg.Engine == "" {
			l.errorf(e.pos, `missing key "engine": want %q`, EnginePostgreSQL)
		}
		if e.pkg.Go.Package == "" {
			e.pkg.Go.Package = defaultPackage(e.pkg.Go.Out)
		}
		l.add(cfg, e)
	}
	return unsupported
}
