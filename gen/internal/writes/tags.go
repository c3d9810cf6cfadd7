package writes

import (
	pg "github.com/pganalyze/pg_query_go/v5"
)

// CommandTag returns the command tag PostgreSQL gives the schema
// statement n (utility.c, CreateCommandTag), against which an event
// trigger's WHEN TAG IN filter is matched, upper case; "" for a statement
// whose tag this does not tell (an event trigger with a filter then counts
// as firing). Only the statement's own tag counts: the commands it runs
// inside (the sequence of a serial column, CREATE SCHEMA's elements) fire
// no event trigger of their own.
func CommandTag(n *pg.Node) string {
	if n == nil {
		return ""
	}
	switch x := n.Node.(type) {
	case *pg.Node_CreateStmt:
		return "CREATE TABLE"
	case *pg.Node_CreateForeignTableStmt:
		return "CREATE FOREIGN TABLE"
	case *pg.Node_CreateTableAsStmt:
		switch {
		case x.CreateTableAsStmt.Objtype == pg.ObjectType_OBJECT_MATVIEW:
			return "CREATE MATERIALIZED VIEW"
		case x.CreateTableAsStmt.IsSelectInto:
			return "SELECT INTO"
		case x.CreateTableAsStmt.Objtype == pg.ObjectType_OBJECT_TABLE:
			return "CREATE TABLE AS"
		}
	case *pg.Node_SelectStmt:
		if x.SelectStmt.IntoClause != nil {
			return "SELECT INTO"
		}
	case *pg.Node_RefreshMatViewStmt:
		return "REFRESH MATERIALIZED VIEW"
	case *pg.Node_ViewStmt:
		return "CREATE VIEW"
	case *pg.Node_IndexStmt:
		return "CREATE INDEX"
	case *pg.Node_CommentStmt:
		return "COMMENT"
	case *pg.Node_CreateSeqStmt:
		return "CREATE SEQUENCE"
	case *pg.Node_AlterSeqStmt:
		return "ALTER SEQUENCE"
	case *pg.Node_CreateSchemaStmt:
		return "CREATE SCHEMA"
	case *pg.Node_CreateDomainStmt:
		return "CREATE DOMAIN"
	case *pg.Node_CreateEnumStmt, *pg.Node_CompositeTypeStmt, *pg.Node_CreateRangeStmt:
		return "CREATE TYPE"
	case *pg.Node_AlterEnumStmt:
		return "ALTER TYPE"
	case *pg.Node_CreateTrigStmt:
		return "CREATE TRIGGER"
	case *pg.Node_RuleStmt:
		return "CREATE RULE"
	case *pg.Node_CreateFunctionStmt:
		if x.CreateFunctionStmt.IsProcedure {
			return "CREATE PROCEDURE"
		}
		return "CREATE FUNCTION"
	case *pg.Node_AlterTableStmt:
		return map[pg.ObjectType]string{
			pg.ObjectType_OBJECT_TABLE: "ALTER TABLE", pg.ObjectType_OBJECT_INDEX: "ALTER INDEX",
			pg.ObjectType_OBJECT_SEQUENCE: "ALTER SEQUENCE", pg.ObjectType_OBJECT_VIEW: "ALTER VIEW",
			pg.ObjectType_OBJECT_MATVIEW: "ALTER MATERIALIZED VIEW", pg.ObjectType_OBJECT_FOREIGN_TABLE: "ALTER FOREIGN TABLE",
			pg.ObjectType_OBJECT_TYPE: "ALTER TYPE",
		}[x.AlterTableStmt.Objtype]
	case *pg.Node_DropStmt:
		return map[pg.ObjectType]string{
			pg.ObjectType_OBJECT_TABLE: "DROP TABLE", pg.ObjectType_OBJECT_INDEX: "DROP INDEX",
			pg.ObjectType_OBJECT_SEQUENCE: "DROP SEQUENCE", pg.ObjectType_OBJECT_VIEW: "DROP VIEW",
			pg.ObjectType_OBJECT_MATVIEW: "DROP MATERIALIZED VIEW", pg.ObjectType_OBJECT_FOREIGN_TABLE: "DROP FOREIGN TABLE",
			pg.ObjectType_OBJECT_TYPE: "DROP TYPE", pg.ObjectType_OBJECT_DOMAIN: "DROP DOMAIN",
			pg.ObjectType_OBJECT_SCHEMA: "DROP SCHEMA", pg.ObjectType_OBJECT_FUNCTION: "DROP FUNCTION",
			pg.ObjectType_OBJECT_PROCEDURE: "DROP PROCEDURE", pg.ObjectType_OBJECT_TRIGGER: "DROP TRIGGER",
			pg.ObjectType_OBJECT_RULE: "DROP RULE",
		}[x.DropStmt.RemoveType]
	}
	return ""
}

// FiresEventTriggers reports whether PostgreSQL fires event triggers
// (ddl_command_start, ddl_command_end, sql_drop, table_rewrite) for
// statement n: every statement but those the event trigger firing matrix
// leaves out (PostgreSQL docs 40.2, "Event Trigger Firing Matrix"): the
// optimizable statements (SELECT without INTO, INSERT, UPDATE, DELETE,
// MERGE, VALUES), COPY, TRUNCATE, transaction control, session settings,
// LISTEN/NOTIFY, PREPARE/EXECUTE/DEALLOCATE, EXPLAIN, DO, CALL, cursors,
// VACUUM, ANALYZE, CLUSTER, REINDEX, LOCK, CHECKPOINT, DISCARD, LOAD, and
// statements on shared objects (databases, roles, tablespaces) and on
// event triggers themselves. Anything else, a kind not listed here
// included, counts as firing (SELECT INTO and REFRESH MATERIALIZED VIEW
// do fire them).
func FiresEventTriggers(n *pg.Node) bool {
	if n == nil {
		return true
	}
	if rs := n.GetRawStmt(); rs != nil {
		n = rs.Stmt
	}
	switch x := n.Node.(type) {
	case *pg.Node_SelectStmt:
		return x.SelectStmt.IntoClause != nil
	case *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt, *pg.Node_MergeStmt,
		*pg.Node_CopyStmt, *pg.Node_TruncateStmt, *pg.Node_TransactionStmt,
		*pg.Node_VariableSetStmt, *pg.Node_VariableShowStmt, *pg.Node_ConstraintsSetStmt,
		*pg.Node_ListenStmt, *pg.Node_NotifyStmt, *pg.Node_UnlistenStmt,
		*pg.Node_PrepareStmt, *pg.Node_ExecuteStmt, *pg.Node_DeallocateStmt,
		*pg.Node_ExplainStmt, *pg.Node_DoStmt, *pg.Node_CallStmt,
		*pg.Node_DeclareCursorStmt, *pg.Node_FetchStmt, *pg.Node_ClosePortalStmt,
		*pg.Node_VacuumStmt, *pg.Node_ClusterStmt, *pg.Node_ReindexStmt, *pg.Node_LockStmt,
		*pg.Node_CheckPointStmt, *pg.Node_DiscardStmt, *pg.Node_LoadStmt,
		*pg.Node_CreatedbStmt, *pg.Node_AlterDatabaseStmt, *pg.Node_AlterDatabaseSetStmt,
		*pg.Node_AlterDatabaseRefreshCollStmt, *pg.Node_DropdbStmt,
		*pg.Node_CreateRoleStmt, *pg.Node_AlterRoleStmt, *pg.Node_AlterRoleSetStmt, *pg.Node_DropRoleStmt,
		*pg.Node_GrantRoleStmt, *pg.Node_CreateTableSpaceStmt, *pg.Node_DropTableSpaceStmt,
		*pg.Node_AlterTableSpaceOptionsStmt, *pg.Node_AlterSystemStmt,
		*pg.Node_CreateEventTrigStmt, *pg.Node_AlterEventTrigStmt:
		return false
	}
	return true
}
