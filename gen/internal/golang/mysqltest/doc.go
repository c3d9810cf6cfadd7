// Package mysqltest runs fencegen's MySQL output on MariaDB (MYSQL_URL)
// where sqlc v1.31.1 leaves a parameter out of a method: unread.sql, one
// query per kind of expression or clause sqlc's MySQL converter does not
// read (x REGEXP ?, NOT (x <=> ?), ? COLLATE c, (a, b) IN ((?, ?)), ...),
// is generated twice (fencegen.yaml): sqldb with mysql_types off, as sqlc
// generates it and as fencegen generates it for a configuration sqlc
// reads, and mytypesdb with mysql_types on. The tests show that every
// call of an sqldb method fails as its vet note says, and that each
// mytypesdb method returns the rows MariaDB gives the query with its
// values written in. The generated code is checked in;
// TestGeneratedCodeIsCurrent fails when it is stale. Regenerate it with
// go generate.
package mysqltest

//go:generate go tool fencegen generate
