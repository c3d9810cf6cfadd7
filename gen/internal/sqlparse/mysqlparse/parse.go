// Package mysqlparse parses MySQL and MariaDB SQL with the TiDB parser
// (github.com/pingcap/tidb/pkg/parser, the version sqlc v1.31.1 parses
// MySQL with) into fencegen's statement model (package sqlparse): the same
// File and Stmt as PostgreSQL's, each statement's converted tree in
// Stmt.Node for the catalog and the analysis, and TiDB's whole statement in
// Stmt.MySQL for the write analysis, which must see every node.
//
// Offsets are byte offsets into the file, as for PostgreSQL. A syntax
// error is a *diag.Error at the statement's file:line:col; the other
// statements of the file are still parsed, so every broken statement is
// reported in one run.
package mysqlparse

import (
	"bytes"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	// The TiDB parser needs a value-expression driver; its test driver is
	// the self-contained one (sqlc uses it too).
	_ "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/writes/mysqlwrites"
)

// Parse parses src, a file of MySQL statements. On syntax errors it
// returns the statements that parsed together with a diag.List holding one
// located error per broken statement.
//
// A statement holding an executable comment that the TiDB parser does not
// read as MySQL and MariaDB run it (scan) is refused, at the
// comment: what fencegen does not read, it cannot guard.
//
// A query's text is then held in generated code, whose Go raw string
// drops every carriage return: a statement that lexes otherwise without
// them is refused at the carriage return (mysqlwrites.DroppedCR), as is
// one that another byte would make the server read otherwise
// (byteReasons).
func Parse(name string, src []byte) (*sqlparse.File, error) {
	segs, bad := scan(src)
	bad = append(bad, byteReasons(src, segs, true)...)
	sortComments(bad)
	return parse(name, src, segs, bad, nil)
}

// byteReasons are the bytes of src's statements (spans) that fencegen
// refuses, one per statement at most: an ASCII control byte other than
// a blank (mysqlwrites.ControlByte), an ASCII byte a client character set
// with ASCII trail bytes would read as part of a character
// (mysqlwrites.MultibyteTrail), and, for a query file (query set), a
// carriage return whose removal changes the tokens
// (mysqlwrites.DroppedCR). A schema file reaches the server as written,
// its carriage returns included.
func byteReasons(src []byte, spans [][2]int, query bool) []Comment {
	var out []Comment
	for _, sp := range spans {
		text := string(src[sp[0]:sp[1]])
		if i := mysqlwrites.ControlByte(text); i >= 0 {
			out = append(out, Comment{Pos: sp[0] + i, Reason: fmt.Sprintf("control character %q: MySQL and MariaDB read some control characters as blanks (and -- followed by one as a comment), which fencegen does not, so fencegen cannot read the statement as the server does; remove it, or write it in a string as CHAR(%d)", text[i], text[i])})
			continue
		}
		if i := mysqlwrites.MultibyteTrail(text); i >= 0 {
			out = append(out, Comment{Pos: sp[0] + i, Reason: fmt.Sprintf("%q right after a non-ASCII character: under a client character set whose multi-byte characters may end in an ASCII byte (gbk, big5, sjis, cp932, gb18030: a DSN's charset=, SET NAMES) the server reads it as part of that character, so the statement's quotes, names and comments end elsewhere than fencegen reads them; put a space or a letter between them", text[i])})
			continue
		}
		if query {
			if i, why := notGoText(text); i >= 0 {
				out = append(out, Comment{Pos: sp[0] + i, Reason: why})
				continue
			}
			if i := mysqlwrites.DroppedCR(text); i >= 0 {
				out = append(out, Comment{Pos: sp[0] + i, Reason: "carriage return inside a comment, a string, a quoted name or between two tokens that it alone keeps apart: generated code holds the query in a Go raw string, which drops every carriage return, so the server would read another statement than fencegen analyses (*<CR>/ would end a comment); remove it, or pass the value as a parameter"})
			}
		}
	}
	return out
}

// notGoText finds the first byte of a query that generated Go source
// cannot hold in the raw string it writes the query in: a byte that is
// not UTF-8 (gofmt and the compiler reject the file: "illegal UTF-8
// encoding") or a byte order mark, U+FEFF ("illegal byte order mark").
// i is its offset and why says so, or i is -1.
func notGoText(text string) (i int, why string) {
	for i, r := range text {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(text[i:], "\uFFFD"):
			return i, fmt.Sprintf("byte %#02x is not UTF-8: generated code holds the query in a Go string, which must be UTF-8 (Go rejects the file); write the value in hexadecimal (X'%02X'), or pass it as a parameter", text[i], text[i])
		case r == '\uFEFF':
			return i, "byte order mark (U+FEFF) inside the query: generated code holds the query in a Go raw string, where Go rejects it; remove it, or pass it as a parameter"
		}
	}
	return -1, ""
}

// sortComments sorts refusals by offset.
func sortComments(cs []Comment) {
	sort.SliceStable(cs, func(i, j int) bool { return cs[i].Pos < cs[j].Pos })
}

// ParseSchema is Parse for a schema file: besides what Parse reads, it
// accepts the stored programs that mysqlwrites.ReadSchema reads by hand
// and the TiDB parser does not (DELIMITER lines, Atlas's "-- atlas:delimiter"
// directive, CREATE and DROP of a TRIGGER, FUNCTION, PROCEDURE or EVENT,
// as fencegen guard writes them for every migration format). The file is
// then split by mysqlwrites.SplitStatements and such a statement, when the
// TiDB parser cannot read it either, is skipped rather than an error: it
// defines no table for the catalog, while the write analysis still reads
// it from the file's text. One the TiDB parser reads (a procedure sqlc
// models) is kept, as sqlc keeps it.
func ParseSchema(name string, src []byte) (*sqlparse.File, error) {
	var segs [][2]int
	var program map[int]bool
	for _, st := range mysqlwrites.SplitStatements(string(src)) {
		seg := [2]int{st.Pos, st.Pos + len(st.Text)}
		if mysqlwrites.IsProgram(st.Text) {
			if program == nil {
				program = map[int]bool{}
			}
			program[seg[0]] = true
		}
		segs = append(segs, seg)
	}
	spans, bad := scan(src)
	if program == nil {
		bad = append(bad, byteReasons(src, spans, false)...)
		sortComments(bad)
		return parse(name, src, spans, bad, nil)
	}
	bad = append(bad, byteReasons(src, segs, false)...)
	sortComments(bad)
	return parse(name, src, segs, bad, program)
}

// parse parses src whole, or segment by segment when that fails or src
// holds a refused executable comment (bad, from scan); a segment starting
// at an offset in skip that the TiDB parser cannot read is skipped without
// an error.
func parse(name string, src []byte, segs [][2]int, bad []Comment, skip map[int]bool) (*sqlparse.File, error) {
	if len(bad) == 0 {
		if f, ok := parseWhole(name, src); ok {
			return f, nil
		}
	}
	f := &sqlparse.File{Name: name, Src: src}
	var errs diag.List
	lead := 0
	for _, seg := range segs {
		if strings.TrimSpace(stripComments(string(src[seg[0]:seg[1]]))) == "" {
			lead = seg[1] + 1
			continue
		}
		refused := false
		for _, c := range bad {
			if c.Pos >= seg[0] && c.Pos < seg[1] {
				line, col := diag.Position(src, c.Pos)
				errs = append(errs, &diag.Error{File: name, Line: line, Col: col, Msg: c.Reason})
				refused = true
			}
		}
		if refused {
			lead = seg[1] + 1
			continue
		}
		// Parse the segment in place: everything before it blanked, so
		// that TiDB's offsets are file offsets.
		buf := make([]byte, seg[1])
		for i := range seg[0] {
			buf[i] = ' '
			if src[i] == '\n' {
				buf[i] = '\n'
			}
		}
		copy(buf[seg[0]:], src[seg[0]:seg[1]])
		stmts, _, err := parser.New().Parse(string(buf), "", "")
		if err != nil && skip[seg[0]] {
			lead = seg[1] + 1
			continue
		}
		if err != nil {
			errs = append(errs, syntaxError(name, src, seg[0], seg[1], err))
			lead = seg[1] + 1
			continue
		}
		for _, st := range stmts {
			start := skipSpaceAndComments(src, seg[0], seg[1])
			c := &converter{src: src, start: start, end: seg[1]}
			f.Stmts = append(f.Stmts, &sqlparse.Stmt{Start: start, End: seg[1], Lead: lead, SqlcStart: start, Node: c.stmt(st), MySQL: st, SqlcSkips: sqlcSkips(st)})
		}
		lead = seg[1] + 1
	}
	if len(errs) > 0 {
		return f, errs
	}
	return f, nil
}

// parseWhole parses src in one piece, as sqlc does (a procedure's body
// holds semicolons), each statement found in the file at or after the end
// of the previous one by its text; ok is false on a syntax error or when a
// statement's text cannot be found.
func parseWhole(name string, src []byte) (*sqlparse.File, bool) {
	stmts, _, err := parser.New().Parse(string(src), "", "")
	if err != nil {
		return nil, false
	}
	f := &sqlparse.File{Name: name, Src: src}
	cursor := 0
	for _, st := range stmts {
		text := st.Text()
		i := strings.Index(string(src[cursor:]), text)
		if i < 0 {
			return nil, false
		}
		lead := cursor
		from := cursor + i
		end := from + len(text)
		next := end
		if strings.HasSuffix(text, ";") {
			end--
		} else if k := skipSpaceAndComments(src, end, len(src)); k < len(src) && src[k] == ';' {
			next = k + 1
		}
		start := skipSpaceAndComments(src, from, end)
		c := &converter{src: src, start: start, end: end}
		// sqlc finds the statement's text from the file's start
		// (dolphin's Parse: strings.Index(blob, text)).
		sqlcStart := strings.Index(string(src), text)
		f.Stmts = append(f.Stmts, &sqlparse.Stmt{Start: start, End: end, Lead: lead, SqlcStart: sqlcStart, Node: c.stmt(st), MySQL: st, SqlcSkips: sqlcSkips(st)})
		cursor = next
	}
	return f, true
}

// sqlcSkips reports whether sqlc v1.31.1 drops st (Stmt.SqlcSkips): its
// MySQL converter models DDL on tables, views and databases, the DML
// statements, TRUNCATE, CALL and SHOW WARNINGS only.
func sqlcSkips(st ast.StmtNode) bool {
	switch st := st.(type) {
	case *ast.AlterTableStmt, *ast.CreateTableStmt, *ast.DeleteStmt, *ast.DropTableStmt, *ast.RenameTableStmt,
		*ast.InsertStmt, *ast.SelectStmt, *ast.UpdateStmt, *ast.CreateDatabaseStmt, *ast.CreateViewStmt,
		*ast.DropDatabaseStmt, *ast.SetOprStmt, *ast.TruncateTableStmt, *ast.CallStmt, *ast.ProcedureInfo:
		return false
	case *ast.ShowStmt:
		return st.Tp != ast.ShowWarnings
	}
	return true
}

var lineColumn = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^line (\d+) column (\d+) (.*)`) })

// rowAlias is TiDB's "near" text at an upsert's row alias (INSERT ...
// VALUES (...) AS new [(a, b)] ON DUPLICATE KEY UPDATE), MySQL 8.0.19+
// syntax.
var rowAlias = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("(?is)^near \"AS\\s+(?:`[^`]+`|\\w+)\\s*(?:\\([^)]*\\)\\s*)?ON\\s+DUPLICATE\\s+KEY\\s+UPDATE")
})

// rowAliasHint follows the syntax error of an upsert's row alias.
const rowAliasHint = "; the row alias of an upsert (VALUES (...) AS new ... ON DUPLICATE KEY UPDATE c = new.c) is MySQL 8.0.19+ syntax that MariaDB and the TiDB parser sqlc uses do not read: write c = VALUES(c), which MySQL and MariaDB both run (MySQL 8 deprecates it with a warning only)"

// syntaxError locates TiDB's error ("line L column C near ..."), which
// counts lines from the buffer's start (the file's), for the statement
// src[segStart:segEnd] (without its ';'). TiDB's `near ""` is the
// statement's end: it says so, after the statement's last token (trial
// tnew F7), where sqlc v1.31.1 says `near ";"`.
func syntaxError(name string, src []byte, segStart, segEnd int, err error) *diag.Error {
	msg := strings.SplitN(err.Error(), "\n", 2)[0]
	line, col := diag.Position(src, skipSpaceAndComments(src, segStart, len(src)))
	if m := lineColumn().FindStringSubmatch(msg); m != nil {
		l, _ := strconv.Atoi(m[1])
		c, _ := strconv.Atoi(m[2])
		if l > 0 {
			line, col = l, c
			if col <= 0 {
				col = 1
			}
			msg = "syntax error " + m[3]
			if strings.TrimSpace(m[3]) == `near ""` {
				msg = "syntax error at end of statement"
				// At its ';' (or the file's end), which TiDB's column
				// on a file's first line misses by one.
				line, col = diag.Position(src, segEnd)
				if tok := lastToken(src, segStart, segEnd); tok != "" {
					msg += fmt.Sprintf(": unexpected end after %q", tok)
				}
			}
			if rowAlias().MatchString(m[3]) {
				msg = strings.TrimSpace(msg) + rowAliasHint
			}
		}
	}
	msg = strings.TrimSpace(msg)
	return &diag.Error{File: name, Line: line, Col: col, Msg: msg}
}

// lastToken is the last token of src[from:to], a statement, outside its
// comments: a quoted string or name, a word, or one other character
// ("" when there is none). A token longer than 40 bytes is cut with "...".
func lastToken(src []byte, from, to int) string {
	last := ""
	for i := skipSpaceAndComments(src, from, to); i < to; i = skipSpaceAndComments(src, i, to) {
		j := i + 1
		switch c := src[i]; {
		case c == '\'' || c == '"' || c == '`':
			for j < to && src[j] != c {
				if src[j] == '\\' && c != '`' {
					j++
				}
				j++
			}
			j = min(j+1, to)
		case c == '_' || c == '$' || c == '@' || c >= '0' && c <= '9' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= 0x80:
			for j < to && (src[j] == '_' || src[j] == '$' || src[j] == '.' || src[j] >= '0' && src[j] <= '9' || src[j] >= 'A' && src[j] <= 'Z' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 0x80) {
				j++
			}
		}
		last = string(src[i:j])
		i = j
	}
	if len(last) > 40 {
		n := 37
		for !utf8.RuneStart(last[n]) {
			n--
		}
		last = last[:n] + "..."
	}
	return last
}

// skipSpaceAndComments returns the offset of the first byte of src[from:to]
// that is neither blank nor inside a comment.
func skipSpaceAndComments(src []byte, from, to int) int {
	i := from
	for i < to {
		switch {
		case src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r':
			i++
		case src[i] == '#' || (src[i] == '-' && i+1 < to && src[i+1] == '-'):
			for i < to && src[i] != '\n' {
				i++
			}
		case src[i] == '/' && i+1 < to && src[i+1] == '*' && !(i+2 < to && src[i+2] == '!'):
			j := i + 2
			for j+1 < to && !(src[j] == '*' && src[j+1] == '/') {
				j++
			}
			i = j + 2
		default:
			return i
		}
	}
	return min(i, to)
}

func stripComments(s string) string {
	b := []byte(s)
	i := skipSpaceAndComments(b, 0, len(b))
	return s[i:]
}

// QuoteIdent returns s as a MySQL identifier in a generated statement, as
// sqlc writes an expanded star's columns: `s` for a word in sqlc's
// reserved list or the TiDB parser's (quoted), s otherwise.
func QuoteIdent(s string) string {
	if quoted()[strings.ToLower(s)] {
		return "`" + s + "`"
	}
	return s
}

// Comment is an executable comment that fencegen refuses: its byte
// offset in the file and why.
type Comment struct {
	Pos    int
	Reason string
}

// scan reads src once for the semicolons and the comments outside quotes
// and comments (MySQL's comment forms: -- followed by a blank, #, /* */).
// spans are the [start, end) spans of src's statements: src cut at those
// semicolons, the semicolon excluded (a DELIMITER line is not understood;
// sqlc does not read it either). bad are the executable comments that the
// TiDB parser does not read as the servers run them, in file order.
// MariaDB runs /*M! ... */ and /*M!NNNNNN ... */, which MySQL and the TiDB
// parser skip as plain comments; /*!NNNNN ... */ runs on a server whose
// version number is at least NNNNN (MariaDB 10.11 is 101100, and treats
// MySQL's 5.7 and later numbers by its own rules), while the TiDB parser
// reads every version's text, so only /*! without a version, or with a
// five-digit one below 50700 (run by MySQL 5.7 and later and by every
// MariaDB), is read as the servers read it. Optimizer hints (/*+ ... */)
// are not executable comments: the parser reads them where the servers
// do, and they write nothing.
func scan(src []byte) (spans [][2]int, bad []Comment) {
	start := 0
	for i := 0; i < len(src); i++ {
		switch c := src[i]; {
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for j < len(src) {
				if src[j] == '\\' && c != '`' {
					j += 2
					continue
				}
				if src[j] == c {
					if j+1 < len(src) && src[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			i = j
		case c == '#' || (c == '-' && i+1 < len(src) && src[i+1] == '-' && (i+2 == len(src) || src[i+2] == ' ' || src[i+2] == '\t' || src[i+2] == '\n' || src[i+2] == '\r')):
			for i < len(src) && src[i] != '\n' {
				i++
			}
		case c == '/' && i+1 < len(src) && src[i+1] == '*':
			if r := executableReason(src[i:]); r != "" {
				bad = append(bad, Comment{Pos: i, Reason: r})
			}
			j := i + 2
			for j+1 < len(src) && !(src[j] == '*' && src[j+1] == '/') {
				j++
			}
			i = j + 1
		case c == ';':
			spans = append(spans, [2]int{start, i})
			start = i + 1
		}
	}
	if start < len(src) {
		spans = append(spans, [2]int{start, len(src)})
	}
	return spans, bad
}

// sandboxLine is the first line of a mariadb-dump file (MariaDB 10.11.8
// and later): the mariadb client reads \- as its sandbox command, and the
// server, whose version number never reaches 999999, skips the comment, so
// it writes nothing and is accepted.
const sandboxLine = "/*M!999999\\- enable the sandbox mode */"

// executableReason is why the comment opening s is refused, or "".
func executableReason(s []byte) string {
	switch {
	case bytes.HasPrefix(s, []byte(sandboxLine)):
		return ""
	case len(s) >= 4 && s[2] == 'M' && s[3] == '!':
		// Upper-case M only: MariaDB reads /*m! as a plain comment.
		j := 4
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		return "executable comment /*M!" + string(s[4:j]) + " ... */: MariaDB runs its text as part of the statement, while the TiDB parser fencegen reads MySQL with skips it as a comment, so fencegen cannot see what it writes; write its text outside the comment"
	case len(s) >= 3 && s[2] == '!':
		j := 3
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
		if j == 3 {
			return ""
		}
		v, err := strconv.Atoi(string(s[3:j]))
		if err == nil && j-3 == 5 && v < 50700 {
			return ""
		}
		return "executable comment /*!" + string(s[3:j]) + " ... */: whether it runs depends on the server (MySQL runs it from version " + string(s[3:j]) + ", MariaDB by its own version numbers, 10.11 being 101100), while the TiDB parser fencegen reads MySQL with always reads it, so fencegen cannot see what the statement writes; write its text outside the comment, or drop it"
	}
	return ""
}
