package golang

import (
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/config"
)

// ColumnOverrideMatches reports, for each of in, whether it is a column
// override (config.Override.Column) whose pattern matches a column of a
// table or view of cat, as the emitter matches it; db_type overrides
// report true. sqlc silently ignores a column override that matches
// nothing; fencegen reports it (a typo would otherwise leave the column's
// default type in the generated code without a word). extra are columns
// of no table of cat that overrides match all the same: the queries' WITH
// entries' (analyze.Query.CTEColumns).
func ColumnOverrideMatches(cat *catalog.Catalog, in []config.Override, extra []*catalog.Column) []bool {
	out := make([]bool, len(in))
	for i, o := range in {
		if o.Column == "" {
			out[i] = true
			continue
		}
		ovs := newOverrides(nil, []config.Override{o}, pgtypePkg)
		if len(ovs) == 0 {
			continue
		}
		for _, c := range extra {
			if ovs[0].matchesColumn(c) {
				out[i] = true
				break
			}
		}
		if out[i] {
			continue
		}
	tables:
		for _, s := range cat.Schemas {
			for _, t := range s.Tables {
				for _, c := range t.Columns {
					if ovs[0].matchesColumn(c) {
						out[i] = true
						break tables
					}
				}
			}
		}
	}
	return out
}

// TokenColumnOverrides returns, for each of in, the fencing-token column
// (the column a fenced table's mark names) that a column override with a
// go_type matches, or nil. The token column's Go type is always
// fence.Token (see goTypeOf), so such an override would be silently
// ignored; the caller reports it at the override.
func TokenColumnOverrides(cat *catalog.Catalog, in []config.Override) []*catalog.Column {
	out := make([]*catalog.Column, len(in))
	for i, o := range in {
		if o.Column == "" || o.GoType == (config.GoType{}) {
			continue
		}
		ovs := newOverrides(nil, []config.Override{o}, pgtypePkg)
		if len(ovs) == 0 {
			continue
		}
	tables:
		for _, s := range cat.Schemas {
			for _, t := range s.Tables {
				if t.Fence == nil {
					continue
				}
				if c := t.Column(t.Fence.Column); c != nil && ovs[0].matchesColumn(c) {
					out[i] = c
					break tables
				}
			}
		}
	}
	return out
}
