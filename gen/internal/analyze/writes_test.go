package analyze

import (
	"strings"
	"testing"
)

// writesSchema has fenced table jobs, an unfenced partitioned table whose
// partition is fenced, an unfenced inheritance parent whose child is
// fenced, overloaded functions of which one writes jobs, and functions
// that only spell a write in a string or comment.
const writesSchema = `
create table jobs (id bigint primary key, tok bigint not null default 0, state text);
comment on column jobs.tok is 'fencegen:token';
create table logs (id bigint primary key, n int);
create table ev (id bigint not null, tok bigint not null default 0, k int not null) partition by list (k);
create table ev1 partition of ev for values in (1);
comment on column ev1.tok is 'fencegen:token';
create table base (id bigint primary key, tok bigint not null default 0);
create table kid () inherits (base);
comment on column kid.tok is 'fencegen:token';
create function pick(x int) returns int language sql as $$ select x $$;
create function pick(x text) returns int language sql as $$ update jobs set state = x returning 1 $$;
create function says() returns void language plpgsql as $$
begin
  -- UPDATE jobs SET state = 'x'
  raise notice 'UPDATE jobs SET state = %', 'x';
  perform 'delete from jobs';
end $$;
create function says_sql() returns text language sql as $$ select 'truncate jobs' $$;
create function bumps() returns int language plpgsql as $$
begin
  update jobs set state = 'y';
  return 1;
end $$;
create function preps() returns void language sql as $$ prepare zz as update jobs set state = 'z' $$;
create function preps_pl() returns void language plpgsql as $$ begin prepare zz as delete from jobs; end $$;
create function preps_logs() returns void language sql as $$ prepare zz as update logs set n = 2 $$;
create materialized view mv as select id, n from logs;
create materialized view mv_w as select bumps() as b;
`

// TestWritesFoundAnywhere checks issue 24's escapes and the guarded
// method that always failed: each is refused at the write, saying where.
func TestWritesFoundAnywhere(t *testing.T) {
	for _, tc := range []struct {
		query string
		want  string // "" when accepted
		at    string // "line:col"
	}{
		{"WITH u AS (UPDATE jobs SET state = 'x' WHERE id = 1 RETURNING id) MERGE INTO logs l USING u ON l.id = u.id WHEN MATCHED THEN UPDATE SET n = 1",
			"runs UPDATE on fenced table jobs inside MERGE's WITH list", "2:19"},
		{"WITH u AS (DELETE FROM jobs WHERE id = 1 RETURNING id) MERGE INTO logs l USING u ON l.id = u.id WHEN MATCHED THEN DELETE",
			"runs DELETE on fenced table jobs inside MERGE's WITH list", "2:24"},
		{"MERGE INTO ev USING (SELECT 1 AS id) s ON ev.id = s.id WHEN MATCHED THEN DELETE",
			"runs MERGE on ev, which reaches its fenced partition ev1", "2:12"},
		{"TRUNCATE ev", "runs TRUNCATE on ev, which reaches its fenced partition ev1", "2:10"},
		{"TRUNCATE base", "runs TRUNCATE on base, which reaches its fenced child table kid", "2:10"},
		{"MERGE INTO base USING (SELECT 1 AS id) s ON base.id = s.id WHEN MATCHED THEN UPDATE SET id = 2",
			"reaches its fenced child table kid", "2:12"},
		{"COPY ev FROM STDIN", "runs COPY on ev, which reaches its fenced partition ev1", "2:6"},
		{"CREATE TABLE t AS EXECUTE p", "runs CREATE TABLE ... AS EXECUTE", "2:1"},
		{"CREATE TEMP TABLE t AS WITH u AS (UPDATE jobs SET state = 'x' RETURNING id) SELECT * FROM u",
			"runs UPDATE on fenced table jobs inside CREATE TABLE ... AS", "2:42"},
		{"WITH u AS (UPDATE jobs SET state = 'x' RETURNING id) SELECT * INTO TEMP TABLE t FROM u",
			`"SELECT ... INTO is not allowed here"`, "2:19"},
		{"COPY (WITH u AS (UPDATE jobs SET state = 'x' RETURNING id) SELECT * FROM u) TO STDOUT",
			"inside COPY (query) TO", "2:25"},
		{"SELECT pick('a')", "calls function pick()", "2:8"},
		{"SELECT pick($1)", "calls function pick()", "2:8"},
		{"REFRESH MATERIALIZED VIEW mv_w", "bumps()", ""},
		{"EXPLAIN (ANALYZE) UPDATE jobs SET state = 'x'", "inside EXPLAIN ANALYZE", "2:26"},
		// A PREPARE runs its statement whenever the session executes the
		// name, a driver's cached statement of that name included (trial
		// t24f: pgx's stmtcache_<hash>, rebound after a DEALLOCATE).
		{"PREPARE stmtcache_0a (bigint) AS UPDATE jobs SET state = 'p' WHERE id = 2 RETURNING id", "query Q prepares UPDATE on fenced table jobs (PREPARE)", "2:41"},
		{"PREPARE p AS WITH d AS (DELETE FROM jobs RETURNING id) SELECT id FROM d", "query Q prepares DELETE on fenced table jobs (PREPARE)", "2:37"},
		{"PREPARE p AS INSERT INTO jobs (id) VALUES (9)", "query Q prepares INSERT on fenced table jobs (PREPARE)", "2:26"},
		{"PREPARE p AS DELETE FROM ev", "runs DELETE on ev inside PREPARE, which reaches its fenced partition ev1", "2:26"},
		{"PREPARE p AS SELECT bumps()", "calls function bumps()", "2:21"},
		{"PREPARE p AS SELECT pick('a')", "calls function pick()", "2:21"},
		{"SELECT preps()", "calls function preps()", "2:8"},
		{"SELECT preps_pl()", "calls function preps_pl()", "2:8"},
		// Statements PostgreSQL runs without writing a fenced table.
		{"EXPLAIN UPDATE jobs SET state = 'x'", "", ""},
		{"EXPLAIN (ANALYZE false) DELETE FROM jobs", "", ""},
		{"COPY (SELECT * FROM jobs) TO STDOUT", "", ""},
		{"COPY jobs TO STDOUT", "", ""},
		{"DECLARE c CURSOR FOR SELECT * FROM jobs", "", ""},
		{"SELECT pick(1)", "", ""},
		{"SELECT pick(2::smallint)", "", ""},
		{"SELECT says()", "", ""},
		{"SELECT says_sql()", "", ""},
		{"REFRESH MATERIALIZED VIEW mv", "", ""},
		{"PREPARE p AS SELECT 1", "", ""},
		{"PREPARE p AS SELECT id FROM jobs WHERE id = $1", "", ""},
		{"PREPARE p AS UPDATE logs SET n = 1", "", ""},
		{"DEALLOCATE stmtcache_0a", "", ""},
		{"DEALLOCATE ALL", "", ""},
		{"SELECT preps_logs()", "", ""},
		{"MERGE INTO logs l USING (SELECT 1 AS id) s ON l.id = s.id WHEN MATCHED THEN DELETE", "", ""},
		{"TRUNCATE logs", "", ""},
	} {
		_, msgs := analyzeSrc(t, writesSchema, "-- name: Q :exec\n"+tc.query+";\n")
		switch {
		case tc.want == "" && len(msgs) > 0:
			t.Errorf("%s: refused: %q", tc.query, msgs)
		case tc.want != "" && (len(msgs) == 0 || !strings.Contains(strings.Join(msgs, "\n"), tc.want)):
			t.Errorf("%s: got %q, want a refusal saying %q", tc.query, msgs, tc.want)
		case tc.at != "" && !strings.HasPrefix(msgs[0], "query.sql:"+tc.at+":"):
			t.Errorf("%s: got %q, want it at query.sql:%s", tc.query, msgs[0], tc.at)
		}
	}
}
