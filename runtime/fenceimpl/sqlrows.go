package fenceimpl

import (
	"database/sql"
	"errors"
)

// SQLRows is called by generated database/sql code: it adapts the result
// of (*sql.DB).QueryContext, or of any database/sql DBTX, to Rows, so that
// Write and the other guarded readers read fenced writes through
// database/sql with any driver (github.com/lib/pq, pgx's stdlib). It
// returns err unchanged when it is not nil.
//
// Scan accepts nil destinations, which discard their column (Rows.Scan
// of database/sql refuses them). RawValues reports only which columns are
// NULL: it returns nil for a NULL and an empty, non-nil slice otherwise,
// which is what the guarded readers ask of it. Close closes the rows; an
// error from closing them is reported by Err.
func SQLRows(rows *sql.Rows, err error) (Rows, error) {
	if err != nil {
		return nil, err
	}
	return &sqlRows{rows: rows}, nil
}

type sqlRows struct {
	rows *sql.Rows
	// dest scans the current row for RawValues: each column into a
	// nullness check, nothing converted; raw is its result. Both are
	// reused from row to row.
	dest []any
	null []nullCheck
	raw  [][]byte
	// closeErr is the error of Close, reported by Err.
	closeErr error
}

func (r *sqlRows) Next() bool { return r.rows.Next() }

func (r *sqlRows) RawValues() [][]byte {
	if r.dest == nil {
		cols, err := r.rows.Columns()
		if err != nil {
			return nil
		}
		r.dest = make([]any, len(cols))
		r.null = make([]nullCheck, len(cols))
		r.raw = make([][]byte, len(cols))
		for i := range r.null {
			r.dest[i] = &r.null[i]
		}
	}
	// database/sql lets a row be scanned more than once: Scan hands the
	// driver's values over again each time.
	if err := r.rows.Scan(r.dest...); err != nil {
		return nil
	}
	for i, n := range r.null {
		if n {
			r.raw[i] = nil
		} else {
			r.raw[i] = []byte{}
		}
	}
	return r.raw
}

// nullCheck is a Scan destination that records whether the value is NULL.
type nullCheck bool

func (n *nullCheck) Scan(src any) error {
	*n = src == nil
	return nil
}

// discard is a Scan destination whose value is dropped.
type discard struct{}

func (discard) Scan(any) error { return nil }

func (r *sqlRows) Scan(dest ...any) error {
	for i, d := range dest {
		if d == nil {
			dest[i] = discard{}
		}
	}
	return r.rows.Scan(dest...)
}

func (r *sqlRows) Close() {
	if err := r.rows.Close(); err != nil && r.closeErr == nil {
		r.closeErr = err
	}
}

func (r *sqlRows) Err() error {
	if err := r.rows.Err(); err != nil {
		return err
	}
	return r.closeErr
}

// Result is called by generated database/sql code for a fenced
// :execresult: the sql.Result of a write that touched n rows. The guarded
// statement sent is a query, whose own result would count the rows it
// returns; Result reports the rows written, as the statement as written
// would. LastInsertId returns an error, as with PostgreSQL's drivers.
func Result(n int64) sql.Result { return writeResult(n) }

type writeResult int64

func (r writeResult) RowsAffected() (int64, error) { return int64(r), nil }

func (writeResult) LastInsertId() (int64, error) {
	return 0, errors.New("fence: LastInsertId is not supported by PostgreSQL; use RETURNING")
}

// ErrMySQLLastInsertID is the error of LastInsertId on the sql.Result of
// a guarded MySQL UPDATE or DELETE by key (MySQLResult with no driver
// result): its guard carries tokens in the statement's last-insert id
// (LAST_INSERT_ID(expr), see MySQLByKey), and an UPDATE or DELETE inserts
// no row whose id it could give.
var ErrMySQLLastInsertID = errors.New("fence: LastInsertId is not given for a guarded MySQL UPDATE or DELETE: its guard carries tokens in the last-insert id, and it inserts no row")

// MySQLResult is called by code generated for a guarded MySQL
// :execresult: the sql.Result of a write that touched n rows (1 for an
// upsert, as MySQLUpsert reports it). LastInsertId is driver's (an
// upsert's result, whose guard leaves it alone) or, when driver is nil (an
// UPDATE or DELETE by key), ErrMySQLLastInsertID.
func MySQLResult(n int64, driver sql.Result) sql.Result { return mysqlResult{n: n, driver: driver} }

type mysqlResult struct {
	n      int64
	driver sql.Result
}

func (r mysqlResult) RowsAffected() (int64, error) { return r.n, nil }

func (r mysqlResult) LastInsertId() (int64, error) {
	if r.driver == nil {
		return 0, ErrMySQLLastInsertID
	}
	return r.driver.LastInsertId()
}
