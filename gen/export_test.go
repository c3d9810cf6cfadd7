package gen

// WriteTree is writeTree for the external tests (package gen_test): it
// writes files (slash-separated name to text) under dir, making the
// directories they need, and fails the test on an error.
var WriteTree = writeTree

// SqlcYAML is sqlcYAML for the external tests: an engine postgresql
// entry (pgx/v5) over the directory schema and q.sql, generating package
// db into db.
const SqlcYAML = sqlcYAML
