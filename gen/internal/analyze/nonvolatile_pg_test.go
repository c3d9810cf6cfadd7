package analyze

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/internal/testenv"
)

// nvBase is trial t24's base schema: fenced table jobs (token tok), a table
// other without a mark, and bump(), a VOLATILE function that updates jobs.
const nvBase = "CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT 'q', tok bigint NOT NULL DEFAULT 0);\n" +
	"COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n" +
	"CREATE TABLE other (id bigint PRIMARY KEY, note text);\n" +
	"CREATE FUNCTION bump() RETURNS int LANGUAGE plpgsql AS $$ BEGIN UPDATE public.jobs SET status = 'bumped' || clock_timestamp() WHERE id = 1; RETURN 1; END $$;\n"

const (
	nvImmW = "CREATE FUNCTION imm_w() RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN bump() - 1; END $$;\n"
	nvImmB = "CREATE FUNCTION imm_b() RETURNS bool LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN bump() > 0; END $$;\n"
	nvImmX = "CREATE FUNCTION imm_x(bigint) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN $1 + bump(); END $$;\n"
	nvSeed = "INSERT INTO jobs VALUES (1, 'q', 5);\nINSERT INTO other VALUES (1, 'n'), (2, 'n');\n"
)

// nonVolatileShapes are trial t24's escapes F1, F2 and F3: an IMMUTABLE
// function that calls a writer of a fenced table, hidden by the schema in
// a place PostgreSQL evaluates it on its own (a column DEFAULT of an
// INSERT's target, an index expression, a partial-index predicate, an
// inheritance child's CHECK, a partition key, a statistics expression, a
// materialized view's index), and a statement that names none of it.
var nonVolatileShapes = []struct {
	name, schema, query string
	// decl is the text of the statement that declares the writer
	// IMMUTABLE or STABLE, where fencegen's error must be.
	decl string
}{
	{"F1 EXPLAIN INSERT, column DEFAULT", nvImmW + "ALTER TABLE other ADD COLUMN k int DEFAULT imm_w();\n", "EXPLAIN INSERT INTO other (id) VALUES ($1)", "CREATE FUNCTION imm_w"},
	{"F1 EXPLAIN INSERT, view column DEFAULT", nvImmW + "CREATE VIEW ov AS SELECT * FROM other;\nALTER VIEW ov ALTER COLUMN note SET DEFAULT imm_w()::text;\n", "EXPLAIN INSERT INTO ov (id) VALUES (9)", "CREATE FUNCTION imm_w"},
	{"f2a SELECT, index expression", nvImmW + "CREATE INDEX other_k ON other ((id + imm_w()));\n", "SELECT note FROM other WHERE id = $1", "CREATE FUNCTION imm_w"},
	{"f2b DELETE, partial-index predicate", nvImmB + "CREATE INDEX other_p ON other (id) WHERE imm_b();\n", "DELETE FROM other WHERE id = 2", "CREATE FUNCTION imm_b"},
	{"f2c SELECT of a parent, child's CHECK", nvImmB + "CREATE TABLE par (id int);\nCREATE TABLE chi (CHECK (imm_b())) INHERITS (par);\n", "SELECT * FROM par WHERE id = 1", "CREATE FUNCTION imm_b"},
	{"f2d SELECT, partition key", nvImmW + "CREATE TABLE pt (id int, v text) PARTITION BY RANGE ((id + imm_w()));\nCREATE TABLE pt1 PARTITION OF pt FOR VALUES FROM (0) TO (100);\n", "SELECT * FROM pt WHERE id = 1", "CREATE FUNCTION imm_w"},
	{"f2e SELECT, statistics expression", nvImmW + "CREATE STATISTICS st ON (id + imm_w()), note FROM other;\n", "ANALYZE other", "CREATE FUNCTION imm_w"},
	{"f2f INSERT whose foreign key checks a table with an index expression", nvImmW + "CREATE INDEX other_k ON other ((id + imm_w()));\nCREATE TABLE child (id bigint PRIMARY KEY, oid bigint REFERENCES other (id));\n", "INSERT INTO child VALUES (1, 1)", "CREATE FUNCTION imm_w"},
	{"x01 TRUNCATE, index expression", nvImmW + "CREATE INDEX other_k ON other ((id + imm_w()));\n", "TRUNCATE other", "CREATE FUNCTION imm_w"},
	{"x06 CREATE TABLE AS, index expression", nvImmW + "CREATE INDEX other_k ON other ((id + imm_w()));\n", "CREATE TEMP TABLE tt AS SELECT * FROM other", "CREATE FUNCTION imm_w"},
	{"x07 SELECT of a view, index expression", nvImmW + "CREATE INDEX other_k ON other ((id + imm_w()));\nCREATE VIEW ov AS SELECT id, note FROM other;\n", "SELECT * FROM ov WHERE id = 1", "CREATE FUNCTION imm_w"},
	{"r06 EXPLAIN SELECT, index expression", nvImmW + "CREATE INDEX other_k ON other ((id + imm_w()));\n", "EXPLAIN SELECT note FROM other WHERE id = 1", "CREATE FUNCTION imm_w"},
	{"x09 join of a fenced table, second fenced table through an index expression",
		"CREATE TABLE jobs2 (id bigint PRIMARY KEY, st text, tok bigint NOT NULL DEFAULT 0);\nCOMMENT ON COLUMN jobs2.tok IS 'fencegen:token';\n" +
			"CREATE FUNCTION bump2() RETURNS int LANGUAGE plpgsql AS $$ BEGIN UPDATE public.jobs2 SET st = 'b2' || clock_timestamp() WHERE id = 1; RETURN 1; END $$;\n" +
			"CREATE FUNCTION imm2() RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$ BEGIN RETURN bump2() - 1; END $$;\nCREATE INDEX other_k2 ON other ((id + imm2()));\nINSERT INTO jobs2 VALUES (1, 'a', 5);\n",
		"SELECT j.* FROM jobs j JOIN other o USING (id) WHERE j.id = 1", "CREATE FUNCTION imm2"},
	{"F3 REFRESH of a read-only materialized view, its index expression", nvImmX + "CREATE MATERIALIZED VIEW mv AS SELECT id FROM other;\nCREATE INDEX mv_x ON mv (imm_x(id));\n", "REFRESH MATERIALIZED VIEW mv", "CREATE FUNCTION imm_x"},
	{"ALTER FUNCTION makes a writer IMMUTABLE after an index uses it", "CREATE FUNCTION w(x bigint) RETURNS bigint LANGUAGE plpgsql AS $$ BEGIN RETURN x + bump(); END $$;\nALTER FUNCTION w(bigint) IMMUTABLE;\nCREATE INDEX other_w ON other ((id + w(1)));\n", "SELECT note FROM other WHERE id = 1", "ALTER FUNCTION w"},
	// The planner evaluates a STABLE call for its estimates
	// (estimate_expression_value): one in a row-level security policy,
	// while it plans a read of the table by a role the policy applies to
	// (pg_read_all_data; the writer is SECURITY DEFINER, as that role may
	// not update jobs).
	{"STABLE writer in a policy, EXPLAIN SELECT", "CREATE FUNCTION bump_d() RETURNS int LANGUAGE plpgsql SECURITY DEFINER AS $$ BEGIN RETURN bump(); END $$;\n" +
		"CREATE FUNCTION st_w() RETURNS int LANGUAGE plpgsql STABLE AS $$ BEGIN RETURN bump_d(); END $$;\nALTER TABLE other ENABLE ROW LEVEL SECURITY;\nCREATE POLICY p ON other USING (id < st_w() + 100);\n",
		"EXPLAIN SELECT note FROM other WHERE id = 1", "CREATE FUNCTION st_w"},
}

// nvConservative says, by shape, why fencegen refuses the statement of the
// VOLATILE control that PostgreSQL runs without writing a fenced table.
var nvConservative = map[string]string{
	"STABLE writer in a policy, EXPLAIN SELECT": "a policy's writer counts as run by EXPLAIN without ANALYZE too",
}

// TestNonVolatileWriterAgainstPostgreSQL: for each of nonVolatileShapes
// PostgreSQL, in a database of its own with the schema applied and a new
// session (an index's expressions are evaluated once per session, when it
// is first loaded), writes a fenced table while running a statement that
// names neither the function nor the fenced table; fencegen refuses the
// schema, at the statement that declared the function IMMUTABLE or
// STABLE. The same schema with the function VOLATILE is either refused by
// PostgreSQL (index expressions, predicates, partition keys and statistics
// take only IMMUTABLE functions) or judged by it: then the statement
// writes a fenced table exactly when fencegen refuses it.
func TestNonVolatileWriterAgainstPostgreSQL(t *testing.T) {
	testenv.NewDatabase(t) // a loud skip, or a failure under CI, without PostgreSQL
	for _, tc := range nonVolatileShapes {
		schema := nvBase + tc.schema
		// fencegen: the error is at the declaration, whatever the query.
		cat, errs := schemaCatalog(t, schema)
		if len(errs) > 0 {
			t.Fatalf("%s: schema: %v", tc.name, errs)
		}
		_, msgs := analyzeCat(t, cat, "-- name: Q :exec\n"+tc.query+";\n")
		at := strings.Index(schema, tc.decl)
		if at < 0 {
			t.Fatalf("%s: %q not in the schema", tc.name, tc.decl)
		}
		line, col := diag.Position([]byte(schema), at)
		want := fmt.Sprintf("schema.sql:%d:%d: function ", line, col)
		found := false
		for _, m := range msgs {
			if strings.HasPrefix(m, want) && strings.Contains(m, "declare it VOLATILE") {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: fencegen: %q, want an error at %s saying to declare the function VOLATILE", tc.name, msgs, want)
		}
		// PostgreSQL: the statement writes a fenced table.
		wrote, err := nvWrites(t, cat, schema, tc.query)
		switch {
		case err != nil:
			t.Errorf("%s: PostgreSQL: %v", tc.name, err)
		case !wrote:
			t.Errorf("%s: PostgreSQL ran it without writing a fenced table: the shape no longer shows the escape", tc.name)
		}
		// The control: the same functions VOLATILE.
		vschema := strings.NewReplacer(" IMMUTABLE ", " VOLATILE ", " STABLE ", " VOLATILE ", "ALTER FUNCTION w(bigint) IMMUTABLE;\n", "").Replace(schema)
		vcat, verrs := schemaCatalog(t, vschema)
		if len(verrs) > 0 {
			t.Fatalf("%s (VOLATILE): schema: %v", tc.name, verrs)
		}
		_, vmsgs := analyzeCat(t, vcat, "-- name: Q :exec\n"+tc.query+";\n")
		for _, m := range vmsgs {
			if strings.HasPrefix(m, "schema.sql:") {
				t.Errorf("%s (VOLATILE): a schema error: %s", tc.name, m)
			}
		}
		vwrote, err := nvWrites(t, vcat, vschema, tc.query)
		switch {
		case err != nil && strings.Contains(err.Error(), "must be marked IMMUTABLE"):
			// PostgreSQL takes only an IMMUTABLE function there.
		case err != nil:
			t.Errorf("%s (VOLATILE): PostgreSQL: %v", tc.name, err)
		case vwrote && len(vmsgs) == 0:
			t.Errorf("%s (VOLATILE): PostgreSQL wrote a fenced table and fencegen generated the statement", tc.name)
		case !vwrote && len(vmsgs) > 0 && nvConservative[tc.name] == "":
			t.Errorf("%s (VOLATILE): fencegen refused it (%q), but PostgreSQL ran it without writing a fenced table", tc.name, vmsgs)
		}
	}
}

// nvWrites applies schema and nvSeed to a database of its own, runs query
// in a new session and reports whether the rows of cat's fenced tables
// changed.
func nvWrites(t *testing.T, cat *catalog.Catalog, schema, query string) (bool, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	dsn := testenv.NewDatabase(t)
	setup, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return false, err
	}
	_, err = setup.Exec(ctx, schema+nvSeed)
	setup.Close(ctx)
	if err != nil {
		return false, err
	}
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return false, err
	}
	defer conn.Close(ctx)
	if strings.Contains(schema, "CREATE POLICY") {
		// Superusers bypass row-level security.
		if _, err := conn.Exec(ctx, "SET ROLE pg_read_all_data"); err != nil {
			return false, err
		}
	}
	before, err := fencedRows(ctx, conn, cat)
	if err != nil {
		return false, err
	}
	args := []any{}
	if strings.Contains(query, "$1") {
		args = append(args, int64(1))
	}
	if _, err := conn.Exec(ctx, query, args...); err != nil {
		return false, err
	}
	after, err := fencedRows(ctx, conn, cat)
	return before != after, err
}
