package main

import (
	"bytes"
	"fmt"
	"go/ast"
	"go/parser"
	"go/printer"
	"go/token"
	"path"
	"sort"
	"strings"
)

// API is the exported surface of the Go packages one generator run wrote,
// keyed by the package's directory (slash-separated, relative to the
// configuration file's directory).
type API map[string]*PkgAPI

// PkgAPI is the exported surface of one package.
type PkgAPI struct {
	Name  string              `json:"name"`
	Types map[string]*TypeAPI `json:"types"`
	Funcs map[string]string   `json:"funcs"`  // "New" or "(*Queries).GetAuthor" → signature
	Vals  map[string]string   `json:"values"` // "const X" / "var X" → "Type = value"
	Errs  []string            `json:"parse_errors,omitempty"`
}

// TypeAPI is one exported type declaration.
type TypeAPI struct {
	// Kind is "struct", "interface", or for any other type the printed
	// underlying type expression ("string", "[]Foo", …); aliases are
	// prefixed with "= ".
	Kind    string            `json:"kind"`
	Params  string            `json:"type_params,omitempty"`
	Fields  []FieldAPI        `json:"fields,omitempty"`
	Methods map[string]string `json:"methods,omitempty"` // interface methods and embedded interfaces ("embed X")
}

// FieldAPI is one exported struct field; embedded fields are named by
// their printed type.
type FieldAPI struct {
	Name string `json:"name"`
	Type string `json:"type"`
	Tag  string `json:"tag,omitempty"`
}

// ExtractAPI parses the .go files of files (path → contents) and returns
// the exported API of every package directory.
func ExtractAPI(files map[string][]byte) API {
	api := API{}
	names := make([]string, 0, len(files))
	for n := range files {
		if strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	fset := token.NewFileSet()
	for _, n := range names {
		dir := path.Dir(n)
		p := api[dir]
		if p == nil {
			p = &PkgAPI{Types: map[string]*TypeAPI{}, Funcs: map[string]string{}, Vals: map[string]string{}}
			api[dir] = p
		}
		f, err := parser.ParseFile(fset, n, files[n], parser.SkipObjectResolution)
		if err != nil {
			p.Errs = append(p.Errs, err.Error())
			if f == nil {
				continue
			}
		}
		p.Name = f.Name.Name
		canonImports(f)
		p.addFile(fset, f)
	}
	return api
}

func expr(fset *token.FileSet, e ast.Node) string {
	if e == nil {
		return ""
	}
	var b bytes.Buffer
	if err := printer.Fprint(&b, fset, e); err != nil {
		return fmt.Sprintf("<%v>", err)
	}
	// Normalise multi-line expressions (struct/interface literals in
	// signatures) to one line.
	return strings.Join(strings.Fields(b.String()), " ")
}

func fieldTypes(fset *token.FileSet, fl *ast.FieldList) []string {
	if fl == nil {
		return nil
	}
	var out []string
	for _, f := range fl.List {
		t := expr(fset, f.Type)
		n := len(f.Names)
		if n == 0 {
			n = 1
		}
		for i := 0; i < n; i++ {
			out = append(out, t)
		}
	}
	return out
}

// signature prints a function type without parameter names:
// "(context.Context, int64) (Author, error)".
func signature(fset *token.FileSet, ft *ast.FuncType) string {
	s := ""
	if ft.TypeParams != nil {
		s = "[" + typeParams(fset, ft.TypeParams) + "]"
	}
	s += "(" + strings.Join(fieldTypes(fset, ft.Params), ", ") + ")"
	res := fieldTypes(fset, ft.Results)
	switch len(res) {
	case 0:
	case 1:
		s += " " + res[0]
	default:
		s += " (" + strings.Join(res, ", ") + ")"
	}
	return s
}

func typeParams(fset *token.FileSet, fl *ast.FieldList) string {
	var parts []string
	for _, f := range fl.List {
		for range f.Names {
			parts = append(parts, expr(fset, f.Type)) // names ignored, constraints kept
		}
	}
	return strings.Join(parts, ", ")
}

// recvBase returns the base type name of a receiver expression.
func recvBase(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.ParenExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// recvString prints a receiver type without type-parameter names
// ("*Queries", "*Queries[_]").
func recvString(fset *token.FileSet, e ast.Expr) string {
	star := ""
	if s, ok := e.(*ast.StarExpr); ok {
		star, e = "*", s.X
	}
	switch x := e.(type) {
	case *ast.IndexExpr:
		return star + recvBase(x.X) + "[_]"
	case *ast.IndexListExpr:
		return star + recvBase(x.X) + "[" + strings.TrimSuffix(strings.Repeat("_, ", len(x.Indices)), ", ") + "]"
	}
	return star + expr(fset, e)
}

func (p *PkgAPI) addFile(fset *token.FileSet, f *ast.File) {
	for _, d := range f.Decls {
		switch d := d.(type) {
		case *ast.FuncDecl:
			if !d.Name.IsExported() {
				continue
			}
			key := d.Name.Name
			if d.Recv != nil && len(d.Recv.List) > 0 {
				rt := d.Recv.List[0].Type
				if !ast.IsExported(recvBase(rt)) {
					continue
				}
				key = "(" + recvString(fset, rt) + ")." + d.Name.Name
			}
			p.Funcs[key] = signature(fset, d.Type)
		case *ast.GenDecl:
			switch d.Tok {
			case token.TYPE:
				for _, s := range d.Specs {
					ts := s.(*ast.TypeSpec)
					if !ts.Name.IsExported() {
						continue
					}
					p.Types[ts.Name.Name] = typeAPI(fset, ts)
				}
			case token.CONST, token.VAR:
				for _, s := range d.Specs {
					vs := s.(*ast.ValueSpec)
					for i, n := range vs.Names {
						if !n.IsExported() {
							continue
						}
						v := expr(fset, vs.Type)
						if i < len(vs.Values) {
							if v != "" {
								v += " "
							}
							v += "= " + expr(fset, vs.Values[i])
						}
						p.Vals[d.Tok.String()+" "+n.Name] = v
					}
				}
			}
		}
	}
}

func typeAPI(fset *token.FileSet, ts *ast.TypeSpec) *TypeAPI {
	t := &TypeAPI{}
	if ts.TypeParams != nil {
		t.Params = typeParams(fset, ts.TypeParams)
	}
	switch x := ts.Type.(type) {
	case *ast.StructType:
		t.Kind = "struct"
		for _, f := range x.Fields.List {
			tag := ""
			if f.Tag != nil {
				tag = f.Tag.Value
			}
			typ := expr(fset, f.Type)
			if len(f.Names) == 0 {
				name := recvBase(f.Type)
				if sel, ok := f.Type.(*ast.SelectorExpr); ok {
					name = sel.Sel.Name
				} else if st, ok := f.Type.(*ast.StarExpr); ok {
					if sel, ok := st.X.(*ast.SelectorExpr); ok {
						name = sel.Sel.Name
					}
				}
				if ast.IsExported(name) {
					t.Fields = append(t.Fields, FieldAPI{Name: "embed " + typ, Type: typ, Tag: tag})
				}
				continue
			}
			for _, n := range f.Names {
				if n.IsExported() {
					t.Fields = append(t.Fields, FieldAPI{Name: n.Name, Type: typ, Tag: tag})
				}
			}
		}
	case *ast.InterfaceType:
		t.Kind = "interface"
		t.Methods = map[string]string{}
		for _, m := range x.Methods.List {
			if ft, ok := m.Type.(*ast.FuncType); ok {
				for _, n := range m.Names {
					t.Methods[n.Name] = signature(fset, ft)
				}
				continue
			}
			e := expr(fset, m.Type)
			t.Methods["embed "+e] = e
		}
	default:
		t.Kind = expr(fset, ts.Type)
	}
	if ts.Assign.IsValid() {
		t.Kind = "= " + t.Kind
	}
	return t
}

// Diff is one difference between sqlc's API (Sqlc) and fencegen's (Fence).
type Diff struct {
	Kind  string `json:"kind"` // "missing" (in fencegen), "extra" (in fencegen), "differs", "order"
	Item  string `json:"item"`
	Sqlc  string `json:"sqlc,omitempty"`
	Fence string `json:"fencegen,omitempty"`
}

func (d Diff) String() string {
	switch d.Kind {
	case "missing":
		return fmt.Sprintf("missing in fencegen: %s %s", d.Item, d.Sqlc)
	case "extra":
		return fmt.Sprintf("extra in fencegen: %s %s", d.Item, d.Fence)
	case "order":
		return fmt.Sprintf("field order %s: sqlc [%s] vs fencegen [%s]", d.Item, d.Sqlc, d.Fence)
	}
	return fmt.Sprintf("%s: sqlc `%s` vs fencegen `%s`", d.Item, d.Sqlc, d.Fence)
}

func sortedKeys[V any](m map[string]V) []string {
	ks := make([]string, 0, len(m))
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}

// CompareAPI lists the differences between sqlc's API and fencegen's. Item
// names carry the package directory only when either side has more than
// one package.
func CompareAPI(sqlc, fence API) []Diff {
	var diffs []Diff
	multi := len(sqlc) > 1 || len(fence) > 1
	dirs := map[string]bool{}
	for d := range sqlc {
		dirs[d] = true
	}
	for d := range fence {
		dirs[d] = true
	}
	for _, dir := range sortedKeys(dirs) {
		prefix := ""
		if multi {
			prefix = dir + ": "
		}
		s, f := sqlc[dir], fence[dir]
		switch {
		case s == nil:
			diffs = append(diffs, Diff{Kind: "extra", Item: "package dir " + dir, Fence: f.summary()})
			continue
		case f == nil:
			diffs = append(diffs, Diff{Kind: "missing", Item: "package dir " + dir, Sqlc: s.summary()})
			continue
		}
		diffs = append(diffs, comparePkg(prefix, s, f)...)
	}
	return diffs
}

func (p *PkgAPI) summary() string {
	return fmt.Sprintf("(package %s: %d types, %d funcs)", p.Name, len(p.Types), len(p.Funcs))
}

func compareMaps(prefix string, s, f map[string]string, add func(Diff)) {
	keys := map[string]bool{}
	for k := range s {
		keys[k] = true
	}
	for k := range f {
		keys[k] = true
	}
	for _, k := range sortedKeys(keys) {
		sv, sok := s[k]
		fv, fok := f[k]
		switch {
		case !fok:
			add(Diff{Kind: "missing", Item: prefix + k, Sqlc: sv})
		case !sok:
			add(Diff{Kind: "extra", Item: prefix + k, Fence: fv})
		case sv != fv:
			add(Diff{Kind: "differs", Item: prefix + k, Sqlc: sv, Fence: fv})
		}
	}
}

func comparePkg(prefix string, s, f *PkgAPI) []Diff {
	var diffs []Diff
	add := func(d Diff) { diffs = append(diffs, d) }
	if s.Name != f.Name {
		add(Diff{Kind: "differs", Item: prefix + "package name", Sqlc: s.Name, Fence: f.Name})
	}
	types := map[string]bool{}
	for k := range s.Types {
		types[k] = true
	}
	for k := range f.Types {
		types[k] = true
	}
	for _, name := range sortedKeys(types) {
		st, ft := s.Types[name], f.Types[name]
		item := prefix + "type " + name
		switch {
		case ft == nil:
			add(Diff{Kind: "missing", Item: item, Sqlc: st.brief()})
			continue
		case st == nil:
			add(Diff{Kind: "extra", Item: item, Fence: ft.brief()})
			continue
		}
		if st.Kind != ft.Kind || st.Params != ft.Params {
			add(Diff{Kind: "differs", Item: item, Sqlc: st.brief(), Fence: ft.brief()})
			continue
		}
		switch st.Kind {
		case "struct", "= struct":
			diffs = append(diffs, compareFields(prefix+name, st.Fields, ft.Fields)...)
		case "interface", "= interface":
			compareMaps(prefix+name+".", st.Methods, ft.Methods, add)
		}
	}
	compareMaps(prefix+"func ", s.Funcs, f.Funcs, add)
	compareMaps(prefix, s.Vals, f.Vals, add)
	return diffs
}

func (t *TypeAPI) brief() string {
	k := t.Kind
	if t.Params != "" {
		k = "[" + t.Params + "] " + k
	}
	switch t.Kind {
	case "struct", "= struct":
		var names []string
		for _, f := range t.Fields {
			names = append(names, f.Name+" "+f.Type)
		}
		return k + "{" + strings.Join(names, "; ") + "}"
	case "interface", "= interface":
		return k + "{" + strings.Join(sortedKeys(t.Methods), "; ") + "}"
	}
	return k
}

func (f FieldAPI) String() string {
	if f.Tag != "" {
		return f.Type + " " + f.Tag
	}
	return f.Type
}

func compareFields(typ string, s, f []FieldAPI) []Diff {
	var diffs []Diff
	sm, fm := map[string]FieldAPI{}, map[string]FieldAPI{}
	for _, x := range s {
		sm[x.Name] = x
	}
	for _, x := range f {
		fm[x.Name] = x
	}
	var sOrder, fOrder []string
	for _, x := range s {
		y, ok := fm[x.Name]
		if !ok {
			diffs = append(diffs, Diff{Kind: "missing", Item: "field " + typ + "." + x.Name, Sqlc: x.String()})
			continue
		}
		sOrder = append(sOrder, x.Name)
		if x != y {
			diffs = append(diffs, Diff{Kind: "differs", Item: "field " + typ + "." + x.Name, Sqlc: x.String(), Fence: y.String()})
		}
	}
	for _, y := range f {
		if _, ok := sm[y.Name]; !ok {
			diffs = append(diffs, Diff{Kind: "extra", Item: "field " + typ + "." + y.Name, Fence: y.String()})
			continue
		}
		fOrder = append(fOrder, y.Name)
	}
	if strings.Join(sOrder, ",") != strings.Join(fOrder, ",") {
		diffs = append(diffs, Diff{Kind: "order", Item: typ, Sqlc: strings.Join(sOrder, ", "), Fence: strings.Join(fOrder, ", ")})
	}
	return diffs
}

// canonImports renames every package qualifier in f to the default name
// of the imported path, so that import aliases (uuid vs fuid) do not show
// up as API differences.
func canonImports(f *ast.File) {
	names := map[string]string{} // local name → canonical name
	for _, im := range f.Imports {
		p := strings.Trim(im.Path.Value, "`\"")
		canon := defaultPkgName(p)
		local := canon
		if im.Name != nil {
			local = im.Name.Name
		}
		if local != "_" && local != "." {
			names[local] = canon
		}
	}
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if id, ok := sel.X.(*ast.Ident); ok {
				if c, ok := names[id.Name]; ok {
					id.Name = c
				}
			}
		}
		return true
	})
}

// defaultPkgName guesses the package name of an import path without
// loading it: the last element, skipping a major-version suffix ("/v5"),
// without a ".vN" suffix (gopkg.in) or "go-" prefix.
func defaultPkgName(p string) string {
	els := strings.Split(p, "/")
	last := els[len(els)-1]
	if len(els) > 1 && len(last) > 1 && last[0] == 'v' && strings.Trim(last[1:], "0123456789") == "" {
		last = els[len(els)-2]
	}
	if i := strings.Index(last, ".v"); i > 0 {
		last = last[:i]
	}
	last = strings.TrimPrefix(last, "go-")
	return strings.NewReplacer("-", "_", ".", "_").Replace(last)
}

// Lines lists the API one item a line, sorted: the package name, every
// type (its kind, or "struct"/"interface"), every exported struct field
// with its type and tag, every interface method, function, method,
// constant and variable with its signature or type and value. Each line
// starts with the package directory, so the lines of two runs compare
// one to one; field order is not part of a line (CompareAPI reports it).
func (a API) Lines() []string {
	var ls []string
	for _, dir := range sortedKeys(a) {
		p := a[dir]
		add := func(format string, args ...any) {
			ls = append(ls, dir+": "+fmt.Sprintf(format, args...))
		}
		add("package %s", p.Name)
		for _, name := range sortedKeys(p.Types) {
			t := p.Types[name]
			params := ""
			if t.Params != "" {
				params = "[" + t.Params + "]"
			}
			add("type %s%s %s", name, params, t.Kind)
			for _, f := range t.Fields {
				add("field %s.%s %s", name, f.Name, f)
			}
			for _, m := range sortedKeys(t.Methods) {
				add("method %s.%s %s", name, m, t.Methods[m])
			}
		}
		for _, k := range sortedKeys(p.Funcs) {
			add("func %s %s", k, p.Funcs[k])
		}
		for _, k := range sortedKeys(p.Vals) {
			add("%s %s", k, p.Vals[k])
		}
	}
	sort.Strings(ls)
	return ls
}

// SameLines counts the lines of sqlc that fence has identically, each
// line of fence matching at most one of sqlc.
func SameLines(sqlc, fence []string) int {
	have := map[string]int{}
	for _, l := range fence {
		have[l]++
	}
	n := 0
	for _, l := range sqlc {
		if have[l] > 0 {
			have[l]--
			n++
		}
	}
	return n
}
