package writes

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// TestEveryNodeClassified enumerates the node kinds of pg_query's
// protobuf descriptor (the messages of Node's oneof) and fails for one
// that Classes does not classify, or for a name Classes has that the
// descriptor does not: a pg_query upgrade that adds a statement kind
// fails here until it is classified.
func TestEveryNodeClassified(t *testing.T) {
	fs := (&pg.Node{}).ProtoReflect().Descriptor().Oneofs().ByName("node").Fields()
	if fs.Len() < 200 {
		t.Fatalf("pg_query's Node has %d kinds: the descriptor was not read", fs.Len())
	}
	names := map[string]bool{}
	stmts := 0
	for i := 0; i < fs.Len(); i++ {
		name := string(fs.Get(i).Message().Name())
		names[name] = true
		if strings.HasSuffix(name, "Stmt") {
			stmts++
		}
		if c := Classes[name]; c == Unclassified {
			t.Errorf("node kind %s is not classified (writes.Classes)", name)
		}
	}
	for name := range Classes {
		if !names[name] {
			t.Errorf("Classes names %s, which pg_query's Node does not have", name)
		}
	}
	if stmts < 100 {
		t.Errorf("only %d statement kinds found", stmts)
	}
}

func report(t *testing.T, sql string) *Report {
	t.Helper()
	f, err := sqlparse.Parse("q.sql", []byte(sql))
	if err != nil {
		t.Fatal(err)
	}
	return Of(f.Stmts[0], f.Src)
}

// writesOf spells each write as VERB table place.
func writesOf(r *Report) []string {
	var out []string
	for _, w := range r.Writes {
		place := "top"
		switch {
		case w.CTE != "":
			place = "cte " + w.CTE
		case !w.Top:
			place = "in " + w.Host
		}
		out = append(out, fmt.Sprintf("%s %s %s", w.Verb, w.Table.String(), place))
	}
	return out
}

func TestWritesAtAnyDepth(t *testing.T) {
	for _, tc := range []struct {
		sql     string
		want    []string
		refused string
	}{
		{"UPDATE a SET x = 1", []string{"UPDATE a top"}, ""},
		{"WITH u AS (UPDATE a SET x = 1 RETURNING id) SELECT * FROM u", []string{"UPDATE a cte u"}, ""},
		{"WITH u AS (DELETE FROM a RETURNING id) MERGE INTO b USING u ON b.id = u.id WHEN MATCHED THEN DELETE",
			[]string{"MERGE b top", "DELETE a in MERGE's WITH list"}, ""},
		{"CREATE TEMP TABLE t AS WITH u AS (UPDATE a SET x = 1 RETURNING id) SELECT * FROM u", []string{"UPDATE a in CREATE TABLE ... AS"}, ""},
		{"WITH u AS (UPDATE a SET x = 1 RETURNING id) SELECT * INTO TEMP TABLE t FROM u", []string{"UPDATE a in SELECT ... INTO"}, ""},
		{"EXPLAIN ANALYZE DELETE FROM a", []string{"DELETE a in EXPLAIN ANALYZE"}, ""},
		{"CREATE TABLE t AS WITH u AS (DELETE FROM a RETURNING id) SELECT * FROM u WITH NO DATA", nil, ""},
		{"EXPLAIN (ANALYZE true, BUFFERS) DELETE FROM a", []string{"DELETE a in EXPLAIN ANALYZE"}, ""},
		{"EXPLAIN DELETE FROM a", nil, ""},
		{"EXPLAIN (ANALYZE false) DELETE FROM a", nil, ""},
		{"COPY (UPDATE a SET x = 1 RETURNING id) TO STDOUT", []string{"UPDATE a in COPY (query) TO"}, ""},
		{"COPY (SELECT * FROM a) TO STDOUT", nil, ""},
		{"COPY a FROM STDIN", []string{"COPY a top"}, ""},
		{"COPY a TO STDOUT", nil, ""},
		{"COPY a FROM PROGRAM 'x'", []string{"COPY a top"}, "COPY ... PROGRAM"},
		{"DECLARE c CURSOR FOR SELECT * FROM a", nil, ""},
		{"PREPARE p AS UPDATE a SET x = 1", []string{"UPDATE a in PREPARE"}, ""},
		{"PREPARE p AS WITH u AS (DELETE FROM a RETURNING id) SELECT * FROM u", []string{"DELETE a in PREPARE"}, ""},
		{"TRUNCATE ONLY a, b CASCADE", []string{"TRUNCATE a top", "TRUNCATE b top"}, ""},
		{"CREATE TABLE t AS EXECUTE p", nil, "AS EXECUTE"},
		{"EXECUTE p", nil, "EXECUTEs a prepared statement"},
		{"DO $$ begin null; end $$", nil, ""},
		{"DO $$ begin update a set x = 1; end $$", []string{"UPDATE a in a DO block"}, ""},
		{"DO $$ begin execute format('update %I set x = 1', 'a'); end $$", nil, "dynamic SQL"},
		{"DO LANGUAGE plperl $$ 1 $$", nil, "DO block"},
		{"DO $$ begin alter table a add column y int; end $$", nil, "schema statement"},
		{"VACUUM a", nil, "(VACUUM, PostgreSQL's VacuumStmt)"},
		{"EXPLAIN ANALYZE EXECUTE p", nil, "EXECUTEs"},
		{"EXPLAIN EXECUTE p", nil, "EXECUTEs"},
		{"EXPLAIN (ANALYZE false) EXECUTE p(1)", nil, "EXECUTEs"},
		{"SELECT 1", nil, ""},
	} {
		r := report(t, tc.sql)
		if got := writesOf(r); !slices.Equal(got, tc.want) {
			t.Errorf("%s: writes %q, want %q", tc.sql, got, tc.want)
		}
		var refusals []string
		for _, f := range r.Refusals {
			refusals = append(refusals, f.Reason)
		}
		if tc.refused == "" && len(refusals) > 0 || tc.refused != "" && (len(refusals) == 0 || !strings.Contains(refusals[0], tc.refused)) {
			t.Errorf("%s: refusals %q, want %q", tc.sql, refusals, tc.refused)
		}
	}
}

func TestWriteDetails(t *testing.T) {
	r := report(t, "MERGE INTO ONLY b USING s ON b.id = s.id WHEN MATCHED THEN UPDATE SET x = 1 WHEN NOT MATCHED THEN INSERT VALUES (1)")
	if len(r.Writes) != 1 || !slices.Equal(r.Writes[0].Events, []string{"UPDATE", "INSERT"}) || !r.Writes[0].Only {
		t.Errorf("MERGE: %+v", r.Writes)
	}
	r = report(t, "INSERT INTO a (id) VALUES (1) ON CONFLICT (id) DO UPDATE SET x = 2")
	if len(r.Writes) != 1 || !slices.Equal(r.Writes[0].Events, []string{"INSERT", "UPDATE"}) {
		t.Errorf("upsert: %+v", r.Writes)
	}
	r = report(t, "UPDATE s.a SET x = 1, y = f(2, 'z', 3.5::float8)")
	if len(r.Writes) != 1 || !slices.Equal(r.Writes[0].Set, []string{"x", "y"}) || r.Writes[0].Table.Schema != "s" || r.Writes[0].Loc != 7 {
		t.Errorf("update: %+v", r.Writes)
	}
	if len(r.Calls) != 1 || r.Calls[0].Func.Name != "f" || len(r.Calls[0].Args) != 3 ||
		r.Calls[0].Args[0].Type != "int4" || r.Calls[0].Args[1].Type != "unknown" || r.Calls[0].Args[2].Type != "float8" {
		t.Errorf("calls: %+v", r.Calls)
	}
	r = report(t, "CALL p(1)")
	if len(r.Calls) != 1 || !r.Calls[0].Procedure {
		t.Errorf("CALL: %+v", r.Calls)
	}
	r = report(t, "REFRESH MATERIALIZED VIEW CONCURRENTLY s.mv")
	if len(r.Refreshes) != 1 || r.Refreshes[0].String() != "s.mv" || r.Class != Host {
		t.Errorf("REFRESH: %+v", r)
	}
}

// TestBodyStatements reads function bodies as their statements.
func TestBodyStatements(t *testing.T) {
	src := `create function f(x int) returns int language plpgsql as $$
declare y int := g(x); r record;
begin
  raise notice 'UPDATE accounts SET tok = 0';
  -- DELETE FROM accounts
  update audit set n = n + 1 where id = x;
  y := h(x);
  for r in select * from t loop null; end loop;
  return y;
end $$`
	b, err := Body("plpgsql", "", src)
	if err != nil {
		t.Fatal(err)
	}
	var writes, calls []string
	for _, s := range b.Stmts {
		r := OfTree(s)
		writes = append(writes, writesOf(r)...)
		for _, c := range r.Calls {
			calls = append(calls, c.Func.Name)
		}
	}
	slices.Sort(calls)
	if !slices.Equal(writes, []string{"UPDATE audit top"}) || !slices.Equal(calls, []string{"g", "h"}) || b.Dynamic != "" {
		t.Errorf("writes %q, calls %q, dynamic %q", writes, calls, b.Dynamic)
	}
	b, err = Body("plpgsql", "", `create function d(t text) returns void language plpgsql as $$ begin execute format('delete from %I', t); end $$`)
	if err != nil || b.Dynamic == "" {
		t.Errorf("EXECUTE format(): %v %+v", err, b)
	}
	// A constant command is read as the statements it is.
	b, err = Body("plpgsql", "", `create function d() returns void language plpgsql as $$ begin execute 'truncate audit, accounts'; end $$`)
	if err != nil || b.Dynamic != "" || len(b.Stmts) != 1 || len(OfTree(b.Stmts[0]).Writes) != 2 {
		t.Errorf("EXECUTE 'truncate ...': %v %+v", err, b)
	}
	b, err = Body("sql", "update a set x = 1; select 'delete from b'", "")
	if err != nil || len(b.Stmts) != 2 || len(OfTree(b.Stmts[1]).Writes) != 0 || len(OfTree(b.Stmts[0]).Writes) != 1 {
		t.Errorf("sql body: %v %+v", err, b)
	}
}
