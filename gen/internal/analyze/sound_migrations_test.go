package analyze

import (
	"strings"
	"testing"
)

// TestSoundMigrationOrders checks key, constraint and token-column
// changes in later migrations, and the fenced table's own triggers and
// rules: each schema must leave fencegen guarding with the current
// columns, refusing at the query, or reporting the schema statement that
// broke the token column.
func TestSoundMigrationOrders(t *testing.T) {
	const jobs = "create table parents (id bigint primary key, v int);\n" +
		"create table jobs (id bigint primary key, k int, parent_id bigint, tok bigint not null default 0);\n" +
		"comment on column jobs.tok is 'fencegen:token';\n" +
		"create table logs (id bigint primary key, n int);\n"
	for _, tc := range []struct {
		name, schema, query string
		want                string // "guarded <column>", "plain", "refused: <part>", "schema: <part>" or "trigger: <prefix>" (an error at the trigger from the analysis, whatever the query)
	}{
		{"token column renamed", jobs + "alter table jobs rename column tok to tok2;\n", "update jobs set k = 1 where id = 1", "guarded tok2"},
		{"token column retyped to text", jobs + "alter table jobs alter column tok type text;\n", "update jobs set k = 1 where id = 1", "schema: schema.sql:5:"},
		{"token column loses NOT NULL", jobs + "alter table jobs alter column tok drop not null;\n", "update jobs set k = 1 where id = 1", "schema: schema.sql:5:"},
		{"token column made identity", jobs + "alter table jobs alter column tok drop default;\nalter table jobs alter column tok add generated always as identity;\n", "update jobs set k = 1 where id = 1", "schema: schema.sql:6:"},
		{"token column dropped", jobs + "alter table jobs drop column tok;\n", "update jobs set k = 1 where id = 1", "plain"},
		{"mark removed", jobs + "comment on column jobs.tok is null;\n", "update jobs set k = 1 where id = 1", "plain"},
		{"fenced table renamed, new table of the old name", jobs + "alter table jobs rename to old_jobs;\ncreate table jobs (id bigint primary key, k int);\n", "update old_jobs set k = 1 where id = 1", "guarded tok"},
		{"primary key by USING INDEX", strings.Replace(jobs, "id bigint primary key, k int, parent_id", "id bigint not null, k int, parent_id", 1) + "create unique index ji on jobs (id);\nalter table jobs add primary key using index ji;\n", "update jobs set k = 1 where id = 1", "guarded tok"},
		{"primary key by ADD COLUMN with a cascading FK beside it", "create table parents (id bigint primary key);\ncreate table jobs (k int, tok bigint not null default 0);\ncomment on column jobs.tok is 'fencegen:token';\nalter table jobs add column id bigint primary key, add column pid bigint references parents on delete cascade;\n", "delete from parents", "refused: parents → jobs (pid, ON DELETE CASCADE)"},
		{"FK renamed then dropped", jobs + "alter table jobs add constraint fk foreign key (parent_id) references parents on delete cascade;\nalter table jobs rename constraint fk to fk2;\nalter table jobs drop constraint fk2;\n", "delete from parents", "plain"},
		{"FK column dropped", jobs + "alter table jobs add constraint fk foreign key (parent_id) references parents on delete cascade;\nalter table jobs drop column parent_id;\n", "delete from parents", "plain"},
		{"FK parent renamed", jobs + "alter table jobs add constraint fk foreign key (parent_id) references parents on delete cascade;\nalter table parents rename to p2;\n", "delete from p2", "refused: p2 → jobs"},
		{"FK parent moved to another schema", jobs + "create schema s;\nalter table jobs add constraint fk foreign key (parent_id) references parents on delete cascade;\nalter table parents set schema s;\n", "delete from s.parents", "refused: s.parents → jobs"},
		{"FK on a partitioned fenced table", "create table parents (id bigint primary key);\ncreate table jobs (id bigint, pid bigint references parents on delete cascade, tok bigint not null default 0, primary key (id)) partition by range (id);\ncomment on column jobs.tok is 'fencegen:token';\ncreate table jobs_1 partition of jobs for values from (0) to (100);\n", "delete from parents", "refused: parents → jobs (pid, ON DELETE CASCADE)"},
		{"self-referencing cascade", "create table jobs (id bigint primary key, pid bigint references jobs on delete cascade, tok bigint not null default 0);\ncomment on column jobs.tok is 'fencegen:token';\n", "delete from jobs where id = 1", "refused: jobs → jobs (pid, ON DELETE CASCADE)"},
		{"BEFORE trigger assigns the token", jobs + "create function bt() returns trigger language plpgsql as $$ begin new.tok := 0; return new; end $$;\ncreate trigger t before update on jobs for each row execute function bt();\n", "update jobs set k = 1 where id = 1", "trigger: schema.sql:6:35: trigger t on jobs is a BEFORE UPDATE row trigger that runs bt(), which assigns NEW.tok"},
		{"BEFORE trigger replaces NEW", jobs + "create function bt() returns trigger language plpgsql as $$ begin if true then new = jsonb_populate_record(new, '{}'); end if; return new; end $$;\ncreate trigger t before insert on jobs for each row execute function bt();\n", "insert into jobs (id, k) values (1, 1)", "trigger: schema.sql:6:35: trigger t on jobs is a BEFORE INSERT row trigger that runs bt(), which assigns NEW.tok"},
		{"BEFORE trigger compares the token", jobs + "create function bt() returns trigger language plpgsql as $$ begin if new.tok = old.tok then new.k = 0; end if; return new; end $$;\ncreate trigger t before update on jobs for each row execute function bt();\n", "update jobs set k = 1 where id = 1", "guarded tok"},
		{"updated_at trigger", jobs + "alter table jobs add column updated_at timestamptz;\ncreate function bt() returns trigger language plpgsql as $$ begin new.updated_at = now(); return new; end $$;\ncreate trigger t before update on jobs for each row execute function bt();\n", "update jobs set k = 1 where id = 1", "guarded tok"},
		// Read on the PL/pgSQL parse tree (writes.ReadTrigger): a target
		// however spelt, and no comment or string.
		{"BEFORE trigger assigns the token as an INTO target", jobs + "create function bt() returns trigger language plpgsql as $$ begin select 1, 2 into new.k, new.\"tok\"; return new; end $$;\ncreate trigger t before update on jobs for each row execute function bt();\n", "update jobs set k = 1 where id = 1", "trigger: schema.sql:6:35: trigger t on jobs is a BEFORE UPDATE row trigger that runs bt(), which assigns NEW.tok"},
		{"BEFORE trigger selects into NEW", jobs + "create function bt() returns trigger language plpgsql as $$ begin select * into new from jobs where id = old.id; return new; end $$;\ncreate trigger t before update on jobs for each row execute function bt();\n", "update jobs set k = 1 where id = 1", "trigger: schema.sql:6:35: trigger t on jobs is a BEFORE UPDATE row trigger that runs bt(), which assigns NEW.tok"},
		{"BEFORE trigger returns another row", jobs + "create function bt() returns trigger language plpgsql as $$ declare r jobs; begin r := new; return r; end $$;\ncreate trigger t before update on jobs for each row execute function bt();\n", "update jobs set k = 1 where id = 1", "trigger: schema.sql:6:35: trigger t on jobs is a BEFORE UPDATE row trigger that runs bt(), which may RETURN a row other than NEW"},
		{"BEFORE trigger spells the assignment in a string and a comment", jobs + "create function bt() returns trigger language plpgsql as $$ begin raise notice 'new.tok := 0; return r'; /* new.tok := 1 */ return (new); end $$;\ncreate trigger t before update on jobs for each row execute function bt();\n", "update jobs set k = 1 where id = 1", "guarded tok"},
		{"DO INSTEAD rule on the fenced table", jobs + "create rule r as on update to jobs do instead nothing;\n", "update jobs set k = 1 where id = 1", "refused: is DO INSTEAD"},
	} {
		cat, errs := schemaCatalog(t, tc.schema)
		if len(errs) > 0 {
			if !strings.HasPrefix(tc.want, "schema: ") || !strings.HasPrefix(errs[0].Error(), strings.TrimPrefix(tc.want, "schema: ")) {
				t.Errorf("%s: schema: %v, want %s", tc.name, errs, tc.want)
			}
			continue
		}
		files, msgs := analyzeCat(t, cat, "-- name: Q :exec\n"+tc.query+";\n")
		got := "plain"
		switch {
		case strings.HasPrefix(tc.want, "trigger: "):
			if len(msgs) != 1 || !strings.HasPrefix(msgs[0], strings.TrimPrefix(tc.want, "trigger: ")) {
				t.Errorf("%s: got %q, want one error starting %q", tc.name, msgs, strings.TrimPrefix(tc.want, "trigger: "))
			}
			continue
		case len(msgs) > 0:
			got = "refused: " + strings.Join(msgs, "; ")
			if !strings.HasPrefix(msgs[0], "query.sql:2:") {
				t.Errorf("%s: not located at the query: %q", tc.name, msgs)
			}
		case files[0].Queries[0].Fence != nil:
			got = "guarded " + files[0].Queries[0].Fence.Column
		}
		if !strings.HasPrefix(tc.want, "refused: ") && got != tc.want || strings.HasPrefix(tc.want, "refused: ") && !strings.Contains(got, strings.TrimPrefix(tc.want, "refused: ")) {
			t.Errorf("%s: got %s, want %s", tc.name, got, tc.want)
		}
	}
}

// TestSoundQueryDDL checks schema statements in a query file while the
// schema has a fenced table: those that may drop, rewrite or unguard a
// fenced table's rows, or change what later writes set off, are refused
// at the statement; the others run as sqlc runs them.
func TestSoundQueryDDL(t *testing.T) {
	const schema = "create table jobs (id bigint primary key, k int, tok bigint not null default 0);\n" +
		"comment on column jobs.tok is 'fencegen:token';\n" +
		"create table logs (id bigint primary key, n int);\n" +
		"create function wj() returns int language plpgsql as $$ begin update jobs set k = 1; return 1; end $$;\n"
	for _, tc := range []struct{ query, want string }{
		{"drop table jobs", "runs DROP TABLE on fenced table jobs"},
		{"drop schema public cascade", "drops schema public, and with it fenced table jobs"},
		{"alter table jobs drop column tok", "runs ALTER TABLE on fenced table jobs"},
		{"alter table jobs rename to j2", "runs ALTER ... RENAME on fenced table jobs"},
		{"create index on logs ((n + wj()))", "calls wj(), which runs UPDATE on fenced table jobs"},
		{"create trigger t after insert on logs for each row execute function wj()", "creates a trigger or rule"},
		{"create rule r as on insert to logs do also delete from jobs", "creates a trigger or rule"},
		{"create or replace function wj() returns int language sql as $$ select 1 $$", "creates a function"},
		{"drop function wj()", "runs DROP FUNCTION"},
		{"create table x as select wj()", "calls function wj()"},
		{"copy logs from program 'psql -c \"update jobs set k = 0\"'", "runs COPY ... PROGRAM"},
		{"copy logs to program 'cat'", "runs COPY ... PROGRAM"},
		// Leave fenced tables alone.
		{"create table y (id int)", ""},
		// A view over a fenced table gives later queries a name through
		// which it is written unguarded (issue 24).
		{"create view v as select * from jobs", "creates view v over fenced table public.jobs"},
		{"create view v as select * from logs", ""},
		{"alter table logs add column x int default 0", ""},
		{"drop table if exists logs", ""},
		{"copy logs to stdout", ""},
	} {
		_, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+tc.query+";\n")
		switch {
		case tc.want == "" && len(msgs) > 0:
			t.Errorf("%s: refused: %q", tc.query, msgs)
		case tc.want != "" && (len(msgs) != 1 || !strings.Contains(msgs[0], tc.want) || !strings.HasPrefix(msgs[0], "query.sql:2:")):
			t.Errorf("%s: got %q, want one refusal at query.sql:2 saying %q", tc.query, msgs, tc.want)
		}
		if tc.want != "" {
			// The opt-out is the way out, as for every refusal.
			files, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n-- @fence off: migration run by hand\n"+tc.query+";\n")
			if len(msgs) > 0 || files[0].Queries[0].OptOut == nil {
				t.Errorf("%s with @fence off: %q", tc.query, msgs)
			}
		}
	}
}
