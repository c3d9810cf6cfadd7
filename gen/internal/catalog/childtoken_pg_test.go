package catalog_test

import (
	"context"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestChildTokenColumn is trial t24h F_partdefault and F_child_nullable:
// a partition's or inheritance child's own token column gets the errors
// the fenced table's own gets. The child's DEFAULT is what an INSERT into
// the child stores, and a NULL it lets in never compares: PostgreSQL, the
// oracle, shows each bad child storing a token a lease never minted (or
// NULL) where the parent would not.
func TestChildTokenColumn(t *testing.T) {
	const parents = `CREATE TABLE events (id bigint NOT NULL, region text NOT NULL, tok bigint NOT NULL DEFAULT 0, PRIMARY KEY (id, region)) PARTITION BY LIST (region);
COMMENT ON COLUMN events.tok IS 'fencegen:token';
CREATE TABLE items (id bigint PRIMARY KEY, name text, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN items.tok IS 'fencegen:token';
`
	const defaultErr = "has a DEFAULT that is not an integer constant at or below 1"
	const nullErr = "must be NOT NULL: a NULL stored token never compares"
	for _, tc := range []struct {
		name, ddl string
		// want is the one error, as "line:col: table.tok ...message part"
		// ("" for none); insert is the statement that shows, on
		// PostgreSQL, the stored token it leads to, and stored that token.
		want, insert, stored string
	}{
		{name: "partition DEFAULT 999", ddl: "CREATE TABLE events_x PARTITION OF events (tok DEFAULT 999) FOR VALUES IN ('x');",
			want: "5:44: fencing token column events_x.tok " + defaultErr, insert: "INSERT INTO events_x (id, region) VALUES (1, 'x')", stored: "999"},
		{name: "inheritance child DEFAULT 500", ddl: "CREATE TABLE spec2 (tok bigint NOT NULL DEFAULT 500) INHERITS (items);",
			want: "5:21: fencing token column spec2.tok " + defaultErr, insert: "INSERT INTO spec2 (id) VALUES (1)", stored: "500"},
		{name: "child SET DEFAULT", ddl: "CREATE TABLE spec3 () INHERITS (items);\nALTER TABLE spec3 ALTER COLUMN tok SET DEFAULT 7;",
			want: "6:13: fencing token column spec3.tok " + defaultErr, insert: "INSERT INTO spec3 (id) VALUES (1)", stored: "7"},
		{name: "partition SET DEFAULT", ddl: "CREATE TABLE events_y PARTITION OF events FOR VALUES IN ('y');\nALTER TABLE events_y ALTER COLUMN tok SET DEFAULT now()::date - '2000-01-01'::date;",
			want: "6:13: fencing token column events_y.tok " + defaultErr},
		{name: "child DROP NOT NULL", ddl: "CREATE TABLE special_items (extra text) INHERITS (items);\nALTER TABLE special_items ALTER COLUMN tok DROP NOT NULL;",
			want: "6:13: fencing token column special_items.tok " + nullErr, insert: "INSERT INTO special_items (id, tok) VALUES (1, NULL)", stored: "NULL"},
		{name: "partition DEFAULT 0", ddl: "CREATE TABLE events_z PARTITION OF events (tok DEFAULT 0) FOR VALUES IN ('z');",
			insert: "INSERT INTO events_z (id, region) VALUES (1, 'z')", stored: "0"},
		{name: "child DEFAULT 1", ddl: "CREATE TABLE spec4 (tok bigint NOT NULL DEFAULT 1) INHERITS (items);",
			insert: "INSERT INTO spec4 (id) VALUES (1)", stored: "1"},
		{name: "child of the parent's", ddl: "CREATE TABLE spec5 () INHERITS (items);",
			insert: "INSERT INTO spec5 (id) VALUES (1)", stored: "0"},
		// The parent's own change reaches its children: reported once,
		// on the parent.
		{name: "parent DROP NOT NULL", ddl: "CREATE TABLE spec6 () INHERITS (items);\nALTER TABLE items ALTER COLUMN tok DROP NOT NULL;",
			want: "6:13: fencing token column items.tok " + nullErr},
		{name: "grandchild of a bad child", ddl: "CREATE TABLE spec7 (tok bigint NOT NULL DEFAULT 500) INHERITS (items);\nCREATE TABLE spec8 () INHERITS (spec7);",
			want: "5:21: fencing token column spec7.tok " + defaultErr, insert: "INSERT INTO spec8 (id) VALUES (1)", stored: "500"},
	} {
		_, errs := build(t, parents+tc.ddl)
		switch {
		case tc.want == "" && len(errs) > 0:
			t.Errorf("%s: %v, want no error", tc.name, errs)
		case tc.want != "":
			want := strings.SplitN(tc.want, " ", 2)
			if len(errs) != 1 || !strings.HasPrefix(errs[0], "schema.sql:"+want[0]+" ") || !strings.Contains(errs[0], want[1]) {
				t.Errorf("%s: errors %q, want one: schema.sql:%s", tc.name, errs, tc.want)
			}
		}
		if tc.insert == "" {
			continue
		}
		pool := testenv.Database(t, parents+tc.ddl)
		var got string
		if err := pool.QueryRow(context.Background(), tc.insert+" RETURNING coalesce(tok::text, 'NULL')").Scan(&got); err != nil {
			t.Fatalf("%s: %s: %v", tc.name, tc.insert, err)
		}
		if got != tc.stored {
			t.Errorf("%s: PostgreSQL stored token %s, the test expects %s", tc.name, got, tc.stored)
		}
	}
}

// TestTokenDomainCheckNoted is trial t24h c12: a CHECK of a domain the
// token column is declared of (through other domains, or added by ALTER
// DOMAIN) is noted as a CHECK of the table is, unless every token passes
// it; PostgreSQL refuses a token the domain does not admit.
func TestTokenDomainCheckNoted(t *testing.T) {
	for _, tc := range []struct {
		domains string
		noted   bool
	}{
		{"CREATE DOMAIN tokd AS bigint CHECK (VALUE < 1000);\n", true},
		{"CREATE DOMAIN small AS bigint CHECK (VALUE < 1000);\nCREATE DOMAIN tokd AS small;\n", true},
		{"CREATE DOMAIN tokd AS bigint;\nALTER DOMAIN tokd ADD CONSTRAINT small CHECK (VALUE <= 5000);\n", true},
		{"CREATE DOMAIN tokd AS bigint CHECK (VALUE >= 0);\n", false},
		{"CREATE DOMAIN tokd AS bigint NOT NULL;\n", false},
	} {
		schema := tc.domains + "CREATE TABLE jobs (id bigint PRIMARY KEY, tok tokd NOT NULL DEFAULT 0);\nCOMMENT ON COLUMN jobs.tok IS 'fencegen:token';\n"
		c, errs := build(t, schema)
		if len(errs) > 0 {
			t.Fatalf("%s: %v", tc.domains, errs)
		}
		got := false
		for _, n := range c.Notes() {
			got = got || strings.Contains(n.Error(), "note: a CHECK constraint of domain ") && strings.Contains(n.Error(), "the type of fenced table jobs's fencing token column tok")
		}
		if got != tc.noted {
			t.Errorf("%s: noted %v, want %v: %v", tc.domains, got, tc.noted, c.Notes())
		}
		if !tc.noted {
			continue
		}
		pool := testenv.Database(t, schema)
		if _, err := pool.Exec(context.Background(), "INSERT INTO jobs VALUES (1, 0); UPDATE jobs SET tok = 6000 WHERE id = 1"); err == nil || !strings.Contains(err.Error(), "violates check constraint") {
			t.Errorf("%s: PostgreSQL stored token 6000 (%v): the note would be wrong", tc.domains, err)
		}
	}
}
