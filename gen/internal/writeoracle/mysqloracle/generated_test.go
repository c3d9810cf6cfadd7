package mysqloracle

import (
	"context"
	"fmt"
	goast "go/ast"
	goparser "go/parser"
	gotoken "go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen"
)

// generatedSchema is a schema the MySQL front end reads whole (no
// DELIMITER, no compound bodies), with accounts and holds fenced by
// their column comment, a foreign-key action, a view and a procedure.
const generatedSchema = `CREATE TABLE accounts (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token', balance INT NOT NULL DEFAULT 0);
CREATE TABLE owners (id BIGINT PRIMARY KEY);
CREATE TABLE holds (id BIGINT PRIMARY KEY, fence BIGINT NOT NULL DEFAULT 0 COMMENT 'fencegen:token', owner_id BIGINT,
  FOREIGN KEY (owner_id) REFERENCES owners (id) ON DELETE CASCADE ON UPDATE CASCADE);
CREATE TABLE notes (id BIGINT PRIMARY KEY, body TEXT);
CREATE VIEW rich AS SELECT id, balance FROM accounts;
CREATE PROCEDURE pay(a BIGINT) UPDATE accounts SET balance = balance - 1 WHERE id = a;
`

// generatedQueries are held-out shapes as sqlc queries over
// generatedSchema.
var generatedQueries = []string{
	"SELECT * FROM accounts WHERE id = ?",
	"SELECT a.id, n.body FROM accounts a JOIN notes n ON n.id = a.id",
	"UPDATE accounts SET balance = ? WHERE id = ?",
	"DELETE FROM accounts WHERE id = ?",
	"INSERT INTO accounts (id, balance) VALUES (?, ?)",
	"INSERT INTO accounts (id, balance) VALUES (?, ?) ON DUPLICATE KEY UPDATE balance = VALUES(balance)",
	"REPLACE INTO accounts (id, balance) VALUES (?, ?)",
	"INSERT INTO accounts SET id = ?, balance = ?",
	"INSERT INTO accounts (id, balance) SELECT id + 100, balance FROM accounts WHERE id = ?",
	"UPDATE notes n JOIN accounts a ON a.id = n.id SET a.balance = 0 WHERE n.id = ?",
	"UPDATE notes n JOIN accounts a ON a.id = n.id SET n.body = 'x' WHERE n.id = ?",
	"DELETE n, a FROM notes n JOIN accounts a ON a.id = n.id WHERE n.id = ?",
	"DELETE n FROM notes n JOIN accounts a ON a.id = n.id WHERE n.id = ?",
	"UPDATE rich SET balance = ? WHERE id = ?",
	"CALL pay(?)",
	"DELETE FROM owners WHERE id = ?",
	"UPDATE owners SET id = id + 1000 WHERE id = ?",
	"UPDATE notes SET body = ? WHERE id = ?",
	"DELETE FROM notes WHERE id = ?",
	"INSERT INTO notes (id, body) VALUES (?, ?)",
	"UPDATE accounts SET balance = balance + 1",
	"DELETE FROM accounts",
	"UPDATE holds SET owner_id = ? WHERE id = ?",
	// Executable comments (issue 27): MariaDB runs /*M! text, the parser
	// skips it; versioned /*! runs by server version; /*! without one is
	// read as code; a hint is a comment.
	"UPDATE notes n /*M!, accounts a */ SET n.body = 'y' /*M!, a.balance = 0 */ WHERE n.id = ?",
	"UPDATE notes n /*M!100100 , accounts a */ SET n.body = 'y' /*M!100100 , a.balance = 0 */ WHERE n.id = ?",
	"UPDATE notes n /*!80000 , accounts a */ SET n.body = 'y' /*!80000 , a.balance = 0 */ WHERE n.id = ?",
	"UPDATE notes n /*!, accounts a */ SET n.body = 'y' /*!, a.balance = 0 */ WHERE n.id = ?",
	"UPDATE /*+ NO_RANGE_OPTIMIZATION(notes) */ notes SET body = ? WHERE id = ?",
	// Modifiers that keep an error from failing the write (issue 27):
	// IGNORE turns the guard's refusal into a warning.
	"INSERT IGNORE INTO accounts (id, balance) VALUES (?, ?) ON DUPLICATE KEY UPDATE balance = VALUES(balance)",
	"INSERT IGNORE INTO accounts (id, balance) VALUES (?, ?)",
	"UPDATE IGNORE accounts SET balance = ? WHERE id = ?",
	"UPDATE IGNORE accounts SET balance = balance + 1 WHERE balance >= ?",
	"DELETE IGNORE FROM accounts WHERE balance >= ?",
	"DELETE IGNORE FROM accounts WHERE id = ?",
	"INSERT DELAYED INTO accounts (id, balance) VALUES (?, ?)",
	// Modifiers that change only when or how the write runs.
	"UPDATE LOW_PRIORITY accounts SET balance = balance + 1 WHERE balance >= ?",
	"DELETE LOW_PRIORITY QUICK FROM accounts WHERE balance >= ?",
	"INSERT HIGH_PRIORITY INTO accounts (id, balance) VALUES (?, ?) ON DUPLICATE KEY UPDATE balance = VALUES(balance)",
	"UPDATE accounts SET balance = balance + 1 WHERE balance >= ?",
	"DELETE FROM accounts WHERE balance >= ?",
}

var errorLine = regexp.MustCompile(`(?m)^\S*q\.sql:(\d+):\d+: `)

// TestOracleGenerated generates the held-out shapes with engine mysql
// (gen.Generate, as the CLI does), blanking each query the generator
// refuses until it generates, and runs every SQL constant of the
// generated code that carries no guard on MariaDB with recording
// triggers: none may write a fenced table. Refusals and guarded
// statements are counted.
func TestOracleGenerated(t *testing.T) {
	db := admin(t)
	dir := t.TempDir()
	var q strings.Builder
	lineOf := map[int]string{} // the line of each query's SQL
	line := 1
	for i, s := range generatedQueries {
		fmt.Fprintf(&q, "-- name: Q%02d :exec\n", i)
		line++
		lineOf[line] = s
		fmt.Fprintf(&q, "%s;\n\n", s)
		line += 2
	}
	write := func(name, s string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("schema.sql", generatedSchema)
	write("fencegen.yaml", "version: \"2\"\nsql:\n  - {engine: mysql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out}}}\n")
	queries := q.String()
	refused := map[string]string{}
	var out *gen.Output
	for round := 0; round < len(generatedQueries)+1; round++ {
		write("q.sql", queries)
		cfg, err := gen.LoadConfig(filepath.Join(dir, "fencegen.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		out, err = gen.Generate(context.Background(), cfg)
		if err == nil {
			break
		}
		msg := err.Error()
		blanked := false
		for _, m := range errorLine.FindAllStringSubmatchIndex(msg, -1) {
			n, _ := strconv.Atoi(msg[m[2]:m[3]])
			s, ok := lineOf[n]
			if !ok {
				continue
			}
			end := strings.IndexByte(msg[m[1]:], '\n')
			if end < 0 {
				end = len(msg) - m[1]
			}
			refused[s] = msg[m[1] : m[1]+end]
			lines := strings.Split(queries, "\n")
			if lines[n-1] != "" {
				lines[n-2], lines[n-1] = "", ""
				blanked = true
			}
			queries = strings.Join(lines, "\n")
		}
		if !blanked {
			t.Fatalf("generation fails with no query to blank:\n%s", msg)
		}
	}
	if out == nil {
		t.Fatal("no generation")
	}
	consts := sqlConstants(t, out.Files)
	s, _, err := NewScratch(context.Background(), db, mysqlURL(), [][]byte{[]byte(generatedSchema)}, []string{"accounts", "holds"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	unguarded, guarded := 0, 0
	for _, c := range consts {
		if strings.Contains(c, "-- fencegen:") {
			guarded++
			continue
		}
		unguarded++
		for _, arg := range Bindings {
			written, err := s.Run(context.Background(), c, arg)
			if len(written) > 0 {
				t.Errorf("generated without a guard, writes fenced %v on MariaDB:\n%s", written, c)
				break
			}
			if err == nil {
				break
			}
		}
	}
	staleChecked := staleGuarded(t, s, consts)
	var rs []string
	for q, why := range refused {
		rs = append(rs, q+"\n    "+why)
	}
	sort.Strings(rs)
	for _, r := range rs {
		t.Logf("refused: %s", r)
	}
	t.Logf("%d shapes: %d refused, %d generated (%d statements guarded, %d unguarded, none of which writes a fenced row on MariaDB; %d runs of a guarded statement with a stale token, none of which wrote a stale row or part of a write that meets one)",
		len(generatedQueries), len(refused), len(generatedQueries)-len(refused), guarded, unguarded, staleChecked)
	if unguarded == 0 {
		t.Error("no unguarded statement was generated: the oracle ran nothing")
	}
}

var queryName = regexp.MustCompile(`^-- name: Q(\d+) `)

// staleGuarded runs every guarded statement of consts with a stale token
// and checks what it wrote against the shape it guards, both run on
// MariaDB in rolled-back transactions. The fenced rows with id 1 (the
// seeded row every binding 1 finds) are made stale: their token is set to
// 1000, above every binding; the rows with id 0 keep token 0. A guarded
// statement must write no row whose token was 1000, and when the shape
// unguarded writes one (it meets a stale row), the guarded statement must
// write nothing at all (all or nothing). The rows written are recorded
// with their old token by AFTER UPDATE and AFTER DELETE triggers. It
// returns the runs checked.
func staleGuarded(t *testing.T, s *Scratch, consts []string) int {
	t.Helper()
	ctx := context.Background()
	setup := []string{
		"CREATE TABLE stale_log (tbl VARCHAR(64) NOT NULL, old_token BIGINT NOT NULL)",
		"UPDATE accounts SET fence = 1000 WHERE id = 1",
		"UPDATE holds SET fence = 1000 WHERE id = 1",
	}
	for _, tb := range []string{"accounts", "holds"} {
		for _, op := range []string{"UPDATE", "DELETE"} {
			setup = append(setup, fmt.Sprintf("CREATE TRIGGER stale_%s_%s AFTER %s ON %s FOR EACH ROW INSERT INTO stale_log VALUES ('%s', OLD.fence)",
				tb, strings.ToLower(op), op, tb, tb))
		}
	}
	for _, q := range setup {
		if _, err := s.DB.ExecContext(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	// run returns the old tokens of the fenced rows q updated or deleted.
	run := func(q string, arg any) ([]int64, error) {
		conn, err := s.DB.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		tx, err := conn.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = tx.Rollback() }()
		args := make([]any, Placeholders(q))
		for i := range args {
			args[i] = arg
		}
		_, qerr := tx.ExecContext(ctx, q, args...)
		rows, err := tx.QueryContext(ctx, "SELECT old_token FROM stale_log")
		if err != nil {
			t.Fatal(err)
		}
		defer rows.Close()
		var old []int64
		for rows.Next() {
			var v int64
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			old = append(old, v)
		}
		return old, qerr
	}
	checked := 0
	for _, c := range consts {
		if !strings.Contains(c, "-- fencegen:") {
			continue
		}
		m := queryName.FindStringSubmatch(c)
		if m == nil {
			t.Fatalf("guarded statement without its query's name:\n%s", c)
		}
		n, _ := strconv.Atoi(m[1])
		shape := generatedQueries[n]
		for _, arg := range []any{1, 0} {
			want, _ := run(shape, arg)
			got, err := run(c, arg)
			checked++
			metStale := slices.Contains(want, 1000)
			switch {
			case slices.Contains(got, 1000):
				t.Errorf("guarded with a stale token (%v), wrote a row whose token was 1000 (err %v):\n%s", arg, err, c)
			case metStale && len(got) > 0:
				t.Errorf("guarded with a stale token (%v), wrote %d rows of a write that meets a stale row, which must write none (err %v):\n%s", arg, len(got), err, c)
			}
		}
	}
	return checked
}

// sqlConstants are the generated Go files' string constants that begin
// with sqlc's "-- name: " line.
func sqlConstants(t *testing.T, files map[string][]byte) []string {
	t.Helper()
	var names []string
	for n := range files {
		if strings.HasSuffix(n, ".go") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var out []string
	fset := gotoken.NewFileSet()
	for _, n := range names {
		f, err := goparser.ParseFile(fset, n, files[n], goparser.SkipObjectResolution)
		if err != nil {
			t.Fatalf("generated %s: %v", n, err)
		}
		goast.Inspect(f, func(x goast.Node) bool {
			lit, ok := x.(*goast.BasicLit)
			if !ok || lit.Kind != gotoken.STRING {
				return true
			}
			if s, err := strconv.Unquote(lit.Value); err == nil && strings.HasPrefix(s, "-- name: ") {
				out = append(out, s)
			}
			return true
		})
	}
	return out
}
