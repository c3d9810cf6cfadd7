package catalog

import (
	"strings"
	"sync"

	"github.com/fencegen/fencegen/gen/internal/catalog/pgcatalog"
)

var (
	systemMu     sync.Mutex
	systemTables = map[string]*Table{}
)

// systemTable returns the system catalog or view schema.name of
// pg_catalog or information_schema, or nil, with its columns as the server
// that pgcatalog was generated from declares them (PostgreSQL docs,
// chapter 53 "System Catalogs", chapter 54 "System Views" and chapter 37
// "The Information Schema"; the information schema's domains are given as
// their base types: sql_identifier is name, cardinal_number int4,
// character_data and yes_or_no varchar, time_stamp timestamptz). It is
// built on first use and shared: its columns must not be changed.
func systemTable(schema, name string) *Table {
	systemMu.Lock()
	defer systemMu.Unlock()
	key := schema + "." + name
	if t, ok := systemTables[key]; ok {
		return t
	}
	r := pgcatalog.LookupRelation(schema, name)
	if r == nil {
		systemTables[key] = nil
		return nil
	}
	t := &Table{Schema: schema, Name: name, IsView: true}
	for _, c := range r.Columns {
		typ := c.Type
		dims := strings.Count(typ, "[]")
		col := &Column{
			Name:    c.Name,
			NotNull: c.NotNull,
			Table:   t,
			Type:    Type{Schema: "pg_catalog", Name: strings.TrimSuffix(typ, strings.Repeat("[]", dims)), ArrayDims: dims},
		}
		if schema == "pg_catalog" && dims == 0 {
			// sqlc v1.31.1's pg_catalog spells a column's type by its
			// unqualified name (bool, int8, text): a db_type override
			// of pg_catalog.bool does not match it, one of bool does.
			col.DBType = col.Type.Name
		}
		t.Columns = append(t.Columns, col)
	}
	systemTables[key] = t
	return t
}

// IsSystem reports whether t is one of PostgreSQL's system catalogs or
// views (which have no model of their own).
func (t *Table) IsSystem() bool {
	return t != nil && systemTable(t.Schema, t.Name) == t
}

// SystemColumns are the columns every table has (PostgreSQL docs, 5.6
// "System Columns"), with their types.
var SystemColumns = map[string]Type{
	"tableoid": {Schema: "pg_catalog", Name: "oid"},
	"xmin":     {Schema: "pg_catalog", Name: "xid"},
	"cmin":     {Schema: "pg_catalog", Name: "cid"},
	"xmax":     {Schema: "pg_catalog", Name: "xid"},
	"cmax":     {Schema: "pg_catalog", Name: "cid"},
	"ctid":     {Schema: "pg_catalog", Name: "tid"},
}
