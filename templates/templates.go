// Package templates will hold fencegen's non-Go text assets (SQL fragments
// such as the database-side guard's migration, documentation snippets) as an
// embed.FS parsed once at init. Go code is emitted only through jennifer
// (package gen/internal/golang), never through text templates. It is empty
// until the first such asset exists.
package templates
