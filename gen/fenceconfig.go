package gen

import (
	"fmt"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/config"
	"github.com/fencegen/fencegen/gen/internal/diag"
)

// markConfigFences marks the fencing-token columns pkg's fence key names
// in cat, the names read as PostgreSQL reads identifiers
// (config.SplitName). A table or column the schema does not have is an
// error at its value in the configuration, with the closest name the
// schema has; found records the entries of an extending configuration
// (config.FenceTable.AnyEntry) whose table this schema has.
func markConfigFences(cat *catalog.Catalog, cfgPath string, pkg config.Package, found map[config.Position]bool) diag.List {
	var errs diag.List
	for _, ft := range pkg.Fence {
		file := cfgPath
		if ft.File != "" {
			file = ft.File
		}
		t := cat.Table(ft.TableSchema, ft.TableName)
		if t != nil && t.Schema == "pg_catalog" || t != nil && t.Schema == "information_schema" {
			t = nil // a system catalog is never fenced
		}
		if t == nil {
			if !ft.AnyEntry {
				errs.Add(file, ft.TablePos.Line, ft.TablePos.Col, "fence: table %s does not exist in the schema%s", quoted(ft.Table), didYouMeanTable(cat, ft))
			}
			continue
		}
		found[ft.Pos] = true
		if t.Column(ft.ColumnName) == nil {
			errs.Add(file, ft.ColumnPos.Line, ft.ColumnPos.Col, "fence: column %s does not exist in table %s%s", quoted(ft.Column), t.QualifiedName(), didYouMeanColumn(t, ft.ColumnName))
			continue
		}
		if f := t.Fence; f != nil && f.Source == "comment" && f.Column == ft.ColumnName {
			// Marked twice: a configuration without a mode keeps the
			// comment's; two modes must agree, or one would silently win.
			if ft.Mode != "" && (ft.Mode == config.ModeStrict) != f.Strict {
				errs.Add(file, ft.Pos.Line, ft.Pos.Col, "fence: %s.%s is %s here but %s by its column comment at %s:%d: give the mode in one place", ft.Table, ft.Column, modeWord(ft.Mode == config.ModeStrict), modeWord(f.Strict), f.File, f.Line)
			}
			continue
		}
		cat.MarkFence(t, ft.ColumnName, ft.Mode == config.ModeStrict, "config", file, ft.Pos.Line, ft.Pos.Col)
	}
	return errs
}

// didYouMeanTable is " (did you mean X?)" naming the table of cat closest
// to ft's, written as it must be in the configuration, or "".
func didYouMeanTable(cat *catalog.Catalog, ft config.FenceTable) string {
	var names []string
	spell := map[string]string{}
	for _, s := range cat.Schemas {
		for _, t := range s.Tables {
			if t.IsView {
				continue
			}
			// Compare like with like: a qualified name with qualified
			// names, an unqualified one with table names.
			key, written := t.Name, config.QuoteName(t.Name)
			if ft.TableSchema != "" || t.Schema != catalog.DefaultSchema && t.Schema != "" {
				written = config.QuoteName(t.Schema) + "." + written
			}
			if ft.TableSchema != "" {
				key = t.Schema + "." + t.Name
			}
			if _, dup := spell[key]; !dup {
				names = append(names, key)
				spell[key] = written
			}
		}
	}
	want := ft.TableName
	if ft.TableSchema != "" {
		want = ft.TableSchema + "." + ft.TableName
	}
	if c := config.Closest(want, names); c != "" {
		return didYouMean(spell[c])
	}
	return ""
}

// didYouMean is " (did you mean name?)", saying how to write a name with
// upper case letters or other characters PostgreSQL folds or refuses
// unquoted.
func didYouMean(name string) string {
	if strings.Contains(name, `"`) {
		return fmt.Sprintf(" (did you mean %s? unquoted names fold to lower case, as in PostgreSQL: write '%s' in the YAML)", name, name)
	}
	return fmt.Sprintf(" (did you mean %s?)", name)
}

// didYouMeanColumn is " (did you mean X?)" naming t's column closest to
// name, written as it must be in the configuration, or "".
func didYouMeanColumn(t *catalog.Table, name string) string {
	var names []string
	for _, c := range t.Columns {
		names = append(names, c.Name)
	}
	if c := config.Closest(name, names); c != "" {
		return didYouMean(config.QuoteName(c))
	}
	return ""
}

// quoted is a name as written in the configuration, for a message: in
// double quotes, unless it has its own.
func quoted(s string) string {
	if strings.Contains(s, `"`) {
		return s
	}
	return `"` + s + `"`
}
