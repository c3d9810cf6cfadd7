package mysqlguard

// The guarded statement is the user's own text with the guard spliced in
// at the offsets of the TiDB parser's nodes and of the tokens around them
// (the clause keywords, the parentheses of a VALUES row), so that what
// the user wrote reaches the server byte for byte, as sqlc sends it. A
// splice is kept only when the spliced text parses to the tree the
// rewrite built from the parsed statement (the same restored text, each
// parameter the same one): otherwise the write is refused.

import (
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
)

// token is one token of a statement's text: start and end are byte
// offsets, depth the number of parentheses open before it (a closing
// parenthesis has its opening one's), word a word's text in upper case.
type token struct {
	start, end, depth int
	kind              byte // 'w' word, 's' string, 'q' quoted name, '?', '(', ')', ',', ';', 'o' other
	word              string
}

// lex splits a MySQL statement into tokens as the server reads it in the
// default sql_mode, skipping white space and comments. It refuses an
// executable comment (/*! or /*M!), whose text the parser and the server
// may read as code, and text it cannot split (an open string or comment).
func lex(sql string) ([]token, error) {
	var toks []token
	depth := 0
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
			i++
			continue
		case c == '#' || c == '-' && strings.HasPrefix(sql[i:], "--") && (i+2 == len(sql) || sql[i+2] <= ' '):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				j = len(sql) - i
			}
			i += j
			continue
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			if strings.HasPrefix(sql[i:], "/*!") || strings.HasPrefix(sql[i:], "/*M!") {
				return nil, fmt.Errorf("an executable comment (/*! ... */) is read as code by the server")
			}
			j := strings.Index(sql[i+2:], "*/")
			if j < 0 {
				return nil, fmt.Errorf("a comment is not closed")
			}
			i += j + 4
			continue
		}
		t := token{start: i, depth: depth}
		switch {
		case c == '\'' || c == '"' || c == '`':
			j := i + 1
			for {
				if j >= len(sql) {
					return nil, fmt.Errorf("a quoted text is not closed")
				}
				if sql[j] == '\\' && c != '`' {
					j += 2
					continue
				}
				if sql[j] == c {
					if j+1 < len(sql) && sql[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			t.end, t.kind = j+1, 's'
			if c == '`' {
				t.kind = 'q'
			}
		case isWordByte(c):
			j := i
			for j < len(sql) && isWordByte(sql[j]) {
				j++
			}
			t.end, t.kind, t.word = j, 'w', strings.ToUpper(sql[i:j])
		case c == '(':
			t.end, t.kind = i+1, '('
			depth++
		case c == ')':
			depth--
			t.end, t.kind, t.depth = i+1, ')', depth
		case c == ',' || c == '?' || c == ';':
			t.end, t.kind = i+1, c
		default:
			t.end, t.kind = i+1, 'o'
		}
		toks = append(toks, t)
		i = t.end
	}
	return toks, nil
}

func isWordByte(c byte) bool {
	return c == '_' || c == '$' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// part is a piece of a spliced text: the user's text sql[from:to] (user),
// a name of the guard's (name, written bare or quoted), or text of the
// guard's own.
type part struct {
	text       string
	from, to   int
	user, name bool
}

// edit replaces the user's text sql[start:end] (an insertion when equal).
type edit struct {
	start, end int
	parts      []part
}

// splicer builds the guarded text from the user's (sql, tokens toks).
type splicer struct {
	sql   string
	toks  []token
	edits []edit
	// end is the end of the statement's last token (a final `;` left out).
	end int
	err error
	p   *parser.Parser
	// numbers maps the offset of each of the statement's parameters to
	// its number as numberParams writes it; tokenNum is the token's.
	numbers  map[int]string
	tokenNum string
}

func newSplicer(sql string) (*splicer, error) {
	toks, err := lex(sql)
	if err != nil {
		return nil, err
	}
	for len(toks) > 0 && toks[len(toks)-1].kind == ';' {
		toks = toks[:len(toks)-1]
	}
	s := &splicer{sql: sql, toks: toks}
	if len(toks) > 0 {
		s.end = toks[len(toks)-1].end
	}
	return s, nil
}

var bareName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`) })

// tmpl is text of the guard's own with each {c} the name col.
func tmpl(text, col string) []part {
	var out []part
	for i, piece := range strings.Split(text, "{c}") {
		if i > 0 {
			out = append(out, part{text: col, name: true})
		}
		if piece != "" {
			out = append(out, lit(piece))
		}
	}
	return out
}

func (s *splicer) user(from, to int) part { return part{from: from, to: to, user: true} }
func lit(text string) part                { return part{text: text} }

func (s *splicer) fail(format string, args ...any) {
	if s.err == nil {
		s.err = fmt.Errorf(format, args...)
	}
}

func (s *splicer) insert(at int, parts ...part) { s.replace(at, at, parts...) }

func (s *splicer) replace(start, end int, parts ...part) {
	if start < 0 || end < start || end > len(s.sql) {
		s.fail("an edit at %d..%d is outside the statement", start, end)
		return
	}
	s.edits = append(s.edits, edit{start: start, end: end, parts: parts})
}

// at returns the index of the token that starts at off, or -1.
func (s *splicer) at(off int) int {
	i := sort.Search(len(s.toks), func(i int) bool { return s.toks[i].start >= off })
	if i < len(s.toks) && s.toks[i].start == off {
		return i
	}
	return -1
}

// clause returns the index of the first token from index i on at depth
// d that is one of the words, or len(toks).
func (s *splicer) clause(i, d int, words ...string) int {
	for ; i < len(s.toks); i++ {
		t := s.toks[i]
		if t.depth < d {
			return len(s.toks)
		}
		if t.depth == d && t.kind == 'w' {
			for _, w := range words {
				if t.word == w {
					return i
				}
			}
		}
	}
	return len(s.toks)
}

// endBefore is the end of the token before index i (the end of the
// statement for i = len(toks)).
func (s *splicer) endBefore(i int) int {
	if i <= 0 {
		s.fail("no token before the splice point")
		return 0
	}
	return s.toks[i-1].end
}

// span is the text of expression e up to the first token at e's depth
// that is one of the words (or a comma, with comma set), as start, end
// and the index of that token.
func (s *splicer) span(e ast.ExprNode, comma bool, words ...string) (start, end, next int) {
	start = e.OriginTextPosition()
	i := s.at(start)
	if i < 0 {
		s.fail("no token starts the expression at %d", start)
		return 0, 0, len(s.toks)
	}
	d := s.toks[i].depth
	j := i + 1
	for ; j < len(s.toks); j++ {
		t := s.toks[j]
		if t.depth < d || t.depth == d && (comma && t.kind == ',' || t.kind == 'w' && contains(words, t.word)) {
			break
		}
	}
	return start, s.endBefore(j), j
}

func contains(list []string, w string) bool {
	for _, x := range list {
		if x == w {
			return true
		}
	}
	return false
}

// parenthesised is the user's text of e (start..end) as paren(e) writes
// it: in parentheses unless e is a parenthesised expression already.
func (s *splicer) parenthesised(e ast.ExprNode, start, end int) []part {
	if _, ok := e.(*ast.ParenthesesExpr); ok {
		return []part{s.user(start, end)}
	}
	return []part{lit("("), s.user(start, end), lit(")")}
}

// text assembles the spliced statement and, for each `?` in it in order,
// its number (numbers maps a user parameter's offset to it; the guard's
// own `?` is the token, tokenNum), after checking that it parses to want,
// the restored tree of the guarded statement.
// With bare, the guard's names that need no quotes are written without.
func (s *splicer) text(want string, bare bool) (string, []int, error) {
	if s.err != nil {
		return "", nil, s.err
	}
	sort.SliceStable(s.edits, func(i, j int) bool { return s.edits[i].start < s.edits[j].start })
	var parts []part
	pos := 0
	for _, e := range s.edits {
		if e.start < pos {
			return "", nil, fmt.Errorf("two edits overlap at %d", e.start)
		}
		parts = append(parts, s.user(pos, e.start))
		parts = append(parts, e.parts...)
		pos = e.end
	}
	parts = append(parts, s.user(pos, len(s.sql)))
	return s.checked(parts, want, bare)
}

// checked writes parts as one statement and returns it with the number
// of each of its `?` in order, when it parses to want (see text).
func (s *splicer) checked(parts []part, want string, bare bool) (string, []int, error) {
	p, numbers, tokenNum := s.p, s.numbers, s.tokenNum
	var b strings.Builder
	// segs map an offset of the spliced text to the user's offset it
	// copies, for the user's parts.
	type seg struct{ at, from, to int }
	var segs []seg
	for _, pt := range parts {
		if pt.user {
			segs = append(segs, seg{b.Len(), pt.from, pt.to})
			b.WriteString(s.sql[pt.from:pt.to])
			continue
		}
		if pt.name && !(bare && bareName().MatchString(pt.text)) {
			b.WriteString(quote(pt.text))
			continue
		}
		b.WriteString(pt.text)
	}
	text := b.String()
	stmt, err := p.ParseOneStmt(text, "", "")
	if err != nil {
		return "", nil, fmt.Errorf("the spliced text does not parse: %v", err)
	}
	c := &markerCollector{}
	stmt.Accept(c)
	sort.Ints(c.offsets)
	num := map[int]string{}
	var params []int
	for _, off := range c.offsets {
		n := tokenNum
		for _, sg := range segs {
			if off >= sg.at && off < sg.at+sg.to-sg.from {
				var ok bool
				if n, ok = numbers[sg.from+off-sg.at]; !ok {
					return "", nil, fmt.Errorf("a parameter of the spliced text is none of the statement's")
				}
				break
			}
		}
		num[off] = n
		k, err := strconv.Atoi(strings.SplitN(n, "_", 2)[0])
		if err != nil {
			return "", nil, err
		}
		params = append(params, k)
	}
	stmt.Accept(&markerReplacer{num: num})
	got, err := restoreRaw(stmt)
	if err != nil {
		return "", nil, err
	}
	if got != want {
		return "", nil, fmt.Errorf("the spliced text reads as %q, not as the guarded statement %q", got, want)
	}
	return text, params, nil
}

// hole is a part of the user's statement that a read of the guard
// copies: its text start..end and its node (numbered as numberParams
// numbers it), in parentheses when paren is set (as paren(node)).
type hole struct {
	node       ast.ExprNode
	start, end int
	paren      bool
}

const holeVar = "fencegen_h_"

// read builds one of the guard's reads from scaffold, SQL text of the
// guard's own in which @fencegen_h_<i> stands for hole i and each `?` for
// the presented token, with the user's text of each hole: the read and
// its parameters, when its text parses to the scaffold's tree with each
// hole's node in its place; else an error.
func (s *splicer) read(scaffold string, holes []hole) (string, []int, error) {
	if s.err != nil {
		return "", nil, s.err
	}
	p, tokenNum := s.p, s.tokenNum
	tree, err := p.ParseOneStmt(scaffold, "", "")
	if err != nil {
		return "", nil, fmt.Errorf("the guard's read %q does not parse: %v", scaffold, err)
	}
	c := &markerCollector{}
	tree.Accept(c)
	num := map[int]string{}
	for _, off := range c.offsets {
		num[off] = tokenNum
	}
	tree.Accept(&markerReplacer{num: num})
	tree.Accept(&holeFiller{holes: holes})
	want, err := restoreRaw(tree)
	if err != nil {
		return "", nil, err
	}
	var parts []part
	rest := scaffold
	for {
		i := strings.Index(rest, "@"+holeVar)
		if i < 0 {
			break
		}
		parts = append(parts, lit(rest[:i]))
		rest = rest[i+len("@"+holeVar):]
		j := 0
		for j < len(rest) && rest[j] >= '0' && rest[j] <= '9' {
			j++
		}
		k, err := strconv.Atoi(rest[:j])
		if err != nil || k >= len(holes) {
			return "", nil, fmt.Errorf("the guard's read names no hole %q", rest[:j])
		}
		h := holes[k]
		if h.paren {
			parts = append(parts, s.parenthesised(h.node, h.start, h.end)...)
		} else {
			parts = append(parts, s.user(h.start, h.end))
		}
		rest = rest[j:]
	}
	parts = append(parts, lit(rest))
	return s.checked(parts, want, false)
}

// holeFiller puts each hole's node where the scaffold names it.
type holeFiller struct{ holes []hole }

func (h *holeFiller) Enter(n ast.Node) (ast.Node, bool) { return n, false }
func (h *holeFiller) Leave(n ast.Node) (ast.Node, bool) {
	if v, ok := n.(*ast.VariableExpr); ok && strings.HasPrefix(v.Name, holeVar) {
		if k, err := strconv.Atoi(strings.TrimPrefix(v.Name, holeVar)); err == nil && k < len(h.holes) {
			if h.holes[k].paren {
				return paren(h.holes[k].node), true
			}
			return h.holes[k].node, true
		}
	}
	return n, true
}

// restoreRaw is n written back by the TiDB parser, its parameters the
// variables numberParams made of them.
func restoreRaw(n ast.Node) (string, error) {
	var b strings.Builder
	if err := n.Restore(format.NewRestoreCtx(format.DefaultRestoreFlags, &b)); err != nil {
		return "", err
	}
	return b.String(), nil
}

// setToken adds the token assignment after an UPDATE's SET list:
// ", tok=LAST_INSERT_ID(?)" (declared for mode required).
func (s *splicer) setToken(u *ast.UpdateStmt, spec Spec) {
	if len(u.List) == 0 {
		s.fail("the UPDATE assigns nothing")
		return
	}
	_, end, _ := s.span(u.List[len(u.List)-1].Expr, false, "WHERE", "ORDER", "LIMIT")
	s.insert(end, append(append([]part{lit(", ")}, tmpl("{c}", spec.Column)...), lit("=LAST_INSERT_ID("+declared("?", spec)+")"))...)
}

// whereSpan is the user's text of a WHERE clause's expression: up to
// ORDER BY or LIMIT, or the statement's end.
func (s *splicer) whereSpan(where ast.ExprNode) (start, end int) {
	start, end, _ = s.span(where, false, "ORDER", "LIMIT")
	return start, end
}

// guardWhere replaces an UPDATE's or DELETE's WHERE expression w with
// "(w) AND <guard>", or with "(w) AND CASE WHEN (w) THEN <guard> ELSE
// FALSE END" when inCase (guard as tmpl reads it).
func (s *splicer) guardWhere(where ast.ExprNode, guard string, spec Spec, inCase bool) {
	if where == nil {
		s.fail("the write has no WHERE clause")
		return
	}
	start, end := s.whereSpan(where)
	w := s.parenthesised(where, start, end)
	out := append(append([]part{}, w...), lit(" AND "))
	if inCase {
		out = append(append(append(out, lit("CASE WHEN ")), w...), lit(" THEN "))
	}
	out = append(out, tmpl(guard, spec.Column)...)
	if inCase {
		out = append(out, lit(" ELSE FALSE END"))
	}
	s.replace(start, end, out...)
}

// allWhere is the splice of allWhere: the WHERE clause of a write of
// several rows, or, without one, " WHERE <staleGuard>" before its ORDER
// BY or LIMIT (or at its end).
func (s *splicer) allWhere(where ast.ExprNode, spec Spec, del bool) {
	presented := "?"
	if del {
		presented = deleteDeclared(presented, spec) // a DELETE's, declared
	}
	guard := staleGuard("{c}", presented, spec)
	if where != nil {
		s.guardWhere(where, guard, spec, true)
		return
	}
	i := s.clause(0, 0, "ORDER", "LIMIT")
	s.insert(s.endBefore(i), append([]part{lit(" WHERE ")}, tmpl(guard, spec.Column)...)...)
}

// insertToken adds the token column to an INSERT's column list and a `?`
// to each of its VALUES rows.
func (s *splicer) insertToken(in *ast.InsertStmt, spec Spec) {
	open := -1
	for i, t := range s.toks {
		if t.kind == '(' && t.depth == 0 {
			open = i
			break
		}
	}
	closing := s.closing(open)
	if closing < 0 {
		s.fail("no column list")
		return
	}
	s.insert(s.endBefore(closing), append([]part{lit(", ")}, tmpl("{c}", spec.Column)...)...)
	i := s.clause(closing+1, 0, "VALUES", "VALUE") + 1
	rows := 0
	for i < len(s.toks) && s.toks[i].kind == '(' {
		c := s.closing(i)
		if c < 0 {
			return
		}
		s.insert(s.endBefore(c), lit(", ?"))
		rows++
		i = c + 1
		if i >= len(s.toks) || s.toks[i].kind != ',' {
			break
		}
		i++
	}
	if rows != len(in.Lists) {
		s.fail("%d VALUES rows found in the text, %d in the statement", rows, len(in.Lists))
	}
}

// closing is the index of the parenthesis that closes the one at index
// i, or -1.
func (s *splicer) closing(i int) int {
	if i < 0 || i >= len(s.toks) || s.toks[i].kind != '(' {
		s.fail("no parenthesis where one opens")
		return -1
	}
	for j := i + 1; j < len(s.toks); j++ {
		if s.toks[j].kind == ')' && s.toks[j].depth == s.toks[i].depth {
			return j
		}
	}
	s.fail("a parenthesis is not closed")
	return -1
}

// upsert guards an upsert's ON DUPLICATE KEY UPDATE assignments c = e as
// c = IF(tok <= VALUES(tok), e, c), and adds the token's assignment last.
func (s *splicer) upsert(in *ast.InsertStmt, spec Spec) {
	cond := "IF({c} " + spec.op() + " VALUES({c}), "
	end := 0
	for _, a := range in.OnDuplicate {
		var start int
		start, end, _ = s.span(a.Expr, true)
		value := []part{s.user(start, end)}
		if bareDefault(a.Expr) {
			value = []part{lit("DEFAULT("), {text: a.Column.Name.O, name: true}, lit(")")}
		}
		out := append(append(tmpl(cond, spec.Column), value...), lit(", "), part{text: a.Column.Name.O, name: true}, lit(")"))
		s.replace(start, end, out...)
	}
	last := ", {c}=" + cond + upsertToken("{c}", spec) + ", (SELECT {c} UNION ALL SELECT {c}))"
	s.insert(end, tmpl(last, spec.Column)...)
}
