package catalog

// Transaction statements of a schema file: BEGIN ... ROLLBACK and
// SAVEPOINT ... ROLLBACK TO undo what the statements between them did,
// a DROP TRIGGER among them too (issue 24, trial t24f doblk). The
// catalog keeps the statements it applied (Catalog.log) and, at a
// ROLLBACK, builds itself again from those before the transaction or
// savepoint began. Where fencegen cannot tell what a ROLLBACK undoes, or
// sqlc reads the statements it undoes as applied, it is an error while a
// table is fenced, at the ROLLBACK.

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// logged is a schema statement the catalog applied.
type logged struct {
	f *sqlparse.File
	s *sqlparse.Stmt
}

// txState follows the transaction statements of the schema file being
// applied.
type txState struct {
	file *sqlparse.File
	// open is set from BEGIN (or START TRANSACTION) to its COMMIT or
	// ROLLBACK; begin is the length of Catalog.log at the BEGIN.
	open  bool
	begin int
	// since counts the file's statements since its start or the last
	// COMMIT or ROLLBACK; wrapped is set when some came before the
	// BEGIN: a migration tool that runs each file in a transaction of
	// its own (goose, dbmate, tern, atlas) has them in the transaction
	// a ROLLBACK undoes, while psql has them committed.
	since   int
	wrapped bool
	// saves are the savepoints of the transaction, oldest first.
	saves []savepoint
}

// savepoint is a SAVEPOINT's name and the length of Catalog.log then.
type savepoint struct {
	name string
	at   int
}

// transaction applies u.s when it is a transaction statement and
// reports whether it was one.
func (u *updater) transaction() bool {
	c := u.c
	n, ok := u.s.Node.(*sqlparse.Unknown)
	if !ok || n.Kind != "TransactionStmt" {
		if !c.replaying {
			c.tx.since++
		}
		return false
	}
	ts := u.s.Raw.GetTransactionStmt()
	if ts == nil {
		if tree, err := pg.Parse(u.f.Text(u.s)); err == nil && len(tree.Stmts) == 1 {
			ts = tree.Stmts[0].Stmt.GetTransactionStmt()
		}
	}
	if ts == nil {
		u.codeErrorf("a transaction statement fencegen does not read: fencegen cannot tell what it commits or undoes")
		return true
	}
	tx := &c.tx
	switch ts.Kind {
	case pg.TransactionStmtKind_TRANS_STMT_BEGIN, pg.TransactionStmtKind_TRANS_STMT_START:
		if !tx.open {
			// (BEGIN in a transaction is a warning: nothing changes.)
			tx.open, tx.begin, tx.wrapped, tx.saves = true, len(c.log), tx.since > 0, nil
		}
	case pg.TransactionStmtKind_TRANS_STMT_COMMIT:
		tx.open, tx.since, tx.saves = false, 0, nil
		if ts.Chain {
			tx.open, tx.begin, tx.wrapped = true, len(c.log), false
		}
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK:
		switch {
		case !tx.open && tx.since > 0:
			u.codeErrorf("ROLLBACK with no BEGIN before it in this file: psql runs it as a warning and keeps the file's statements before it, while a migration tool that runs each file in a transaction of its own (goose, dbmate, tern, atlas) undoes them, so fencegen cannot tell which triggers, rules and defaults the schema keeps; remove the ROLLBACK, or write BEGIN where the statements it undoes begin, at the start of the file")
		case tx.open && tx.wrapped:
			u.codeErrorf("ROLLBACK of a transaction this file begins after other statements: psql undoes the statements since BEGIN, while a migration tool that runs each file in a transaction of its own (goose, dbmate, tern, atlas) undoes the file's statements before BEGIN too, so fencegen cannot tell which triggers, rules and defaults the schema keeps; write the BEGIN ... ROLLBACK at the start of a file, or after a COMMIT")
		case tx.open:
			u.undo(tx.begin, "ROLLBACK")
		}
		tx.open, tx.since, tx.saves = false, 0, nil
		if ts.Chain {
			tx.open, tx.begin, tx.wrapped = true, len(c.log), false
		}
	case pg.TransactionStmtKind_TRANS_STMT_SAVEPOINT:
		tx.saves = append(tx.saves, savepoint{name: ts.SavepointName, at: len(c.log)})
	case pg.TransactionStmtKind_TRANS_STMT_RELEASE:
		// RELEASE destroys the savepoint and those set after it.
		if i := tx.savepoint(ts.SavepointName); i >= 0 {
			tx.saves = tx.saves[:i]
		}
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_TO:
		i := tx.savepoint(ts.SavepointName)
		if i < 0 {
			u.codeErrorf("ROLLBACK TO SAVEPOINT %s with no SAVEPOINT %s before it in this file's transaction: fencegen cannot tell which statements it undoes", ts.SavepointName, ts.SavepointName)
			break
		}
		// The savepoint stays; those set after it go.
		tx.saves = tx.saves[:i+1]
		u.undo(tx.saves[i].at, "ROLLBACK TO SAVEPOINT "+ts.SavepointName)
	case pg.TransactionStmtKind_TRANS_STMT_PREPARE:
		u.codeErrorf("PREPARE TRANSACTION leaves the file's transaction to be committed or rolled back elsewhere, so fencegen cannot tell which of its statements the schema keeps; COMMIT it in the file")
		tx.open, tx.since, tx.saves = false, 0, nil
	case pg.TransactionStmtKind_TRANS_STMT_ROLLBACK_PREPARED:
		u.codeErrorf("ROLLBACK PREPARED undoes a transaction fencegen cannot tell apart: write the schema without it")
	}
	return true
}

// savepoint returns the index of the last savepoint named name, or -1.
func (tx *txState) savepoint(name string) int {
	for i := len(tx.saves) - 1; i >= 0; i-- {
		if tx.saves[i].name == name {
			return i
		}
	}
	return -1
}

// undo applies a ROLLBACK (what) of the statements logged from index
// from on: the catalog is built again from the statements before them,
// as PostgreSQL leaves the schema. When one of them changes what sqlc
// reads (a table, a column, a type, a function, a comment), which sqlc
// keeps as applied, the catalog stays as sqlc has it and the ROLLBACK is
// an error while a table is fenced. The problems found in the undone
// statements stay reported.
func (u *updater) undo(from int, what string) {
	c := u.c
	for _, e := range c.log[from:] {
		if !sqlcIgnores(e.s.Node) {
			line, _ := diag.Position(e.f.Src, e.s.Start)
			u.codeErrorf("%s undoes the statement at %s:%d, which sqlc reads as applied (it does not read transactions): fencegen would generate from tables, columns, types or functions PostgreSQL does not have; write the schema without the statements the %s undoes", what, e.f.Name, line, what)
			return
		}
	}
	c.rebuild(slices.Clone(c.log[:from]))
}

// rebuild makes c the catalog of a new one with statements log applied,
// keeping its configuration (New's options, ExpectFenceKeys), its
// transaction state and the problems already found.
func (c *Catalog) rebuild(log []logged) {
	errs, notes, roles, off, code := c.Errors, c.notes, c.replicationRoleNotes, c.offStringErrors, c.codeErrors
	keys, tx := c.line.keys, c.tx
	*c = Catalog{Schemas: []*Schema{{Name: DefaultSchema}, {Name: "pg_catalog"}}, columns: c.columns, elsewhere: c.elsewhere, reach: c.reach, replaying: true}
	if keys != nil {
		c.ExpectFenceKeys(keys)
	}
	for _, e := range log {
		c.apply(e.f, e.s, stmtFile)
	}
	c.Errors, c.notes, c.replicationRoleNotes, c.offStringErrors, c.codeErrors = errs, notes, roles, off, code
	c.tx, c.replaying = tx, false
}

// sqlcIgnores reports whether sqlc v1.31.1's catalog ignores schema
// statement n: it changes triggers, rules, indexes, policies, settings,
// data or the constraints and defaults of columns, which sqlc does not
// model, and not the tables, columns, types, functions or comments it
// generates from.
func sqlcIgnores(n sqlparse.Node) bool {
	switch n := n.(type) {
	case *sqlparse.CreateTrigger, *sqlparse.CreateRule, *sqlparse.CreateIndex, *sqlparse.SetSearchPath,
		*sqlparse.Select, *sqlparse.Insert, *sqlparse.Update, *sqlparse.Delete, *sqlparse.Merge, *sqlparse.Truncate:
		return true
	case *sqlparse.Drop:
		switch n.Kind {
		case "trigger", "rule", "index", "policy":
			return true
		}
	case *sqlparse.Rename:
		switch n.Kind {
		case "trigger", "rule", "policy", "constraint", "index":
			return true
		}
	case *sqlparse.AlterTable:
		return !slices.ContainsFunc(n.Cmds, sqlcChecks)
	case *sqlparse.Unknown:
		switch n.Kind {
		case "CreatePolicyStmt", "AlterPolicyStmt", "VariableSetStmt", "GrantStmt", "GrantRoleStmt", "AlterOwnerStmt",
			"LockStmt", "DoStmt", "AlterFunctionStmt", "CreateCastStmt", "AlterDomainStmt", "CreateEventTrigStmt",
			"AlterEventTrigStmt", "CreateOpClassStmt", "CreateOpFamilyStmt", "AlterOpFamilyStmt", "CreateStatsStmt",
			"NotifyStmt", "DiscardStmt", "VacuumStmt", "ClusterStmt", "ReindexStmt", "CheckPointStmt", "TransactionStmt":
			return true
		}
	}
	return false
}
