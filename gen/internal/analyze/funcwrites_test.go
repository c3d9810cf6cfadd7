package analyze

import (
	"strings"
	"testing"
)

const funcSchema = `
create table accounts (id bigint primary key, tok bigint not null default 0);
comment on column accounts.tok is 'fencegen:token';
create table "Accounts" (id bigint primary key, tok bigint not null default 0);
create table audit (id bigint primary key);
`

// TestFuncWritesScan checks the conservative scan of a non-SQL function
// body: each body either writes fenced table accounts (a call of the
// function is refused) or does not.
func TestFuncWritesScan(t *testing.T) {
	for _, tc := range []struct {
		body string
		verb string // "" when the call is accepted
		lang string
	}{
		{body: "update accounts set tok = tok", verb: "UPDATE"},
		{body: "UPDATE\n  public.accounts SET tok = 1", verb: "UPDATE"},
		{body: `update "accounts" set tok = 1`, verb: "UPDATE"},
		{body: "insert into accounts(id) values (1)", verb: "INSERT"},
		{body: "delete from only accounts where id = 1", verb: "DELETE"},
		{body: "truncate table audit, accounts", verb: "TRUNCATE"},
		{body: "merge into accounts a using audit b on a.id = b.id when matched then delete", verb: "MERGE"},
		{body: "copy accounts (id) from stdin", verb: "COPY"},
		{body: "execute 'delete from accounts where id = ' || x", verb: "DELETE"},
		{body: "plpy.execute(\"UPDATE accounts SET tok = 0\")", verb: "UPDATE", lang: "plpython3u"},
		// Not writes of accounts.
		{body: "select 1 from accounts for update of accounts"},
		{body: "select 1 from accounts for update"},
		{body: "insert into audit values (1) on conflict (id) do update set id = 2"},
		{body: "update_count := update_count + 1"},
		{body: "if tg_op = 'UPDATE' then return new; end if"},
		{body: "-- update accounts set tok = 0\n/* delete from accounts */ select 1"},
		{body: `update "Accounts" set tok = 0`},
		{body: "copy accounts to stdout"},
		{body: "update accountsx set tok = 0"},
	} {
		lang := tc.lang
		if lang == "" {
			lang = "plpgsql"
		}
		schema := funcSchema + "create function f(x bigint) returns void language " + lang + " as $body$ " + tc.body + " $body$;\n"
		_, msgs := analyzeSrc(t, schema, "-- name: Q :exec\nselect f(1);")
		switch {
		case tc.verb == "" && len(msgs) > 0:
			t.Errorf("%s: refused: %q", tc.body, msgs)
		case tc.verb != "" && (len(msgs) != 1 || !strings.Contains(msgs[0], "runs "+tc.verb+" on fenced table accounts")):
			t.Errorf("%s: got %q, want one refusal of %s", tc.body, msgs, tc.verb)
		}
	}
}

// TestFuncWritesSQL checks LANGUAGE sql bodies, which are parsed, and
// calls between functions.
func TestFuncWritesSQL(t *testing.T) {
	schema := funcSchema + `
create function w(x bigint) returns bigint language sql as $$ update accounts set tok = tok where id = x returning id $$;
create function r(x bigint) returns bigint language sql as $$ select id from accounts where id = x $$;
create function chain(x bigint) returns bigint language sql as $$ select w(x) $$;
create function rec(x bigint) returns bigint language plpgsql as $$ begin return rec(x - 1); end $$;
create function std(x bigint) returns bigint language sql return w(x);
`
	for _, tc := range []struct{ query, want string }{
		{"select w(1)", "calls function w()"},
		{"select * from w(1)", "calls function w()"},
		{"select id from audit where id = chain(1)", "calls function chain() (schema.sql:9), whose body, through w(), runs UPDATE"},
		{"select std(1)", "through w(), runs UPDATE"},
		{"select r(1)", ""},
		{"select rec(1)", ""},
	} {
		_, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+tc.query+";")
		switch {
		case tc.want == "" && len(msgs) > 0:
			t.Errorf("%s: refused: %q", tc.query, msgs)
		case tc.want != "" && (len(msgs) != 1 || !strings.Contains(msgs[0], tc.want)):
			t.Errorf("%s: got %q, want %q", tc.query, msgs, tc.want)
		}
	}
}
