package golang

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/diag"
)

// origin is where a Go name the emitter derives comes from: a query, a
// table or column, an enum, or fencegen's own generated code.
type origin struct {
	// what describes the name's role, e.g. "the SQL constant of query
	// GetJob" or "the model of table jobs".
	what string
	// file, line, col locate the SQL the name comes from ("" when none).
	file      string
	line, col int
	// fix says how to give the name up, "" for fencegen's own names.
	fix string
}

func (o origin) String() string {
	if o.file == "" {
		return o.what
	}
	return fmt.Sprintf("%s (%s:%d:%d)", o.what, o.file, o.line, o.col)
}

// origins maps the Go names the emitter derives, in three namespaces, to
// where they come from: the package block, a type's fields and methods
// (keyed "Type.Name"), and a query method's parameters.
type origins struct {
	pkg    map[string][]origin
	member map[string][]origin
}

func (o *origins) addPkg(name string, or origin) { o.pkg[name] = append(o.pkg[name], or) }
func (o *origins) addMember(typ, name string, or origin) {
	o.member[typ+"."+name] = append(o.member[typ+"."+name], or)
}

// collectOrigins records the names e derives for queries and the
// catalog's tables and enums, in the order the emitter meets them.
func (e *emitter) collectOrigins(queries []*analyze.Query) *origins {
	o := &origins{pkg: map[string][]origin{}, member: map[string][]origin{}}
	// fencegen's own names come first: a query or table that takes one
	// is the source located.
	o.addMember("Queries", "db", origin{what: "the field of type Queries that holds its DBTX"})
	o.addMember("Queries", "WithTx", origin{what: "the Queries method WithTx"})
	for _, n := range []string{"DBTX", "New", "Queries", "Querier", "Batch", "BatchResults"} {
		o.addPkg(n, origin{what: "fencegen's " + n})
	}
	for _, q := range queries {
		at := func(what string) origin {
			return origin{what: what, file: q.File, line: q.Line, col: q.Col, fix: "rename query " + q.Name}
		}
		o.addMember("Queries", q.Name, at("the method of query "+q.Name))
		o.addPkg(e.sqlConstName(q), at("the SQL constant of query "+q.Name))
		if q.Fence != nil {
			o.addPkg(storedConstName(q), at("the stored-token constant of fenced query "+q.Name))
		}
		o.addPkg(q.Name+"Params", at("the Params struct of query "+q.Name))
		o.addPkg(q.Name+"Row", at("the Row struct of query "+q.Name))
		o.addPkg(q.Name+"BatchResults", at("the BatchResults type of query "+q.Name))
		o.addPkg("iteratorFor"+q.Name, at("the copyfrom iterator of query "+q.Name))
		for i, n := range e.paramFields(q) {
			pa := at(fmt.Sprintf("parameter %s of query %s", q.Params[i].Name, q.Name))
			pa.fix = "rename the parameter (@name or sqlc.arg(name))"
			o.addMember(q.Name+"Params", n, pa)
		}
	}
	// Tables whose models share a rename key (status and statuses:
	// status), which a rename cannot tell apart.
	keys := map[string]int{}
	for t := range e.models {
		keys[e.names.modelSQLName(modelSchema(t), t.Name)]++
	}
	for _, s := range e.in.Catalog.Schemas {
		for _, t := range s.Tables {
			name, ok := e.models[t]
			if !ok {
				continue
			}
			at := func(what, fix string) origin {
				return origin{what: what, file: t.File, line: t.Line, col: t.Col, fix: fix}
			}
			fix := fmt.Sprintf("give the model another name with gen.go's rename (rename: {%s: OtherName})", e.names.modelSQLName(modelSchema(t), t.Name))
			exact := t.Name
			if sc := modelSchema(t); sc != "" && sc != catalog.DefaultSchema && sc != "pg_catalog" {
				exact = sc + "_" + t.Name
			}
			if key := e.names.modelSQLName(modelSchema(t), t.Name); key != exact && keys[key] > 1 {
				// Singularised (statuses: Status): the rename's key is
				// the singular, which names table status's model too.
				// (sqlc v1.31.1 declares the type twice.)
				fix = fmt.Sprintf("keep the model's name plural with gen.go's inflection_exclude_table_names: [%s]", exact)
			}
			o.addPkg(name, at("the model of table "+t.QualifiedName(), fix))
			for _, c := range t.Columns {
				o.addMember(name, e.names.structName(c.Name), at(fmt.Sprintf("column %s of table %s", strconv.Quote(c.Name), t.QualifiedName()),
					fmt.Sprintf("give the column another Go name with gen.go's rename (rename: {%s: OtherName})", c.Name)))
			}
		}
		for _, en := range s.Enums {
			name := e.names.structName(enumGoName(en))
			what := "enum " + qualifiedEnum(en)
			at := func(what string) origin {
				return origin{what: what, file: en.File, line: en.Line, col: en.Col,
					fix: fmt.Sprintf("give it another Go name with gen.go's rename (rename: {%s: OtherName})", enumGoName(en))}
			}
			o.addPkg(name, at("the type of "+what))
			o.addPkg("Null"+name, at("the Null type of "+what))
			o.addMember("Null"+name, name, at("the field of the Null type of "+what))
			o.addPkg("All"+name+"Values", at("the All...Values function of "+what))
			for i, c := range e.enumConstNames(en) {
				lbl := at(fmt.Sprintf("the constant of label %q of %s", en.Values[i], what))
				lbl.fix = fmt.Sprintf("give the constant another name with gen.go's rename (rename: {%s_%s: OtherName})", enumGoName(en), enumValueName(en.Values[i]))
				o.addPkg(c, lbl)
			}
		}
	}
	return o
}

// decl is one declaration found in the generated code.
type decl struct {
	name string
	file string    // the generated file
	pos  token.Pos // where, in the file set of the files checked
}

// ident is a name the generated code declares, and where (in the file
// set the file was parsed into).
type ident struct {
	name string
	pos  token.Pos
}

// member is a struct's field or a method, of type typ.
type member struct {
	typ string
	ident
}

// fileDecls is what checkCollisions reads of one generated file, taken
// from its syntax tree by declsOf: the tree itself is not kept (at a
// thousand tables, the trees of the output would be most of the heap).
type fileDecls struct {
	imports []ident // the package names the file imports
	pkg     []ident // package-level names, in order
	members []member
	funcs   []funcDecls
}

// funcDecls is what checkParams reads of one function or method.
type funcDecls struct {
	name   string
	method bool
	params []ident // in order, "_" included
	// usedAsType are the names the body uses as a type, calls, or
	// selects from as an imported package (var i T, T{...}, T(x), f(x),
	// pkg.Name).
	usedAsType map[string]bool
	// locals are the body's variables declared with :=, by a range
	// clause or by a var declaration, in the order of the source.
	locals []local
	body   bool
}

// local is a local variable; spec is set for one a var declaration
// declares.
type local struct {
	name string
	spec bool
}

// declsOf takes fileDecls from the syntax tree of a generated file. It
// reads only the tree, so render's goroutines may call it.
func declsOf(f *ast.File) *fileDecls {
	d := &fileDecls{}
	pkgs := map[string]bool{}
	for _, im := range f.Imports {
		path, _ := strconv.Unquote(im.Path.Value)
		n := packageName(path)
		if im.Name != nil {
			n = im.Name.Name
		}
		d.imports = append(d.imports, ident{n, im.Pos()})
		pkgs[n] = true
	}
	for _, dl := range f.Decls {
		switch dl := dl.(type) {
		case *ast.FuncDecl:
			if dl.Recv == nil {
				d.pkg = append(d.pkg, ident{dl.Name.Name, dl.Pos()})
			} else if typ := recvType(dl.Recv); typ != "" {
				d.members = append(d.members, member{typ, ident{dl.Name.Name, dl.Pos()}})
			}
			d.funcs = append(d.funcs, funcDeclsOf(dl, pkgs))
		case *ast.GenDecl:
			for _, s := range dl.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					d.pkg = append(d.pkg, ident{s.Name.Name, s.Pos()})
					if st, ok := s.Type.(*ast.StructType); ok {
						for _, fl := range st.Fields.List {
							for _, n := range fieldNames(fl) {
								d.members = append(d.members, member{s.Name.Name, ident{n, fl.Pos()}})
							}
						}
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						d.pkg = append(d.pkg, ident{n.Name, n.Pos()})
					}
				}
			}
		}
	}
	return d
}

// funcDeclsOf takes funcDecls from fd, whose file imports the packages
// named in pkgs.
func funcDeclsOf(fd *ast.FuncDecl, pkgs map[string]bool) funcDecls {
	d := funcDecls{name: fd.Name.Name, method: fd.Recv != nil, body: fd.Body != nil, usedAsType: map[string]bool{}}
	for _, fl := range fd.Type.Params.List {
		for _, n := range fl.Names {
			d.params = append(d.params, ident{n.Name, n.Pos()})
		}
	}
	if fd.Body == nil {
		return d
	}
	ast.Inspect(fd.Body, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.ValueSpec:
			markTypeIdents(n.Type, d.usedAsType)
			for _, id := range n.Names {
				d.locals = append(d.locals, local{id.Name, true})
			}
		case *ast.CompositeLit:
			markTypeIdents(n.Type, d.usedAsType)
		case *ast.CallExpr:
			markTypeIdents(n.Fun, d.usedAsType)
		case *ast.SelectorExpr:
			// pkg.Name of an imported package.
			if id, ok := n.X.(*ast.Ident); ok && pkgs[id.Name] {
				d.usedAsType[id.Name] = true
			}
		case *ast.AssignStmt:
			if n.Tok == token.DEFINE {
				for _, l := range n.Lhs {
					if id, ok := l.(*ast.Ident); ok {
						d.locals = append(d.locals, local{id.Name, false})
					}
				}
			}
		case *ast.RangeStmt:
			if n.Tok == token.DEFINE {
				for _, x := range []ast.Expr{n.Key, n.Value} {
					if id, ok := x.(*ast.Ident); ok {
						d.locals = append(d.locals, local{id.Name, false})
					}
				}
			}
		}
		return true
	})
	return d
}

// checkCollisions reports every Go name declared twice in one scope of
// the generated files (the package block, a struct's fields and its
// methods, a function's parameters), and every query method parameter
// that shadows a package-level name its body uses (its SQL constants), as
// located errors naming both sources. The generated code would otherwise
// not compile, or (a parameter shadowing the SQL constant of its own
// query, as sqlc lets it) compile and send the argument as the SQL.
//
// It reads the declarations render took from the syntax trees it printed
// (e.printed), so that no file is parsed twice; only when it finds a
// problem does it parse the output, whose lines the errors name.
func (e *emitter) checkCollisions(out map[string][]byte, queries []*analyze.Query) error {
	names := make([]string, 0, len(out))
	for name := range out {
		if strings.HasSuffix(name, ".go") {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	byName := make(map[string]*analyze.Query, len(queries))
	for _, q := range queries {
		if _, ok := byName[q.Name]; !ok {
			byName[q.Name] = q
		}
	}
	files := make([]*fileDecls, len(names))
	complete := true
	for i, name := range names {
		if files[i] = e.printed[name]; files[i] == nil {
			complete = false
		}
	}
	if complete {
		// Whether there is a problem does not depend on where the
		// names come from (collectOrigins) or on lines (no file set).
		if errs := e.collisions(names, files, token.NewFileSet(), byName, &origins{}); len(errs) == 0 {
			return nil
		}
	}
	fset := token.NewFileSet()
	for i, name := range names {
		f, err := parser.ParseFile(fset, name, out[name], parser.SkipObjectResolution)
		if err != nil {
			return fmt.Errorf("internal error parsing the generated %s (please report it): %v", name, err)
		}
		files[i] = declsOf(f)
	}
	return e.collisions(names, files, fset, byName, e.collectOrigins(queries)).Err()
}

// collisions is checkCollisions on the files' declarations (positions in
// fset), in the order of names; byName maps a query's name to the query.
func (e *emitter) collisions(names []string, files []*fileDecls, fset *token.FileSet, byName map[string]*analyze.Query, o *origins) diag.List {
	pkgDecls := map[string][]decl{}
	var pkgOrder []string
	members := map[string][]decl{} // "Type.name" → fields and methods
	var memberOrder []string
	var errs diag.List
	imports := map[string][]decl{} // package name → imports of it
	for i, name := range names {
		f := files[i]
		for _, im := range f.imports {
			imports[im.name] = append(imports[im.name], decl{im.name, name, im.pos})
		}
		for _, d := range f.pkg {
			if _, ok := pkgDecls[d.name]; !ok {
				pkgOrder = append(pkgOrder, d.name)
			}
			pkgDecls[d.name] = append(pkgDecls[d.name], decl{d.name, name, d.pos})
		}
		for _, m := range f.members {
			k := m.typ + "." + m.name
			if _, ok := members[k]; !ok {
				memberOrder = append(memberOrder, k)
			}
			members[k] = append(members[k], decl{m.name, name, m.pos})
		}
	}
	line := func(d decl) int { return fset.Position(d.pos).Line }
	report := func(what string, ds []decl, ors []origin) {
		if len(ors) >= 2 {
			a, b := ors[0], ors[1]
			if b.file == "" {
				a, b = b, a // located at the one with a place in the SQL
			}
			fix := b.fix
			if fix == "" {
				fix = a.fix
			}
			msg := fmt.Sprintf("Go name %s is %s and also %s: the generated code would not compile; %s", what, b.what, a, fix)
			if b.file != "" {
				errs.Add(b.file, b.line, b.col, "%s", msg)
			} else {
				errs.Add(ds[1].file, line(ds[1]), 1, "%s", msg)
			}
			return
		}
		// A name fencegen declares itself, or one the origins do not
		// explain: name its place in the generated code.
		desc := func(i int) string {
			if i < len(ors) {
				return ors[i].String()
			}
			return fmt.Sprintf("fencegen's own %s", what)
		}
		if len(ors) == 1 && ors[0].file != "" {
			errs.Add(ors[0].file, ors[0].line, ors[0].col, "Go name %s is %s and also %s: the generated code would not compile; %s", what, ors[0].what, desc(1), ors[0].fix)
			return
		}
		errs.Add(ds[1].file, line(ds[1]), 1, "Go name %s is declared twice in the generated code: %s and %s", what, desc(0), desc(1))
	}
	for _, n := range pkgOrder {
		ds := pkgDecls[n]
		if len(ds) > 1 {
			report(n, ds, o.pkg[n])
		}
		if ims, ok := imports[n]; ok && len(ds) > 0 {
			ors := o.pkg[n]
			if len(ors) > 0 && ors[0].file != "" {
				errs.Add(ors[0].file, ors[0].line, ors[0].col, "Go name %s is %s and also the name of package %s, which the generated %s imports: rename it", n, ors[0].what, n, ims[0].file)
			} else {
				errs.Add(ds[0].file, line(ds[0]), 1, "Go name %s is declared and also the name of a package the generated %s imports", n, ims[0].file)
			}
		}
	}
	for _, k := range memberOrder {
		if typ, _, _ := strings.Cut(k, "."); len(pkgDecls[typ]) > 1 {
			continue // the type itself is declared twice, reported above
		}
		if ds := members[k]; len(ds) > 1 {
			report(k, ds, o.member[k])
		}
	}
	for i, name := range names {
		for j := range files[i].funcs {
			errs = append(errs, e.checkParams(&files[i].funcs[j], name, fset, byName)...)
		}
	}
	return errs
}

// checkParams reports a function's parameters declared twice, and a
// query method's parameter named as the SQL constant its body sends.
func (e *emitter) checkParams(fd *funcDecls, file string, fset *token.FileSet, byName map[string]*analyze.Query) diag.List {
	var errs diag.List
	seen := map[string]bool{}
	var q *analyze.Query
	if fd.method {
		q = byName[fd.name]
	}
	shadowed := map[string]string{}
	if q != nil {
		shadowed[e.sqlConstName(q)] = "the SQL constant of query " + q.Name
		if q.Fence != nil {
			shadowed[storedConstName(q)] = "the stored-token constant of fenced query " + q.Name
		}
		shadowed["iteratorFor"+q.Name] = "the copyfrom iterator of query " + q.Name
	}
	if q != nil && fd.body {
		retName := sync.OnceValue(func() string { return e.signature(q).retName })
		// A local of the method's body (batch := ..., for _, a := range)
		// named as the query's constant would shadow it as well.
		reported := map[string]bool{}
		for _, l := range fd.locals {
			what, ok := shadowed[l.name]
			if !ok || reported[l.name] {
				continue // nothing to shadow
			}
			// An unfenced method declares a one-column result's variable
			// (named as sqlc names it, which may be the constant's name)
			// after the constant's one use.
			if l.spec && q.Fence == nil && l.name == retName() {
				continue
			}
			// sqlc's body of an unfenced query that is not a batch uses
			// the constant before these locals are in scope.
			if e.declaredAfterUse(q, l.name) {
				continue
			}
			reported[l.name] = true
			errs.Add(q.File, q.Line, q.Col, "query %s: %s has the Go name %s, which the generated method also gives one of its local variables: rename the query", q.Name, what, l.name)
		}
	}
	for _, n := range fd.params {
		if n.name == "_" {
			continue
		}
		// Names the body uses as a type or calls (var i T, T{...},
		// T(x), f(x)): a parameter of that name would shadow them.
		if fd.usedAsType[n.name] && q != nil {
			errs.Add(q.File, q.Line, q.Col, "query %s: its parameter %s has the Go name of a type, function or package the generated method uses, which it would shadow: rename the parameter (sqlc.arg(name) or @name), or give the type another name with gen.go's rename", q.Name, n.name)
			continue
		}
		if seen[n.name] {
			if q != nil {
				errs.Add(q.File, q.Line, q.Col, "query %s: two parameters are both named %s in Go: rename one (sqlc.arg(name) or @name)", q.Name, n.name)
			} else {
				errs.Add(file, fset.Position(n.pos).Line, 1, "parameter %s of %s is declared twice in the generated code", n.name, fd.name)
			}
		}
		seen[n.name] = true
		if what, ok := shadowed[n.name]; ok {
			errs.Add(q.File, q.Line, q.Col, "query %s: its parameter %s has the Go name of %s, which it would shadow in the method (the argument would be sent as the SQL): rename the parameter (sqlc.arg(name) or @name) or the query", q.Name, n.name, what)
		}
	}
	return errs
}

// markTypeIdents records the identifier that type (or called function)
// expression x names, through pointers, slices and maps.
func markTypeIdents(x ast.Expr, into map[string]bool) {
	switch x := x.(type) {
	case *ast.Ident:
		into[x.Name] = true
	case *ast.StarExpr:
		markTypeIdents(x.X, into)
	case *ast.ArrayType:
		markTypeIdents(x.Elt, into)
	case *ast.MapType:
		markTypeIdents(x.Key, into)
		markTypeIdents(x.Value, into)
	case *ast.ParenExpr:
		markTypeIdents(x.X, into)
	}
}

// recvType is the name of a method receiver's type: T for t T and t *T.
func recvType(l *ast.FieldList) string {
	if l == nil || len(l.List) == 0 {
		return ""
	}
	t := l.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// fieldNames are the names a struct field declares: its names, or for an
// embedded field its type's name.
func fieldNames(f *ast.Field) []string {
	if len(f.Names) > 0 {
		var out []string
		for _, n := range f.Names {
			out = append(out, n.Name)
		}
		return out
	}
	t := f.Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	switch t := t.(type) {
	case *ast.Ident:
		return []string{t.Name}
	case *ast.SelectorExpr:
		return []string{t.Sel.Name}
	}
	return nil
}
