package catalog

import (
	"strings"
	"sync"
)

// systemSpecs describes the PostgreSQL system catalogs and views that
// queries commonly read, with their columns as PostgreSQL 16 declares them
// (PostgreSQL docs, chapter 53 "System Catalogs", chapter 54 "System
// Views" and chapter 37 "The Information Schema"). Each column is
// "name type", with a trailing "!" for NOT NULL. The information schema's
// domains are given as their base types (sql_identifier is name,
// cardinal_number int4, character_data and yes_or_no varchar).
var systemSpecs = map[string]map[string]string{
	"pg_catalog": {
		"pg_class": "oid oid!, relname name!, relnamespace oid!, reltype oid!, reloftype oid!, relowner oid!, relam oid!, " +
			"relfilenode oid!, reltablespace oid!, relpages int4!, reltuples float4!, relallvisible int4!, reltoastrelid oid!, " +
			"relhasindex bool!, relisshared bool!, relpersistence char!, relkind char!, relnatts int2!, relchecks int2!, " +
			"relhasrules bool!, relhastriggers bool!, relhassubclass bool!, relrowsecurity bool!, relforcerowsecurity bool!, " +
			"relispopulated bool!, relreplident char!, relispartition bool!, relrewrite oid!, relfrozenxid xid!, relminmxid xid!, " +
			"relacl aclitem[], reloptions text[], relpartbound pg_node_tree",
		"pg_namespace": "oid oid!, nspname name!, nspowner oid!, nspacl aclitem[]",
		"pg_attribute": "attrelid oid!, attname name!, atttypid oid!, attlen int2!, attnum int2!, attcacheoff int4!, " +
			"atttypmod int4!, attndims int2!, attbyval bool!, attalign char!, attstorage char!, attcompression char!, " +
			"attnotnull bool!, atthasdef bool!, atthasmissing bool!, attidentity char!, attgenerated char!, attisdropped bool!, " +
			"attislocal bool!, attinhcount int2!, attstattarget int2!, attcollation oid!, attacl aclitem[], attoptions text[], " +
			"attfdwoptions text[]",
		"pg_type": "oid oid!, typname name!, typnamespace oid!, typowner oid!, typlen int2!, typbyval bool!, typtype char!, " +
			"typcategory char!, typispreferred bool!, typisdefined bool!, typdelim char!, typrelid oid!, typsubscript regproc!, " +
			"typelem oid!, typarray oid!, typinput regproc!, typoutput regproc!, typreceive regproc!, typsend regproc!, " +
			"typmodin regproc!, typmodout regproc!, typanalyze regproc!, typalign char!, typstorage char!, typnotnull bool!, " +
			"typbasetype oid!, typtypmod int4!, typndims int4!, typcollation oid!, typdefaultbin pg_node_tree, typdefault text, " +
			"typacl aclitem[]",
		"pg_index": "indexrelid oid!, indrelid oid!, indnatts int2!, indnkeyatts int2!, indisunique bool!, " +
			"indnullsnotdistinct bool!, indisprimary bool!, indisexclusion bool!, indimmediate bool!, indisclustered bool!, " +
			"indisvalid bool!, indcheckxmin bool!, indisready bool!, indislive bool!, indisreplident bool!, indkey int2vector!, " +
			"indcollation oidvector!, indclass oidvector!, indoption int2vector!, indexprs pg_node_tree, indpred pg_node_tree",
		"pg_database": "oid oid!, datname name!, datdba oid!, encoding int4!, datlocprovider char!, datistemplate bool!, " +
			"datallowconn bool!, datconnlimit int4!, datfrozenxid xid!, datminmxid xid!, dattablespace oid!, datcollate text!, " +
			"datctype text!, daticulocale text, daticurules text, datcollversion text, datacl aclitem[]",
		"pg_stat_activity": "datid oid, datname name, pid int4, leader_pid int4, usesysid oid, usename name, " +
			"application_name text, client_addr inet, client_hostname text, client_port int4, backend_start timestamptz, " +
			"xact_start timestamptz, query_start timestamptz, state_change timestamptz, wait_event_type text, wait_event text, " +
			"state text, backend_xid xid, backend_xmin xid, query_id int8, query text, backend_type text",
		"pg_locks": "locktype text, database oid, relation oid, page int4, tuple int2, virtualxid text, transactionid xid, " +
			"classid oid, objid oid, objsubid int2, virtualtransaction text, pid int4, mode text, granted bool, fastpath bool, " +
			"waitstart timestamptz",
		"pg_tables": "schemaname name, tablename name, tableowner name, tablespace name, hasindexes bool, hasrules bool, " +
			"hastriggers bool, rowsecurity bool",
		"pg_indexes":        "schemaname name, tablename name, indexname name, tablespace name, indexdef text",
		"pg_views":          "schemaname name, viewname name, viewowner name, definition text",
		"pg_timezone_names": "name text, abbrev text, utc_offset interval, is_dst bool",
		"pg_stat_user_tables": "relid oid, schemaname name, relname name, seq_scan int8, seq_tup_read int8, idx_scan int8, " +
			"idx_tup_fetch int8, n_tup_ins int8, n_tup_upd int8, n_tup_del int8, n_tup_hot_upd int8, n_live_tup int8, " +
			"n_dead_tup int8, last_vacuum timestamptz, last_autovacuum timestamptz, last_analyze timestamptz, " +
			"last_autoanalyze timestamptz",
	},
	"information_schema": {
		"columns": "table_catalog name, table_schema name, table_name name, column_name name, ordinal_position int4, " +
			"column_default varchar, is_nullable varchar, data_type varchar, character_maximum_length int4, " +
			"character_octet_length int4, numeric_precision int4, numeric_precision_radix int4, numeric_scale int4, " +
			"datetime_precision int4, interval_type varchar, interval_precision int4, character_set_catalog name, " +
			"character_set_schema name, character_set_name name, collation_catalog name, collation_schema name, " +
			"collation_name name, domain_catalog name, domain_schema name, domain_name name, udt_catalog name, " +
			"udt_schema name, udt_name name, scope_catalog name, scope_schema name, scope_name name, " +
			"maximum_cardinality int4, dtd_identifier name, is_self_referencing varchar, is_identity varchar, " +
			"identity_generation varchar, identity_start varchar, identity_increment varchar, identity_maximum varchar, " +
			"identity_minimum varchar, identity_cycle varchar, is_generated varchar, generation_expression varchar, " +
			"is_updatable varchar",
		"tables": "table_catalog name, table_schema name, table_name name, table_type varchar, " +
			"self_referencing_column_name name, reference_generation varchar, user_defined_type_catalog name, " +
			"user_defined_type_schema name, user_defined_type_name name, is_insertable_into varchar, is_typed varchar, " +
			"commit_action varchar",
		"schemata": "catalog_name name, schema_name name, schema_owner name, default_character_set_catalog name, " +
			"default_character_set_schema name, default_character_set_name name, sql_path varchar",
	},
}

var (
	systemOnce   sync.Once
	systemTables map[string]*Table
)

// systemTable returns the system catalog or view schema.name, or nil. Its
// columns are shared and must not be changed.
func systemTable(schema, name string) *Table {
	systemOnce.Do(func() {
		systemTables = map[string]*Table{}
		for sch, tables := range systemSpecs {
			for tn, spec := range tables {
				t := &Table{Schema: sch, Name: tn, IsView: true}
				for _, def := range strings.Split(spec, ",") {
					f := strings.Fields(def)
					typ := strings.TrimSuffix(f[1], "!")
					col := &Column{Name: f[0], NotNull: strings.HasSuffix(f[1], "!"), Table: t}
					dims := strings.Count(typ, "[]")
					col.Type = Type{Schema: "pg_catalog", Name: strings.TrimSuffix(typ, "[]"), ArrayDims: dims}
					t.Columns = append(t.Columns, col)
				}
				systemTables[sch+"."+tn] = t
			}
		}
	})
	return systemTables[schema+"."+name]
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
