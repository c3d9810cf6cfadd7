// Package migrationtools holds tests that apply the guard migrations
// fencegen guard writes with the migration tools themselves (goose,
// golang-migrate), against real PostgreSQL. It is a module of its own so
// that the tools stay out of fencegen's go.mod.
package migrationtools
