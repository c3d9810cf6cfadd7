package writes

// Class is what a node kind of PostgreSQL's parse tree is to the write
// analysis.
type Class int

const (
	// Unclassified is the zero Class: a node kind missing from Classes,
	// refused where it appears (and failed by TestEveryNodeClassified).
	Unclassified Class = iota
	// ReadOnly nodes write nothing themselves; their children are walked.
	ReadOnly
	// Writes statements write rows of the table they name (Write): the
	// guard guards one at the top or in the top statement's WITH list,
	// and analyze refuses the others on fenced tables.
	Writes
	// Host statements run (or, for PREPARE and EXPLAIN without ANALYZE,
	// do not run) another statement, which is walked as theirs.
	Host
	// Schema statements change the schema: analyze checks them against
	// the fenced tables (analyze.queryDDL) when sqlparse models them, and
	// refuses the rest.
	Schema
	// Runs nodes may run user code: a function call (checked through the
	// function's body, analyze/funcwrites.go), an operator, a cast or a
	// domain, a view or default read (analyze/hooks.go).
	Runs
	// Refused statements may run what fencegen cannot see (DO, EXECUTE,
	// LOAD) or are not analysed: refused while the schema has a fenced
	// table.
	Refused
	// Unexpected nodes are those of PostgreSQL's analysed tree (Query,
	// Var, OpExpr, ...), never in a parse tree: refused if one appears.
	Unexpected
)

// Reads reports whether statements of class c are analysed for what they
// write wherever they appear: read-only statements, writes and hosts. A
// schema statement (checked against the fenced tables only as a query of
// its own) or a refused one inside a function body or a DO block is not.
func Reads(c Class) bool {
	return c == ReadOnly || c == Writes || c == Host
}

// Classes classifies every node kind of pg_query v5's Node (the names of
// its oneof's messages).
var Classes = map[string]Class{
	// Statements that write nothing.
	"RawStmt": ReadOnly, "SelectStmt": ReadOnly, "ReturnStmt": ReadOnly, "PLAssignStmt": ReadOnly,
	"VariableSetStmt": ReadOnly, "VariableShowStmt": ReadOnly, "TransactionStmt": ReadOnly,
	"ListenStmt": ReadOnly, "UnlistenStmt": ReadOnly, "NotifyStmt": ReadOnly, "LockStmt": ReadOnly,
	"FetchStmt":       ReadOnly, // FETCH, MOVE: the cursor's query was analysed at DECLARE
	"ClosePortalStmt": ReadOnly, "DeallocateStmt": ReadOnly, "DiscardStmt": ReadOnly,
	"CheckPointStmt": ReadOnly, "ConstraintsSetStmt": ReadOnly,

	// Writes.
	"InsertStmt": Writes, "UpdateStmt": Writes, "DeleteStmt": Writes, "MergeStmt": Writes,
	"TruncateStmt": Writes, "CopyStmt": Writes, // COPY (query) TO hosts its query

	// Hosts.
	"ExplainStmt": Host, "CreateTableAsStmt": Host, "DeclareCursorStmt": Host, "PrepareStmt": Host,
	"CallStmt": Host, "RefreshMatViewStmt": Host,

	// Schema statements analyze checks.
	"CreateStmt": Schema, "IndexStmt": Schema, "CreateForeignTableStmt": Schema, "AlterTableStmt": Schema,
	"RenameStmt": Schema, "CommentStmt": Schema, "CreateEnumStmt": Schema, "AlterEnumStmt": Schema,
	"CompositeTypeStmt": Schema, "CreateDomainStmt": Schema, "CreateRangeStmt": Schema,
	"AlterObjectSchemaStmt": Schema, "CreateSeqStmt": Schema, "AlterSeqStmt": Schema,
	"CreateSchemaStmt": Schema, "DropStmt": Schema, "ViewStmt": Schema, "CreateFunctionStmt": Schema,
	"DefineStmt": Schema, "CreateTrigStmt": Schema, "RuleStmt": Schema,

	// Statements refused while the schema has a fenced table.
	"DoStmt": Refused, "ExecuteStmt": Refused, "LoadStmt": Refused,
	"SetOperationStmt":    Unexpected,
	"ReplicaIdentityStmt": Refused, "AlterCollationStmt": Refused, "AlterDomainStmt": Refused,
	"GrantStmt": Refused, "GrantRoleStmt": Refused, "AlterDefaultPrivilegesStmt": Refused,
	"CreateTableSpaceStmt": Refused, "DropTableSpaceStmt": Refused, "AlterTableSpaceOptionsStmt": Refused,
	"AlterTableMoveAllStmt": Refused, "CreateExtensionStmt": Refused, "AlterExtensionStmt": Refused,
	"AlterExtensionContentsStmt": Refused, "CreateFdwStmt": Refused, "AlterFdwStmt": Refused,
	"CreateForeignServerStmt": Refused, "AlterForeignServerStmt": Refused, "CreateUserMappingStmt": Refused,
	"AlterUserMappingStmt": Refused, "DropUserMappingStmt": Refused, "ImportForeignSchemaStmt": Refused,
	"CreatePolicyStmt": Refused, "AlterPolicyStmt": Refused, "CreateAmStmt": Refused,
	"CreateEventTrigStmt": Refused, "AlterEventTrigStmt": Refused, "CreatePLangStmt": Refused,
	"CreateRoleStmt": Refused, "AlterRoleStmt": Refused, "AlterRoleSetStmt": Refused, "DropRoleStmt": Refused,
	"CreateOpClassStmt": Refused, "CreateOpFamilyStmt": Refused, "AlterOpFamilyStmt": Refused,
	"SecLabelStmt": Refused, "CreateStatsStmt": Refused, "AlterStatsStmt": Refused,
	"AlterFunctionStmt": Refused, "AlterObjectDependsStmt": Refused, "AlterOwnerStmt": Refused,
	"AlterOperatorStmt": Refused, "AlterTypeStmt": Refused, "CreatedbStmt": Refused,
	"AlterDatabaseStmt": Refused, "AlterDatabaseRefreshCollStmt": Refused, "AlterDatabaseSetStmt": Refused,
	"DropdbStmt": Refused, "AlterSystemStmt": Refused, "ClusterStmt": Refused, "VacuumStmt": Refused,
	"ReindexStmt": Refused, "CreateConversionStmt": Refused, "CreateCastStmt": Refused,
	"CreateTransformStmt": Refused, "DropOwnedStmt": Refused, "ReassignOwnedStmt": Refused,
	"AlterTSDictionaryStmt": Refused, "AlterTSConfigurationStmt": Refused,
	"CreatePublicationStmt": Refused, "AlterPublicationStmt": Refused, "CreateSubscriptionStmt": Refused,
	"AlterSubscriptionStmt": Refused, "DropSubscriptionStmt": Refused,

	// Nodes that may run user code.
	"FuncCall": Runs, "A_Expr": Runs, "TypeCast": Runs, "RangeVar": Runs, "ColumnRef": Runs,
	"A_Indirection": Runs, "SetToDefault": Runs, "RangeTableSample": Runs, "RangeFunction": Runs,
	"RangeTableFunc": Runs,

	// Parse-tree nodes that write and run nothing themselves.
	"Alias": ReadOnly, "TableFunc": ReadOnly, "IntoClause": ReadOnly, "TypeName": ReadOnly,
	"ParamRef": ReadOnly, "CollateClause": ReadOnly, "RoleSpec": ReadOnly, "A_Star": ReadOnly,
	"A_Indices": ReadOnly, "A_ArrayExpr": ReadOnly, "ResTarget": ReadOnly, "MultiAssignRef": ReadOnly,
	"SortBy": ReadOnly, "WindowDef": ReadOnly, "RangeSubselect": ReadOnly, "RangeTableFuncCol": ReadOnly,
	"ColumnDef": ReadOnly, "TableLikeClause": ReadOnly, "IndexElem": ReadOnly, "DefElem": ReadOnly,
	"LockingClause": ReadOnly, "XmlSerialize": ReadOnly, "PartitionElem": ReadOnly,
	"PartitionSpec": ReadOnly, "PartitionBoundSpec": ReadOnly, "PartitionRangeDatum": ReadOnly,
	"PartitionCmd": ReadOnly, "GroupingSet": ReadOnly, "WithClause": ReadOnly, "InferClause": ReadOnly,
	"OnConflictClause": ReadOnly, "CTESearchClause": ReadOnly, "CTECycleClause": ReadOnly,
	"CommonTableExpr": ReadOnly, "MergeWhenClause": ReadOnly, "TriggerTransition": ReadOnly,
	"JsonFormat": ReadOnly, "JsonReturning": ReadOnly, "JsonValueExpr": ReadOnly, "JsonIsPredicate": ReadOnly,
	"JsonOutput": ReadOnly, "JsonKeyValue": ReadOnly, "JsonObjectConstructor": ReadOnly,
	"JsonArrayConstructor": ReadOnly, "JsonArrayQueryConstructor": ReadOnly, "JsonAggConstructor": ReadOnly,
	"JsonObjectAgg": ReadOnly, "JsonArrayAgg": ReadOnly, "AlterTableCmd": ReadOnly,
	"ObjectWithArgs": ReadOnly, "AccessPriv": ReadOnly, "Constraint": ReadOnly,
	"CreateOpClassItem": ReadOnly, "StatsElem": ReadOnly, "FunctionParameter": ReadOnly,
	"VacuumRelation": ReadOnly, "PublicationTable": ReadOnly, "PublicationObjSpec": ReadOnly,
	"Integer": ReadOnly, "Float": ReadOnly, "Boolean": ReadOnly, "String": ReadOnly, "BitString": ReadOnly,
	"List": ReadOnly, "IntList": ReadOnly, "OidList": ReadOnly, "A_Const": ReadOnly,
	"BoolExpr": ReadOnly, "NullTest": ReadOnly, "BooleanTest": ReadOnly, "SubLink": ReadOnly,
	"CaseExpr": ReadOnly, "CaseWhen": ReadOnly, "CoalesceExpr": ReadOnly, "MinMaxExpr": ReadOnly,
	"RowExpr": ReadOnly, "SQLValueFunction": ReadOnly, "XmlExpr": ReadOnly, "CurrentOfExpr": ReadOnly,
	"GroupingFunc": ReadOnly, "NamedArgExpr": ReadOnly, "JoinExpr": ReadOnly,

	// Nodes of PostgreSQL's analysed tree (parse analysis, the planner),
	// which the parser does not produce.
	"Var": Unexpected, "Param": Unexpected, "Aggref": Unexpected, "WindowFunc": Unexpected,
	"SubscriptingRef": Unexpected, "FuncExpr": Unexpected, "OpExpr": Unexpected,
	"DistinctExpr": Unexpected, "NullIfExpr": Unexpected, "ScalarArrayOpExpr": Unexpected,
	"SubPlan": Unexpected, "AlternativeSubPlan": Unexpected, "FieldSelect": Unexpected,
	"FieldStore": Unexpected, "RelabelType": Unexpected, "CoerceViaIO": Unexpected,
	"ArrayCoerceExpr": Unexpected, "ConvertRowtypeExpr": Unexpected, "CollateExpr": Unexpected,
	"CaseTestExpr": Unexpected, "ArrayExpr": Unexpected, "RowCompareExpr": Unexpected,
	"JsonConstructorExpr": Unexpected, "CoerceToDomain": Unexpected, "CoerceToDomainValue": Unexpected,
	"NextValueExpr": Unexpected, "InferenceElem": Unexpected, "TargetEntry": Unexpected,
	"RangeTblRef": Unexpected, "FromExpr": Unexpected, "OnConflictExpr": Unexpected, "Query": Unexpected,
	"RangeTblEntry": Unexpected, "RTEPermissionInfo": Unexpected, "RangeTblFunction": Unexpected,
	"TableSampleClause": Unexpected, "WithCheckOption": Unexpected, "SortGroupClause": Unexpected,
	"WindowClause": Unexpected, "RowMarkClause": Unexpected, "MergeAction": Unexpected,
	"InlineCodeBlock": Unexpected, "CallContext": Unexpected,
}
