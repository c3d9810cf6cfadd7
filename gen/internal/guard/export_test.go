package guard

// Hooks for the tests of package guard_test.

// FenceWrite is the one-statement rewrite of Rewrite (never ByKey), laid
// out as Rewrite lays it out, without the comment line: what the pg tests
// run.
func FenceWrite(sql string, spec Spec) (string, error) {
	out, _, err := fenceWrite(sql, spec)
	if err != nil {
		return "", err
	}
	return layout(out)
}

// RawWrite is FenceWrite before the layout, the text the structural tests
// read, and its form.
func RawWrite(sql string, spec Spec) (string, error) {
	out, _, err := fenceWrite(sql, spec)
	return out, err
}

// FenceByKey is the by-key rewrite before the layout (nil when the write
// is not pinned by its primary key).
func FenceByKey(sql string, spec Spec) (*byKey, error) { return fenceByKey(sql, spec) }

// Layout is the layout of a rewritten statement.
var Layout = layout

// MySQLGuardTriggers returns the statements that install the MySQL guard
// of one table (the DROPs, then the CREATE TRIGGERs) in mode "non-strict",
// "strict" or "required", for tests outside the package.
// The table's key is id.
func MySQLGuardTriggers(table, column, mode string) []string {
	return MySQLGuardTriggersKeys(table, column, mode, [][]string{{"id"}})
}

// MySQLGuardTriggersKeys is MySQLGuardTriggers for a table whose unique
// keys are keys.
func MySQLGuardTriggersKeys(table, column, mode string, keys [][]string) []string {
	t := mysqlGuardTable{Table: table, Column: column, Strict: mode == "strict", Required: mode == "required", Keys: keys}
	drops, creates := t.statements()
	return append(drops, creates...)
}
