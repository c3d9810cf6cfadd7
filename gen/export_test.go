package gen

// WriteTree is writeTree for the external tests (package gen_test): it
// writes files (slash-separated name to text) under dir, making the
// directories they need, and fails the test on an error.
var WriteTree = writeTree
