package analyze

import (
	"fmt"

	"github.com/fencegen/fencegen/gen/internal/guard/mysqlguard"
)

// mysqlGuardStage is the guard stage of a MySQL write to a fenced table
// (package mysqlguard): it rewrites q.SQL into its guarded form and
// records it in q.Fence.MySQL, or returns why the write cannot be guarded
// (the caller refuses the query at its statement).
func mysqlGuardStage(q *Query) error {
	f := q.Fence
	g, err := mysqlguard.Rewrite(q.SQL, mysqlguard.Spec{
		Column: f.Column,
		Key:    f.Table.PrimaryKey,
		Param:  f.TokenParam,
		Strict: f.Strict,
		Table:  f.Table.QualifiedName(),
		Name:   f.Table.Name,
	})
	if err != nil {
		return err
	}
	if g.Form != mysqlguard.Store {
		switch q.Cmd {
		case CmdExec, CmdExecRows, CmdExecResult:
		case CmdExecLastID:
			return fmt.Errorf("%s on a fenced %s: the guard reads the stored token through LAST_INSERT_ID, so the statement's last insert id is not the row's; use :exec, :execrows or :execresult", q.Cmd, g.Form)
		default:
			return fmt.Errorf("%s on a fenced write: MySQL returns no rows from a write; use :exec, :execrows or :execresult", q.Cmd)
		}
	}
	q.SQL, f.MySQL = g.SQL, g
	return nil
}
