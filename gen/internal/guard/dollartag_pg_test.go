package guard

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// dollarSchema fences tables whose names hold the guard's dollar-quote
// tag, whole ($fencegen$), open ($fencegen, which would end a body
// early before $fencegen$) or longer ($fencegen_$), beside plain ones:
// trial t24h F_dollar_name, whose guard migration did not parse.
const dollarSchema = `CREATE TABLE "odd$fencegen$name" (id bigint PRIMARY KEY, status text, "t$fencegen$k" bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN "odd$fencegen$name"."t$fencegen$k" IS 'fencegen:token';
CREATE TABLE "open$fencegen" (id bigint PRIMARY KEY, status text, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN "open$fencegen".tok IS 'fencegen:token strict';
CREATE TABLE "r$fencegen_$" (id bigint PRIMARY KEY, status text, "c$fencegen" bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN "r$fencegen_$"."c$fencegen" IS 'fencegen:token required';
CREATE TABLE "ends$" (id bigint PRIMARY KEY, status text, "tok$" bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN "ends$"."tok$" IS 'fencegen:token';
CREATE TABLE jobs (id bigint PRIMARY KEY, status text, tok bigint NOT NULL DEFAULT 0);
COMMENT ON COLUMN jobs.tok IS 'fencegen:token';
`

// TestGuardDollarTag: every trigger function fencegen writes is
// dollar-quoted with a tag its body does not hold (DollarTag), so
// PostgreSQL reads each as written: fencegen_guard.sql and every
// migration format's up and down sections apply, each trigger refuses a
// stale token and lets a fresh one through, and the replay reads each
// migration back as the guard it installs ("fencegen" stays the tag of
// every other table, so older migrations compare equal).
func TestGuardDollarTag(t *testing.T) {
	dir := t.TempDir()
	g := guardOf(t, dir, dollarSchema)
	tags := map[string]string{}
	for _, tb := range g.data.Tables {
		tags[tb.TableName] = tb.Tag
	}
	want := map[string]string{"odd$fencegen$name": "fencegen_", "open$fencegen": "fencegen_", "r$fencegen_$": "fencegen__", "ends$": "fencegen", "jobs": "fencegen"}
	for table, tag := range want {
		if tags[table] != tag {
			t.Errorf("table %s: tag %q, want %q", table, tags[table], tag)
		}
	}
	guardSQL, err := g.SQL()
	if err != nil {
		t.Fatal(err)
	}
	const rows = `INSERT INTO "odd$fencegen$name" VALUES (1, 'a', 5); INSERT INTO "open$fencegen" VALUES (1, 'a', 5);
INSERT INTO "r$fencegen_$" VALUES (1, 'a', 5); INSERT INTO "ends$" VALUES (1, 'a', 5); INSERT INTO jobs VALUES (1, 'a', 5);`
	pool := testenv.Database(t, dollarSchema, string(guardSQL), rows)
	ctx := context.Background()
	for _, tc := range []struct {
		sql   string
		state string // "" when it must pass
	}{
		{`UPDATE "odd$fencegen$name" SET "t$fencegen$k" = 4 WHERE id = 1`, fenceimpl.SQLState},
		{`UPDATE "odd$fencegen$name" SET "t$fencegen$k" = 6 WHERE id = 1`, ""},
		{`UPDATE "open$fencegen" SET tok = 5 WHERE id = 1`, fenceimpl.SQLState},
		{`UPDATE "open$fencegen" SET tok = 6 WHERE id = 1`, ""},
		{`UPDATE "r$fencegen_$" SET status = 'b' WHERE id = 1`, fenceimpl.MissingTokenSQLState},
		{`UPDATE "r$fencegen_$" SET "c$fencegen" = 4 WHERE id = 1`, fenceimpl.SQLState},
		{`UPDATE "r$fencegen_$" SET "c$fencegen" = 6 WHERE id = 1`, ""},
		{`UPDATE "ends$" SET "tok$" = 4 WHERE id = 1`, fenceimpl.SQLState},
		{`UPDATE "ends$" SET "tok$" = 6 WHERE id = 1`, ""},
		{`UPDATE jobs SET tok = 4 WHERE id = 1`, fenceimpl.SQLState},
	} {
		_, err := pool.Exec(ctx, tc.sql)
		var pgErr *pgconn.PgError
		switch {
		case tc.state == "" && err != nil:
			t.Errorf("%s: %v, want it to pass", tc.sql, err)
		case tc.state != "" && (!errors.As(err, &pgErr) || pgErr.Code != tc.state):
			t.Errorf("%s: %v, want SQLSTATE %s", tc.sql, err, tc.state)
		}
	}
	// Each format's migration: read back as the same guard, and its up
	// and down sections run on PostgreSQL.
	for _, format := range MigrationFormats {
		files, err := g.Migration(format, "2")
		if err != nil {
			t.Fatal(err)
		}
		name := "2_fencegen_guard.sql"
		if format == "golang-migrate" {
			name = "2_fencegen_guard.up.sql"
		}
		p := writeFile(t, dir, filepath.Join(format, name), string(files[name]))
		if found := g.compare(replayGuard(parseFiles(t, filepath.Join(dir, "schema.sql"), p)), nil); len(found) != 0 {
			t.Errorf("%s: %v, want no finding", format, found)
		}
		up := upStatements(string(files[name]), format)
		down := ""
		switch format {
		case "golang-migrate":
			down = string(files["2_fencegen_guard.down.sql"])
		case "goose", "dbmate":
			_, down, _ = strings.Cut(string(files[name]), downMark[format]+"\n")
		}
		db := testenv.Database(t, dollarSchema)
		for _, section := range []string{up, down, up} {
			if _, err := db.Exec(ctx, section); err != nil {
				t.Errorf("%s: %v\n%s", format, err, section)
			}
		}
		db.Close()
	}
}
