package analyze

import (
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestNarrowPolicyAgainstPostgreSQL: row-level security on fenced table
// jobs whose UPDATE (or DELETE) policy is narrower than its SELECT policy
// (issue 24, the trial's item 9). PostgreSQL, as a role without
// superuser rights, shows why the guarded write is refused: holder 7
// (stored token 5, so the guard passes) writes row 1 when the policies
// agree, and nothing, without an error, when the UPDATE policy excludes
// the row the guard reads. Policies that agree (one FOR ALL, or the same
// USING for each command) are accepted and guarded; an ALTER POLICY
// counts as policies fencegen cannot compare.
func TestNarrowPolicyAgainstPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	const rls = "alter table jobs enable row level security;\ncreate policy p_ins on jobs for insert with check (true);\n"
	for _, tc := range []struct {
		name, policies, query, want string
	}{
		{"UPDATE narrower than SELECT", "create policy p_sel on jobs for select using (true);\ncreate policy p_upd on jobs for update using (k <> 1);\n",
			"update jobs set k = 2 where id = 1", "whose row-level security policies for UPDATE differ from those for SELECT"},
		{"UPDATE narrower than SELECT, many rows", "create policy p_sel on jobs for select using (true);\ncreate policy p_upd on jobs for update using (k <> 1);\n",
			"update jobs set k = 2 where id >= 1", "policies for UPDATE differ"},
		{"FOR ALL narrower than SELECT's", "create policy p_sel on jobs for select using (true);\ncreate policy p_all on jobs for all using (k <> 1);\n",
			"update jobs set k = 2 where id = 1", "policies for UPDATE differ"},
		{"DELETE narrower than SELECT", "create policy p_sel on jobs for select using (true);\ncreate policy p_upd on jobs for update using (true);\ncreate policy p_del on jobs for delete using (k <> 1);\n",
			"delete from jobs where id = 1", "policies for DELETE differ"},
	} {
		schema := pgJobs + rls + tc.policies
		_, msgs := analyzeSrc(t, schema, "-- name: Q :exec\n"+tc.query+";\n")
		if len(msgs) != 1 || !strings.Contains(msgs[0], tc.want) || !strings.HasPrefix(msgs[0], "query.sql:2:") {
			t.Errorf("%s: got %q, want one refusal with %q", tc.name, msgs, tc.want)
		}
		files, msgs := analyzeSrc(t, pgJobs, "-- name: Q :exec\n"+tc.query+";\n")
		if len(msgs) > 0 || files[0].Queries[0].Fence == nil {
			t.Fatalf("%s: without the policies: %q, want a guarded write", tc.name, msgs)
		}
		guarded := files[0].Queries[0].SQL
		for _, narrow := range []bool{false, true} {
			s := pgJobs + rls + "create policy p_any on jobs for all using (true);\n"
			if narrow {
				s = schema
			}
			written, err := guardedWritesAsRole(pool, s, guarded, 7)
			switch {
			case err != nil:
				t.Errorf("%s (narrow %v): PostgreSQL: %v", tc.name, narrow, err)
			case written == narrow:
				t.Errorf("%s (narrow %v): holder 7's guarded write wrote the row: %v, want %v", tc.name, narrow, written, !narrow)
			}
		}
	}
	for _, ok := range []string{
		"create policy p_any on jobs for all using (k >= 0);\n",
		"create policy p_sel on jobs for select using (k >= 0);\ncreate policy p_upd on jobs for update using (k >= 0);\ncreate policy p_del on jobs for delete using (k >= 0);\n",
	} {
		for _, q := range []string{"update jobs set k = 2 where id = 1", "delete from jobs where id = 1"} {
			files, msgs := analyzeSrc(t, pgJobs+rls+ok, "-- name: Q :exec\n"+q+";\n")
			if len(msgs) > 0 || files[0].Queries[0].Fence == nil {
				t.Errorf("%s with %s: %q, want guarded", q, ok, msgs)
			}
		}
	}
	_, msgs := analyzeSrc(t, pgJobs+rls+"create policy p_any on jobs for all using (true);\nalter policy p_any on jobs using (k >= 0);\n", "-- name: Q :exec\nupdate jobs set k = 2 where id = 1;\n")
	if len(msgs) != 1 || !strings.Contains(msgs[0], "cannot read them") {
		t.Errorf("after ALTER POLICY: %q, want one refusal", msgs)
	}
}

// guardedWritesAsRole is guardedWrites with the guarded statement run as
// a role without superuser rights (row-level security does not apply to
// superusers), made in the transaction and gone with its rollback.
func guardedWritesAsRole(pool *pgxpool.Pool, schema, guarded string, token int) (bool, error) {
	return guardedWritesAs(pool, schema, guarded, token, "fg_policy_rls")
}
