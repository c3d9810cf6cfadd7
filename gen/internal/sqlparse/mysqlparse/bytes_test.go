package mysqlparse_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/fencegen/fencegen/gen/internal/sqlparse/mysqlparse"
	"github.com/fencegen/fencegen/internal/testenv"
)

// mariaConn is one connection to MYSQL_URL's server (a session, for SET
// NAMES), or t is skipped with one line (failed under CI=true).
func mariaConn(t *testing.T) *sql.Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	db, err := sql.Open("mysql", testenv.MySQLURL())
	var conn *sql.Conn
	if err == nil {
		conn, err = db.Conn(ctx)
	}
	if err == nil {
		err = conn.PingContext(ctx)
	}
	if err != nil {
		testenv.UnavailableAt(t, "MariaDB", "MYSQL_URL", "", err)
	}
	t.Cleanup(func() { conn.Close(); db.Close() })
	return conn
}

// maskNonASCII replaces each run of non-ASCII bytes of s by ~.
func maskNonASCII(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] < 0x80 {
			b.WriteByte(s[i])
		} else if i == 0 || s[i-1] < 0x80 {
			b.WriteByte('~')
		}
	}
	return b.String()
}

// isASCII reports whether s holds ASCII bytes only.
func isASCII(s string) bool { return !strings.ContainsFunc(s, func(r rune) bool { return r >= 0x80 }) }

// outcome is how the server read text, as one string: its error number,
// or its columns and rows (values with each run of non-ASCII bytes as ~,
// which a client character set decodes otherwise).
func outcome(t *testing.T, conn *sql.Conn, text string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	rows, err := conn.QueryContext(ctx, text)
	if err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			return fmt.Sprintf("error %d", me.Number)
		}
		t.Fatalf("%q: %v", text, err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var b strings.Builder
	fmt.Fprintf(&b, "%d columns:", len(cols))
	for rows.Next() {
		vals := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			t.Fatalf("%q: %v", text, err)
		}
		for _, v := range vals {
			b.WriteString(" " + maskNonASCII(string(v)))
		}
		b.WriteString(";")
	}
	if err := rows.Err(); err != nil {
		var me *mysql.MySQLError
		if errors.As(err, &me) {
			return fmt.Sprintf("error %d", me.Number)
		}
		t.Fatalf("%q: %v", text, err)
	}
	return b.String()
}

// accepted reports whether fencegen reads text as a query (the query
// file it makes parses without an error).
func accepted(text string) bool {
	_, err := mysqlparse.Parse("query.sql", []byte("-- name: Q :many\n"+text+"\n;\n"))
	return err == nil
}

// randomSelect is a SELECT of several items, between and inside which
// the pieces of pick sit: comments, quoted names, strings, version
// comments.
func randomSelect(r *rand.Rand, junk, items []string) string {
	j := func() string {
		var b strings.Builder
		for range r.Intn(4) {
			b.WriteString(junk[r.Intn(len(junk))])
		}
		return b.String()
	}
	seps := []func() string{
		func() string { return ", " },
		func() string { return " + " },
		func() string { return " /*" + j() + "*/ , " },
		func() string { return " -- " + j() + "\n, " },
		func() string { return " #" + j() + "\n, " },
		func() string { return " /*!" + j() + "*/ , " },
		func() string { return j() + "," + j() },
	}
	var b strings.Builder
	b.WriteString("SELECT ")
	n := 1 + r.Intn(4)
	for k := range n {
		if k > 0 {
			b.WriteString(seps[r.Intn(len(seps))]())
		}
		it := items[r.Intn(len(items))]
		b.WriteString(strings.ReplaceAll(it, "J", j()))
	}
	return b.String()
}

// TestDroppedCarriageReturnOnMariaDB: generated code holds a query in a
// Go raw string, which drops every carriage return, so the server gets
// the text without them. For random queries mixing carriage returns with
// comments, quotes, version comments and operators, each query fencegen
// accepts reads on MariaDB exactly as its text without carriage returns
// does (same error, or same columns and rows); the known escapes are
// refused, and MariaDB reads them otherwise (the oracle tells them
// apart).
func TestDroppedCarriageReturnOnMariaDB(t *testing.T) {
	conn := mariaConn(t)
	escapes := []string{
		"SELECT 1 /* *\r/ , 2 /* */",         // *<CR>/ ends the comment once the CR is dropped
		"SELECT 1 /*\rM! , 2 */",             // /*<CR>M! becomes MariaDB's executable comment
		"SELECT 1 /*\r!, 2 */",               // and /*<CR>! MySQL's
		"SELECT 1 AS `a\rb`, 1 AS `ab`",      // a quoted name loses a byte
		"SELECT 'a\rb' = 'ab'",               // a string loses a byte
		"SELECT 1 --\rx\n, 2",                // -- <CR> is a comment, --x is not
		"SELECT 2 <\r=> 3",                   // < => ... or <=>
		"SELECT 1 /*!5\r0000 , 2 */, 3",      // the version number is split
		"SELECT 1 /* a */ , 2 /*\r*/ , 3 */", // /*<CR>*/ closes nothing, /**/ closes
	}
	differ := 0
	for _, e := range escapes {
		if accepted(e) {
			t.Errorf("accepted %q, whose text without carriage returns reads otherwise", e)
		}
		if outcome(t, conn, e) != outcome(t, conn, strings.ReplaceAll(e, "\r", "")) {
			differ++
		}
	}
	if differ < 5 {
		t.Errorf("MariaDB read only %d of the %d known escapes otherwise without their carriage returns: the oracle cannot tell", differ, len(escapes))
	}
	junk := []string{"\r", "\r\n", "\n", "*", "/", "*\r/", "M!", "!", " ", ", 9", "'", "`", "-", "x", "\r*", "/\r"}
	items := []string{"1", "2", "'aJb'", "'x\r'", "`J` ", "3 AS `cJ`", "1 AS \"dJ\"", "4\r", "5 <J= 6", "7 -J- 8", "@@version IS NOT NULL"}
	r := rand.New(rand.NewSource(27))
	var ok, refused, crs int
	for range 600 {
		text := randomSelect(r, junk, items)
		if !accepted(text) {
			refused++
			continue
		}
		ok++
		if !strings.Contains(text, "\r") {
			continue
		}
		sent := outcome(t, conn, strings.ReplaceAll(text, "\r", ""))
		if strings.HasPrefix(sent, "error") {
			continue // the server runs nothing
		}
		crs++
		if got, want := outcome(t, conn, text), sent; got != want {
			t.Errorf("accepted %q: MariaDB reads it as %s, its text without carriage returns (what generated code sends) as %s", text, got, want)
		}
	}
	t.Logf("600 random queries: %d accepted (%d with a carriage return that MariaDB runs without it, each compared), %d refused", ok, crs, refused)
	if crs < 50 {
		t.Errorf("only %d accepted queries held a carriage return: the property test tests little", crs)
	}
}

// tildes is a run of maskNonASCII's marks.
var tildes = regexp.MustCompile(`~+`)

// TestMultibyteClientCharsetOnMariaDB: under a client character set
// whose multi-byte characters may end in an ASCII byte (gbk, big5, sjis
// and cp932 here, as a DSN's charset= or SET NAMES sets it), each random
// query fencegen accepts reads on MariaDB as it does under utf8mb4 (the
// same error, or the same columns and rows); the known escapes are
// refused, and MariaDB reads them otherwise under gbk. A backquote or
// backslash after é (`café`) is accepted, as in sqlc: é is one
// character in each.
func TestMultibyteClientCharsetOnMariaDB(t *testing.T) {
	utf8, gbk := mariaConn(t), mariaConn(t)
	ctx := context.Background()
	if _, err := utf8.ExecContext(ctx, "SET NAMES utf8mb4"); err != nil {
		t.Fatal(err)
	}
	if _, err := gbk.ExecContext(ctx, "SET NAMES gbk"); err != nil {
		t.Fatal(err)
	}
	others := map[string]*sql.Conn{}
	for _, cs := range []string{"big5", "sjis", "cp932"} {
		others[cs] = mariaConn(t)
		if _, err := others[cs].ExecContext(ctx, "SET NAMES "+cs); err != nil {
			t.Fatal(err)
		}
	}
	for _, name := range []string{"SELECT 1 AS `café`", "SELECT 'café\\\\' AS x", "SELECT 1 AS `naïve`"} {
		if !accepted(name) {
			t.Errorf("refused %q: é and ï are one character in each client character set, as sqlc reads them", name)
		}
	}
	escapes := []string{
		"SELECT (SELECT 1 AS `中`) AS x -- `) AS x, 2 AS y",
		"SELECT '中\\' , 2 -- '",
		"SELECT 1 AS `あ` -- `, 2",
	}
	differ := 0
	for _, e := range escapes {
		if accepted(e) {
			t.Errorf("accepted %q, which gbk reads otherwise", e)
		}
		if outcome(t, utf8, e) != outcome(t, gbk, e) {
			differ++
		}
	}
	if differ < 2 {
		t.Errorf("MariaDB read only %d of the %d known escapes otherwise under gbk: the oracle cannot tell", differ, len(escapes))
	}
	junk := []string{"中", "あ", "`", "\\", "'", " ", "a", "中a", "é", "-- ", "\n", "*/", "/*", "|", "@", "{", "~", "中_", "x", "€", "ï"}
	items := []string{"1", "'J'", "`J` ", "3 AS `J`", "'中'", "'中a'", "2 AS `中a`", "`é_`", "'é\\''", "'あ_\\''", "_utf8mb4'J'", "4 AS `café`", "'café\\''"}
	r := rand.New(rand.NewSource(27))
	var ok, multi, refused int
	for range 1500 {
		text := randomSelect(r, junk, items)
		if !accepted(text) {
			refused++
			continue
		}
		ok++
		if isASCII(text) {
			continue
		}
		got := outcome(t, gbk, text)
		if strings.HasPrefix(got, "error") {
			continue // the server runs nothing
		}
		multi++
		// A _utf8mb4 string whose character the client character set
		// lacks comes back as ?: a value's conversion, not a reading.
		lossy := func(s string) string { return tildes.ReplaceAllString(strings.ReplaceAll(s, "?", "~"), "~") }
		want := lossy(outcome(t, utf8, text))
		if got := lossy(got); got != want {
			t.Errorf("accepted %q: MariaDB reads it under gbk as %s, under utf8mb4 as %s", text, got, want)
		}
		for cs, conn := range others {
			if got := lossy(outcome(t, conn, text)); got != want && !strings.HasPrefix(got, "error") {
				t.Errorf("accepted %q: MariaDB reads it under %s as %s, under utf8mb4 as %s", text, cs, got, want)
			}
		}
	}
	t.Logf("1500 random queries: %d accepted (%d with a non-ASCII character that MariaDB runs under gbk, each compared), %d refused", ok, multi, refused)
	if multi < 50 {
		t.Errorf("only %d accepted queries held a non-ASCII character: the property test tests little", multi)
	}
}
