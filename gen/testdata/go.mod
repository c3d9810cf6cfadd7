// This module holds the golden outputs of gen/golden_test.go so that they
// compile: every gen/testdata/cases/<case>/want directory is a package.
// TestGoldenCompile runs go build and go vet here, offline.
module github.com/fencegen/fencegen/gen/testdata

go 1.26.8

require (
	github.com/fencegen/fencegen v0.0.0-00010101000000-000000000000
	github.com/google/uuid v1.6.0
	github.com/jackc/pgx/v5 v5.12.0
	github.com/lib/pq v1.12.3
	github.com/sqlc-dev/pqtype v0.3.0
)

require (
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	golang.org/x/text v0.43.0 // indirect
)

replace github.com/fencegen/fencegen => ../..
