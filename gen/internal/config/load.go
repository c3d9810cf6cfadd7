package config

import (
	"errors"
	"fmt"
	"go/token"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	ytoken "github.com/goccy/go-yaml/token"

	"github.com/fencegen/fencegen/gen/internal/diag"
)

// Fence modes accepted in a fence table entry.
const (
	ModeStrict    = "strict"
	ModeNonStrict = "non-strict"
)

// EnginePostgreSQL is the only engine fencegen supports.
const EnginePostgreSQL = "postgresql"

// SQLPackagePgxV5 is the only sql_package fencegen emits; it is also the
// default when sql_package is empty.
const SQLPackagePgxV5 = "pgx/v5"

// Names are the configuration file names Find looks for, in order.
var Names = []string{"fencegen.yaml", "fencegen.yml", "sqlc.yaml", "sqlc.yml", "sqlc.json"}

// ErrNotFound is wrapped by Find's error when the directory holds none of
// Names.
var ErrNotFound = errors.New("no configuration file found")

// Find returns the configuration file in dir: the first of Names that
// exists there, joined to dir (so the result is relative when dir is).
// It returns an error wrapping ErrNotFound when there is none, and any
// other error from os.Stat as is.
func Find(dir string) (string, error) {
	for _, name := range Names {
		p := filepath.Join(dir, name)
		fi, err := os.Stat(p)
		switch {
		case err == nil && !fi.IsDir():
			return p, nil
		case err != nil && !errors.Is(err, fs.ErrNotExist):
			return "", err
		}
	}
	return "", fmt.Errorf("%w in %s (looked for %s)", ErrNotFound, dir, strings.Join(Names, ", "))
}

// Load reads and validates the configuration file at path, which is kept
// as given in Config.Path and in messages. Every problem found is
// reported: the error is a diag.List of "path:line:col: message" entries.
// A file that cannot be read gives a one-entry list whose error wraps the
// os error (errors.Is(err, fs.ErrNotExist) works).
func Load(path string) (*Config, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = pe.Err.Error()
		}
		return nil, diag.List{{File: path, Msg: "cannot read configuration file: " + msg, Err: err}}.Err()
	}
	return Parse(path, src)
}

// Parse is Load for a file already read: path is used for Config.Path,
// Config.Dir and messages only.
func Parse(path string, src []byte) (*Config, error) {
	l := &loader{file: path}
	cfg := l.parse(src)
	if err := l.errs.Err(); err != nil {
		return nil, err
	}
	return cfg, nil
}

// loader walks the YAML (or JSON) syntax tree itself rather than
// unmarshalling into structs, so that it can report every unknown key and
// type error with its position in one run.
type loader struct {
	file    string
	errs    diag.List
	anchors map[string][]*ast.AnchorNode
}

// handler decodes the value v of key.
type handler func(key string, v ast.Node)

// fields maps a mapping's keys to their handlers; the key "*" handles
// every key not listed.
type fields map[string]handler

// global holds the settings that apply to every package: version 1's
// top-level overrides and rename, version 2's overrides.go.
type global struct {
	overrides []Override
	rename    map[string]string
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
	switch cfg.Version {
	case "1":
		l.mapping("configuration", root, fields{
			"version":  ignore,
			"packages": l.seq(func(n ast.Node) { l.v1Package(n, cfg) }),
			"overrides": func(k string, v ast.Node) {
				g.overrides = l.overrides(k, v)
			},
			"rename":  l.strMap(&g.rename),
			"cloud":   ignore,
			"project": ignore,
			"rules":   ignore,
		})
	case "2":
		l.mapping("configuration", root, fields{
			"version": ignore,
			"sql":     l.seq(func(n ast.Node) { l.v2Entry(n, cfg) }),
			"overrides": func(k string, v ast.Node) {
				l.mapping(k, v, fields{
					"go": func(k string, v ast.Node) {
						l.mapping(k, v, fields{
							"overrides": func(k string, v ast.Node) {
								g.overrides = l.overrides(k, v)
							},
							"rename": l.strMap(&g.rename),
						})
					},
					"*": ignore, // other languages' overrides
				})
			},
			"cloud":   ignore,
			"servers": ignore,
			"plugins": ignore,
			"rules":   ignore,
			"options": ignore,
		})
	default:
		l.errorf(vnode, `version %q not supported: want "1" or "2"`, cfg.Version)
		return nil
	}

	for i := range cfg.Packages {
		o := &cfg.Packages[i].Go
		// As sqlc: global overrides come first, global renames win.
		if len(g.overrides) > 0 {
			o.Overrides = append(append([]Override(nil), g.overrides...), o.Overrides...)
		}
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
			l.errs.Add(l.file, sk.Pos.Line, sk.Pos.Col, "engine %q not supported: fencegen generates code for %s only", sk.Engine, EnginePostgreSQL)
		}
		cfg.Skipped = nil
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

// goFields are sqlc's Go options, shared by version 2's gen.go and
// version 1's packages (which add path, and have no rename).
func (l *loader) goFields(e *entry) fields {
	o := &e.pkg.Go
	return fields{
		"package":                           record(&e.goPackage, l.str(&o.Package)),
		"sql_package":                       record(&e.sqlPackage, l.str(&o.SQLPackage)),
		"sql_driver":                        l.str(&o.SQLDriver),
		"emit_json_tags":                    l.boolean(&o.EmitJSONTags),
		"emit_db_tags":                      l.boolean(&o.EmitDBTags),
		"json_tags_case_style":              l.str(&o.JSONTagsCaseStyle),
		"json_tags_id_uppercase":            l.boolean(&o.JSONTagsIDUppercase),
		"emit_interface":                    l.boolean(&o.EmitInterface),
		"emit_exact_table_names":            l.boolean(&o.EmitExactTableNames),
		"emit_empty_slices":                 l.boolean(&o.EmitEmptySlices),
		"emit_exported_queries":             l.boolean(&o.EmitExportedQueries),
		"emit_pointers_for_null_types":      l.boolean(&o.EmitPointersForNullTypes),
		"emit_pointers_for_null_enum_types": l.boolPtr(&o.EmitPointersForNullEnumTypes),
		"emit_result_struct_pointers":       l.boolean(&o.EmitResultStructPointers),
		"emit_params_struct_pointers":       l.boolean(&o.EmitParamsStructPointers),
		"emit_methods_with_db_argument":     l.boolean(&o.EmitMethodsWithDBArgument),
		"emit_enum_valid_method":            l.boolean(&o.EmitEnumValidMethod),
		"emit_all_enum_values":              l.boolean(&o.EmitAllEnumValues),
		"emit_prepared_queries":             l.boolean(&o.EmitPreparedQueries),
		"emit_sql_as_comment":               l.boolean(&o.EmitSQLAsComment),
		"query_parameter_limit":             record(&e.paramLimit, l.intPtr(&o.QueryParameterLimit)),
		"initialisms":                       l.list(&o.Initialisms),
		"inflection_exclude_table_names":    l.list(&o.InflectionExcludeTableNames),
		"overrides": func(k string, v ast.Node) {
			o.Overrides = l.overrides(k, v)
		},
		"output_db_file_name":          l.str(&o.OutputDBFileName),
		"output_models_file_name":      l.str(&o.OutputModelsFileName),
		"output_querier_file_name":     l.str(&o.OutputQuerierFileName),
		"output_copyfrom_file_name":    l.str(&o.OutputCopyfromFileName),
		"output_batch_file_name":       l.str(&o.OutputBatchFileName),
		"output_files_suffix":          l.str(&o.OutputFilesSuffix),
		"output_query_files_directory": l.str(&o.OutputQueryFilesDirectory),
		"build_tags":                   l.str(&o.BuildTags),
		"omit_unused_structs":          l.boolean(&o.OmitUnusedStructs),
		"omit_sqlc_version":            l.boolean(&o.OmitSQLCVersion),
	}
}

// otherEngines are sqlc's other engines: their entries are left to sqlc.
var otherEngines = map[string]bool{"mysql": true, "sqlite": true}

// add validates an entry that generates Go and appends it to the
// configuration's packages, or to Skipped when it is for another engine
// sqlc supports.
func (l *loader) add(cfg *Config, e *entry) {
	if otherEngines[e.pkg.Engine] {
		if len(e.pkg.Fence) > 0 {
			l.errorf(or(e.engine, e.pos), "engine %q: fence needs a %s entry (fencegen generates code for %s only)", e.pkg.Engine, EnginePostgreSQL, EnginePostgreSQL)
		}
		p := posOf(or(e.engine, e.pos))
		cfg.Skipped = append(cfg.Skipped, Skipped{Name: e.pkg.Name, Engine: e.pkg.Engine, Out: e.pkg.Go.Out, Pos: p})
		return
	}
	l.validate(e)
	cfg.Packages = append(cfg.Packages, e.pkg)
}

// validate checks an entry that generates Go.
func (l *loader) validate(e *entry) {
	p := &e.pkg
	if p.Engine != "" && p.Engine != EnginePostgreSQL {
		l.errorf(or(e.engine, e.pos), "engine %q not supported: fencegen generates code for %s only", p.Engine, EnginePostgreSQL)
	}
	if len(p.Schema) == 0 && !e.badSchema {
		l.errorf(e.pos, `missing key "schema"`)
	}
	if len(p.Queries) == 0 && !e.badQueries {
		l.errorf(e.pos, `missing key "queries"`)
	}
	switch p.Go.SQLPackage {
	case "":
		p.Go.SQLPackage = SQLPackagePgxV5
	case SQLPackagePgxV5:
	case "database/sql", "pgx/v4":
		l.errorf(e.sqlPackage, "sql_package %q not supported: fencegen emits %s code only (set sql_package: %s)",
			p.Go.SQLPackage, SQLPackagePgxV5, SQLPackagePgxV5)
	default:
		l.errorf(e.sqlPackage, "unknown sql_package %q: fencegen emits %s code only", p.Go.SQLPackage, SQLPackagePgxV5)
	}
	if e.goPackage != nil && p.Go.Package != "" && !token.IsIdentifier(p.Go.Package) {
		l.errorf(e.goPackage, "package name %q is not a Go identifier", p.Go.Package)
	}
	if q := p.Go.QueryParameterLimit; q != nil && *q < 0 {
		l.errorf(e.paramLimit, "query_parameter_limit must not be negative")
	}
	if p.Go.EmitMethodsWithDBArgument && p.Go.EmitPreparedQueries {
		l.errorf(or(e.goNode, e.pos), "emit_methods_with_db_argument and emit_prepared_queries are mutually exclusive")
	}
}

// fence decodes a fence key: {tables: [{table, column, mode}]}.
func (l *loader) fence(n ast.Node) []FenceTable {
	var out []FenceTable
	seen := map[string]bool{}
	l.mapping("fence", n, fields{
		"tables": l.seq(func(n ast.Node) {
			t := FenceTable{Pos: posOf(n)}
			var mode ast.Node
			l.mapping("fence table", n, fields{
				"table":  l.str(&t.Table),
				"column": l.str(&t.Column),
				"mode":   record(&mode, l.str(&t.Mode)),
			})
			if !isMapping(l.resolve(n)) {
				return
			}
			ok := true
			if t.Table == "" {
				l.errorf(n, `fence table: missing key "table"`)
				ok = false
			}
			if t.Column == "" {
				l.errorf(n, `fence table: missing key "column"`)
				ok = false
			}
			switch t.Mode {
			case "", ModeStrict, ModeNonStrict:
			default:
				l.errorf(mode, "fence mode %q: want %q or %q", t.Mode, ModeStrict, ModeNonStrict)
				ok = false
			}
			if t.Table != "" && seen[t.Table] {
				l.errorf(n, "table %q is fenced twice", t.Table)
				ok = false
			}
			seen[t.Table] = true
			if ok {
				out = append(out, t)
			}
		}),
	})
	return out
}

// overrides decodes a list of sqlc Go type overrides. Overrides for other
// engines are dropped, as sqlc does.
func (l *loader) overrides(key string, n ast.Node) []Override {
	var out []Override
	l.seq(func(n ast.Node) {
		o := Override{Pos: posOf(n)}
		var engine string
		hasType := false
		l.mapping("override", n, fields{
			"db_type":  l.str(&o.DBType),
			"column":   l.str(&o.Column),
			"nullable": l.boolean(&o.Nullable),
			"null":     l.boolean(&o.Nullable), // sqlc's older spelling
			"unsigned": ignore,                 // MySQL only
			"engine":   l.str(&engine),
			"go_type": func(k string, v ast.Node) {
				hasType = true
				o.GoType = l.goType(v)
			},
			"go_struct_tag": l.str(&o.GoStructTag),
		})
		if !isMapping(l.resolve(n)) {
			return
		}
		switch {
		case o.DBType != "" && o.Column != "":
			l.errorf(n, `override: set only one of "db_type" and "column"`)
		case o.DBType == "" && o.Column == "":
			l.errorf(n, `override: missing key "db_type" or "column"`)
		case !hasType && o.GoStructTag == "":
			l.errorf(n, `override: missing key "go_type"`)
		}
		if engine != "" && engine != EnginePostgreSQL {
			return
		}
		out = append(out, o)
	})(key, n)
	return out
}

// goType decodes an override's go_type, a string or
// {import, package, type, pointer, slice}.
func (l *loader) goType(n ast.Node) GoType {
	var t GoType
	if r := l.resolve(n); r != nil && !isMapping(r) {
		t.Spec, _ = l.scalar("go_type", n)
		return t
	}
	l.mapping("go_type", n, fields{
		"import":  l.str(&t.Import),
		"package": l.str(&t.Package),
		"type":    l.str(&t.Type),
		"pointer": l.boolean(&t.Pointer),
		"slice":   l.boolean(&t.Slice),
	})
	if t.Type == "" {
		l.errorf(n, `go_type: missing key "type"`)
	}
	return t
}

// ---- generic decoding ----

func ignore(string, ast.Node) {}

// record stores the value node in *dst before calling h.
func record(dst *ast.Node, h handler) handler {
	return func(k string, v ast.Node) {
		*dst = v
		h(k, v)
	}
}

// reported sets *bad when h reports an error.
func (l *loader) reported(bad *bool, h handler) handler {
	return func(k string, v ast.Node) {
		n := len(l.errs)
		h(k, v)
		*bad = *bad || len(l.errs) > n
	}
}

func or(a, b ast.Node) ast.Node {
	if a != nil {
		return a
	}
	return b
}

func (l *loader) errorf(n ast.Node, format string, args ...any) {
	p := posOf(n)
	l.errs.Add(l.file, p.Line, p.Col, format, args...)
}

func (l *loader) collectAnchors(doc ast.Node) {
	l.anchors = map[string][]*ast.AnchorNode{}
	for _, n := range ast.Filter(ast.AnchorType, doc) {
		a := n.(*ast.AnchorNode)
		name := a.Name.GetToken().Value
		l.anchors[name] = append(l.anchors[name], a)
	}
}

// resolve follows anchors, aliases and tags to the node holding the value.
func (l *loader) resolve(n ast.Node) ast.Node {
	for range 100 {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		case *ast.MappingKeyNode:
			n = v.Value
		case *ast.AliasNode:
			n = l.alias(v)
			if n == nil {
				return nil
			}
		default:
			return n
		}
	}
	l.errorf(n, "aliases nested too deeply")
	return nil
}

// alias returns the value of the last anchor of the alias's name defined
// before it.
func (l *loader) alias(a *ast.AliasNode) ast.Node {
	name := a.Value.GetToken().Value
	off := tokenOffset(a.GetToken())
	var found *ast.AnchorNode
	for _, an := range l.anchors[name] {
		if tokenOffset(an.GetToken()) < off {
			found = an
		}
	}
	if found == nil {
		l.errorf(a, "undefined alias %q", name)
		return nil
	}
	return found.Value
}

func tokenOffset(tk *ytoken.Token) int {
	if tk == nil || tk.Position == nil {
		return 0
	}
	return tk.Position.Offset
}

func isNull(n ast.Node) bool {
	_, ok := n.(*ast.NullNode)
	return n == nil || ok
}

func isMapping(n ast.Node) bool {
	switch n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return true
	}
	return false
}

// mapValues returns the entries of a mapping node; what names it in the
// error for any other kind of node.
func (l *loader) mapValues(n ast.Node, what string) ([]*ast.MappingValueNode, bool) {
	switch m := l.resolve(n).(type) {
	case *ast.MappingNode:
		return m.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{m}, true
	case nil, *ast.NullNode:
		return nil, false
	default:
		l.errorf(n, "%s: want a mapping, found %s", what, kind(m))
		return nil, false
	}
}

// lookup returns the value of key in mapping n, or nil.
func (l *loader) lookup(n ast.Node, key string) ast.Node {
	values, _ := l.mapValues(n, "configuration")
	for _, kv := range values {
		if !kv.Key.IsMergeKey() && keyText(kv.Key) == key {
			return kv.Value
		}
	}
	return nil
}

// mapping decodes mapping n with fs, reporting every unknown key. Merge
// keys (<<) are applied first, so the mapping's own keys win.
func (l *loader) mapping(what string, n ast.Node, fs fields) {
	values, _ := l.mapValues(n, what)
	for _, kv := range values {
		if !kv.Key.IsMergeKey() {
			continue
		}
		if s, ok := l.resolve(kv.Value).(*ast.SequenceNode); ok {
			for _, m := range s.Values {
				l.mapping("<<", m, fs)
			}
		} else {
			l.mapping("<<", kv.Value, fs)
		}
	}
	for _, kv := range values {
		if kv.Key.IsMergeKey() {
			continue
		}
		key := keyText(kv.Key)
		h, ok := fs[key]
		if !ok {
			h, ok = fs["*"]
		}
		if !ok {
			if s := suggest(key, fs); s != "" {
				l.errorf(kv.Key, "unknown key %q (did you mean %q?)", key, s)
			} else {
				l.errorf(kv.Key, "unknown key %q", key)
			}
			continue
		}
		h(key, kv.Value)
	}
}

// seq returns a handler that calls each for every element of a sequence.
func (l *loader) seq(each func(ast.Node)) handler {
	return func(k string, v ast.Node) {
		switch s := l.resolve(v).(type) {
		case *ast.SequenceNode:
			for _, e := range s.Values {
				each(e)
			}
		case nil, *ast.NullNode:
		default:
			l.errorf(v, "%s: want a list, found %s", k, kind(s))
		}
	}
}

// scalar returns the text of a scalar node; ok is false for null and for
// non-scalars, which are reported.
func (l *loader) scalar(key string, n ast.Node) (string, bool) {
	switch v := l.resolve(n).(type) {
	case nil, *ast.NullNode:
		return "", false
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		return v.Value.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return v.GetToken().Value, true
	default:
		l.errorf(n, "%s: want a string, found %s", key, kind(v))
		return "", false
	}
}

func (l *loader) str(dst *string) handler {
	return func(k string, v ast.Node) {
		if s, ok := l.scalar(k, v); ok {
			*dst = s
		}
	}
}

func (l *loader) boolean(dst *bool) handler {
	return func(k string, v ast.Node) {
		switch b := l.resolve(v).(type) {
		case nil, *ast.NullNode:
		case *ast.BoolNode:
			*dst = b.Value
		default:
			l.errorf(v, "%s: want true or false, found %s", k, kind(b))
		}
	}
}

func (l *loader) boolPtr(dst **bool) handler {
	return func(k string, v ast.Node) {
		var b bool
		if _, isNull := l.resolve(v).(*ast.NullNode); isNull {
			return
		}
		l.boolean(&b)(k, v)
		*dst = &b
	}
}

func (l *loader) intPtr(dst **int) handler {
	return func(k string, v ast.Node) {
		switch i := l.resolve(v).(type) {
		case nil, *ast.NullNode:
		case *ast.IntegerNode:
			var n int
			switch x := i.Value.(type) {
			case int64:
				n = int(x)
			case uint64:
				n = int(x)
			}
			*dst = &n
		default:
			l.errorf(v, "%s: want an integer, found %s", k, kind(i))
		}
	}
}

// strs decodes a string or a list of strings.
func (l *loader) strs(dst *[]string) handler {
	return func(k string, v ast.Node) {
		if _, ok := l.resolve(v).(*ast.SequenceNode); ok {
			l.list(dst)(k, v)
			return
		}
		if s, ok := l.scalar(k, v); ok {
			*dst = []string{s}
		}
	}
}

// list decodes a list of strings; an empty list gives a non-nil slice.
func (l *loader) list(dst *[]string) handler {
	return func(k string, v ast.Node) {
		if _, ok := l.resolve(v).(*ast.SequenceNode); !ok {
			l.seq(nil)(k, v) // reports the type
			return
		}
		out := []string{}
		l.seq(func(n ast.Node) {
			if s, ok := l.scalar(k, n); ok {
				out = append(out, s)
			}
		})(k, v)
		*dst = out
	}
}

// strMap decodes a mapping of strings to strings.
func (l *loader) strMap(dst *map[string]string) handler {
	return func(k string, v ast.Node) {
		values, _ := l.mapValues(v, k)
		for _, kv := range values {
			if kv.Key.IsMergeKey() {
				l.strMap(dst)(k, kv.Value)
				continue
			}
			if s, ok := l.scalar(k, kv.Value); ok {
				if *dst == nil {
					*dst = map[string]string{}
				}
				(*dst)[keyText(kv.Key)] = s
			}
		}
	}
}

func keyText(k ast.MapKeyNode) string {
	var n ast.Node = k
	if mk, ok := n.(*ast.MappingKeyNode); ok {
		n = mk.Value
	}
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value
	case ast.ScalarNode:
		return fmt.Sprint(v.GetValue())
	}
	return n.String()
}

func kind(n ast.Node) string {
	switch n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	case *ast.BoolNode:
		return "a boolean"
	case nil, *ast.NullNode:
		return "null"
	}
	return n.Type().String()
}

// posOf returns where n starts: for a block mapping, its first key.
func posOf(n ast.Node) Position {
	switch v := n.(type) {
	case nil:
		return Position{}
	case *ast.MappingNode:
		if !v.IsFlowStyle && len(v.Values) > 0 {
			return posOf(v.Values[0])
		}
	case *ast.MappingValueNode:
		return posOf(v.Key)
	}
	return tokenPos(n.GetToken())
}

func tokenPos(tk *ytoken.Token) Position {
	if tk == nil || tk.Position == nil {
		return Position{}
	}
	return Position{Line: tk.Position.Line, Col: tk.Position.Column}
}

// suggest returns the key in fs closest to key, if it is a likely typo.
func suggest(key string, fs fields) string {
	best, bestD := "", 3
	for k := range fs {
		if k == "*" {
			continue
		}
		if d := distance(key, k); d < bestD || d == bestD && k < best {
			best, bestD = k, d
		}
	}
	if bestD >= 3 {
		return ""
	}
	return best
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			c := prev[j-1]
			if a[i-1] != b[j-1] {
				c++
			}
			cur[j] = min(c, prev[j]+1, cur[j-1]+1)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
