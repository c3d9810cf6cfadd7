package analyze

import (
	"strings"
	"testing"
)

// TestOffStringsSchema: a schema statement PostgreSQL reads otherwise
// with standard_conforming_strings off is an error at it while a table is
// fenced (trial t24 F10), and nothing without one (as sqlc).
func TestOffStringsSchema(t *testing.T) {
	const fenced = "create table jobs (id bigint primary key, k int, tok bigint not null default 0);\ncomment on column jobs.tok is 'fencegen:token';\n"
	for _, tc := range []struct {
		name, schema string
		// want is the error's start ("schema.sql:3:..."), "" for none.
		want string
	}{
		{"backslash before a quote in a CHECK", "create table notes (id int, b text check (b <> 'a\\'));\n", "schema.sql:3:48: a backslash before a quote"},
		{"backslash in a CHECK's pattern: data", "create table notes (id int, b text check (b ~ '^\\d+$'));\n", ""},
		{"backslash in a seed INSERT: data", "create table notes (id int, b text);\ninsert into notes values (1, 'C:\\dir');\n", ""},
		{"function AS string with a backslash", "create function f() returns text language sql as 'select ''\\x''';\n", "schema.sql:3:50: a backslash in this string constant of a CREATE FUNCTION"},
		{"escape string AS", "create function f() returns text language sql as E'select ''\\\\x''';\n", ""},
		{"function SET clause", "create function labels() returns void language sql set standard_conforming_strings = off as $f$ select 1 $f$;\n", "schema.sql:3:1: sets standard_conforming_strings to other than on for the function's body"},
		{"ALTER DATABASE SET", "alter database db set standard_conforming_strings = off;\n", "schema.sql:3:1: sets standard_conforming_strings to other than on for every later session of the database"},
		{"ALTER ROLE SET on", "alter role r set standard_conforming_strings = on;\n", ""},
		{"migration's SET", "set standard_conforming_strings to false;\n", "schema.sql:3:1: sets standard_conforming_strings to other than on for the rest of the migration's session"},
		// Trial r24 N3: client_encoding, as standard_conforming_strings.
		{"ALTER DATABASE SET client_encoding", "alter database db set client_encoding = 'SJIS';\n", "schema.sql:3:1: sets client_encoding to other than UTF8 for every later session of the database"},
		{"ALTER ROLE SET client_encoding", "alter role app set client_encoding = 'BIG5';\n", "schema.sql:3:1: sets client_encoding to other than UTF8 for every later session of the role"},
		{"ALTER SYSTEM SET client_encoding", "alter system set client_encoding = 'GBK';\n", "schema.sql:3:1: sets client_encoding to other than UTF8 for every session of the server"},
		{"migration's SET client_encoding", "set client_encoding = 'SJIS';\n", "schema.sql:3:1: sets client_encoding to other than UTF8 for the rest of the migration's session"},
		{"ALTER DATABASE SET client_encoding UTF8", "alter database db set client_encoding = 'UTF8';\n", ""},
		{"fence mark with a backslash", "comment on table jobs is 'a\\b';\n", "schema.sql:3:26: a backslash in this string constant of a COMMENT"},
	} {
		_, errs := schemaCatalog(t, fenced+tc.schema)
		got := ""
		if len(errs) > 0 {
			got = errs.Sort()[0].Error()
		}
		if tc.want == "" && got != "" || tc.want != "" && !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
		// Without a fenced table: as sqlc, nothing.
		if _, errs := schemaCatalog(t, strings.Replace(fenced, "fencegen:token", "token", 1)+tc.schema); len(errs) > 0 {
			t.Errorf("%s, unfenced: %v", tc.name, errs)
		}
	}
}
