package gen_test

import (
	"strings"
	"testing"
)

// TestMySQLSchemaANSIQuotesAndClientSet (issue 27, trial-rc27 N1, N2):
// a schema statement after the schema's SET sql_mode to a mode holding
// ANSI_QUOTES whose tokens the servers split otherwise ("a\" is a name
// there, with no escape) is an error at the double quote; a schema
// statement holding a non-ASCII byte after the schema's SET NAMES latin1
// (or another set that is not UTF-8's) is an error at that byte. The
// oracle tests (TestOracleSchemaANSIQuotes, TestOracleSchemaLatin1Names)
// show both write fenced tables on MariaDB.
func TestMySQLSchemaANSIQuotesAndClientSet(t *testing.T) {
	const tables = "CREATE TABLE accounts (id BIGINT PRIMARY KEY, balance BIGINT NOT NULL, tok BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token');\n" +
		"CREATE TABLE notes (id BIGINT PRIMARY KEY, body VARCHAR(100));\n"
	view := "CREATE ALGORITHM=TEMPTABLE VIEW v AS SELECT 1 AS \"a\\\", fw(1) AS y -- \"\n;\n"
	plain := "CREATE TABLE plain (id BIGINT PRIMARY KEY, body VARCHAR(10) DEFAULT 'a');\n"
	trigger := func(name string) string {
		return "CREATE TRIGGER notes_ai AFTER INSERT ON notes FOR EACH ROW UPDATE `" + name + "` SET balance = 0 WHERE id = NEW.id;\n"
	}
	q := "-- name: ListNotes :many\nSELECT id FROM notes;\n"
	for _, c := range []struct {
		schema, want, mode string
	}{
		{tables + "SET sql_mode = 'ANSI_QUOTES';\n" + view, "schema.sql:4:50: ", "ANSI_QUOTES"},
		{tables + "SET sql_mode = 'ansi';\n" + view, "schema.sql:4:50: ", "ANSI_QUOTES"},
		{tables + "SET sql_mode = 'POSTGRESQL';\n" + view, "schema.sql:4:50: ", "ANSI_QUOTES"},
		{tables + "SET sql_mode = 'ORACLE';\n" + view, "schema.sql:4:50: ", "sql_mode"},
		{tables + "SET sql_mode = 'ANSI_QUOTES';\n" + plain, "", ""},
		{tables + "SET sql_mode = 'ANSI_QUOTES';\nSET sql_mode = DEFAULT;\n" + view, "", ""},
		{"CREATE TABLE `ét` (id BIGINT PRIMARY KEY, balance BIGINT);\n" + tables + "SET NAMES latin1;\n" + trigger("ét"), "schema.sql:5:68: ", "latin1"},
		{"CREATE TABLE `ét` (id BIGINT PRIMARY KEY, balance BIGINT);\n" + tables + "/*!40101 SET character_set_client = ascii */;\n" + trigger("ét"), "schema.sql:5:68: ", "ascii"},
		{"CREATE TABLE `ét` (id BIGINT PRIMARY KEY, balance BIGINT);\n" + tables + "SET character_set_client = binary;\n" + trigger("ét"), "", ""},
		{tables + "SET NAMES latin1;\n" + trigger("accounts"), "", ""},
		{"CREATE TABLE `ét` (id BIGINT PRIMARY KEY, balance BIGINT);\n" + tables + "SET NAMES latin1;\nSET NAMES utf8mb4;\n" + trigger("ét"), "", ""},
	} {
		msg := mysqlGenerate(t, map[string]string{"schema.sql": c.schema, "q.sql": q})
		switch {
		case c.want == "" && msg != "":
			t.Errorf("%s\nwant no error, got:\n%s", c.schema, msg)
		case c.want != "" && (!strings.Contains(msg, c.want) || !strings.Contains(msg, c.mode)):
			t.Errorf("%s\nwant an error at %s naming %s, got:\n%s", c.schema, c.want, c.mode, msg)
		}
	}
}

// TestMySQLQueryNotGoText (issue 27, trial-rc27 N3): a query holding a
// byte that is not UTF-8 or a byte order mark, which the Go file holding
// it cannot, is an error at that byte, not an internal error while
// formatting the generated file.
func TestMySQLQueryNotGoText(t *testing.T) {
	schema := "CREATE TABLE plain (id BIGINT PRIMARY KEY, v VARCHAR(10));\n"
	for _, c := range []struct{ value, want string }{
		{"\xbf", "q.sql:2:9: byte 0xbf is not UTF-8"},
		{"a\ufeff", "q.sql:2:10: byte order mark (U+FEFF)"},
		{"é\ufffd", ""},
	} {
		msg := mysqlGenerate(t, map[string]string{"schema.sql": schema, "q.sql": "-- name: Probe :exec\nSELECT '" + c.value + "' AS x FROM plain;\n"})
		switch {
		case c.want == "" && msg != "":
			t.Errorf("%q: want no error, got:\n%s", c.value, msg)
		case c.want != "" && !strings.Contains(msg, c.want):
			t.Errorf("%q: want %q, got:\n%s", c.value, c.want, msg)
		case strings.Contains(msg, "internal error"):
			t.Errorf("%q: got an internal error:\n%s", c.value, msg)
		}
	}
}
