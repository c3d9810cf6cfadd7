package analyze

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// atClass is what an ALTER TABLE subcommand in a query file can make
// PostgreSQL run (trial t24c E1-E3).
type atClass int

const (
	// atHarmless subcommands evaluate no expression and change no code a
	// later statement runs (statistics targets, storage, tablespace).
	atHarmless atClass = iota + 1
	// atEvaluates subcommands evaluate expressions over the table's
	// existing rows, or over a new column's value for each: its CHECKs
	// (VALIDATE CONSTRAINT re-runs a NOT VALID one), defaults, generated
	// columns, index expressions and predicates (rebuilt by a rewrite),
	// domains, and a USING expression. The functions named in the
	// statement are checked as calls (queryDDL); those of the table's
	// objects are counted too, by refusing the subcommand when one of
	// them may write a fenced table.
	atEvaluates
	// atChangesLater subcommands change what later statements run on the
	// table: row-level security and its policies, triggers and rules
	// enabled or disabled, inheritance, partitions, ownership (policies
	// apply to roles other than the owner), options. Refused when the
	// table has an object that may write a fenced table.
	atChangesLater
)

// alterTableKinds classifies every AlterTableType of pg_query v5
// (TestAlterTableKindsClassified fails on one missing); a subcommand of a
// kind not here is refused while the schema has a fenced table.
var alterTableKinds = map[pg.AlterTableType]atClass{
	pg.AlterTableType_AT_AddColumn: atEvaluates, pg.AlterTableType_AT_AddColumnToView: atEvaluates,
	pg.AlterTableType_AT_ColumnDefault: atChangesLater, pg.AlterTableType_AT_CookedColumnDefault: atChangesLater,
	pg.AlterTableType_AT_DropNotNull: atChangesLater, pg.AlterTableType_AT_SetNotNull: atEvaluates,
	pg.AlterTableType_AT_DropExpression: atChangesLater, pg.AlterTableType_AT_CheckNotNull: atEvaluates,
	pg.AlterTableType_AT_SetStatistics: atHarmless, pg.AlterTableType_AT_SetOptions: atHarmless,
	pg.AlterTableType_AT_ResetOptions: atHarmless, pg.AlterTableType_AT_SetStorage: atHarmless,
	pg.AlterTableType_AT_SetCompression: atHarmless, pg.AlterTableType_AT_DropColumn: atChangesLater,
	pg.AlterTableType_AT_AddIndex: atEvaluates, pg.AlterTableType_AT_ReAddIndex: atEvaluates,
	pg.AlterTableType_AT_AddConstraint: atEvaluates, pg.AlterTableType_AT_ReAddConstraint: atEvaluates,
	pg.AlterTableType_AT_ReAddDomainConstraint: atEvaluates, pg.AlterTableType_AT_AlterConstraint: atChangesLater,
	pg.AlterTableType_AT_ValidateConstraint: atEvaluates, pg.AlterTableType_AT_AddIndexConstraint: atEvaluates,
	pg.AlterTableType_AT_DropConstraint: atChangesLater, pg.AlterTableType_AT_ReAddComment: atHarmless,
	pg.AlterTableType_AT_AlterColumnType: atEvaluates, pg.AlterTableType_AT_AlterColumnGenericOptions: atChangesLater,
	pg.AlterTableType_AT_ChangeOwner: atChangesLater, pg.AlterTableType_AT_ClusterOn: atHarmless,
	pg.AlterTableType_AT_DropCluster: atHarmless, pg.AlterTableType_AT_SetLogged: atEvaluates,
	pg.AlterTableType_AT_SetUnLogged: atEvaluates, pg.AlterTableType_AT_DropOids: atHarmless,
	pg.AlterTableType_AT_SetAccessMethod: atEvaluates, pg.AlterTableType_AT_SetTableSpace: atHarmless,
	pg.AlterTableType_AT_SetRelOptions: atChangesLater, pg.AlterTableType_AT_ResetRelOptions: atChangesLater,
	pg.AlterTableType_AT_ReplaceRelOptions: atChangesLater,
	pg.AlterTableType_AT_EnableTrig:        atChangesLater, pg.AlterTableType_AT_EnableAlwaysTrig: atChangesLater,
	pg.AlterTableType_AT_EnableReplicaTrig: atChangesLater, pg.AlterTableType_AT_DisableTrig: atChangesLater,
	pg.AlterTableType_AT_EnableTrigAll: atChangesLater, pg.AlterTableType_AT_DisableTrigAll: atChangesLater,
	pg.AlterTableType_AT_EnableTrigUser: atChangesLater, pg.AlterTableType_AT_DisableTrigUser: atChangesLater,
	pg.AlterTableType_AT_EnableRule: atChangesLater, pg.AlterTableType_AT_EnableAlwaysRule: atChangesLater,
	pg.AlterTableType_AT_EnableReplicaRule: atChangesLater, pg.AlterTableType_AT_DisableRule: atChangesLater,
	pg.AlterTableType_AT_AddInherit: atChangesLater, pg.AlterTableType_AT_DropInherit: atChangesLater,
	pg.AlterTableType_AT_AddOf: atChangesLater, pg.AlterTableType_AT_DropOf: atChangesLater,
	pg.AlterTableType_AT_ReplicaIdentity:   atChangesLater,
	pg.AlterTableType_AT_EnableRowSecurity: atChangesLater, pg.AlterTableType_AT_DisableRowSecurity: atChangesLater,
	pg.AlterTableType_AT_ForceRowSecurity: atChangesLater, pg.AlterTableType_AT_NoForceRowSecurity: atChangesLater,
	pg.AlterTableType_AT_GenericOptions: atChangesLater, pg.AlterTableType_AT_AttachPartition: atEvaluates,
	pg.AlterTableType_AT_DetachPartition: atChangesLater, pg.AlterTableType_AT_DetachPartitionFinalize: atChangesLater,
	pg.AlterTableType_AT_AddIdentity: atChangesLater, pg.AlterTableType_AT_SetIdentity: atChangesLater,
	pg.AlterTableType_AT_DropIdentity: atChangesLater, pg.AlterTableType_AT_ReAddStatistics: atHarmless,
}

// alterTableCmds refuses the subcommands of an ALTER TABLE (ALTER VIEW,
// ALTER INDEX, ...) in a query file that can make PostgreSQL run an
// object of the schema that may write a fenced table, now
// (atEvaluates: VALIDATE CONSTRAINT re-runs a CHECK for every row) or in
// later statements (atChangesLater: ENABLE ROW LEVEL SECURITY applies
// the policies to every later read). Each is judged against every
// relation it touches: the table altered (and, unqualified, those of its
// name in other schemas), a partition attached or detached, a parent
// inherited, a table a new foreign key references. A subcommand of a
// kind alterTableKinds does not classify is refused.
func (a *analyzer) alterTableCmds(q *Query, at *pg.AlterTableStmt) {
	for _, c := range at.Cmds {
		if a.errAt[a.stmt.Start] {
			return
		}
		cmd := c.GetAlterTableCmd()
		if cmd == nil {
			continue
		}
		class, ok := alterTableKinds[cmd.Subtype]
		sub := atWords(cmd.Subtype)
		if !ok {
			a.refuseAnyFenced(a.stmt.Start, "query %s runs ALTER TABLE ... %s, a subcommand fencegen does not classify, so it cannot show that it runs nothing that writes a fenced table, now or in later statements; %s", q.Name, sub, belongs)
			return
		}
		if class == atHarmless {
			continue
		}
		rels := []sqlparse.Name{nameOfRV(at.Relation)}
		switch cmd.Subtype {
		case pg.AlterTableType_AT_AttachPartition, pg.AlterTableType_AT_DetachPartition, pg.AlterTableType_AT_DetachPartitionFinalize:
			if pc := cmd.Def.GetPartitionCmd(); pc != nil {
				rels = append(rels, nameOfRV(pc.Name))
			}
		case pg.AlterTableType_AT_AddInherit, pg.AlterTableType_AT_DropInherit:
			rels = append(rels, nameOfRV(cmd.Def.GetRangeVar()))
		case pg.AlterTableType_AT_AddConstraint, pg.AlterTableType_AT_ReAddConstraint:
			if con := cmd.Def.GetConstraint(); con != nil && con.Pktable != nil {
				rels = append(rels, nameOfRV(con.Pktable))
			}
		}
		how := "re-evaluates, for the table's rows, the CHECKs, defaults, generated columns, index expressions or domains of"
		if class == atChangesLater {
			how = "changes what later statements run on (its row-level security policies, triggers, rules, defaults, inheritance or partitions)"
		}
		for _, nm := range rels {
			for _, u := range a.sameNameAll(nm) {
				if u.Fence != nil || len(a.cat.FencedDescendants(u)) > 0 {
					continue // queryDDL and queryDDLResolution judge a fenced table, with what the statement does to its rows
				}
				if w, ok := a.tableObjectWrites(u); ok {
					a.refuseHidden(a.stmt.Start, w, "query %s runs ALTER TABLE ... %s, which %s %s %s, whose objects include one through which a write %s without the guard; %s",
						q.Name, sub, how, relKind(u), u.FullName(), w.describe(), belongs)
					return
				}
			}
		}
	}
}

// tableObjectWrites reports whether any object of relation u, or of its
// relatives, may write a fenced table, whether PostgreSQL runs it today
// or only once a query file's DDL switches it on: u fenced (or a view or
// parent of one), its triggers (enabled or not), rules, defaults, CHECKs,
// generated columns, index expressions, foreign-key actions, and its
// policies whether or not its row-level security is enabled.
func (a *analyzer) tableObjectWrites(u *catalog.Table) (hiddenWrite, bool) {
	if w, ok := a.relationWrites(u); ok {
		return w, true
	}
	if a.funcs == nil {
		return hiddenWrite{}, false
	}
	a.funcs.mu.Lock()
	defer a.funcs.mu.Unlock()
	if ws := a.funcs.tableWritesLocked(u, []string{"INSERT", "UPDATE", "DELETE", "TRUNCATE"}, nil, nil, nil, true, false, false); len(ws) > 0 {
		return ws[0], true
	}
	for _, x := range append([]*catalog.Table{u}, a.cat.Relatives(u)...) {
		for _, h := range x.Hooks {
			for _, w := range a.funcs.hookWritesLocked(h.Text, x, true) {
				w.path = append([]string{hookWhere(h, x)}, w.steps()...)
				return w, true
			}
		}
	}
	return hiddenWrite{}, false
}

// atWords spells subcommand kind t for messages: "ValidateConstraint"
// as "VALIDATE CONSTRAINT", "EnableTrig" as "ENABLE TRIGGER" (pg_query's
// enum name, split at its capitals).
func atWords(t pg.AlterTableType) string {
	s := strings.TrimPrefix(t.String(), "AT_")
	s = strings.NewReplacer("RowSecurity", "RowLevelSecurity", "ChangeOwner", "OwnerTo", "TrigAll", "TriggerAll",
		"TrigUser", "TriggerUser", "Trig", "Trigger", "UnLogged", "Unlogged", "RelOptions", "Options").Replace(s)
	var b strings.Builder
	for i, r := range s {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte(' ')
		}
		b.WriteRune(r)
	}
	return strings.ToUpper(b.String())
}
