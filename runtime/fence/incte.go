package fence

import "errors"

// WriteInCTE is called by generated code for a statement whose fenced
// UPDATE or DELETE is a data-modifying WITH entry. The statement's own rows
// come back as they are (none is a valid answer: "not found" is the main
// query's business), or, when the fenced write refused, one refusal row:
// then it returns a *StaleError with the highest stored token, and nothing
// was written. It returns the number of rows the statement returned.
func WriteInCTE(query, table string, mode Mode, presented Token, cols int, run func() (Rows, error), scan func(Rows) error) (int64, error) {
	rows, err := run()
	n, stored, refused, err := readResult(query, table, mode, presented, cols, rows, err, scan)
	var nf *NotFoundError
	switch {
	case errors.As(err, &nf):
		return 0, nil
	case err != nil:
		return 0, err
	case stored != nil:
		return 0, &StaleError{Query: query, Table: table, Presented: presented, Stored: Token(*stored), Rows: *refused, Mode: mode}
	}
	return n, nil
}
