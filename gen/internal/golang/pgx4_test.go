package golang_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

const pgxV4Schema = `
CREATE TYPE mood AS ENUM ('sad', 'happy');
CREATE TABLE k (
  id bigint PRIMARY KEY,
  n int, nn int NOT NULL,
  t text,
  num numeric,
  j jsonb,
  at timestamptz, atn timestamptz NOT NULL,
  u uuid,
  ip inet,
  r int4range,
  mr int4multirange,
  iv interval, ivn interval NOT NULL,
  arr text[],
  m mood
);
`

// TestPgxV4Types: sql_package: pgx/v4 declares sqlc v1.31.1's pgx/v4
// types (its postgresType for the pgx/v4 driver): database/sql's where
// sqlc gives pgx/v4 none of its own, github.com/jackc/pgtype's where it
// does, interface{} for the types sqlc maps for pgx/v5 only; pointers with
// emit_pointers_for_null_types, as sqlc (TestProbesMatchSqlc compares the
// same with sqlc itself).
func TestPgxV4Types(t *testing.T) {
	const cfg = `version: "2"
sql:
  - engine: postgresql
    schema: schema.sql
    queries: query.sql
    gen:
      go: {package: db, out: db, sql_package: pgx/v4%s}
`
	const query = "-- name: Get :one\nSELECT * FROM k WHERE id = $1;\n"
	files, _ := generateVet(t, strings.Replace(cfg, "%s", "", 1), pgxV4Schema, query)
	a := parseAPI(t, files)
	for _, line := range []string{
		"field K.N sql.NullInt32", "field K.Nn int32", "field K.T sql.NullString",
		"field K.Num pgtype.Numeric", "field K.J pgtype.JSONB", "field K.At sql.NullTime",
		"field K.Atn time.Time", "field K.U uuid.NullUUID", "field K.Ip pgtype.Inet",
		"field K.R pgtype.Int4range", "field K.Mr interface{}", "field K.Iv sql.NullInt64",
		"field K.Ivn int64", "field K.Arr []string", "field K.M NullMood",
	} {
		a.has(t, line)
	}
	if !strings.Contains(files["models.go"], "\t\"github.com/jackc/pgtype\"\n") {
		t.Errorf("models.go does not import github.com/jackc/pgtype:\n%s", files["models.go"])
	}
	if !strings.Contains(files["db.go"], "\t\"github.com/jackc/pgconn\"\n\t\"github.com/jackc/pgx/v4\"\n") {
		t.Errorf("db.go does not import pgx/v4's pgconn and pgx:\n%s", files["db.go"])
	}

	files, _ = generateVet(t, strings.Replace(cfg, "%s", ", emit_pointers_for_null_types: true", 1), pgxV4Schema, query)
	a = parseAPI(t, files)
	for _, line := range []string{
		"field K.N *int32", "field K.T *string", "field K.At *time.Time", "field K.U *uuid.UUID",
		"field K.Num pgtype.Numeric", "field K.J pgtype.JSONB", "field K.Iv *int64", "field K.M *Mood",
	} {
		a.has(t, line)
	}
}

// TestPgxV4IntervalNote: fencegen vet says where a pgx/v4 entry declares
// an interval int64 or sql.NullInt64 (sqlc's types, which pgx/v4 can
// neither scan into nor send), at the table and at the query, with the
// override that works; with that override there is no note.
func TestPgxV4IntervalNote(t *testing.T) {
	const cfg = `version: "2"
sql:
  - engine: postgresql
    schema: schema.sql
    queries: query.sql
    gen:
      go:
        package: db
        out: db
        sql_package: pgx/v4
`
	// date_trunc of a timestamp is a timestamp: sqlc reads it as its
	// interval overload, and an interval override does not help it.
	const query = "-- name: Put :exec\nINSERT INTO k (id, ivn) VALUES ($1, $2);\n-- name: Days :many\nSELECT date_trunc('day', atn) AS day FROM k;\n"
	const dayNote = "query.sql:3:1: note: query Days: result column day is declared %s, as sqlc declares it for pgx/v4, reading it as an interval, but PostgreSQL returns timestamptz, which pgx/v4 cannot convert to or from %[1]s (an interval override does not fix it): postgresql_types: true declares time.Time; or cast it in the query (::timestamptz), which sqlc reads"
	_, vet := generateVet(t, cfg, pgxV4Schema, query)
	var got []string
	for _, n := range vet {
		if strings.Contains(n, "interval") {
			got = append(got, n)
		}
	}
	want := []string{
		"schema.sql:3:14: note: column k.iv is an interval declared sql.NullInt64, as sqlc declares it for pgx/v4, which pgx/v4 can neither scan into nor send (its pgtype converts an interval to time.Duration only); the override {db_type: pg_catalog.interval, nullable: true, go_type: {import: time, type: Duration, pointer: true}} works",
		"schema.sql:3:14: note: column k.ivn is an interval declared int64, as sqlc declares it for pgx/v4, which pgx/v4 can neither scan into nor send (its pgtype converts an interval to time.Duration only); the override {db_type: pg_catalog.interval, go_type: time.Duration} works",
		"query.sql:1:1: note: query Put: parameter ivn is an interval declared int64, as sqlc declares it for pgx/v4, which pgx/v4 can neither scan into nor send (its pgtype converts an interval to time.Duration only); the override {db_type: pg_catalog.interval, go_type: time.Duration} works",
		fmt.Sprintf(dayNote, "int64"),
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("vet notes:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	withOverride := cfg + `        overrides:
          - {db_type: pg_catalog.interval, go_type: time.Duration}
          - {db_type: pg_catalog.interval, nullable: true, go_type: {import: time, type: Duration, pointer: true}}
`
	files, vet := generateVet(t, withOverride, pgxV4Schema, query)
	for _, n := range vet {
		if strings.Contains(n, "interval declared") {
			t.Errorf("with the override: %s", n)
		}
	}
	if want := fmt.Sprintf(dayNote, "int64"); !slices.Contains(vet, want) {
		t.Errorf("with the override, vet notes:\n%s\nwant:\n%s", strings.Join(vet, "\n"), want)
	}
	a := parseAPI(t, files)
	a.has(t, "field K.Iv *time.Duration")
	a.has(t, "field K.Ivn time.Duration")
}

// TestOverrideImportedUnderItsOwnName: overrides that import one path
// under several names (fuid and uuid for github.com/gofrs/uuid, orm for
// database/sql beside pgx/v4's own sql.NullString) get one import per
// name, as sqlc writes them (its overrides_go_types case), where one
// name served every use of the path.
func TestOverrideImportedUnderItsOwnName(t *testing.T) {
	const cfg = `version: "2"
sql:
  - engine: postgresql
    schema: schema.sql
    queries: query.sql
    gen:
      go:
        package: db
        out: db
        sql_package: pgx/v4
        overrides:
          - {column: "*.id", go_type: {import: github.com/gofrs/uuid, package: uuid, type: UUID}}
          - {column: "*.other_id", go_type: {import: github.com/gofrs/uuid, package: fuid, type: UUID}}
          - {column: "foo.age", nullable: true, go_type: {import: database/sql, package: orm, type: NullInt32}}
`
	const schema = `
CREATE TABLE foo (id uuid NOT NULL, other_id uuid NOT NULL, age integer);
CREATE TABLE bar (id uuid NOT NULL, other_id uuid NOT NULL, age integer);
`
	files, _ := generateVet(t, cfg, schema, "-- name: ListBar :many\nSELECT * FROM bar;\n")
	want := `import (
	"database/sql"

	orm "database/sql"
	fuid "github.com/gofrs/uuid"
	uuid "github.com/gofrs/uuid"
)

type Bar struct {
	ID      uuid.UUID
	OtherID fuid.UUID
	Age     sql.NullInt32
}

type Foo struct {
	ID      uuid.UUID
	OtherID fuid.UUID
	Age     orm.NullInt32
}
`
	if m := files["models.go"]; !strings.Contains(m, want) {
		t.Errorf("models.go:\n%s\nwant it to hold:\n%s", m, want)
	}
}

// TestOverrideStdPackageGroupedAsSqlc: sqlc imports time among the
// standard library's packages only for a time.Time; an override's
// time.Duration alone goes with the other packages, after a blank line
// (the override vet suggests for a pgx/v4 interval), and beside a
// time.Time it is the one standard import.
func TestOverrideStdPackageGroupedAsSqlc(t *testing.T) {
	const cfg = `version: "2"
sql:
  - engine: postgresql
    schema: schema.sql
    queries: query.sql
    gen:
      go:
        package: db
        out: db
        sql_package: pgx/v4
        overrides:
          - {db_type: pg_catalog.interval, go_type: time.Duration}
`
	const schema = `
CREATE TABLE t (id bigint PRIMARY KEY, iv interval NOT NULL, at timestamptz NOT NULL);
CREATE TABLE u (id bigint PRIMARY KEY, iv interval NOT NULL);
`
	files, _ := generateVet(t, cfg, schema, "-- name: PutU :exec\nINSERT INTO u (id, iv) VALUES ($1, $2);\n")
	if q, want := files["query.sql.go"], "import (\n\t\"context\"\n\n\t\"time\"\n)\n"; !strings.Contains(q, want) {
		t.Errorf("query.sql.go with time.Duration only:\n%s\nwant its imports:\n%s", q, want)
	}
	files, _ = generateVet(t, cfg, schema, "-- name: PutT :exec\nINSERT INTO t (id, iv, at) VALUES ($1, $2, $3);\n")
	if q, want := files["query.sql.go"], "import (\n\t\"context\"\n\t\"time\"\n)\n"; !strings.Contains(q, want) {
		t.Errorf("query.sql.go with time.Duration and time.Time:\n%s\nwant its imports:\n%s", q, want)
	}
}

// TestAlterAddPrimaryKeyNullableAsSqlc: a column that only an ALTER
// TABLE ... ADD PRIMARY KEY makes NOT NULL is nullable by default, in the
// model and for a parameter compared with it, as sqlc v1.31.1 declares it
// (its catalog applies no ADD CONSTRAINT; mergestat's
// github_pull_request_commits.hash); a later SET NOT NULL, which sqlc
// applies, makes it NOT NULL, and ALTER COLUMN TYPE keeps it nullable in
// the new type; CREATE TABLE's PRIMARY KEY makes it NOT NULL, as in sqlc.
// With postgresql_types it is PostgreSQL's NOT NULL throughout.
func TestAlterAddPrimaryKeyNullableAsSqlc(t *testing.T) {
	const schema = `
CREATE TABLE a (x text, y text, PRIMARY KEY (x));
CREATE TABLE b (x text, y text);
ALTER TABLE b ADD CONSTRAINT b_pkey PRIMARY KEY (x);
CREATE TABLE d (x text, y int);
ALTER TABLE d ADD PRIMARY KEY (x);
ALTER TABLE d ALTER COLUMN x TYPE varchar(10);
CREATE TABLE e (x text);
ALTER TABLE e ADD PRIMARY KEY (x);
ALTER TABLE e ALTER COLUMN x SET NOT NULL;
`
	const query = "-- name: GetB :one\nSELECT x, y FROM b WHERE x = $1;\n"
	for _, pgTypes := range []bool{false, true} {
		cfg := "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: schema.sql\n    queries: query.sql\n    gen:\n      go: {package: db, out: db, sql_package: pgx/v4"
		if pgTypes {
			cfg += ", postgresql_types: true"
		}
		cfg += "}\n"
		files, _ := generateVet(t, cfg, schema, query)
		a := parseAPI(t, files)
		want := map[string]string{"A.X": "string", "B.X": "sql.NullString", "D.X": "sql.NullString", "E.X": "string"}
		param := "(context.Context, sql.NullString) (B, error)"
		if pgTypes {
			want["B.X"], want["D.X"] = "string", "string"
			param = "(context.Context, string) (B, error)"
		}
		for f, typ := range want {
			a.has(t, "field "+f+" "+typ)
		}
		if got := a.methods["GetB"]; got != param {
			t.Errorf("postgresql_types %v: GetB %s, want %s", pgTypes, got, param)
		}
	}
}

// TestInfoSchemaViewColumnsAsSqlc: a view's column read from an
// information_schema view is interface{} by default, as sqlc v1.31.1
// declares it (it knows information_schema's domains by name only;
// mergestat's schema_introspection view), and typed with postgresql_types.
func TestInfoSchemaViewColumnsAsSqlc(t *testing.T) {
	const schema = `
CREATE VIEW introspection AS
SELECT c.table_name, c.ordinal_position, c.column_name AS name
FROM information_schema.columns AS c;
`
	const query = "-- name: ListIntrospection :many\nSELECT * FROM introspection;\n"
	for _, pgTypes := range []bool{false, true} {
		cfg := "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: schema.sql\n    queries: query.sql\n    gen:\n      go: {package: db, out: db, sql_package: pgx/v4"
		want := []string{"field Introspection.TableName interface{}", "field Introspection.OrdinalPosition interface{}", "field Introspection.Name interface{}"}
		if pgTypes {
			cfg += ", postgresql_types: true"
			want = []string{"field Introspection.TableName sql.NullString", "field Introspection.OrdinalPosition sql.NullInt32", "field Introspection.Name sql.NullString"}
		}
		files, _ := generateVet(t, cfg+"}\n", schema, query)
		a := parseAPI(t, files)
		for _, line := range want {
			a.has(t, line)
		}
	}
}
