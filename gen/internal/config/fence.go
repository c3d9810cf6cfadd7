package config

import "github.com/goccy/go-yaml/ast"

// fence decodes a fence key: {tables: [{table, column, mode}]}.
func (l *loader) fence(n ast.Node) []FenceTable {
	var out []FenceTable
	seen := map[string]ast.Node{}
	items := 0
	l.mapping("fence", n, fields{
		"tables": l.seq(func(n ast.Node) {
			items++
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
			case "", ModeStrict, ModeNonStrict, ModeRequired:
			default:
				l.errorf(mode, "fence mode %q: want %q, %q or %q", t.Mode, ModeStrict, ModeNonStrict, ModeRequired)
				// The table and column are still checked against the
				// schemas (LoadAll's configuration, not generated
				// from), as with the mode left out.
				t.Mode = ""
				l.benign++
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
	if items == 0 && isMapping(l.resolve(n)) || isNull(l.resolve(n)) {
		l.notef(n, "fence: no tables are listed, so this fence key fences nothing (list them as fence: {tables: [{table: ..., column: ...}]})")
	}
	return out
}

// fenceKey is the table a fence table entry names, as schema.table with
// an unqualified name read in schema public (the schema sqlc and
// PostgreSQL's default search_path resolve it in).
func fenceKey(t FenceTable) string {
	s := t.TableSchema
	if s == "" {
		s = "public"
	}
	return s + "." + t.TableName
}

// EntryName names the sql entry p in a message: its name, else its Go
// package's, else its out directory ("sql entry pgdb").
func EntryName(p *Package) string {
	name := p.Name
	if name == "" {
		name = p.Go.Package
	}
	if name == "" {
		name = p.Go.Out
	}
	return "sql entry " + name
}

// spreadFences applies the configuration's fenced tables to every sql
// entry: a database has one guard trigger per table, so a table fenced
// anywhere in the file is fenced in every entry whose schema has a table
// of that qualified name, as the tables of an extending configuration
// are (FenceTable.AnyEntry). top are the tables of the top-level fence
// key, which apply to every entry. A table fenced by an entry's own key
// is copied to each other entry without a mark of that table, with From
// naming the entry it came from; one fenced in two entries with another
// column or mode, or both at the top level and in an entry, is an error
// naming both places. (The marks as the schemas read them are compared
// again across entries by the generator, with the COMMENT marks.)
func (l *loader) spreadFences(cfg *Config, top []FenceTable) {
	type owner struct {
		t   FenceTable
		pkg *Package
	}
	own := map[string]owner{}
	var order []string
	for i := range cfg.Packages {
		p := &cfg.Packages[i]
		for _, t := range p.Fence {
			if t.AnyEntry {
				continue
			}
			k := fenceKey(t)
			for _, tt := range top {
				if fenceKey(tt) == k {
					l.errs.Add(l.file, t.Pos.Line, t.Pos.Col, "table %q is fenced both here and by the top-level fence key (line %d): fence it in one place", t.Table, tt.Pos.Line)
				}
			}
			o, seen := own[k]
			if !seen {
				own[k] = owner{t, p}
				order = append(order, k)
				continue
			}
			switch {
			case o.t.ColumnName != t.ColumnName:
				l.errs.Add(l.file, t.Pos.Line, t.Pos.Col, "table %q is fenced by column %q here but by column %q at line %d, in %s: a database has one guard per table, so every sql entry must fence it alike",
					t.Table, t.Column, o.t.Column, o.t.Pos.Line, EntryName(o.pkg))
			case o.t.Mode != "" && t.Mode != "" && o.t.Mode != t.Mode:
				// One mode left out is compared once the schemas are
				// read: a column comment may give it.
				l.errs.Add(l.file, t.Pos.Line, t.Pos.Col, "table %q is fenced with mode %s here but %s at line %d, in %s: a database has one guard per table, so every sql entry must fence it alike",
					t.Table, t.Mode, o.t.Mode, o.t.Pos.Line, EntryName(o.pkg))
			}
		}
	}
	for i := range cfg.Packages {
		p := &cfg.Packages[i]
		has := map[string]bool{}
		for _, t := range p.Fence {
			has[fenceKey(t)] = true
		}
		for _, k := range order {
			o := own[k]
			if o.pkg == p || has[k] {
				continue
			}
			t := o.t
			t.AnyEntry = true
			t.From = EntryName(o.pkg)
			p.Fence = append(p.Fence, t)
		}
		for _, t := range top {
			if !has[fenceKey(t)] {
				t.AnyEntry = true
				p.Fence = append(p.Fence, t)
			}
		}
	}
}
