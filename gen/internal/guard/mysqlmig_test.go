package guard

import (
	"context"
	"errors"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// mysqlStatements splits one migration file of format into the statements
// its tool sends (golang-migrate and dbmate send the file, or the up
// section, whole: multiStatements); up selects the up or down section.
func mysqlStatements(t *testing.T, format, text string, up bool) []string {
	t.Helper()
	section := func(upMark, downMark string) string {
		u, d, ok := strings.Cut(text, downMark)
		if !ok {
			t.Fatalf("%s: no %q", format, downMark)
		}
		if !up {
			return d
		}
		_, u, ok = strings.Cut(u, upMark)
		if !ok {
			t.Fatalf("%s: no %q", format, upMark)
		}
		return u
	}
	switch format {
	case "golang-migrate":
		return []string{text}
	case "dbmate":
		return []string{section("-- migrate:up", "-- migrate:down")}
	case "atlas":
		var out []string
		for _, s := range strings.Split(text, "\n-- end\n") {
			if s = stripComments(s); s != "" {
				out = append(out, s)
			}
		}
		return out
	case "goose":
		var out []string
		body := section("-- +goose Up", "-- +goose Down")
		for body != "" {
			before, block, found := strings.Cut(body, "-- +goose StatementBegin\n")
			for _, s := range strings.Split(before, ";\n") {
				if s = stripComments(s); s != "" {
					out = append(out, s)
				}
			}
			if !found {
				break
			}
			block, body, _ = strings.Cut(block, "-- +goose StatementEnd\n")
			out = append(out, block)
		}
		return out
	}
	t.Fatalf("format %q", format)
	return nil
}

func stripComments(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "--") {
			keep = append(keep, l)
		}
	}
	return strings.TrimSpace(strings.Join(keep, "\n"))
}

const mysqlAccounts = `CREATE TABLE accounts (
	id BIGINT PRIMARY KEY,
	balance BIGINT NOT NULL,
	fence_token BIGINT NOT NULL DEFAULT 0
)`

// TestMySQLGuardMigrationsOnMariaDB applies the guard migration of each
// tool format, as the tool sends it, to MariaDB, and checks that a stale
// UPDATE and a stale DELETE from a writer outside the generated code are
// refused with the trigger's error, which fenceimpl.TriggerError reports
// as a *fence.StaleError with the tokens; that a current writer passes;
// and that the down section removes the triggers.
func TestMySQLGuardMigrationsOnMariaDB(t *testing.T) {
	g := &DatabaseGuard{data: &guardData{}, mysql: []mysqlGuardTable{{Table: "accounts", Column: "fence_token"}}}
	for _, format := range MigrationFormats {
		t.Run(format, func(t *testing.T) {
			ctx := context.Background()
			db := testenv.MySQL(t, "multiStatements=true", mysqlAccounts, "INSERT INTO accounts VALUES (1, 100, 5), (2, 100, 5)")
			files, err := g.Migration(format, "20260102150405")
			if err != nil {
				t.Fatal(err)
			}
			up, down := string(files["20260102150405_fencegen_guard.sql"]), ""
			if format == "golang-migrate" {
				up, down = string(files["20260102150405_fencegen_guard.up.sql"]), string(files["20260102150405_fencegen_guard.down.sql"])
			}
			apply := func(text string, up bool) {
				for _, s := range mysqlStatements(t, format, text, up) {
					if _, err := db.ExecContext(ctx, s); err != nil {
						t.Fatalf("%s:\n%s\n: %v", format, s, err)
					}
				}
			}
			apply(up, true)
			apply(up, true) // applying it again is harmless

			_, err = db.ExecContext(ctx, "UPDATE accounts SET balance = 0, fence_token = 4 WHERE id = 1")
			stale := fenceimpl.TriggerError("Outside", err, "accounts")
			var se *fence.StaleError
			if !errors.As(stale, &se) || se.Presented != 4 || se.Stored != 5 || se.Table != "accounts" || se.Mode != fence.NonStrict {
				t.Fatalf("stale UPDATE: %v (%+v), want a *fence.StaleError presented 4 stored 5", err, se)
			}
			if _, err := db.ExecContext(ctx, "UPDATE accounts SET balance = 1, fence_token = 5 WHERE id = 1"); err != nil {
				t.Fatalf("UPDATE with the stored token: %v", err)
			}
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(ctx, "SET @fencegen_token = 3"); err != nil {
				t.Fatal(err)
			}
			_, err = conn.ExecContext(ctx, "DELETE FROM accounts WHERE id = 2")
			if stale := fenceimpl.TriggerError("Outside", err, "accounts"); !errors.As(stale, &se) || se.Presented != 3 || se.Stored != 5 {
				t.Fatalf("stale DELETE: %v", err)
			}
			if _, err := conn.ExecContext(ctx, "SET @fencegen_token = 5"); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(ctx, "DELETE FROM accounts WHERE id = 2"); err != nil {
				t.Fatalf("DELETE with the stored token: %v", err)
			}
			var balance, tok int64
			if err := db.QueryRowContext(ctx, "SELECT balance, fence_token FROM accounts WHERE id = 1").Scan(&balance, &tok); err != nil || balance != 1 || tok != 5 {
				t.Fatalf("row 1 = %d, %d (%v); want 1, 5", balance, tok, err)
			}
			if format == "atlas" {
				return // Atlas migrations have no down section
			}
			if down != "" {
				apply(down, false)
			} else {
				apply(up, false)
			}
			if _, err := db.ExecContext(ctx, "UPDATE accounts SET fence_token = 1 WHERE id = 1"); err != nil {
				t.Fatalf("after the down migration the trigger still refuses: %v", err)
			}
		})
	}
}

// TestMySQLGuardStrict: a strict table's trigger refuses an UPDATE that
// does not raise the token.
func TestMySQLGuardStrict(t *testing.T) {
	g := &DatabaseGuard{data: &guardData{}, mysql: []mysqlGuardTable{{Table: "accounts", Column: "fence_token", Strict: true}}}
	files, err := g.Migration("dbmate", "1")
	if err != nil {
		t.Fatal(err)
	}
	db := testenv.MySQL(t, "multiStatements=true", mysqlAccounts, "INSERT INTO accounts VALUES (1, 100, 5)")
	if _, err := db.Exec(mysqlStatements(t, "dbmate", string(files["1_fencegen_guard.sql"]), true)[0]); err != nil {
		t.Fatal(err)
	}
	_, err = db.Exec("UPDATE accounts SET balance = 0 WHERE id = 1")
	var se *fence.StaleError
	if stale := fenceimpl.TriggerError("Q", err, "accounts"); !errors.As(stale, &se) || se.Mode != fence.Strict || se.Stored != 5 {
		t.Fatalf("strict: %v", err)
	}
	if _, err := db.Exec("UPDATE accounts SET balance = 0, fence_token = 6 WHERE id = 1"); err != nil {
		t.Fatal(err)
	}
}

func TestMySQLTriggerNames(t *testing.T) {
	long := strings.Repeat("t", 64)
	a, b := mysqlTriggerName("bu", long), mysqlTriggerName("bu", long[:63]+"u")
	if len(a) > 64 || len(b) > 64 || a == b {
		t.Fatalf("names %q %q", a, b)
	}
}

// TestMySQLGuardMessageModeIndependent (issue 27): the server keeps a
// trigger with the sql_mode of the session that created it, which the
// migration tool chooses. The guard triggers of a table whose name holds
// a backslash and a quote spell their message without a backslash
// escape, so that, created under the default mode or under
// NO_BACKSLASH_ESCAPES, the refusal names the table as it is and
// fenceimpl.TriggerError reports it as a *fence.StaleError.
func TestMySQLGuardMessageModeIndependent(t *testing.T) {
	const table = `a\b'c`
	if strings.Contains(mysqlString(table), `\`) {
		t.Fatalf("mysqlString(%q) = %s: a backslash reads otherwise under NO_BACKSLASH_ESCAPES", table, mysqlString(table))
	}
	g := &DatabaseGuard{data: &guardData{}, mysql: []mysqlGuardTable{{Table: table, Column: "fence_token", Keys: [][]string{{"id"}}}}}
	files, err := g.Migration("dbmate", "1")
	if err != nil {
		t.Fatal(err)
	}
	up := mysqlStatements(t, "dbmate", string(files["1_fencegen_guard.sql"]), true)[0]
	for _, mode := range []string{"", "NO_BACKSLASH_ESCAPES"} {
		t.Run("mode="+mode, func(t *testing.T) {
			ctx := context.Background()
			db := testenv.MySQL(t, "multiStatements=true",
				"CREATE TABLE "+mysqlIdent(table)+" (id BIGINT PRIMARY KEY, fence_token BIGINT NOT NULL DEFAULT 0)",
				"INSERT INTO "+mysqlIdent(table)+" VALUES (1, 5)")
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if _, err := conn.ExecContext(ctx, "SET SESSION sql_mode = ?", mode); err != nil {
				t.Fatal(err)
			}
			if _, err := conn.ExecContext(ctx, up); err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{"UPDATE " + mysqlIdent(table) + " SET fence_token = 4", "REPLACE INTO " + mysqlIdent(table) + " VALUES (1, 3)"} {
				_, err := db.ExecContext(ctx, q)
				var se *fence.StaleError
				if err == nil || !strings.HasSuffix(err.Error(), " table="+table) {
					t.Errorf("%s: %v; want the message to end in table=%s", q, err, table)
				}
				if stale := fenceimpl.TriggerError("Q", err, table); !errors.As(stale, &se) || se.Table != table || se.Stored != 5 {
					t.Errorf("%s: %v (%+v); want a *fence.StaleError on %s stored 5", q, err, se, table)
				}
			}
		})
	}
}
