package gen

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/config"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/golang"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// markConfigFences marks the fencing-token columns pkg's fence key names
// in cat, the names read as PostgreSQL reads identifiers
// (config.SplitName). A table or column the schema does not have is an
// error at its value in the configuration, with the closest name the
// schema has; found records the entries of an extending configuration
// (config.FenceTable.AnyEntry) whose table this schema has. A table
// another entry's fence key lists (config.FenceTable.From) is noted
// where it fences this entry's schema too.
func markConfigFences(cat *catalog.Catalog, cfgPath string, pkg config.Package, found map[config.Position]bool) (errs diag.List, notes []string) {
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
			where := ""
			if ft.AnyEntry {
				// The table is fenced here because the schema has it.
				where = fmt.Sprintf(" in the schema of %s (a table fenced in one sql entry is fenced in every entry whose schema has it)", config.EntryName(&pkg))
			}
			errs.Add(file, ft.ColumnPos.Line, ft.ColumnPos.Col, "fence: column %s does not exist in table %s%s%s", quoted(ft.Column), t.QualifiedName(), where, didYouMeanColumn(t, ft.ColumnName))
			continue
		}
		if ft.From != "" {
			notes = append(notes, fmt.Sprintf("%s:%d:%d: note: fence: table %s is fenced in %s too, by the fence key of %s at %s:%d:%d: a database has one guard trigger per table, so a table fenced in one sql entry is fenced in every entry whose schema has it",
				cfgPath, pkg.Pos.Line, pkg.Pos.Col, t.QualifiedName(), config.EntryName(&pkg), ft.From, file, ft.Pos.Line, ft.Pos.Col))
		}
		if f := t.Fence; f != nil && f.Source == "comment" && f.Column == ft.ColumnName {
			// Marked twice: a configuration without a mode keeps the
			// comment's; two modes must agree, or one would silently win.
			if ft.Mode != "" && ft.Mode != fenceMode(f) {
				errs.Add(file, ft.Pos.Line, ft.Pos.Col, "fence: %s.%s is %s here but %s by its column comment at %s:%d: give the mode in one place", ft.Table, ft.Column, ft.Mode, fenceMode(f), f.File, f.Line)
			}
			continue
		}
		cat.MarkFence(t, ft.ColumnName, ft.Mode == config.ModeStrict, "config", file, ft.Pos.Line, ft.Pos.Col)
		if ft.Mode == config.ModeRequired && t.Fence != nil {
			t.Fence.Required = true
		}
	}
	return errs, notes
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

// checkColumnOverrides reports each column override of pkg whose pattern
// matches no column of cat, at the override, with the closest column the
// schema has. sqlc ignores such an override silently. In a configuration
// only fencegen reads (see sqlcReads) it is an error; in an sqlc
// configuration read as it is, sqlc's meaning stands and it is a note
// (fencegen vet), so that a file sqlc accepts loads unchanged. A global
// override (config.Override.Global) is recorded in found when it
// matches, and reported by Generate only when it matches in no sql entry.
func checkColumnOverrides(cat *catalog.Catalog, cfgPath string, pkg config.Package, found map[config.Position]bool, cteCols []*catalog.Column) (errs diag.List, notes []string) {
	ovs := pkg.Go.Overrides
	for _, o := range ovs {
		// A db_type override of a type that no column has is a policy
		// for columns to come, accepted as in sqlc; one of a type that
		// neither PostgreSQL nor the schema knows is likely a typo, and
		// noted (not refused: a shared configuration may hold another
		// engine's types without an engine key, which sqlc ignores).
		if o.DBType == "" {
			continue
		}
		schema, name := "", o.DBType
		if i := strings.LastIndexByte(name, '.'); i >= 0 {
			schema, name = name[:i], name[i+1:]
		}
		name = strings.TrimSuffix(name, "[]")
		if pkg.Engine == config.EngineMySQL {
			// A MySQL column's db_type is its type as spelled (sqlc's
			// MatchesColumn): a MySQL type, or one a column has (trial
			// tnew F3: tinyint, datetime... were said to match nothing).
			switch lower := strings.ToLower(o.DBType); {
			case mysqlTypes[o.DBType] || columnSpelled(cat, o.DBType):
			case mysqlTypes[lower] || columnSpelled(cat, lower):
				notes = append(notes, fmt.Sprintf("%s:%d:%d: note: override: db_type %q matches no column: sqlc compares it with the type as MySQL's parser spells it, in lower case (write %q)", cfgPath, o.Pos.Line, o.Pos.Col, o.DBType, lower))
			default:
				notes = append(notes, fmt.Sprintf("%s:%d:%d: note: override: db_type %q is no type MySQL or the schema has, so it matches no column", cfgPath, o.Pos.Line, o.Pos.Col, o.DBType))
			}
			continue
		}
		if _, ok := cat.ResolveType(&sqlparse.TypeName{Schema: schema, Name: name}); !ok {
			notes = append(notes, fmt.Sprintf("%s:%d:%d: note: override: db_type %q is no type PostgreSQL or the schema has, so it matches no column", cfgPath, o.Pos.Line, o.Pos.Col, o.DBType))
		}
	}
	for i, c := range golang.TokenColumnOverrides(cat, ovs) {
		if c == nil {
			continue
		}
		o := ovs[i]
		msg := fmt.Sprintf("override: column %q names the fencing-token column %s.%s of a fenced table, whose Go type is always fence.Token (the type carries the guard's meaning: a token is only ever compared and stored, and the methods take it as fence.Token); remove the go_type (a fence.Token converts with int64(token) where a plain integer is needed)", o.Column, c.Table.QualifiedName(), c.Name)
		if sqlcReads(cfgPath, pkg) {
			notes = append(notes, fmt.Sprintf("%s:%d:%d: note: %s; sqlc applies it", cfgPath, o.Pos.Line, o.Pos.Col, msg))
		} else {
			errs.Add(cfgPath, o.Pos.Line, o.Pos.Col, "%s", msg)
		}
	}
	for i, ok := range golang.ColumnOverrideMatches(cat, ovs, cteCols) {
		o := ovs[i]
		switch {
		case ok && o.Global:
			found[overrideKey(o.Pos)] = true
		case !ok && !o.Global:
			msg := unmatchedOverride(o, "the schema", didYouMeanOverride(cat, o.Column))
			if sqlcReads(cfgPath, pkg) {
				notes = append(notes, fmt.Sprintf("%s:%d:%d: note: %s; sqlc ignores it", cfgPath, o.Pos.Line, o.Pos.Col, msg))
			} else {
				errs.Add(cfgPath, o.Pos.Line, o.Pos.Col, "%s", msg)
			}
		}
	}
	return errs, notes
}

// mysqlTypes are MySQL's and MariaDB's data type names (MySQL 8.4
// Reference Manual, "Data Types"; MariaDB's "Data Types": its uuid,
// inet4, inet6 and vector), in lower case.
var mysqlTypes = map[string]bool{}

func init() {
	for _, t := range strings.Fields(`bit tinyint bool boolean smallint mediumint middleint int integer bigint
		int1 int2 int3 int4 int8 serial decimal dec numeric fixed float float4 float8 double real
		date datetime timestamp time year char varchar nchar nvarchar national binary varbinary
		tinyblob blob mediumblob longblob long tinytext text mediumtext longtext enum set json
		geometry point linestring polygon multipoint multilinestring multipolygon geometrycollection
		geomcollection uuid inet4 inet6 vector`) {
		mysqlTypes[t] = true
	}
}

// columnSpelled reports whether a column of cat has the type spelled
// name, as sqlc compares a MySQL db_type override.
func columnSpelled(cat *catalog.Catalog, name string) bool {
	for _, s := range cat.Schemas {
		for _, t := range s.Tables {
			for _, c := range t.Columns {
				if c.DBType == name || c.DBType == "" && c.Type.Name == name {
					return true
				}
			}
		}
	}
	return false
}

// sqlcReads reports whether sqlc reads the configuration at cfgPath as
// fencegen does: it is not fencegen's own file (fencegen.yaml,
// fencegen.yml; any other name is one sqlc reads with -f, as docs/sqlc.md
// defines "a configuration sqlc reads": trial sw4 F4, sqlc-pg.yaml) and
// has no fence key (sqlc refuses one, in an entry or at the top level):
// pkg's fenced tables all come from a configuration extending it.
func sqlcReads(cfgPath string, pkg config.Package) bool {
	switch filepath.Base(cfgPath) {
	case "fencegen.yaml", "fencegen.yml":
		return false
	}
	for _, ft := range pkg.Fence {
		if ft.File == "" || ft.File == cfgPath {
			return false
		}
	}
	return true
}

// unmatchedOverride is the message for column override o that matches no
// column in where.
func unmatchedOverride(o config.Override, where, hint string) string {
	if hint == "" {
		hint = fmt.Sprintf(" (an override names a column as table.column, or schema.table.column outside schema %s; each part may use * and ?)", catalog.DefaultSchema)
	}
	return fmt.Sprintf("override: column %q matches no column in %s%s", o.Column, where, hint)
}

// didYouMeanOverride is " (did you mean X?)" naming the column of cat
// closest to an override's column pattern, written as an override names
// it, or "".
func didYouMeanOverride(cat *catalog.Catalog, pattern string) string {
	if strings.ContainsAny(pattern, "*?[") {
		return ""
	}
	// Each column is a candidate as table.column and as
	// schema.table.column, suggested as an override must name it (with
	// its schema outside the default one).
	var names []string
	spell := map[string]string{}
	for _, s := range cat.Schemas {
		for _, t := range s.Tables {
			for _, c := range t.Columns {
				short, long := t.Name+"."+c.Name, t.Schema+"."+t.Name+"."+c.Name
				written := short
				if t.Schema != "" && t.Schema != catalog.DefaultSchema {
					written = long
				}
				for _, n := range []string{short, long} {
					if _, dup := spell[n]; !dup {
						names = append(names, n)
						spell[n] = written
					}
				}
			}
		}
	}
	if c := config.Closest(pattern, names); c != "" {
		return fmt.Sprintf(" (did you mean %s?)", spell[c])
	}
	return ""
}

// overrideKey is the key of a global override at p in Generate's found
// map, apart from the fence tables' keys (which may be positions in
// another file).
func overrideKey(p config.Position) config.Position {
	return config.Position{Line: -p.Line, Col: p.Col}
}
