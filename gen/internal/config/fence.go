package config

import "github.com/goccy/go-yaml/ast"

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
