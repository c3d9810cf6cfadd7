package writeoracle

import (
	"fmt"
	"strings"
)

// shapeGen renders a statement of PostgreSQL's grammar from a byte string,
// each byte choosing a production: data-modifying WITH entries, nested,
// under SELECT, VALUES, UNION, INSERT, UPDATE, DELETE and MERGE hosts;
// MERGE, TRUNCATE, upserts; CREATE TABLE AS, SELECT INTO, EXPLAIN
// [ANALYZE], DECLARE, PREPARE, CREATE TEMP VIEW and RULE, DO blocks,
// function and procedure calls, REFRESH, EXECUTE of prepared statements,
// COPY (DML) TO STDOUT, ALTER and COMMENT; on the tables of
// testdata/shapes/schema.sql: a fenced table, an unfenced one, an unfenced
// INHERITS parent of a fenced child, a partitioned table with a fenced
// partition, views (one with an INSTEAD OF trigger, one with a DO INSTEAD
// rule; automatically updatable ones over fenced and unfenced tables, on
// views, FROM ONLY, over a renamed base table), tables whose trigger, rule, foreign key, column default or
// domain writes a fenced table, and functions that read or write.
type shapeGen struct {
	b []byte
	i int
	n int // names made so far (temporary tables, cursors, ...)
}

func (g *shapeGen) pick(n int) int {
	if g.i >= len(g.b) {
		return 0
	}
	v := int(g.b[g.i]) % n
	g.i++
	return v
}

func (g *shapeGen) name(prefix string) string {
	g.n++
	return fmt.Sprintf("%s%d", prefix, g.n)
}

// A target is a table or view a write names, with a text column to set.
type target struct{ name, col string }

var targets = []target{
	{"jobs", "state"}, {"events", "note"}, {"parent", "v"}, {"child", "v"},
	{"pparent", "v"}, {"ppart", "v"}, {"jobs_v", "state"}, {"ONLY parent", "v"},
	{"notes", "body"}, {"inbox", "body"}, {"jobs_iv", "state"}, {"jobs_rv", "state"},
	{"stamps", "v"}, {"tasks", "event_id"}, {"logs", "msg"}, {"checked", "v"},
	// Views written through their base relation, INSTEAD OF triggers and
	// rules (issue 24 precision).
	{"logs_v", "msg"}, {"logs_vv", "msg"}, {"jobs_vv", "state"}, {"jobs_lv", "state"},
	{"jobs_nv", "state"}, {"parent_v", "v"}, {"parent_only_v", "v"}, {"old_jobs_v", "state"},
	{"notes_v", "body"}, {"logs_dv", "msg"}, {"jobs_lvv", "state"},
}

func (g *shapeGen) target() target { return targets[g.pick(len(targets))] }

func (g *shapeGen) value() string {
	return []string{"'x'", "$2", "(SELECT state FROM jobs WHERE id = $1)", "job_state($1::bigint)", "upper('y')"}[g.pick(5)]
}

// dml is a write; returning adds RETURNING id (for a WITH entry).
func (g *shapeGen) dml(depth int, returning bool) string {
	t := g.target()
	ret := ""
	if returning {
		ret = " RETURNING id"
	}
	var s string
	switch g.pick(8) {
	case 0:
		s = fmt.Sprintf("UPDATE %s SET %s = %s WHERE id = $1%s", t.name, t.col, g.value(), ret)
	case 1:
		s = fmt.Sprintf("DELETE FROM %s WHERE id = $1%s", t.name, ret)
	case 2:
		s = fmt.Sprintf("INSERT INTO %s (id, %s) VALUES ($1, %s)%s", strings.TrimPrefix(t.name, "ONLY "), t.col, g.value(), ret)
	case 3:
		s = fmt.Sprintf("INSERT INTO %s (id, %s) VALUES ($1, %s) ON CONFLICT (id) DO UPDATE SET %s = excluded.%s%s", strings.TrimPrefix(t.name, "ONLY "), t.col, g.value(), t.col, t.col, ret)
	case 4:
		s = fmt.Sprintf("INSERT INTO %s (id, %s) VALUES ($1, %s) ON CONFLICT DO NOTHING%s", strings.TrimPrefix(t.name, "ONLY "), t.col, g.value(), ret)
	case 5:
		// MERGE ... RETURNING is PostgreSQL 17's: no RETURNING here.
		if returning {
			return g.dml(depth, returning)
		}
		s = fmt.Sprintf("MERGE INTO %s t USING (SELECT $1::bigint AS id) s ON t.id = s.id %s", t.name, g.whenClause(t))
	case 6:
		if depth > 2 {
			return g.dml(depth+1, returning)
		}
		s = fmt.Sprintf("WITH w%d AS (%s) %s", depth, g.dml(depth+1, true), g.dml(depth+1, returning))
	default:
		s = fmt.Sprintf("UPDATE %s SET %s = %s WHERE id IN (SELECT id FROM jobs WHERE id = $1)%s", t.name, t.col, g.value(), ret)
	}
	return s
}

func (g *shapeGen) whenClause(t target) string {
	switch g.pick(4) {
	case 0:
		return fmt.Sprintf("WHEN MATCHED THEN UPDATE SET %s = %s", t.col, g.value())
	case 1:
		return "WHEN MATCHED THEN DELETE"
	case 2:
		return "WHEN NOT MATCHED THEN INSERT (id) VALUES (s.id)"
	default:
		return fmt.Sprintf("WHEN MATCHED THEN UPDATE SET %s = %s WHEN NOT MATCHED THEN DO NOTHING", t.col, g.value())
	}
}

// query is a row source, which may hold a data-modifying WITH entry.
func (g *shapeGen) query(depth int) string {
	switch g.pick(6) {
	case 0:
		return "SELECT id FROM jobs WHERE id = $1"
	case 1:
		return "VALUES (1::bigint)"
	case 2:
		return "SELECT job_state($1::bigint) AS id"
	case 3:
		if depth > 2 {
			return "SELECT 1 AS id"
		}
		return fmt.Sprintf("WITH q%d AS (%s) SELECT id FROM q%d UNION ALL SELECT 1", depth, g.dml(depth+1, true), depth)
	default:
		if depth > 2 {
			return "SELECT 1 AS id"
		}
		return fmt.Sprintf("WITH q%d AS (%s) SELECT id FROM q%d", depth, g.dml(depth+1, true), depth)
	}
}

// host is a statement around WITH entry w.
func (g *shapeGen) host(w string, depth int) string {
	switch g.pick(10) {
	case 0:
		return "SELECT id FROM " + w
	case 1:
		return "SELECT count(*) FROM " + w
	case 2:
		return fmt.Sprintf("VALUES ((SELECT count(*) FROM %s))", w)
	case 3:
		return "SELECT 1 UNION SELECT id FROM " + w
	case 4:
		return fmt.Sprintf("INSERT INTO events (id) SELECT id + 100 FROM %s", w)
	case 5:
		return fmt.Sprintf("UPDATE events SET note = 'w' FROM %s WHERE events.id = %s.id", w, w)
	case 6:
		return fmt.Sprintf("DELETE FROM events USING %s WHERE events.id = %s.id", w, w)
	case 7:
		return fmt.Sprintf("MERGE INTO events e USING %s ON e.id = %s.id WHEN MATCHED THEN UPDATE SET note = 'm'", w, w)
	case 8:
		t := g.target()
		return fmt.Sprintf("UPDATE %s SET %s = 'h' WHERE id IN (SELECT id FROM %s)", t.name, t.col, w)
	default:
		return fmt.Sprintf("SELECT id FROM %s WHERE id IN (%s)", w, g.query(depth+1))
	}
}

// statement is a whole query.
func (g *shapeGen) statement() string {
	switch g.pick(16) {
	case 0:
		return g.dml(0, false)
	case 1, 2:
		return fmt.Sprintf("WITH w AS (%s) %s", g.dml(1, true), g.host("w", 1))
	case 3:
		return fmt.Sprintf("CREATE TEMP TABLE %s AS %s", g.name("t"), g.query(1))
	case 4:
		return fmt.Sprintf("WITH w AS (%s) SELECT id INTO TEMP TABLE %s FROM w", g.dml(1, true), g.name("t"))
	case 5:
		analyze := []string{"", "ANALYZE ", "(ANALYZE, COSTS OFF) "}[g.pick(3)]
		inner := g.dml(1, false)
		if g.pick(2) == 0 {
			inner = g.query(1)
		}
		return "EXPLAIN " + analyze + inner
	case 6:
		return fmt.Sprintf("DECLARE %s CURSOR FOR %s", g.name("c"), g.query(1))
	case 7:
		return fmt.Sprintf("PREPARE %s AS %s", g.name("p"), g.dml(1, false))
	case 8:
		t := g.target()
		return fmt.Sprintf("TRUNCATE %s%s", t.name, []string{"", " CASCADE", " RESTART IDENTITY"}[g.pick(3)])
	case 9:
		return []string{"SELECT touch_job($1::bigint)", "SELECT job_state($1::bigint)", "SELECT job_state($1::text)", "SELECT says_update()", "CALL bump($1)"}[g.pick(5)]
	case 10:
		return fmt.Sprintf("DO $$ BEGIN %s; END $$", strings.ReplaceAll(strings.ReplaceAll(g.dml(1, false), "$1", "1"), "$2", "'d'"))
	case 11:
		return "REFRESH MATERIALIZED VIEW job_states"
	case 12:
		t := g.target()
		return fmt.Sprintf("CREATE TEMP VIEW %s AS SELECT id FROM %s", g.name("v"), strings.TrimPrefix(t.name, "ONLY "))
	case 13:
		return fmt.Sprintf("COPY (%s) TO STDOUT", g.query(1))
	case 14:
		t := g.target()
		return fmt.Sprintf("MERGE INTO %s t USING (%s) s ON t.id = s.id %s", t.name, g.query(1), g.whenClause(t))
	default:
		return g.more()
	}
}

// more are the statements beyond the first fifteen kinds.
func (g *shapeGen) more() string {
	switch g.pick(12) {
	case 0:
		return fmt.Sprintf("WITH a AS (WITH b AS (%s) SELECT id FROM b) %s", g.dml(2, true), g.host("a", 1))
	case 1:
		// The session's prepared statements (Options.Prelude).
		return []string{"EXECUTE oracle_pw(1)", "EXECUTE oracle_pr(1)"}[g.pick(2)]
	case 2:
		return fmt.Sprintf("CREATE TEMP TABLE %s AS %s", g.name("t"), []string{"EXECUTE oracle_pw(1)", "EXECUTE oracle_pr(1)"}[g.pick(2)])
	case 3:
		return fmt.Sprintf("EXPLAIN %sEXECUTE %s(1)", []string{"", "ANALYZE "}[g.pick(2)], []string{"oracle_pw", "oracle_pr"}[g.pick(2)])
	case 4:
		return fmt.Sprintf("COPY (%s) TO STDOUT", g.dml(1, true))
	case 5:
		return []string{"SELECT id FROM jobs WHERE id = $1 FOR UPDATE", "LOCK TABLE jobs IN SHARE MODE", "TABLE jobs", "SELECT pg_advisory_xact_lock($1)"}[g.pick(4)]
	case 6:
		t := g.target()
		return fmt.Sprintf("ALTER TABLE %s %s", strings.TrimPrefix(t.name, "ONLY "), []string{
			"ALTER COLUMN tok TYPE bigint USING 0", "ADD COLUMN extra int", "DISABLE TRIGGER ALL", "ALTER COLUMN id SET DEFAULT 7"}[g.pick(4)])
	case 7:
		t := g.target()
		return fmt.Sprintf("COMMENT ON TABLE %s IS 'c'", strings.TrimPrefix(t.name, "ONLY "))
	case 8:
		if g.pick(2) == 0 {
			t := g.target()
			return fmt.Sprintf("DO $$ BEGIN %s; END $$", []string{
				"ALTER TABLE " + strings.TrimPrefix(t.name, "ONLY ") + " ADD COLUMN extra int",
				"ALTER TABLE " + strings.TrimPrefix(t.name, "ONLY ") + " DISABLE TRIGGER ALL",
				"DROP TABLE " + strings.TrimPrefix(t.name, "ONLY ") + " CASCADE",
				"CREATE RULE r AS ON UPDATE TO " + strings.TrimPrefix(t.name, "ONLY ") + " DO INSTEAD NOTHING"}[g.pick(4)])
		}
		return fmt.Sprintf("DO $$ BEGIN EXECUTE %s; END $$", []string{"'UPDATE jobs SET state = ''dyn'' WHERE id = 1'", "'SELECT 1'", "format('DELETE FROM %I WHERE id = 1', 'events')"}[g.pick(3)])
	case 9:
		return fmt.Sprintf("DELETE FROM events WHERE id = $1%s", []string{"", " RETURNING id"}[g.pick(2)])
	case 10:
		return fmt.Sprintf("UPDATE events SET id = id + %s WHERE id = $1", []string{"0", "10"}[g.pick(2)])
	default:
		return fmt.Sprintf("INSERT INTO %s (id) VALUES ($1)%s", []string{"notes", "inbox", "stamps", "jobs_iv"}[g.pick(4)], []string{"", " ON CONFLICT DO NOTHING"}[g.pick(2)])
	}
}

// sqlPrefix starts a fuzz input that is a statement's text rather than
// shapeGen's choices (the seeds from testdata/shapes and the corpora).
const sqlPrefix = "SQL:"

// shape renders the query file of one statement generated from b, or of
// the statement b holds after sqlPrefix.
func shape(b []byte) string {
	if s, ok := strings.CutPrefix(string(b), sqlPrefix); ok {
		return "-- name: Shape :exec\n" + s + ";\n"
	}
	g := &shapeGen{b: b}
	return "-- name: Shape :exec\n" + g.statement() + ";\n"
}

// shapePrelude are the prepared statements of the fuzz target's session,
// run after BEGIN (EXECUTE and CREATE TABLE ... AS EXECUTE name them).
var shapePrelude = []string{
	"PREPARE oracle_pw(bigint) AS UPDATE jobs SET state = 'prepared' WHERE id = $1 RETURNING id",
	"PREPARE oracle_pr(bigint) AS SELECT id FROM jobs WHERE id = $1",
	"PREPARE oracle_pf AS SELECT id FROM events WHERE id = folded_write(1)",
}
