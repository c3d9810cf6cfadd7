package guard

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGuardReplayRecreatedUnmarked (trial t24f B): a fenced table that
// leaves its name any way (DROP TABLE, DROP SCHEMA ... CASCADE, a rename
// or a move to another schema), in one migration or another than the
// one that creates a table of the name again without the fencing mark,
// is the finding of a table created again without its mark.
func TestGuardReplayRecreatedUnmarked(t *testing.T) {
	const schema = "CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT 'q', tok bigint NOT NULL DEFAULT 0);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n"
	const create = "CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT 'q', tok bigint NOT NULL DEFAULT 0);"
	dir := t.TempDir()
	mig, err := guardOf(t, dir, schema).Migration("goose", "2")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		migs []string
		want string
	}{
		{[]string{"DROP SCHEMA public CASCADE;\nCREATE SCHEMA public;\n" + create}, "3.sql:5:1: creates table jobs again without the fencing mark of its token column tok, after m/3.sql:3:1 drops schema public with its fenced table jobs"},
		{[]string{"DROP SCHEMA public CASCADE;\nCREATE SCHEMA public;", create}, "4.sql:3:1: creates table jobs again without the fencing mark of its token column tok, after m/3.sql:3:1 drops schema public"},
		{[]string{"DROP TABLE jobs;", create}, "4.sql:3:1: creates table jobs again without the fencing mark of its token column tok, after m/3.sql:3:1 drops fenced table jobs"},
		{[]string{"ALTER TABLE jobs RENAME TO jobs_old;", create}, "4.sql:3:1: creates table jobs again without the fencing mark of its token column tok, after m/3.sql:3:1 renames fenced table jobs to jobs_old"},
		{[]string{"CREATE SCHEMA app;\nALTER TABLE jobs SET SCHEMA app;\nDROP SCHEMA app CASCADE;\n" + create}, "3.sql:6:1: creates table jobs again without the fencing mark of its token column tok, after m/3.sql:4:1 moves fenced table jobs to schema app"},
	} {
		sub := t.TempDir()
		files := []string{writeFile(t, sub, "m/2_fencegen_guard.sql", string(mig["2_fencegen_guard.sql"]))}
		for i, m := range tc.migs {
			files = append(files, writeFile(t, sub, fmt.Sprintf("m/%d.sql", i+3), "-- +goose Up\n-- change\n"+m+"\n"))
		}
		found := guardOf(t, sub, schema, files...).GuardMigrations(nil)
		if !slices.ContainsFunc(found, func(f Finding) bool {
			return strings.HasPrefix(strings.ReplaceAll(f.String(), sub+string(filepath.Separator), ""), "m/"+tc.want) && f.Unfence == "jobs"
		}) {
			t.Errorf("%q:\n%v\nwant m/%s...", tc.migs, found, tc.want)
		}
	}
}
