package catalog_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// buildFiles is build for a schema of several files, applied in order.
func buildFiles(t *testing.T, files ...string) (*catalog.Catalog, []string) {
	t.Helper()
	c := catalog.New(catalog.WithColumnGenerator(analyze.ColumnGenerator{}))
	for i, src := range files {
		f, err := sqlparse.Parse(fmt.Sprintf("%d.sql", i+1), []byte(src))
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		for _, s := range f.Stmts {
			c.Update(f, s)
		}
	}
	var msgs []string
	for _, e := range c.Validate().Sort() {
		msgs = append(msgs, e.Error())
	}
	return c, msgs
}

const txJobs = "CREATE TABLE jobs (id bigint PRIMARY KEY, tok bigint NOT NULL DEFAULT 0);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n" +
	"CREATE FUNCTION trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN UPDATE jobs SET tok = tok; RETURN NULL; END $$;\n" +
	"CREATE TABLE a (id int);\nCREATE TRIGGER t AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\n"

// A transaction or savepoint rolled back in a schema file undoes its
// statements (issue 24, trial t24f doblk): the catalog keeps what they
// dropped and leaves out what they created. A ROLLBACK whose extent
// depends on how the file is run, or that undoes what sqlc reads, is an
// error at the ROLLBACK while a table is fenced, and nothing without
// one (sqlc does not read transactions).
func TestRollback(t *testing.T) {
	triggers := func(c *catalog.Catalog) string {
		var names []string
		for _, tr := range c.Table("", "a").Triggers {
			names = append(names, tr.Name)
		}
		return strings.Join(names, ",")
	}
	for _, tc := range []struct {
		name     string
		files    []string
		triggers string
		err      string
	}{
		{"BEGIN at the start of a file", []string{txJobs, "BEGIN;\nDROP TRIGGER t ON a;\nROLLBACK;\n"}, "t", ""},
		{"BEGIN after a COMMIT", []string{txJobs + "COMMIT;\nBEGIN;\nDROP TRIGGER t ON a;\nCREATE TRIGGER u AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nROLLBACK;\n"}, "t", ""},
		{"committed", []string{txJobs, "BEGIN;\nDROP TRIGGER t ON a;\nCOMMIT;\n"}, "", ""},
		{"savepoint", []string{txJobs + "BEGIN;\nSAVEPOINT s;\nALTER TRIGGER t ON a RENAME TO t2;\nROLLBACK TO SAVEPOINT s;\nCREATE TRIGGER t3 AFTER INSERT ON a FOR EACH ROW EXECUTE FUNCTION trg();\nCOMMIT;\n"}, "t,t3", ""},
		{"savepoint of a later file", []string{txJobs, "SET search_path = public;\nSAVEPOINT s;\nDROP TRIGGER t ON a;\nROLLBACK TO s;\n"}, "t", ""},
		{"savepoint released", []string{txJobs + "BEGIN;\nSAVEPOINT s;\nDROP TRIGGER t ON a;\nRELEASE s;\nCOMMIT;\n"}, "", ""},
		{"BEGIN after other statements", []string{txJobs + "BEGIN;\nDROP TRIGGER t ON a;\nROLLBACK;\n"}, "",
			"schema.sql:8:1: ROLLBACK of a transaction this file begins after other statements"},
		{"no BEGIN", []string{txJobs, "DROP TRIGGER t ON a;\nROLLBACK;\n"}, "",
			"2.sql:2:1: ROLLBACK with no BEGIN before it in this file"},
		{"no SAVEPOINT", []string{txJobs, "BEGIN;\nDROP TRIGGER t ON a;\nROLLBACK TO SAVEPOINT s;\nCOMMIT;\n"}, "",
			"2.sql:3:1: ROLLBACK TO SAVEPOINT s with no SAVEPOINT s before it in this file's transaction"},
		{"BEGIN in an earlier file", []string{txJobs + "BEGIN;\n", "DROP TRIGGER t ON a;\nROLLBACK;\n"}, "",
			"2.sql:2:1: ROLLBACK with no BEGIN before it in this file"},
		{"undoes a table", []string{txJobs, "BEGIN;\nDROP TABLE a;\nCREATE TABLE a (id int);\nROLLBACK;\n"}, "",
			"2.sql:4:1: ROLLBACK undoes the statement at 2.sql:2, which sqlc reads as applied"},
		{"PREPARE TRANSACTION", []string{txJobs, "BEGIN;\nDROP TRIGGER t ON a;\nPREPARE TRANSACTION 'x';\n"}, "",
			"2.sql:3:1: PREPARE TRANSACTION leaves the file's transaction"},
	} {
		files := tc.files
		if len(files) == 1 {
			c, msgs := build(t, files[0])
			checkRollback(t, tc.name, c, msgs, tc.triggers, tc.err, triggers)
			continue
		}
		c, msgs := buildFiles(t, files...)
		checkRollback(t, tc.name, c, msgs, tc.triggers, tc.err, triggers)
	}
	// Without a fenced table the schema is sqlc's: no error.
	_, msgs := build(t, strings.Replace(txJobs, "COMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n", "", 1)+"BEGIN;\nDROP TRIGGER t ON a;\nROLLBACK;\n")
	if len(msgs) > 0 {
		t.Errorf("no fenced table: %q", msgs)
	}
}

func checkRollback(t *testing.T, name string, c *catalog.Catalog, msgs []string, triggers, err string, got func(*catalog.Catalog) string) {
	t.Helper()
	if err == "" {
		if len(msgs) > 0 {
			t.Errorf("%s: %q", name, msgs)
		}
		if g := got(c); g != triggers {
			t.Errorf("%s: triggers %q, want %q", name, g, triggers)
		}
		return
	}
	if len(msgs) != 1 || !strings.HasPrefix(msgs[0], err) {
		t.Errorf("%s: got %q, want one error %q", name, msgs, err)
	}
}
