// Package slicetest runs fencegen's MySQL output on MariaDB (MYSQL_URL)
// for queries with IN (sqlc.slice(x)) lists whose named parameters or
// lists are used more than once (trial t27g): query.sql on table t,
// which is not fenced, generated as sqlc v1.31.1 generates it, and
// fenced writes of the same shape on acct. The tests call each method
// with lists of several, one and no elements and check the rows. The
// generated code (slicedb) is checked in; TestGeneratedCodeIsCurrent
// fails when it is stale. Regenerate it with go generate.
package slicetest

//go:generate go tool fencegen generate
