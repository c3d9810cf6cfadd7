package mysqlwrites

// Class is what a statement node type of the TiDB parser is to the write
// analysis.
type Class int

const (
	// Unclassified is the zero Class: a statement type missing from
	// Classes, refused where it appears (and failed by
	// TestEveryStmtNodeClassified).
	Unclassified Class = iota
	// ReadOnly statements write no table rows themselves; their
	// expressions are walked (a stored function they call may write).
	ReadOnly
	// Writes statements write rows of the tables they name.
	Writes
	// Host statements run another statement (EXPLAIN, TRACE) or a stored
	// procedure (CALL), which is analysed as theirs.
	Host
	// DDL statements change a table's definition or rows as a whole
	// (ALTER, DROP, RENAME, CREATE TABLE, CREATE INDEX, OPTIMIZE): each
	// table they name is a Write with the statement's words as Verb.
	DDL
	// Compound statements are the parts of a stored program's body (the
	// parser makes them only under CREATE PROCEDURE, which is refused in a
	// query): walked.
	Compound
	// Refused statements may run what fencegen cannot see (EXECUTE,
	// BINLOG), define code or views outside the schema it read, drop a
	// database, or are administration a repository's query has no use
	// for (users, grants, TiDB's cluster statements).
	Refused
)

// Classes classifies every statement node type of the TiDB parser at the
// version sqlc v1.31.1 uses (the Go type names of the types implementing
// ast.StmtNode).
var Classes = map[string]Class{
	// Statements that write no rows.
	"SelectStmt": ReadOnly, "SetOprStmt": ReadOnly, "ShowStmt": ReadOnly, "HelpStmt": ReadOnly,
	"UseStmt": ReadOnly, "SetStmt": ReadOnly, "DoStmt": ReadOnly, "BeginStmt": ReadOnly,
	"CommitStmt": ReadOnly, "RollbackStmt": ReadOnly, "SavepointStmt": ReadOnly,
	"ReleaseSavepointStmt": ReadOnly, "LockTablesStmt": ReadOnly, "UnlockTablesStmt": ReadOnly,
	"DeallocateStmt": ReadOnly, "ExplainForStmt": ReadOnly, "AnalyzeTableStmt": ReadOnly,
	"FlushStmt": ReadOnly,
	// PREPARE keeps its text for EXECUTE, which is refused.
	"PrepareStmt": ReadOnly,

	// Writes.
	"InsertStmt": Writes, "UpdateStmt": Writes, "DeleteStmt": Writes, "LoadDataStmt": Writes,
	"TruncateTableStmt": Writes,

	// Hosts.
	"ExplainStmt": Host, "TraceStmt": Host, "CallStmt": Host,

	// DDL statements: the tables they name are written.
	"CreateTableStmt": DDL, "AlterTableStmt": DDL, "DropTableStmt": DDL,
	"RenameTableStmt": DDL, "CreateIndexStmt": DDL, "DropIndexStmt": DDL,
	"OptimizeTableStmt": DDL, "CreateSequenceStmt": DDL, "AlterSequenceStmt": DDL,
	"DropSequenceStmt": DDL, "CreateDatabaseStmt": DDL, "AlterDatabaseStmt": DDL,
	"DropProcedureStmt": DDL,

	// Parts of a stored program's body.
	"ProcedureBlock": Compound, "ProcedureCloseCur": Compound, "ProcedureElseBlock": Compound,
	"ProcedureElseIfBlock": Compound, "ProcedureErrorCon": Compound, "ProcedureErrorState": Compound,
	"ProcedureErrorVal": Compound, "ProcedureFetchInto": Compound, "ProcedureIfBlock": Compound,
	"ProcedureIfInfo": Compound, "ProcedureJump": Compound, "ProcedureLabelBlock": Compound,
	"ProcedureLabelLoop": Compound, "ProcedureOpenCur": Compound, "ProcedureRepeatStmt": Compound,
	"ProcedureWhileStmt": Compound, "SearchCaseStmt": Compound, "SearchWhenThenStmt": Compound,
	"SimpleCaseStmt": Compound, "SimpleWhenThenStmt": Compound,

	// Refused.
	"ExecuteStmt": Refused, "BinlogStmt": Refused, "ProcedureInfo": Refused, "CreateViewStmt": Refused,
	"DropDatabaseStmt": Refused, "NonTransactionalDMLStmt": Refused, "ImportIntoStmt": Refused,
	"ImportIntoActionStmt": Refused, "KillStmt": Refused, "ShutdownStmt": Refused, "RestartStmt": Refused,
	"GrantStmt": Refused, "GrantRoleStmt": Refused, "GrantProxyStmt": Refused, "RevokeStmt": Refused,
	"RevokeRoleStmt": Refused, "CreateUserStmt": Refused, "AlterUserStmt": Refused, "DropUserStmt": Refused,
	"RenameUserStmt": Refused, "SetPwdStmt": Refused, "SetRoleStmt": Refused, "SetDefaultRoleStmt": Refused,
	"AlterInstanceStmt": Refused, "AdminStmt": Refused, "BRIEStmt": Refused, "RecoverTableStmt": Refused,
	"FlashBackDatabaseStmt": Refused, "FlashBackTableStmt": Refused, "FlashBackToTimestampStmt": Refused,
	"RepairTableStmt": Refused, "CompactTableStmt": Refused, "LoadStatsStmt": Refused,
	"LockStatsStmt": Refused, "UnlockStatsStmt": Refused, "DropStatsStmt": Refused,
	"RefreshStatsStmt": Refused, "CreateStatisticsStmt": Refused, "DropStatisticsStmt": Refused,
	"SplitRegionStmt": Refused, "DistributeTableStmt": Refused, "CancelDistributionJobStmt": Refused,
	"AlterRangeStmt": Refused, "CleanupTableLockStmt": Refused, "PlanReplayerStmt": Refused,
	"TrafficStmt": Refused, "RecommendIndexStmt": Refused, "CalibrateResourceStmt": Refused,
	"AddQueryWatchStmt": Refused, "DropQueryWatchStmt": Refused, "CreateBindingStmt": Refused,
	"DropBindingStmt": Refused, "SetBindingStmt": Refused, "SetConfigStmt": Refused,
	"SetSessionStatesStmt": Refused, "SetResourceGroupStmt": Refused, "CreateResourceGroupStmt": Refused,
	"AlterResourceGroupStmt": Refused, "DropResourceGroupStmt": Refused, "CreatePlacementPolicyStmt": Refused,
	"AlterPlacementPolicyStmt": Refused, "DropPlacementPolicyStmt": Refused, "CreateMaskingPolicyStmt": Refused,
}

// reasons say why a Refused statement is refused, by node type; the rest
// get a general one.
var reasons = map[string]string{
	"ExecuteStmt":      "EXECUTEs a prepared statement whose text fencegen cannot see, so it cannot show that it writes no fenced table; write the prepared statement itself as the query, which fencegen checks",
	"BinlogStmt":       "replays binary-log row events (BINLOG), which write tables without the guard",
	"ProcedureInfo":    "creates a stored procedure outside the schema fencegen read, so later CALLs of it cannot be checked; define it in the schema files (migrations)",
	"CreateViewStmt":   "creates a view outside the schema fencegen read, so writes through it cannot be checked; define it in the schema files (migrations)",
	"DropDatabaseStmt": "drops a database with every table in it, fenced ones included",
}
