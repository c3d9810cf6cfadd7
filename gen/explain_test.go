// PostgreSQL as the judge of the guard's soundness: a statement whose plan
// modifies a fenced table must be guarded or refused by fencegen.
//
// TestExplainSound takes the configurations TestPgRef takes (this
// package's testdata/cases/*, examples/accounts, and the shared corpus
// when present), applies each PostgreSQL entry's schema to a scratch
// database (fg_sound_...) the way TestPgRef does, and analyses its
// queries. A schema without a fenced table is also tried as a copy with
// one added: every table that an entry's query writes (by PostgreSQL's
// plan) gets a "fence_token bigint" column marked 'fencegen:token'. For
// every query fencegen generates without the guard and without an opt-out
// it runs EXPLAIN (VERBOSE, FORMAT JSON) and collects the relations the
// plan's ModifyTable nodes modify (data-modifying CTEs and rule actions,
// which the planner expands, included); a fenced one is a let-through.
// Writes by triggers and by called functions do not show in a plan: those
// are covered by the analyzer's own tests.
//
//	go test -count=1 -run TestExplainSound ./gen -v
package gen

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/config"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/internal/testenv"
)

type soundStats struct {
	entries, marked, explained, unexplained, guardedOrRefused, letThrough int
}

func TestExplainSound(t *testing.T) {
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, testenv.DatabaseURL())
	if err != nil {
		testenv.Unavailable(t, "PostgreSQL", "DATABASE_URL", err)
	}
	name := fmt.Sprintf("fg_sound_%d", os.Getpid())
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		admin.Exec(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		admin.Close(context.Background())
	})
	start := time.Now()
	st := &soundStats{}
	corpus := filepath.Join("..", "..", "shared", "corpus")
	for _, g := range []struct{ name, dir string }{
		{"cases", filepath.Join("testdata", "cases")},
		{"examples", filepath.Join("..", "examples")},
		{"sqlc", filepath.Join(corpus, "sqlc")},
		{"real", filepath.Join(corpus, "real")},
	} {
		if _, err := os.Stat(g.dir); err != nil {
			t.Logf("SKIP: %s not present (the shared corpus is optional)", filepath.ToSlash(g.dir))
			continue
		}
		cases, err := pgrefDiscover(g.dir)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cases {
			if c.Path == "" {
				continue // a schema without queries
			}
			cfg, err := LoadConfig(c.Path)
			if err != nil {
				if cfg = pgrefLenientConfig(c.Path); cfg == nil {
					continue
				}
			}
			for _, pkg := range cfg.Packages {
				if pkg.Engine != "" && pkg.Engine != "postgresql" {
					continue
				}
				soundEntry(t, ctx, name, g.name+"/"+c.Name, cfg, pkg, st, false)
				soundEntry(t, ctx, name, g.name+"/"+c.Name, cfg, pkg, st, true)
			}
		}
	}
	soundShapes(t, ctx, name, st)
	t.Logf("TestExplainSound: %d entries (%d with fence marks added), %d unguarded statements EXPLAINed (%d not explainable), %d guarded, opted out, refused or unannotated, %d let through, in %s",
		st.entries, st.marked, st.explained, st.unexplained, st.guardedOrRefused, st.letThrough, time.Since(start).Round(time.Second))
}

// soundEntry checks one entry; with mark set, only a schema without a
// fenced table is checked, with the tables its queries write marked.
func soundEntry(t *testing.T, ctx context.Context, db, name string, cfg *Config, pkg config.Package, st *soundStats, mark bool) {
	defer func() {
		if r := recover(); r != nil {
			t.Errorf("%s: panic: %v", name, r)
		}
	}()
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	conn, err := pgrefTryConnect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := resetDatabase(ctx, conn); err != nil {
		t.Fatalf("%s: empty %s: %v", name, db, err)
	}
	conn.Exec(ctx, "SET check_function_bodies = off")
	schemaFiles, errs := expand(cfg, pkg.Schema, pkg.Pos)
	if len(errs) > 0 {
		return
	}
	cat := catalog.New(catalog.WithColumnGenerator(analyze.ColumnGenerator{}))
	for _, f := range schemaFiles {
		pf, perr := readAndParse(f, true, nil)
		if pf == nil || perr != nil {
			return
		}
		if msg := applyFile(ctx, conn, pf, func(s *sqlparse.Stmt) { cat.Update(pf, s) }); msg != "" {
			return // PostgreSQL rejected the schema: nothing to judge with
		}
	}
	if errs, _ := markConfigFences(cat, cfg.Path, pkg, map[config.Position]bool{}); len(errs) > 0 {
		return // generation fails at the configuration: nothing to judge
	}
	if len(cat.Validate()) > 0 {
		return
	}
	queryFiles, qerr := expand(cfg, pkg.Queries, pkg.Pos)
	if len(qerr) > 0 {
		return
	}
	var parsed []*sqlparse.File
	for _, f := range queryFiles {
		if pf, _ := readAndParse(f, false, nil); pf != nil {
			parsed = append(parsed, pf)
		}
	}
	if mark {
		if len(cat.FencedTables()) > 0 {
			return
		}
		// The tables the queries write, by their plans.
		analyzed, _ := analyze.Analyze(cat, parsed)
		written := map[[2]string]bool{}
		var order [][2]string
		for _, af := range analyzed {
			for _, q := range af.Queries {
				rels, ok := planWrites(ctx, conn, oneElementSQL(q))
				if !ok {
					continue
				}
				for _, r := range rels {
					k := [2]string{r.schema, r.rel}
					if !written[k] {
						written[k] = true
						order = append(order, k)
					}
				}
			}
		}
		if len(order) == 0 {
			return
		}
		var ddl strings.Builder
		for _, r := range order {
			qn := pgx.Identifier{r[0], r[1]}.Sanitize()
			fmt.Fprintf(&ddl, "ALTER TABLE %s ADD COLUMN fence_token bigint NOT NULL DEFAULT 0;\nCOMMENT ON COLUMN %s.fence_token IS 'fencegen:token';\n", qn, qn)
		}
		pf, err := sqlparse.Parse("fence_marks.sql", []byte(ddl.String()))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if msg := applyFile(ctx, conn, pf, func(s *sqlparse.Stmt) { cat.Update(pf, s) }); msg != "" {
			return // e.g. a partition, whose column comes from its parent
		}
		if len(cat.Validate()) > 0 || len(cat.FencedTables()) == 0 {
			return
		}
		st.marked++
	}
	if len(cat.FencedTables()) == 0 {
		return
	}
	st.entries++
	analyzed, _ := analyze.Analyze(cat, parsed)
	total := 0
	for _, f := range parsed {
		total += len(f.Stmts)
	}
	n := 0
	for _, af := range analyzed {
		for _, q := range af.Queries {
			n++
			if q.Fence != nil || q.OptOut != nil {
				st.guardedOrRefused++
				continue
			}
			rels, ok := planWrites(ctx, conn, oneElementSQL(q))
			if !ok {
				st.unexplained++
				continue
			}
			st.explained++
			for _, r := range rels {
				tb := cat.Table(r.schema, r.rel)
				if tb != nil && tb.Fence != nil && r.op == "Insert" && !r.conflictUpdate && slices.Contains(q.CreatesOutsideLease, tb) {
					// Rows created outside a lease: by the plan an INSERT
					// that updates no existing row (a conflicting key
					// fails or does nothing), so no newer write is lost.
					continue
				}
				if tb != nil && tb.Fence != nil {
					st.letThrough++
					t.Errorf("%s: %s:%d: query %s modifies fenced table %s.%s (by PostgreSQL's plan) and fencegen generated it without the guard:\n%s", name, q.File, q.Line, q.Name, r.schema, r.rel, q.SQL)
				}
			}
		}
	}
	st.guardedOrRefused += max(0, total-n) // refused (and unannotated) statements
}

// planWrite is one ModifyTable node of a plan: the relation it modifies,
// its operation ("Insert", "Update", "Delete", "Merge") and whether an
// INSERT's ON CONFLICT updates the existing row.
type planWrite struct {
	schema, rel, op string
	conflictUpdate  bool
}

// planWrites returns the writes of the ModifyTable nodes of sql's plans,
// by EXPLAIN (VERBOSE, FORMAT JSON); ok is false when PostgreSQL cannot
// plan it (untyped parameters, ...).
func planWrites(ctx context.Context, conn *pgx.Conn, sql string) ([]planWrite, bool) {
	explain := "EXPLAIN (VERBOSE, FORMAT JSON) " + sql
	sd, err := conn.Prepare(ctx, "", explain)
	if err != nil {
		return nil, false
	}
	args := make([]any, len(sd.ParamOIDs))
	var out []byte
	if err := conn.QueryRow(ctx, explain, args...).Scan(&out); err != nil {
		return nil, false
	}
	var plans any
	if err := json.Unmarshal(out, &plans); err != nil {
		return nil, false
	}
	var rels []planWrite
	var walk func(v any)
	walk = func(v any) {
		switch v := v.(type) {
		case []any:
			for _, x := range v {
				walk(x)
			}
		case map[string]any:
			if v["Node Type"] == "ModifyTable" {
				s, _ := v["Schema"].(string)
				r, _ := v["Relation Name"].(string)
				op, _ := v["Operation"].(string)
				rels = append(rels, planWrite{schema: s, rel: r, op: op, conflictUpdate: v["Conflict Resolution"] == "UPDATE"})
			}
			for _, x := range v {
				walk(x)
			}
		}
	}
	walk(plans)
	return rels, true
}

// soundShapeSchema has fenced table jobs beside tables, views and rules
// through which PostgreSQL's rewrite writes it.
const soundShapeSchema = `
create table parents (id bigint primary key, v int);
create table jobs (id bigint primary key, k int, parent_id bigint, tok bigint not null default 0);
comment on column jobs.tok is 'fencegen:token';
create table logs (id bigint primary key, n int);
create view active_jobs as select * from jobs where k > 0;
create view logs_v as select * from logs;
create rule logs_v_ins as on insert to logs_v do instead update jobs set k = new.n where id = new.id;
create rule logs_del as on delete to logs do also delete from jobs where id = old.id;
create table notes (id bigint primary key);
create rule notes_ins as on insert to notes do also delete from logs where id = new.id;
create rule parents_upd as on update to parents do instead update active_jobs set k = new.v where id = old.id;
`

// soundShapes are write shapes whose plans modify fenced table jobs
// through views, rules and data-modifying CTEs, in statements that do not
// name jobs or name it inside another statement. Each must be guarded or
// refused, and its plan must modify jobs (else the shape tests nothing).
func soundShapes(t *testing.T, ctx context.Context, db string, st *soundStats) {
	queries := []string{
		"insert into logs_v values (1, 2)",
		"delete from logs where id = 1",
		"insert into notes values (1)",
		"update parents set v = 3 where id = 1",
		"update active_jobs set k = 2 where id = 1",
		"insert into active_jobs (id, k) values (9, 1) on conflict (id) do update set k = 2",
		"delete from active_jobs where id = 1",
		"with v as (update active_jobs set k = 5 where id = 1 returning id) select * from v",
		"with v as (delete from active_jobs where id = 1 returning id) select count(*) from v",
		"with u as (update jobs set k = 1 where id = 1 returning id) select * from u",
		"with u as (insert into logs_v values (1, 2)) select 1",
		"select * from (select 1) x where exists (select 1 from logs) and 1 = 0 union all select 1 from parents",
	}
	conn, err := pgrefTryConnect(ctx, db)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := resetDatabase(ctx, conn); err != nil {
		t.Fatal(err)
	}
	cat := catalog.New(catalog.WithColumnGenerator(analyze.ColumnGenerator{}))
	pf, err := sqlparse.Parse("shapes.sql", []byte(soundShapeSchema))
	if err != nil {
		t.Fatal(err)
	}
	if msg := applyFile(ctx, conn, pf, func(s *sqlparse.Stmt) { cat.Update(pf, s) }); msg != "" {
		t.Fatalf("shapes schema: %s", msg)
	}
	if errs := cat.Validate(); len(errs) > 0 {
		t.Fatal(errs)
	}
	st.entries++
	for i, q := range queries {
		qf, err := sqlparse.Parse("shapes_query.sql", []byte(fmt.Sprintf("-- name: Shape%d :exec\n%s;\n", i, q)))
		if err != nil {
			t.Fatal(err)
		}
		rels, ok := planWrites(ctx, conn, q)
		modifies := false
		for _, r := range rels {
			if r.rel == "jobs" {
				modifies = true
			}
		}
		last := i == len(queries)-1 // a read: its plan modifies nothing
		switch {
		case !ok:
			t.Errorf("shape %q: PostgreSQL cannot plan it", q)
		case modifies == last:
			t.Errorf("shape %q: plan modifies jobs = %v (%v)", q, modifies, rels)
		}
		analyzed, errs := analyze.Analyze(cat, []*sqlparse.File{qf})
		if len(errs) > 0 || analyzed[0].Queries[0].Fence != nil {
			st.guardedOrRefused++
			if last {
				t.Errorf("shape %q: refused or guarded, but it writes nothing: %v", q, errs)
			}
			continue
		}
		st.explained++
		if modifies {
			st.letThrough++
			t.Errorf("shape %q modifies fenced table jobs (by PostgreSQL's plan) and fencegen generated it without the guard", q)
		}
	}
}
