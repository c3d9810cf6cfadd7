package config

import (
	"go/token"
	"path"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
)

// overrides decodes a list of sqlc Go type overrides. Overrides for other
// engines are dropped, as sqlc does.
func (l *loader) overrides(key string, n ast.Node) []Override {
	var out []Override
	l.seq(func(n ast.Node) {
		o := Override{Pos: posOf(n)}
		var engine string
		var dbType, pgType, tagNode ast.Node
		hasType := false
		l.mapping("override", n, fields{
			"db_type":  record(&dbType, l.str(&o.DBType)),
			"column":   l.str(&o.Column),
			"nullable": l.boolean(&o.Nullable),
			"null":     l.boolean(&o.Nullable), // sqlc's older spelling
			// postgres_type is sqlc's older spelling of db_type.
			"postgres_type": record(&pgType, l.str(&o.DBType)),
			"unsigned":      l.boolean(&o.Unsigned),
			"engine":        l.str(&engine),
			"go_type": func(k string, v ast.Node) {
				hasType = true
				o.GoType = l.goType(v)
			},
			"go_struct_tag": record(&tagNode, l.str(&o.GoStructTag)),
		})
		if msg := structTagProblem(o.GoStructTag); msg != "" {
			l.errorf(tagNode, "go_struct_tag %q: %s: want key:\"value\" pairs separated by spaces, e.g. validate:\"required\" (sqlc refuses it too)", o.GoStructTag, msg)
		}
		if !isMapping(l.resolve(n)) {
			return
		}
		switch {
		case o.DBType != "" && o.Column != "":
			l.errorf(n, `override: set only one of "db_type" and "column"`)
		case o.DBType == "" && o.Column == "":
			l.errorf(n, `override: missing key "db_type" or "column"`)
		case !hasType && o.GoStructTag == "":
			// sqlc generates such a configuration, the override
			// changing nothing; so does fencegen, with a note.
			l.notef(n, "override has neither go_type nor go_struct_tag, so it changes nothing (as in sqlc)")
		}
		if parts := strings.Count(o.Column, ".") + 1; o.Column != "" && (parts < 2 || parts > 4) {
			// sqlc's message (its golang codegen's Override.parse).
			l.errorf(n, "override: column specifier %q is not the proper format, expected '[catalog.][schema.]tablename.colname'", o.Column)
		}
		if pgType != nil && dbType != nil {
			l.errorf(pgType, `override: set only one of "db_type" and "postgres_type"`)
		}
		// An override for another engine, or one restricted to unsigned
		// columns (only MySQL has them), is kept with its engine: Load
		// drops it from the entries it cannot apply to (forEngine).
		o.Engine = engine
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
	var typeNode ast.Node
	l.mapping("go_type", n, fields{
		"import":  l.str(&t.Import),
		"package": l.str(&t.Package),
		"type":    record(&typeNode, l.str(&t.Type)),
		"pointer": l.boolean(&t.Pointer),
		"slice":   l.boolean(&t.Slice),
	})
	switch {
	case t.Type == "":
		l.errorf(n, `go_type: missing key "type"`)
	case t.Import == "" && t.Package != "":
		// sqlc's error ("package name requires an import path").
		l.errorf(n, "go_type: package %q requires an import path (import: the package's path)", t.Package)
	case (t.Import != "" || t.Package != "") && !token.IsIdentifier(t.Type):
		// sqlc qualifies the type with the package's name as it is
		// ({import: time, type: time1.Time} gives time.time1.Time), and
		// its output does not compile.
		l.errorf(typeNode, "go_type: type %q with import or package is the type's name in that package, a Go identifier (e.g. {import: time, type: Time}; pointer: true and slice: true for * and []); sqlc writes %s.%s, which does not compile", t.Type, qualifierOf(t), t.Type)
	}
	return t
}

// globalOverrides marks overrides as configured for every package.
func globalOverrides(os []Override) []Override {
	for i := range os {
		os[i].Global = true
	}
	return os
}

// forEngine is os without the overrides that never apply to an entry of
// engine: those of another engine, and, but on MySQL, a db_type override
// restricted to unsigned columns (sqlc matches it only when its unsigned
// equals the column's, and PostgreSQL columns are never unsigned).
func forEngine(os []Override, engine string) []Override {
	var out []Override
	for _, o := range os {
		if o.Engine != "" && o.Engine != engine {
			continue
		}
		if o.Unsigned && o.DBType != "" && engine != EngineMySQL {
			continue
		}
		out = append(out, o)
	}
	return out
}

// qualifierOf is the package name sqlc qualifies an object go_type's
// type with: package, else the import path's last element.
func qualifierOf(t GoType) string {
	if t.Package != "" {
		return t.Package
	}
	return path.Base(t.Import)
}

// structTagProblem says what is wrong with a go_struct_tag that sqlc's
// parser (github.com/fatih/structtag) refuses, or "" for a valid one:
// key:"value" pairs separated by spaces, each value a Go string literal.
func structTagProblem(tag string) string {
	for tag = strings.TrimLeft(tag, " "); tag != ""; tag = strings.TrimLeft(tag, " ") {
		i := 0
		for i < len(tag) && tag[i] > ' ' && tag[i] != ':' && tag[i] != '"' && tag[i] != 0x7f {
			i++
		}
		if i == 0 || i+1 >= len(tag) || tag[i] != ':' || tag[i+1] != '"' {
			return "bad syntax for struct tag pair"
		}
		rest := tag[i+1:]
		j := 1
		for j < len(rest) && rest[j] != '"' {
			if rest[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(rest) {
			return "bad syntax for struct tag value"
		}
		if _, err := strconv.Unquote(rest[:j+1]); err != nil {
			return "bad syntax for struct tag value"
		}
		tag = rest[j+1:]
	}
	return ""
}
