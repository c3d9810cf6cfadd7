package mysqlwrites

import (
	"slices"
	"strings"
	"testing"
)

// TestTriggerDrops: DROP TRIGGER read as the server reads it, comments
// dropped and version comments read both run and skipped; what may drop
// a trigger but is not that one statement is unread.
func TestTriggerDrops(t *testing.T) {
	for _, tc := range []struct {
		text   string
		names  []string
		unread string
	}{
		{"DROP TRIGGER fencegen_bu_jobs;", []string{"fencegen_bu_jobs"}, ""},
		{"drop trigger IF EXISTS db.`Fencegen_BU_jobs`", []string{"fencegen_bu_jobs"}, ""},
		{"DROP TRIGGER /* note */ fencegen_bu_jobs;", []string{"fencegen_bu_jobs"}, ""},
		{"DROP TRIGGER /*!40000 IF EXISTS */ fencegen_bu_jobs;", []string{"fencegen_bu_jobs"}, ""},
		{"DROP /*!40000 TRIGGER */ fencegen_bu_jobs;", []string{"fencegen_bu_jobs"}, ""},
		{"/*M!100400 DROP TRIGGER fencegen_bu_jobs */;", []string{"fencegen_bu_jobs"}, ""},
		{"-- DROP TRIGGER fencegen_bu_jobs\nDROP TABLE notes;", nil, ""},
		{"DROP TABLE notes /* DROP TRIGGER x */;", nil, ""},
		{"GRANT DROP, TRIGGER ON test.* TO app;", nil, ""},
		{"DROP TRIGGER a, b;", nil, "DROP TRIGGER fencegen cannot read"},
		{"CREATE PROCEDURE p() DROP TRIGGER fencegen_bu_jobs;", nil, "not a statement of its own"},
		{"PREPARE s FROM 'DROP TRIGGER fencegen_bu_jobs';", nil, "in a string"},
	} {
		names, _, unread := TriggerDrops(tc.text)
		if !slices.Equal(names, tc.names) || (tc.unread == "") != (unread == "") || !strings.Contains(unread, tc.unread) {
			t.Errorf("TriggerDrops(%q) = %v, %q; want %v, %q", tc.text, names, unread, tc.names, tc.unread)
		}
	}
}

// TestTriggerReplaces: MariaDB's CREATE OR REPLACE TRIGGER read as the
// server reads it; what may replace a trigger but is not that one
// statement is unread.
func TestTriggerReplaces(t *testing.T) {
	for _, tc := range []struct {
		text, name, unread string
	}{
		{"CREATE OR REPLACE TRIGGER fencegen_bu_jobs BEFORE UPDATE ON jobs FOR EACH ROW BEGIN END", "fencegen_bu_jobs", ""},
		{"create or replace definer = `app`@`%` trigger db.`Fencegen_BU_jobs` BEFORE UPDATE ON jobs FOR EACH ROW SET @x = 1", "fencegen_bu_jobs", ""},
		{"/*M!100100 CREATE OR REPLACE TRIGGER fencegen_bu_jobs BEFORE UPDATE ON jobs FOR EACH ROW SET @x = 1 */", "fencegen_bu_jobs", ""},
		{"SET STATEMENT max_statement_time = 1 FOR CREATE OR REPLACE TRIGGER fencegen_bu_jobs BEFORE UPDATE ON jobs FOR EACH ROW SET @x = 1", "fencegen_bu_jobs", ""},
		{"CREATE TRIGGER fencegen_bu_jobs BEFORE UPDATE ON jobs FOR EACH ROW SET @x = 1", "", ""},
		{"CREATE OR REPLACE VIEW v AS SELECT 1", "", ""},
		{"REPLACE INTO notes (id, body) VALUES (1, 'trigger')", "", ""},
		{"EXECUTE IMMEDIATE 'CREATE OR REPLACE TRIGGER fencegen_bu_jobs BEFORE UPDATE ON jobs FOR EACH ROW SET @x = 1'", "", "in a string"},
		{"CREATE PROCEDURE p() CREATE OR REPLACE TRIGGER fencegen_bu_jobs BEFORE UPDATE ON jobs FOR EACH ROW SET @x = 1", "", "not a statement of its own"},
	} {
		name, _, unread := TriggerReplaces(tc.text)
		if name != tc.name || (tc.unread == "") != (unread == "") || !strings.Contains(unread, tc.unread) {
			t.Errorf("TriggerReplaces(%q) = %q, %q; want %q, %q", tc.text, name, unread, tc.name, tc.unread)
		}
	}
}
