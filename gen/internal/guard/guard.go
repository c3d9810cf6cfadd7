// Package guard is the stage of fencegen that adds the fencing guard to a
// write to a fenced table, after analysis: it decides the guard's form
// (Form), rewrites the statement so that PostgreSQL itself refuses a stale
// fencing token, and owns the result contract the generated code reads
// (the leading result columns and the runtime reader, Form.Leading and
// Form.Reader). Package analyze hands it the statement text and a Spec;
// package golang switches on the Form.
//
// Every guarded statement is laid out one clause per line, after a
// one-line SQL comment naming its form (see Rewrite).
//
// It also owns the database-side guard (database.go): the trigger that
// refuses a stale token's UPDATE from any writer, rendered as File and as
// the migrations fencegen guard writes, and the replay of those migrations
// that tells fencegen check when they no longer match the schema.
package guard

import (
	"fmt"
	"strings"
)

// Form is the shape of a guarded write: how the guard is added and how
// the generated code reads the result.
type Form int

// The forms of a guarded write.
const (
	// Store is an INSERT (not an upsert) into a fenced table: it stores
	// the presented token in the token column and checks nothing, since a
	// new row holds no token; the statement's result is its own.
	Store Form = iota + 1
	// ByKey is an UPDATE or DELETE whose WHERE clause pins the whole
	// primary key (at most one row): the guarded write alone, and a
	// statement that reads the stored token, sent only when the write
	// touched no row (Guarded.Stored).
	ByKey
	// Single is an UPDATE or DELETE pinned by its primary key in one
	// statement that returns the refusal row itself (a batch item, or a
	// write with a WITH clause of its own).
	Single
	// Locking is an UPDATE or DELETE that may match many rows: it locks
	// them all, checks every stored token, and writes all or none.
	Locking
	// Upsert is INSERT ... ON CONFLICT DO UPDATE of one VALUES row: the
	// DO UPDATE applies only when the presented token beats the stored one.
	Upsert
	// UpsertMany is an upsert of several rows (VALUES rows or a SELECT):
	// the rows it conflicts with are locked and checked first, all or
	// nothing, as in Locking.
	UpsertMany
	// InWith is a fenced UPDATE, DELETE or upsert that is a data-modifying
	// WITH entry (Spec.CTE): guarded all or nothing in place, the
	// statement's own result read after the refusal check.
	InWith
)

// String names the form as the guarded statement's comment does.
func (f Form) String() string {
	switch f {
	case Store:
		return "stores the token"
	case ByKey:
		return "guarded by key"
	case Single:
		return "guarded as one row"
	case Locking:
		return "guarded by locking the rows it matches"
	case Upsert:
		return "guarded upsert"
	case UpsertMany:
		return "guarded upsert of many rows, locking the rows they conflict with"
	case InWith:
		return "guarded in a WITH entry"
	}
	return fmt.Sprintf("Form(%d)", int(f))
}

// Leading is the number of guard columns (StoredColumn, RowsColumn) that
// precede the query's own result columns in every row the guarded
// statement returns: 0 for Store (the statement's own result) and ByKey
// (its write returns the query's own columns), 2 for the others.
func (f Form) Leading() int {
	switch f {
	case Store, ByKey:
		return 0
	}
	return 2
}

// Reader names the function of runtime/fenceimpl that a generated method
// calls to run the guarded statement and read its result: "Write" (rows
// written, a refusal row, or none matched), "WriteByKey" (the write, then
// Guarded.Stored when it touched nothing), "WriteUpsert" (no row back is
// retried once: a concurrent insert), "WriteUpsertMany" (Write, whose
// no-row error says the upsert wrote nothing), "WriteInCTE" (the
// statement's own rows, or a refusal row); "" for Store, which runs as a
// plain statement.
func (f Form) Reader() string {
	switch f {
	case ByKey:
		return "WriteByKey"
	case Single, Locking:
		return "Write"
	case UpsertMany:
		return "WriteUpsertMany"
	case Upsert:
		return "WriteUpsert"
	case InWith:
		return "WriteInCTE"
	}
	return ""
}

// BatchReader names the runtime/fenceimpl function that reads one item of a
// batch of the guarded statement (a batch is sent once, so nothing is
// retried): "WriteResult", "WriteUpsertResult" for an upsert, or
// "WriteInCTEResult" for InWith; "" for Store. A batch item is never ByKey
// (Spec.Batch).
func (f Form) BatchReader() string {
	switch f {
	case Store:
		return ""
	case InWith:
		return "WriteInCTEResult"
	case Upsert, UpsertMany:
		return "WriteUpsertResult"
	}
	return "WriteResult"
}

// Columns of the fenced-write result that precede the query's own RETURNING
// columns.
const (
	// StoredColumn is NULL on a row that was written; on the single row
	// returned when nothing was written it holds the highest token stored in
	// the rows that matched the WHERE clause.
	StoredColumn = "fence_stored"
	// RowsColumn is NULL on a written row; otherwise the number of rows that
	// matched but were refused.
	RowsColumn = "fence_rows"
	// WriteCTE names the data-modifying WITH query that holds the guarded
	// write.
	WriteCTE = "fence_write"
)

// Spec says how to guard a write.
type Spec struct {
	// Column is the fencing-token column.
	Column string
	// Key lists the table's primary-key columns: the rows a fenced UPDATE
	// or DELETE matches are locked and written by key.
	Key []string
	// Param is the number of the parameter that carries the presented token.
	Param int
	// Strict guards with stored < presented instead of stored ≤ presented.
	Strict bool
	// Columns is the number of RETURNING columns the query has (or, with
	// CTE, the number of result columns of the whole statement).
	Columns int
	// CTE names the data-modifying WITH entry that holds the fenced write;
	// "" when the write is the statement itself.
	CTE string
	// ConflictColumns are the columns of an upsert's ON CONFLICT ON
	// CONSTRAINT name.
	ConflictColumns []string
	// InsertTypes are the SQL types of an INSERT's columns, in order: a
	// fenced upsert of many rows reads them from a WITH query, where
	// PostgreSQL would not give its parameters their columns' types.
	InsertTypes []string
	// SetReturningRow is set for an upsert whose one VALUES row calls a
	// set-returning function (VALUES (unnest($1), unnest($2))): it
	// inserts many rows, and is guarded as an upsert of many rows, its
	// row read as a SELECT list (PostgreSQL refuses set-returning
	// functions in a VALUES of a WITH query).
	SetReturningRow bool
	// Batch is set for a :batch* query: its items share pgx's implicit
	// transaction, so a refusal must come back as a row, never as an
	// error that would roll back the other items.
	Batch bool
	// Table is the fenced table's name as messages and the guarded
	// statement's comment give it (schema.table outside the default
	// schema); Name is its name alone, which the write to guard must
	// target (not checked when "").
	Table, Name string
	// Inherited is set when the table has INHERITS children: its primary
	// key is unique in the table alone, so a write that pins it can still
	// match a row in each child (unless it names ONLY the table), and rows
	// are counted by table and key.
	Inherited bool
	// ctes are the guard's WITH query names for the statement at hand,
	// chosen to avoid its names (cteNamesAvoiding).
	ctes cteNames
}

// Guarded is a write with its guard added.
type Guarded struct {
	Form Form
	// SQL is the guarded statement: a one-line comment naming the form and
	// the guard's comparison, then the statement, one clause per line.
	SQL string
	// Stored is set for ByKey: SELECT <token> FROM <table> WHERE <the
	// write's WHERE>, its parameters renumbered from $1, laid out as SQL;
	// StoredParams lists, for each of its parameters in order, the number
	// of the write's parameter it stands for.
	Stored       string
	StoredParams []int
}

// Rewrite adds the guard to sql, one INSERT, UPDATE or DELETE (or a
// statement whose WITH entry spec.CTE is one), its parameters $n only,
// and returns it with its form. An UPDATE or DELETE pinned by its primary
// key, without WITH, FROM or USING of its own and not a batch item
// (spec.Batch), gets ByKey; the other forms are one statement and one
// round trip. The error says why the write cannot be guarded (the caller
// locates it at the statement).
func Rewrite(sql string, spec Spec) (*Guarded, error) {
	if !spec.Batch {
		bk, err := fenceByKey(sql, spec)
		if err != nil {
			return nil, err
		}
		if bk != nil {
			write, err := layout(bk.Write)
			if err != nil {
				return nil, err
			}
			stored, err := layout(bk.Stored)
			if err != nil {
				return nil, err
			}
			return &Guarded{Form: ByKey, SQL: comment(ByKey, spec) + write, Stored: stored, StoredParams: bk.StoredParams}, nil
		}
	}
	out, form, err := fenceWrite(sql, spec)
	if err != nil {
		return nil, err
	}
	laid, err := layout(out)
	if err != nil {
		return nil, err
	}
	return &Guarded{Form: form, SQL: comment(form, spec) + laid}, nil
}

// CommentPrefix starts the guarded statement's first line (comment).
const CommentPrefix = "-- fencegen: "

// comment is the guarded statement's first line: the form and the
// comparison of the stored token with the presented one, e.g.
// "-- fencegen: guarded by key (jobs.fence_token <= $3)".
func comment(f Form, spec Spec) string {
	col := spec.Column
	if spec.Table != "" {
		col = spec.Table + "." + col
	}
	// A quoted name may hold a line break, which would end the comment.
	col = strings.NewReplacer("\n", " ", "\r", " ").Replace(col)
	op := spec.op()
	if f == Store {
		op = "="
	}
	name := f.String()
	if f == InWith {
		name = "guarded in WITH entry " + spec.CTE
	}
	return fmt.Sprintf("%s%s (%s %s $%d)\n", CommentPrefix, name, col, op, spec.Param)
}
