package analyze

import (
	"strings"
	"testing"
)

// TestTokenComparedInOtherSpellings: a fenced write that compares the
// token column with a parameter in any spelling but the bare "tok <=
// @token" conjunct of its WHERE clause is an error at that expression
// (issue 24): its parameter was a second token argument of the method,
// which could disagree with the token the guard checks. Comparisons that
// mention the token column but no parameter, or a parameter but another
// table's column, are not.
func TestTokenComparedInOtherSpellings(t *testing.T) {
	for _, tc := range []struct {
		query string
		// at is the refusal's position ("line:col"); "" for a guarded
		// write whose method takes one token.
		at string
	}{
		{"update jobs set k = 1 where id = @id and not (tok > @token)", "2:51"},
		{"update jobs set k = 1 where id = @id and tok between 0 and @token", "2:46"},
		{"update jobs set k = 1 where id = @id and exists (select 1 where jobs.tok <= @token)", "2:74"},
		{"update jobs set k = 1 where id = @id and coalesce(tok, 0) <= @token", "2:59"},
		{"update jobs set k = 1 where id = @id and greatest(tok, 0) <= @token", "2:59"},
		{"update jobs set k = 1 where id = @id and (tok <= @token or k = 0)", "2:47"},
		{"update jobs set k = 1 where id = @id and tok <= (select @token::bigint)", "2:46"},
		{"update jobs j set k = 1 where j.id in (select x.id from jobs x where x.tok <= @token)", "2:76"},
		{"update jobs set k = case when tok <= @token then 1 else 2 end where id = @id", "2:21"},
		{"delete from jobs where id = @id and (tok <= @token) is true", "2:53"},
		// Read as the guard's own comparison: one token.
		{"update jobs set k = 1 where id = @id and tok <= @token", ""},
		{"update jobs j set k = 1 where j.id = @id and j.tok <= @token::bigint and tok = 0", ""},
		{"update jobs set k = 1 where id = @id and @token >= jobs.tok", ""},
		// No parameter compared with the token column.
		{"update jobs set k = 1 where id in (select j.id from jobs j where j.k = @k and j.tok = 0)", ""},
		{"update jobs set k = 1 where id = @id and (tok = 0 or k = @k)", ""},
		{"update jobs set k = 1 from logs where jobs.id = logs.id and logs.n <= @n", ""},
	} {
		files, msgs := analyzeSrc(t, pgJobs, "-- name: Q :exec\n"+tc.query+";\n")
		if tc.at != "" {
			if len(msgs) != 1 || !strings.HasPrefix(msgs[0], "query.sql:"+tc.at+": query Q compares fencing token column jobs.tok with a parameter") {
				t.Errorf("%s: %q, want one error at %s", tc.query, msgs, tc.at)
			}
			continue
		}
		if len(msgs) > 0 {
			t.Errorf("%s: %q, want a guarded write", tc.query, msgs)
			continue
		}
		q := files[0].Queries[0]
		for _, p := range q.Params {
			if strings.Contains(strings.ToLower(p.Column.Name), "token") {
				t.Errorf("%s: parameter %s beside the method's token", tc.query, p.Column.Name)
			}
		}
	}
}
