package config

import (
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
		var dbType, pgType ast.Node
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
