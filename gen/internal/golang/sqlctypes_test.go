package golang_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// sqlcTypesSchema is the schema of TestSqlcTypesByDefault.
const sqlcTypesSchema = `
CREATE DOMAIN cents AS bigint;
CREATE TABLE t (
  id bigint PRIMARY KEY,
  name text NOT NULL,
  note text,
  small int2,
  big int8,
  n int,
  ts timestamp NOT NULL,
  doc jsonb NOT NULL,
  amount cents NOT NULL
);
CREATE TABLE org (legal text);
CREATE TABLE org_child (legal text NOT NULL) INHERITS (org);
CREATE VIEW t_names AS SELECT id, upper(name) AS up, sum(big) AS total FROM t GROUP BY id;
CREATE FUNCTION pairs() RETURNS TABLE (a int, b text) AS $$ SELECT 1, 'x' $$ LANGUAGE sql;
CREATE MATERIALIZED VIEW t_unnamed AS SELECT id, 1 FROM t;
`

// sqlcTypeCase is one class where sqlc v1.31.1 declares another Go type
// than PostgreSQL's: the query declares a field or a method whose type is
// sqlc's by default (sqlcPgx, sqlcStdlib) and PostgreSQL's with
// postgresql_types: true (pgPgx, pgStdlib).
type sqlcTypeCase struct {
	name, query string
	// field is "Row.Field" of a result struct; "" to compare the
	// signature of method instead.
	field, method       string
	sqlcPgx, sqlcStdlib string
	pgPgx, pgStdlib     string
	// same is set where sqlc and PostgreSQL agree (vet lists nothing).
	same bool
}

var sqlcTypeCases = []sqlcTypeCase{
	{name: "sum of bigint", query: "-- name: SumBig :one\nSELECT id, sum(big) AS v FROM t GROUP BY id;",
		field: "SumBigRow.V", sqlcPgx: "int64", sqlcStdlib: "int64", pgPgx: "pgtype.Numeric", pgStdlib: "sql.NullString"},
	{name: "int8 + int8", query: "-- name: AddBig :one\nSELECT id, id + id AS v FROM t;",
		field: "AddBigRow.V", sqlcPgx: "int32", sqlcStdlib: "int32", pgPgx: "int64", pgStdlib: "int64"},
	{name: "abs of a numeric constant", query: "-- name: Abs :one\nSELECT id, abs(-17.4) AS v FROM t;",
		field: "AbsRow.V", sqlcPgx: "int64", sqlcStdlib: "int64", pgPgx: "pgtype.Numeric", pgStdlib: "string"},
	{name: "ceil", query: "-- name: Ceil :one\nSELECT id, ceil(-42.8) AS v FROM t;",
		field: "CeilRow.V", sqlcPgx: "float64", sqlcStdlib: "float64", pgPgx: "pgtype.Numeric", pgStdlib: "string"},
	{name: "date_trunc of a timestamp", query: "-- name: Trunc :one\nSELECT id, date_trunc('day', ts) AS v FROM t;",
		field: "TruncRow.V", sqlcPgx: "pgtype.Interval", sqlcStdlib: "int64", pgPgx: "pgtype.Timestamp", pgStdlib: "time.Time"},
	{name: "length of text", query: "-- name: Len :one\nSELECT id, length(name) AS v FROM t;",
		field: "LenRow.V", sqlcPgx: "float64", sqlcStdlib: "float64", pgPgx: "int32", pgStdlib: "int32"},
	{name: "power operator", query: "-- name: Pow :one\nSELECT id, n ^ 2 AS v FROM t;",
		field: "PowRow.V", sqlcPgx: "int32", sqlcStdlib: "int32", pgPgx: "float64", pgStdlib: "float64"},
	{name: "NULLIF", query: "-- name: NullIf :one\nSELECT id, NULLIF(id, 3) AS v FROM t;",
		field: "NullIfRow.V", sqlcPgx: "bool", sqlcStdlib: "bool", pgPgx: "pgtype.Int8", pgStdlib: "sql.NullInt64"},
	{name: "avg of a nullable column", query: "-- name: Avg :one\nSELECT id, avg(n) AS v FROM t GROUP BY id;",
		field: "AvgRow.V", sqlcPgx: "float64", sqlcStdlib: "float64", pgPgx: "pgtype.Numeric", pgStdlib: "sql.NullString"},
	{name: "CASE typed by its ELSE", query: "-- name: Case :one\nSELECT id, CASE WHEN n > 1 THEN note ELSE 'x' END AS v FROM t;",
		field: "CaseRow.V", sqlcPgx: "string", sqlcStdlib: "string", pgPgx: "pgtype.Text", pgStdlib: "sql.NullString"},
	{name: "COALESCE typed by its first column", query: "-- name: Coal :one\nSELECT id, COALESCE(small, big) AS v FROM t;",
		field: "CoalRow.V", sqlcPgx: "pgtype.Int2", sqlcStdlib: "sql.NullInt16", pgPgx: "pgtype.Int8", pgStdlib: "sql.NullInt64"},
	{name: "COALESCE with a function call", query: "-- name: CoalNow :one\nSELECT id, COALESCE(note, upper(name)) AS v FROM t;",
		field: "CoalNowRow.V", sqlcPgx: "pgtype.Text", sqlcStdlib: "sql.NullString", pgPgx: "string", pgStdlib: "string"},
	{name: "scalar subquery of a NOT NULL column", query: "-- name: Sub :one\nSELECT id, (SELECT name FROM t AS u WHERE u.id > t.id LIMIT 1) AS v FROM t;",
		field: "SubRow.V", sqlcPgx: "string", sqlcStdlib: "string", pgPgx: "pgtype.Text", pgStdlib: "sql.NullString"},
	{name: "sum through two CTEs", query: "-- name: CteSum :one\nWITH a AS (SELECT id, n FROM t), b AS (SELECT id, n FROM a)\nSELECT id, sum(n) AS v FROM b GROUP BY id;",
		field: "CteSumRow.V", sqlcPgx: "int64", sqlcStdlib: "int64", pgPgx: "pgtype.Int8", pgStdlib: "sql.NullInt64"},
	{name: "a CTE column carries sqlc's type", query: "-- name: CteCol :one\nWITH a AS (SELECT id, sum(big) AS s FROM t GROUP BY id)\nSELECT id, s AS v FROM a;",
		field: "CteColRow.V", sqlcPgx: "int64", sqlcStdlib: "int64", pgPgx: "pgtype.Numeric", pgStdlib: "sql.NullString"},
	{name: "a domain column", query: "-- name: Dom :one\nSELECT id, amount AS v FROM t;",
		field: "DomRow.V", sqlcPgx: "interface{}", sqlcStdlib: "interface{}", pgPgx: "int64", pgStdlib: "int64"},
	{name: "an information_schema column", query: "-- name: Info :one\nSELECT schema_name AS v, 1 AS one FROM information_schema.schemata;",
		field: "InfoRow.V", sqlcPgx: "interface{}", sqlcStdlib: "interface{}", pgPgx: "pgtype.Text", pgStdlib: "sql.NullString"},
	{name: "a parameter in '%' || @q || '%'", query: "-- name: Like :many\nSELECT id FROM t WHERE name LIKE '%' || @q || '%';",
		method: "Like", sqlcPgx: "(context.Context, pgtype.Text) ([]int64, error)", sqlcStdlib: "(context.Context, sql.NullString) ([]int64, error)",
		pgPgx: "(context.Context, string) ([]int64, error)", pgStdlib: "(context.Context, string) ([]int64, error)"},
	{name: "a parameter compared with an information_schema column", query: "-- name: Schemas :many\nSELECT schema_name::text FROM information_schema.schemata WHERE schema_name LIKE @prefix;",
		method: "Schemas", sqlcPgx: "(context.Context, interface{}) ([]string, error)", sqlcStdlib: "(context.Context, interface{}) ([]string, error)",
		pgPgx: "(context.Context, pgtype.Text) ([]string, error)", pgStdlib: "(context.Context, sql.NullString) ([]string, error)"},
	{name: "a COALESCE parameter compared with a column", query: "-- name: Later :many\nSELECT id FROM t WHERE id > COALESCE(sqlc.narg(after), -1);",
		method: "Later", sqlcPgx: "(context.Context, pgtype.Int8) ([]int64, error)", sqlcStdlib: "(context.Context, sql.NullInt64) ([]int64, error)",
		pgPgx: "(context.Context, pgtype.Int4) ([]int64, error)", pgStdlib: "(context.Context, sql.NullInt32) ([]int64, error)"},
	{name: "a float constant", query: "-- name: Flt :one\nSELECT id, 1.5 AS v FROM t;",
		field: "FltRow.V", sqlcPgx: "float64", sqlcStdlib: "float64", pgPgx: "pgtype.Numeric", pgStdlib: "string"},
	{name: "a UNION typed by its left side", query: "-- name: Uni :many\nSELECT id, name AS v FROM t UNION ALL SELECT id, note FROM t;",
		field: "UniRow.V", sqlcPgx: "string", sqlcStdlib: "string", pgPgx: "pgtype.Text", pgStdlib: "sql.NullString"},
	{name: "a parameter compared with an expression of a column", query: "-- name: ByNote :many\nSELECT id FROM t WHERE COALESCE(note, '') = @note;",
		method: "ByNote", sqlcPgx: "(context.Context, pgtype.Text) ([]int64, error)", sqlcStdlib: "(context.Context, sql.NullString) ([]int64, error)",
		pgPgx: "(context.Context, string) ([]int64, error)", pgStdlib: "(context.Context, string) ([]int64, error)"},
	// A parameter compared with an operator or function over a column:
	// sqlc types it as the column, PostgreSQL as the expression's result.
	{name: "a parameter compared with ->> of a jsonb column", query: "-- name: ByKey :many\nSELECT id FROM t WHERE doc->>'k' = @k;",
		method: "ByKey", sqlcPgx: "(context.Context, []byte) ([]int64, error)", sqlcStdlib: "(context.Context, json.RawMessage) ([]int64, error)",
		pgPgx: "(context.Context, string) ([]int64, error)", pgStdlib: "(context.Context, string) ([]int64, error)"},
	{name: "a parameter compared with extract(... FROM a column)", query: "-- name: ByYear :many\nSELECT id FROM t WHERE extract(year FROM ts) = @y;",
		method: "ByYear", sqlcPgx: "(context.Context, pgtype.Timestamp) ([]int64, error)", sqlcStdlib: "(context.Context, time.Time) ([]int64, error)",
		pgPgx: "(context.Context, pgtype.Numeric) ([]int64, error)", pgStdlib: "(context.Context, string) ([]int64, error)"},
	{name: "a parameter compared with a function of a column", query: "-- name: ByLen :many\nSELECT id FROM t WHERE length(name) = @l;",
		method: "ByLen", sqlcPgx: "(context.Context, string) ([]int64, error)", sqlcStdlib: "(context.Context, string) ([]int64, error)",
		pgPgx: "(context.Context, int32) ([]int64, error)", pgStdlib: "(context.Context, int32) ([]int64, error)"},
	{name: "a parameter of = ANY without a cast", query: "-- name: ByIDs :many\nSELECT id FROM t WHERE id = ANY(@ids);",
		method: "ByIDs", sqlcPgx: "(context.Context, int64) ([]int64, error)", sqlcStdlib: "(context.Context, int64) ([]int64, error)",
		pgPgx: "(context.Context, []int64) ([]int64, error)", pgStdlib: "(context.Context, []int64) ([]int64, error)"},
	{name: "a CTE column on an outer join's nullable side", query: "-- name: CteOuter :many\nWITH c AS (SELECT id, sum(big) AS n FROM t GROUP BY id)\nSELECT t.id, c.n AS v FROM t LEFT JOIN c ON c.id = t.id;",
		field: "CteOuterRow.V", sqlcPgx: "pgtype.Int8", sqlcStdlib: "sql.NullInt64", pgPgx: "pgtype.Numeric", pgStdlib: "sql.NullString"},
	{name: "an aggregate's CTE column on an outer join's nullable side", query: "-- name: CteCount :many\nWITH c AS (SELECT id, count(*) AS n FROM t GROUP BY id)\nSELECT t.id, c.n AS v FROM t LEFT JOIN c ON c.id = t.id;",
		field: "CteCountRow.V", sqlcPgx: "pgtype.Int8", sqlcStdlib: "sql.NullInt64", pgPgx: "pgtype.Int8", pgStdlib: "sql.NullInt64", same: true},
	{name: "a view's column", query: "-- name: ViewCol :many\nSELECT id, total AS v FROM t_names;",
		field: "ViewColRow.V", sqlcPgx: "int64", sqlcStdlib: "int64", pgPgx: "pgtype.Numeric", pgStdlib: "sql.NullString"},
	{name: "a view's column sqlc does not type", query: "-- name: ViewAny :many\nSELECT id, up AS v FROM t_names;",
		field: "ViewAnyRow.V", sqlcPgx: "interface{}", sqlcStdlib: "interface{}", pgPgx: "string", pgStdlib: "string"},
	{name: "a cast of a nullable parameter", query: "-- name: CastArg :many\nSELECT id, sqlc.narg(x)::int AS v FROM t;",
		field: "CastArgRow.V", sqlcPgx: "int32", sqlcStdlib: "int32", pgPgx: "pgtype.Int4", pgStdlib: "sql.NullInt32"},
	{name: "a LATERAL subquery on an outer join's nullable side", query: "-- name: Lat :many\nSELECT t.id, x.n AS v FROM t LEFT JOIN LATERAL (SELECT count(*) AS n FROM t AS u WHERE u.id > t.id) x ON true;",
		field: "LatRow.V", sqlcPgx: "int64", sqlcStdlib: "int64", pgPgx: "pgtype.Int8", pgStdlib: "sql.NullInt64"},
	{name: "an @name parameter starting an arithmetic operand", query: "-- name: MinAge :many\nSELECT id FROM t WHERE n > @min_n - 1;",
		method: "MinAge", sqlcPgx: "(context.Context, pgtype.Int4) ([]int64, error)", sqlcStdlib: "(context.Context, sql.NullInt32) ([]int64, error)",
		pgPgx: "(context.Context, interface{}) ([]int64, error)", pgStdlib: "(context.Context, interface{}) ([]int64, error)"},
	{name: "parameters of a row comparison", query: "-- name: Page :many\nSELECT id FROM t WHERE (name, id) > (@after_name, @after_id);",
		field: "PageParams.AfterID", sqlcPgx: "string", sqlcStdlib: "string", pgPgx: "int64", pgStdlib: "int64"},
	{name: "a parameter in a cast of COALESCE", query: "-- name: CastCoal :exec\nUPDATE t SET ts = COALESCE(@at, localtimestamp)::timestamp WHERE id = @id;",
		field: "CastCoalParams.At", sqlcPgx: "pgtype.Timestamp", sqlcStdlib: "time.Time", pgPgx: "pgtype.Timestamp", pgStdlib: "time.Time", same: true},
	{name: "a parameter in a cast of COALESCE with a constant", query: "-- name: CastCoalN :exec\nINSERT INTO t (id, name, ts, doc, amount, n) VALUES (@id, 'x', now(), '{}', 1, COALESCE(@m, 0)::int);",
		field: "CastCoalNParams.M", sqlcPgx: "int32", sqlcStdlib: "int32", pgPgx: "int32", pgStdlib: "int32", same: true},
	{name: "a parameter of upper(), whose first overload in sqlc's catalog takes anymultirange", query: "-- name: Up :many\nSELECT id FROM t WHERE note = upper(@s);",
		method: "Up", sqlcPgx: "(context.Context, interface{}) ([]int64, error)", sqlcStdlib: "(context.Context, interface{}) ([]int64, error)",
		pgPgx: "(context.Context, string) ([]int64, error)", pgStdlib: "(context.Context, string) ([]int64, error)"},
	{name: "a parameter of lower(), whose first overload in sqlc's catalog takes text", query: "-- name: Low :many\nSELECT id FROM t WHERE note = lower(@s);",
		method: "Low", sqlcPgx: "(context.Context, string) ([]int64, error)", sqlcStdlib: "(context.Context, string) ([]int64, error)",
		pgPgx: "(context.Context, string) ([]int64, error)", pgStdlib: "(context.Context, string) ([]int64, error)", same: true},
	{name: "a parent's column a child redeclares NOT NULL", query: "-- name: Legal :many\nSELECT legal AS v, 1 AS one FROM org;",
		field: "LegalRow.V", sqlcPgx: "string", sqlcStdlib: "string", pgPgx: "pgtype.Text", pgStdlib: "sql.NullString"},
	{name: "a built-in function in FROM, typed by its first overload in sqlc's catalog", query: "-- name: Series :many\nSELECT * FROM generate_series(1, 3);",
		method: "Series", sqlcPgx: "(context.Context) ([]pgtype.Numeric, error)", sqlcStdlib: "(context.Context) ([]sql.NullString, error)",
		pgPgx: "(context.Context) ([]int32, error)", pgStdlib: "(context.Context) ([]int32, error)"},
	{name: "column aliases of a function in FROM", query: "-- name: Ord :many\nSELECT * FROM unnest(@ids::int[]) WITH ORDINALITY AS u(v, k);",
		field: "OrdRow.K", sqlcPgx: "interface{}", sqlcStdlib: "interface{}", pgPgx: "int64", pgStdlib: "int64"},
	{name: "WITH ORDINALITY without column aliases, which sqlc reads as the function's one column", query: "-- name: OrdStar :many\nSELECT * FROM generate_series(1, 3) WITH ORDINALITY;",
		method: "OrdStar", sqlcPgx: "(context.Context) ([]pgtype.Numeric, error)", sqlcStdlib: "(context.Context) ([]sql.NullString, error)",
		pgPgx: "(context.Context) ([]OrdStarRow, error)", pgStdlib: "(context.Context) ([]OrdStarRow, error)"},
	{name: "a function of several columns in FROM, which sqlc reads as one record", query: "-- name: Pairs :many\nSELECT * FROM pairs();",
		method: "Pairs", sqlcPgx: "(context.Context) ([]interface{}, error)", sqlcStdlib: "(context.Context) ([]interface{}, error)",
		pgPgx: "(context.Context) ([]PairsRow, error)", pgStdlib: "(context.Context) ([]PairsRow, error)"},
	{name: "an SQL value function in FROM, which sqlc reads as no relation", query: "-- name: Today :one\nSELECT * FROM CURRENT_DATE;",
		method: "Today", sqlcPgx: "(context.Context) (TodayRow, error)", sqlcStdlib: "(context.Context) (TodayRow, error)",
		pgPgx: "(context.Context) (pgtype.Date, error)", pgStdlib: "(context.Context) (time.Time, error)"},
}

// TestSqlcTypesByDefault checks, for each class where sqlc v1.31.1
// declares another Go type than PostgreSQL's, that a configuration sqlc
// reads gets sqlc's type, that postgresql_types: true gets PostgreSQL's,
// and that fencegen vet lists the place when the option is off.
func TestSqlcTypesByDefault(t *testing.T) {
	var queries []string
	for _, c := range sqlcTypeCases {
		queries = append(queries, c.query)
	}
	q := strings.Join(queries, "\n\n") + "\n"
	for _, pkg := range []string{"pgx/v5", "database/sql"} {
		for _, pgTypes := range []bool{false, true} {
			name := pkg + "/sqlc"
			opt := ""
			if pgTypes {
				name, opt = pkg+"/postgresql_types", "        postgresql_types: true\n"
			}
			t.Run(name, func(t *testing.T) {
				cfg := "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: schema.sql\n    queries: query.sql\n    gen:\n      go:\n        package: db\n        out: out\n        sql_package: " + pkg + "\n" + opt
				files, vet := generateVet(t, cfg, sqlcTypesSchema, q)
				a := parseAPI(t, files)
				for _, c := range sqlcTypeCases {
					want := map[[2]bool]string{{false, false}: c.sqlcPgx, {false, true}: c.sqlcStdlib, {true, false}: c.pgPgx, {true, true}: c.pgStdlib}[[2]bool{pgTypes, pkg == "database/sql"}]
					if c.field != "" {
						if !a.lines["field "+c.field+" "+want] {
							t.Errorf("%s: want field %s %s", c.name, c.field, want)
						}
					} else if got := a.methods[c.method]; got != want {
						t.Errorf("%s: %s is %s, want %s", c.name, c.method, got, want)
					}
				}
				notes := strings.Join(vet, "\n")
				// A view's unnamed column: sqlc's model embeds its Go type.
				if embedded := strings.Contains(files["models.go"], "type TUnnamed struct {\n\tID int64\n\tint32\n}"); embedded == pgTypes {
					t.Errorf("model of t_unnamed (embedded field int32 wanted: %v):\n%s", !pgTypes, files["models.go"])
				}
				if !pgTypes && !strings.Contains(notes, "note: the model of t_unnamed has an embedded field int32 for the unnamed column 2 of its query") {
					t.Errorf("vet does not list t_unnamed's embedded field:\n%s", notes)
				}
				if pgTypes {
					if strings.Contains(notes, "postgresql_types") {
						t.Errorf("postgresql_types on: vet lists differences:\n%s", notes)
					}
					return
				}
				for _, c := range sqlcTypeCases {
					qname := strings.TrimSpace(strings.Fields(c.query)[2])
					if c.same {
						if strings.Contains(notes, "query "+qname+": ") {
							t.Errorf("%s: vet lists query %s, where sqlc and PostgreSQL agree:\n%s", c.name, qname, notes)
						}
						continue
					}
					if !strings.Contains(notes, "query "+qname+": ") {
						t.Errorf("%s: vet does not list query %s:\n%s", c.name, qname, notes)
					}
				}
				if !strings.Contains(notes, "schema.sql:3:14: note: column t.amount is interface{}, as sqlc declares it; postgresql_types: true declares int64") {
					t.Errorf("vet does not list the domain column t.amount:\n%s", notes)
				}
			})
		}
	}
}

// TestSqlcNullabilityDecidesOverrides: a scalar subquery of a NOT NULL
// jsonb column is NOT NULL for sqlc, so a db_type jsonb override (which
// applies to NOT NULL values unless nullable: true) applies as in sqlc;
// with postgresql_types the subquery may be NULL and the override does
// not apply.
func TestSqlcNullabilityDecidesOverrides(t *testing.T) {
	q := "-- name: Doc :one\nSELECT id, (SELECT doc FROM t AS u WHERE u.id > t.id LIMIT 1) AS d FROM t;\n"
	for _, pgTypes := range []bool{false, true} {
		cfg := "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: schema.sql\n    queries: query.sql\n    gen:\n      go:\n        package: db\n        out: out\n        sql_package: pgx/v5\n        overrides:\n          - db_type: jsonb\n            go_type: encoding/json.RawMessage\n"
		if pgTypes {
			cfg += "        postgresql_types: true\n"
		}
		files, _ := generateVet(t, cfg, sqlcTypesSchema, q)
		want := "field DocRow.D json.RawMessage"
		if pgTypes {
			want = "field DocRow.D []byte"
		}
		parseAPI(t, files).has(t, want)
	}
}

// generateVet is generate that also returns fencegen vet's notes.
func generateVet(t *testing.T, cfg, schema, queries string) (map[string]string, []string) {
	t.Helper()
	dir := t.TempDir()
	for name, src := range map[string]string{"sqlc.yaml": cfg, "schema.sql": schema, "query.sql": queries} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(src), 0o666); err != nil {
			t.Fatal(err)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chdir(dir); err != nil {
		t.Fatal(err)
	}
	defer os.Chdir(wd)
	c, err := gen.LoadConfig("sqlc.yaml")
	if err != nil {
		t.Fatal(err)
	}
	o, err := gen.Generate(context.Background(), c)
	if err != nil {
		t.Fatalf("generate: %v", err)
	}
	files := map[string]string{}
	for name, b := range o.Files {
		files[filepath.Base(name)] = string(b)
	}
	return files, o.Vet
}

// TestDomainOverrideFollowsSpelling: sqlc matches a db_type override
// with the type's name as written, so the override of a domain over text
// applies to a value spelt with the domain (a cast, a user function's
// argument and result) and not to a parameter of lower(), trim() or any
// other built-in declared with text, which is a string as in sqlc v1.31.1.
func TestDomainOverrideFollowsSpelling(t *testing.T) {
	schema := `CREATE DOMAIN slug AS TEXT;
CREATE TABLE users (id bigint PRIMARY KEY, email text NOT NULL);
CREATE FUNCTION norm(s slug) RETURNS slug AS $$ SELECT s $$ LANGUAGE sql;
`
	q := `-- name: Lower :many
SELECT id FROM users WHERE email = LOWER(@email);

-- name: Trim :many
SELECT id FROM users WHERE email = TRIM(@x);

-- name: InsLower :exec
INSERT INTO users (id, email) VALUES (@id, LOWER(@email));

-- name: Cast :many
SELECT id FROM users WHERE email = @e::slug;

-- name: LowerCast :many
SELECT id FROM users WHERE email = LOWER(@e::slug);

-- name: Norm :one
SELECT norm(@v) AS o;
`
	for _, pkg := range []string{"pgx/v5", "database/sql"} {
		for _, pgTypes := range []bool{false, true} {
			cfg := "version: \"2\"\nsql:\n  - engine: postgresql\n    schema: schema.sql\n    queries: query.sql\n    gen:\n      go:\n        package: db\n        out: out\n        sql_package: " + pkg + "\n        overrides:\n          - db_type: slug\n            go_type: github.com/x/slug.Slug\n"
			if pgTypes {
				cfg += "        postgresql_types: true\n"
			}
			files, _ := generateVet(t, cfg, schema, q)
			a := parseAPI(t, files)
			for method, want := range map[string]string{
				"Lower":     "(context.Context, string) ([]int64, error)",
				"Trim":      "(context.Context, string) ([]int64, error)",
				"Cast":      "(context.Context, slug.Slug) ([]int64, error)",
				"LowerCast": "(context.Context, slug.Slug) ([]int64, error)",
				"Norm":      "(context.Context, slug.Slug) (slug.Slug, error)",
			} {
				if got := a.methods[method]; got != want {
					t.Errorf("%s postgresql_types=%v: %s is %s, want %s", pkg, pgTypes, method, got, want)
				}
			}
			a.has(t, "field InsLowerParams.Email string")
		}
	}
}
