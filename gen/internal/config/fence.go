package config

import "github.com/goccy/go-yaml/ast"

// fence decodes a fence key: {tables: [{table, column, mode}]}.
func (l *loader) fence(n ast.Node) []FenceTable {
	var out []FenceTable
	seen := map[string]ast.Node{}
	l.mapping("fence", n, fields{
		"tables": l.seq(func(n ast.Node) {
			t := FenceTable{Pos: posOf(n)}
			var mode, table, column ast.Node
			l.mapping("fence table", n, fields{
				"table":  record(&table, l.str(&t.Table)),
				"column": record(&column, l.str(&t.Column)),
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
			t.TablePos, t.ColumnPos = posOf(or(table, n)), posOf(or(column, n))
			if t.Table != "" {
				switch parts, err := SplitName(t.Table); {
				case err != nil:
					l.errorf(table, "fence table: %v", err)
					ok = false
				case len(parts) > 2:
					l.errorf(table, "fence table %q: want table or schema.table", t.Table)
					ok = false
				case len(parts) == 2:
					t.TableSchema, t.TableName = parts[0], parts[1]
				default:
					t.TableName = parts[0]
				}
			}
			if t.Column != "" {
				switch parts, err := SplitName(t.Column); {
				case err != nil:
					l.errorf(column, "fence column: %v", err)
					ok = false
				case len(parts) != 1:
					l.errorf(column, "fence column %q: want a column name (the table goes in table)", t.Column)
					ok = false
				default:
					t.ColumnName = parts[0]
				}
			}
			key := t.TableSchema + "." + t.TableName
			if t.TableName != "" && seen[key] != nil {
				l.errorf(n, "table %q is fenced twice (also at line %d)", t.Table, posOf(seen[key]).Line)
				ok = false
			}
			if t.TableName != "" && seen[key] == nil {
				seen[key] = n
			}
			if ok {
				out = append(out, t)
			}
		}),
	})
	return out
}
