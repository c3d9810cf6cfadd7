package analyze

import (
	"strings"
	"testing"
)

// TestIssue10LetThroughs are the let-throughs of issue 10 ("the guard is
// sound"): each schema change must leave fencegen with the current keys
// and foreign keys, and each shape it cannot guard must be refused.
func TestIssue10LetThroughs(t *testing.T) {
	const jobs = "create table jobs (id bigint primary key, k int, tok bigint not null default 0);\ncomment on column jobs.tok is 'fencegen:token';\n"
	for _, tc := range []struct {
		name, schema, query string
		refused             string // a part of the refusal, "" when guarded
		sql                 string // a part of the guarded SQL
	}{
		{name: "fk added by ALTER TABLE ADD COLUMN is cascaded",
			schema:  "create table parents (id bigint primary key);\n" + jobs + "alter table jobs add column parent_id bigint references parents (id) on delete cascade;\n",
			query:   "delete from parents where id = 1",
			refused: "reaches fenced table jobs through foreign keys, parents → jobs (parent_id, ON DELETE CASCADE)"},
		{name: "fk dropped and re-added as RESTRICT",
			schema: "create table parents (id bigint primary key);\n" + jobs + "alter table jobs add column parent_id bigint constraint jobs_parent_fk references parents on delete cascade;\n" +
				"alter table jobs drop constraint jobs_parent_fk;\nalter table jobs add constraint jobs_parent_fk foreign key (parent_id) references parents on delete restrict;\n",
			query: "delete from parents where id = 1"},
		{name: "primary key column renamed",
			schema: jobs + "alter table jobs rename column id to job_id;\n",
			query:  "update jobs set k = 1 where job_id = 1",
			sql:    "WHERE job_id = 1 AND jobs.tok OPERATOR(pg_catalog.<=) $1"},
		{name: "primary key dropped",
			schema:  jobs + "alter table jobs drop constraint jobs_pkey;\n",
			query:   "update jobs set k = 1 where id = 1",
			refused: "fenced table jobs has no PRIMARY KEY"},
		{name: "primary key by ADD COLUMN BIGSERIAL PRIMARY KEY",
			schema: "create table jobs (k int, tok bigint not null default 0);\ncomment on column jobs.tok is 'fencegen:token';\nalter table jobs add column id bigserial primary key;\n",
			query:  "update jobs set k = 1 where id = 1",
			sql:    "jobs.tok OPERATOR(pg_catalog.<=) $1"},
		{name: "upsert whose INSERT has its own WITH",
			schema: jobs,
			query:  "with v as (select 1 as id) insert into jobs (id, k) select id, 2 from v on conflict (id) do update set k = excluded.k",
			sql:    "WITH v AS (\n    SELECT 1 AS id\n),\nfence_input (id, k) AS ("},
		{name: "single-row upsert whose INSERT has its own WITH",
			schema: jobs,
			query:  "with v as (select 1 as id) insert into jobs (id, k) values ((select id from v), 2) on conflict (id) do update set k = excluded.k",
			sql:    "WITH v AS (\n    SELECT 1 AS id\n),\nfence_write AS ("},
		{name: "upsert whose own WITH entry is named like the guard's",
			schema:  jobs,
			query:   "with fence_input as (select 1 as id) insert into jobs (id, k) select id, 2 from fence_input on conflict (id) do update set k = excluded.k",
			refused: "WITH query name fence_input is reserved"},
		{name: "upsert whose own WITH entry writes",
			schema:  jobs + "create table log (id int);\n",
			query:   "with l as (insert into log values (1) returning id) insert into jobs (id, k) select id, 2 from l on conflict (id) do update set k = excluded.k",
			refused: "WITH entry l writes"},
		// A write in a WITH entry with a WITH clause of its own: once taken
		// for the main statement's write (the entry's own WITH made the
		// analyser forget the entry), so the main statement got the guard
		// and the fenced write in the entry ran unguarded.
		{name: "UPDATE in a WITH entry with its own WITH, main statement an INSERT with a token column",
			schema: jobs + "create table job_log (job_id bigint, tok bigint);\n",
			query:  "with w as (with src as (select 1 as id) update jobs set k = 2 where id in (select id from src) returning id) insert into job_log (job_id) select id from w",
			sql:    "-- fencegen: guarded in WITH entry w (jobs.tok <= $1)\nWITH src AS (\n    SELECT 1 AS id\n),\nfence_lock AS ("},
		{name: "upsert in a WITH entry with its own WITH",
			schema: jobs + "create table job_log (job_id bigint);\n",
			query:  "with w as (with src as (select 1 as id) insert into jobs (id, k) select id, 2 from src on conflict (id) do update set k = excluded.k returning id) insert into job_log (job_id) select id from w",
			sql:    "-- fencegen: guarded in WITH entry w (jobs.tok <= $1)\nWITH src AS (\n    SELECT 1 AS id\n),\nfence_input"},
		{name: "DELETE in a WITH entry with its own WITH",
			schema: jobs,
			query:  "with w as (with src as (select 1 as id) delete from jobs where id in (select id from src) returning id) select count(*) from w",
			sql:    "-- fencegen: guarded in WITH entry w (jobs.tok <= $1)\nWITH src AS ("},
		{name: "plain INSERT with its own WITH is guarded",
			schema: jobs,
			query:  "with v as (select 1 as id) insert into jobs (id, k) select id, 2 from v",
			sql:    "$1"},
	} {
		files, msgs := analyzeSrc(t, tc.schema, "-- name: Q :exec\n"+tc.query+";\n")
		switch {
		case tc.refused != "":
			if len(msgs) != 1 || !strings.Contains(msgs[0], tc.refused) || !strings.HasPrefix(msgs[0], "query.sql:2:") {
				t.Errorf("%s: got %q, want a refusal at query.sql:2 saying %q", tc.name, msgs, tc.refused)
			}
		case len(msgs) > 0:
			t.Errorf("%s: refused: %q", tc.name, msgs)
		case tc.sql != "":
			if q := files[0].Queries[0]; q.Fence == nil || !strings.Contains(q.SQL, tc.sql) {
				t.Errorf("%s: not guarded as expected (want %q in):\n%s", tc.name, tc.sql, q.SQL)
			}
		default:
			if q := files[0].Queries[0]; q.Fence != nil {
				t.Errorf("%s: guarded, want a plain write", tc.name)
			}
		}
	}
}
