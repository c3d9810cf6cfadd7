package mysqlwrites

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
)

// sqlModes are the sql_mode settings that change how MySQL and MariaDB
// read a statement's text, which fencegen cannot see (a DSN's sql_mode
// parameter, SET SESSION sql_mode, the server's default; for a stored
// program, the mode of the session that created it, which the server
// stores with it): under NO_BACKSLASH_ESCAPES a backslash inside a string
// is a plain character ('a\' is a whole string), under ANSI_QUOTES "x" is
// an identifier, not a string, under PIPES_AS_CONCAT || joins strings
// instead of being OR (another tree, same tokens), under
// HIGH_NOT_PRECEDENCE NOT binds as tightly as ! (NOT a BETWEEN b AND c is
// (NOT a) BETWEEN b AND c: other rows written), under IGNORE_SPACE a
// built-in function's name followed by a space and ( is the built-in
// (in the default mode, a stored function of that name) and every
// built-in's name a reserved word.
var sqlModes = []struct {
	name, what, fix string
	mode            mysql.SQLMode
}{
	{"NO_BACKSLASH_ESCAPES", "a backslash inside a string is a plain character", "a quote inside a string as two ('it''s'), no backslash", mysql.ModeNoBackslashEscapes},
	{"ANSI_QUOTES", "double-quoted text is a name, with no backslash escapes", "strings in single quotes and names in backquotes", mysql.ModeANSIQuotes},
	{"PIPES_AS_CONCAT", "|| joins strings instead of being OR", "OR for a logical or and CONCAT() to join strings, not ||", mysql.ModePipesAsConcat},
	{"HIGH_NOT_PRECEDENCE", "NOT binds as tightly as ! (NOT a BETWEEN b AND c is (NOT a) BETWEEN b AND c)", "parentheses around what NOT negates (NOT (a BETWEEN b AND c))", mysql.ModeHighNotPrecedence},
	{"IGNORE_SPACE", "a built-in function's name followed by a space and ( is the built-in, not a stored function", "no space between a function's name and (", mysql.ModeIgnoreSpace},
}

// treeModes are the sqlModes that lex a text as the default mode does and
// may only build another tree of its tokens (HIGH_NOT_PRECEDENCE,
// IGNORE_SPACE): a fenced write whose tree is the same under them is the
// same statement, guard included (the guard adds its conditions in
// parentheses).
const treeModes = mysql.ModeHighNotPrecedence | mysql.ModeIgnoreSpace

// spaceParen finds whitespace before (, which IGNORE_SPACE skips (and
// only whitespace: MySQL's lexer skips no comment there).
var spaceParen = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s\(`) })

// ignoreSpaceNames are the built-in functions whose name followed by
// whitespace and ( IGNORE_SPACE reads as the built-in and the default
// mode as a stored function of that name (MySQL's list, "Function Name
// Parsing and Resolution", and TiDB's parser's).
var ignoreSpaceNames = map[string]bool{
	"ADDDATE": true, "APPROX_COUNT_DISTINCT": true, "APPROX_PERCENTILE": true, "BIT_AND": true, "BIT_OR": true, "BIT_XOR": true,
	"CAST": true, "COUNT": true, "CURDATE": true, "CURTIME": true, "DATE_ADD": true, "DATE_SUB": true, "EXTRACT": true,
	"GROUP_CONCAT": true, "MAX": true, "MID": true, "MIN": true, "NOW": true, "POSITION": true, "SESSION_USER": true,
	"STD": true, "STDDEV": true, "STDDEV_POP": true, "STDDEV_SAMP": true, "SUBDATE": true, "SUBSTR": true,
	"SUBSTRING": true, "SUM": true, "SYSDATE": true, "SYSTEM_USER": true, "TRANSLATE": true, "TRIM": true,
	"VARIANCE": true, "VAR_POP": true, "VAR_SAMP": true,
}

// modeReading is one reading of a text under a combination of sqlModes.
type modeReading struct {
	name, what, fix string
	mode            mysql.SQLMode
	// at is the offset of the first token the combination reads
	// otherwise.
	at int
}

// modeReadings returns the combinations of sqlModes under which text may
// read otherwise than in the default mode, each with the first token it
// reads otherwise: every non-empty combination of the modes whose tokens
// text holds (a backslash inside a string, a double-quoted token, ||),
// or none.
func modeReadings(text string) []modeReading {
	at := [5]int{-1, -1, -1, -1, -1} // the first token of each of sqlModes
	if !strings.ContainsAny(text, "\\\"|") && !strings.Contains(strings.ToUpper(text), "NOT") && !spaceParen().MatchString(text) {
		return nil // nothing any mode reads otherwise
	}
	toks := lex(text)
	for i, t := range toks {
		switch t.kind {
		case tokString:
			if at[0] < 0 && strings.Contains(t.text, `\`) {
				at[0] = t.pos
			}
			if at[1] < 0 && t.text[0] == '"' {
				at[1] = t.pos
			}
		case tokPunct:
			if at[2] < 0 && t.text == "|" && i+1 < len(toks) && toks[i+1].kind == tokPunct && toks[i+1].text == "|" && toks[i+1].pos == t.end {
				at[2] = t.pos
			}
		case tokWord:
			if t.quoted {
				break
			}
			w := strings.ToUpper(t.text)
			if at[3] < 0 && w == "NOT" {
				at[3] = t.pos
			}
			// A built-in's name, not qualified, then a gap before (:
			// whitespace (IGNORE_SPACE skips it) or a comment (the
			// reading errs towards another parse).
			if at[4] < 0 && ignoreSpaceNames[w] && i+1 < len(toks) && toks[i+1].kind == tokPunct && toks[i+1].text == "(" && toks[i+1].pos > t.end &&
				(i == 0 || toks[i-1].kind != tokPunct || toks[i-1].text != ".") {
				at[4] = t.pos
			}
		}
	}
	var out []modeReading
	for set := 1; set < 1<<len(sqlModes); set++ {
		m := modeReading{at: -1}
		var names, whats, fixes []string
		for k, sm := range sqlModes {
			if set&(1<<k) == 0 {
				continue
			}
			if at[k] < 0 {
				m.at = -2 // a mode whose tokens text does not hold
				break
			}
			if m.at == -1 || at[k] < m.at {
				m.at = at[k]
			}
			m.mode |= sm.mode
			names, whats, fixes = append(names, sm.name), append(whats, sm.what), append(fixes, sm.fix)
		}
		if m.at < 0 {
			continue
		}
		m.name, m.what, m.fix = strings.Join(names, ","), strings.Join(whats, "; "), strings.Join(fixes, ", ")
		out = append(out, m)
	}
	return out
}

// checkModes refuses a statement of a schema with a fenced table whose
// text reads differently under a lexing sql_mode (lexModes) unless the
// write analysis of every reading finds no write of a fenced table and
// the same refusals: the statement is parsed again under each mode its
// tokens depend on and analysed again. A statement that writes a fenced
// table is refused when its text depends on the mode at all: the guard
// rewrites the text of the default reading, and under the other the
// comparison it adds may fall inside a string or a comment. Statements
// without such tokens are not parsed again.
func checkModes(r *Report, text string, base int, sc *Schema) {
	if len(sc.Fenced) == 0 {
		return
	}
	readings := modeReadings(text)
	if len(readings) == 0 {
		return
	}
	fenced := signature(r, sc)
	for _, m := range readings {
		loc := base + m.at
		refuse := func(why string) {
			r.Refusals = append(r.Refusals, Refusal{Kind: "sql_mode", Loc: loc,
				Reason: "reads differently under sql_mode " + m.name + " (a session setting fencegen cannot see, where " + m.what +
					") and " + why + "; write " + m.fix})
		}
		fencedWrite := len(r.FencedWrites(sc)) > 0
		if fencedWrite && m.mode&^treeModes != 0 {
			refuse("writes a fenced table, whose guard would be read differently too")
			return
		}
		p := parser.New()
		p.SetSQLMode(m.mode)
		stmts, _, err := p.Parse(text, "", "")
		if err != nil || len(stmts) != 1 {
			refuse("then does not parse as one statement fencegen can analyse for writes")
			return
		}
		if fencedWrite {
			// Same tokens: the same tree is the same statement.
			def, _, err := parser.New().Parse(text, "", "")
			if err != nil || len(def) != 1 || treeShape(def[0]) != treeShape(stmts[0]) {
				refuse("writes a fenced table, which it then writes otherwise (other rows or values)")
				return
			}
			continue
		}
		if got := signature(of(stmts[0], base, sc), sc); got != fenced {
			refuse("then " + got)
			return
		}
	}
}

// treeShape spells the shape of n's tree: each node's type, and an
// operator's operator, in the order a walk enters and leaves them.
func treeShape(n ast.Node) string {
	n.Accept(notExists{})
	v := &shapeVisitor{}
	n.Accept(v)
	return v.b.String()
}

// notExists rewrites NOT applied to EXISTS (...), HIGH_NOT_PRECEDENCE's
// tree of NOT EXISTS (...), into the default mode's: one EXISTS node
// with Not set (the same negation of the same subquery).
type notExists struct{}

func (notExists) Enter(n ast.Node) (ast.Node, bool) { return n, false }

func (notExists) Leave(n ast.Node) (ast.Node, bool) {
	if u, ok := n.(*ast.UnaryOperationExpr); ok && (u.Op == opcode.Not || u.Op == opcode.Not2) {
		if e, ok := u.V.(*ast.ExistsSubqueryExpr); ok && !e.Not {
			e.Not = true
			return e, true
		}
	}
	return n, true
}

type shapeVisitor struct{ b strings.Builder }

func (v *shapeVisitor) Enter(n ast.Node) (ast.Node, bool) {
	fmt.Fprintf(&v.b, "(%T", n)
	switch x := n.(type) {
	case *ast.UnaryOperationExpr:
		op := x.Op
		if op == opcode.Not2 {
			// HIGH_NOT_PRECEDENCE's NOT is !: the same negation,
			// bound tighter (which the tree's shape shows).
			op = opcode.Not
		}
		fmt.Fprintf(&v.b, " %v", op)
	case *ast.BinaryOperationExpr:
		fmt.Fprintf(&v.b, " %v", x.Op)
	case *ast.FuncCallExpr:
		fmt.Fprintf(&v.b, " %s", x.FnName.L)
	case *ast.ExistsSubqueryExpr:
		fmt.Fprintf(&v.b, " not=%v", x.Not)
	case *ast.AggregateFuncExpr:
		fmt.Fprintf(&v.b, " %s", x.F)
	}
	return n, false
}

func (v *shapeVisitor) Leave(n ast.Node) (ast.Node, bool) {
	v.b.WriteString(")")
	return n, true
}

// signature says what of r matters to the guard: its writes of fenced
// tables and its refusals, without their offsets.
func signature(r *Report, sc *Schema) string {
	var parts []string
	for _, w := range r.FencedWrites(sc) {
		s := w.Verb + " " + w.Table
		if w.Via != "" {
			s += " via " + w.Via
		}
		parts = append(parts, "writes fenced table "+s)
	}
	for _, f := range r.Refusals {
		parts = append(parts, fmt.Sprintf("is refused (%s: %s)", f.Kind, f.Reason))
	}
	sort.Strings(parts)
	if len(parts) == 0 {
		return "writes no fenced table"
	}
	return strings.Join(parts, ", ")
}

// SchemaMode reads a schema statement's SET of the session's sql_mode:
// ok is set when st sets it; mode is the lexing and tree modes
// (sqlModes) it sets, known false when the value is not a literal
// (CONCAT(@@sql_mode, ...), a variable), which may set any. DEFAULT and
// a GLOBAL setting leave the session's modes at the server's default,
// which holds none of them.
func SchemaMode(st ast.StmtNode) (mode mysql.SQLMode, known, ok bool) {
	set, isSet := st.(*ast.SetStmt)
	if !isSet {
		return 0, false, false
	}
	for _, v := range set.Variables {
		if !strings.EqualFold(v.Name, "sql_mode") || v.IsGlobal {
			continue
		}
		ok = true
		known = true
		mode = 0
		if _, isDefault := v.Value.(*ast.DefaultExpr); isDefault {
			continue
		}
		ve, isValue := v.Value.(ast.ValueExpr)
		if !isValue {
			known = false
			continue
		}
		s, isString := ve.GetValue().(string)
		if !isString {
			known = false
			continue
		}
		// A combination mode (ANSI, DB2, POSTGRESQL, ...) is the modes
		// it stands for; MariaDB's ORACLE and MSSQL also read another
		// grammar, which fencegen does not model: any mode.
		var parts []string
		for _, p := range strings.Split(strings.ToUpper(s), ",") {
			p = strings.TrimSpace(p)
			if p == "ORACLE" || p == "MSSQL" {
				known = false
			}
			if c, isCombo := mysql.CombinationSQLMode[p]; isCombo {
				parts = append(parts, c...)
			} else {
				parts = append(parts, p)
			}
		}
		m, err := mysql.GetSQLMode(strings.Join(parts, ","))
		if err != nil || !known {
			known = false
			continue
		}
		for _, sm := range sqlModes {
			mode |= m & sm.mode
		}
	}
	return mode, known, ok
}

// SchemaReading reports how the schema statement text reads under the
// session's sql_mode mode (every combination of sqlModes when not
// known) when that is another statement than the default mode's reading,
// which fencegen's catalog and write analysis use: at is the offset of
// the first token the mode reads otherwise and why says how, "" when
// every reading is the same statement (the same tree) or the default
// reading does not parse (the catalog reports that).
func SchemaReading(text string, mode mysql.SQLMode, known bool) (at int, why string) {
	if known && mode == 0 {
		return 0, ""
	}
	if at, why := lexReading(text, mode, known); why != "" {
		return at, why
	}
	readings := modeReadings(text)
	if len(readings) == 0 {
		return 0, ""
	}
	def, _, err := parser.New().Parse(text, "", "")
	if err != nil {
		return 0, ""
	}
	want := make([]string, len(def))
	for i, st := range def {
		want[i] = treeShape(st)
	}
	for _, m := range readings {
		if known && m.mode != mode&combinedModes(readings) {
			continue
		}
		p := parser.New()
		p.SetSQLMode(m.mode)
		got, _, err := p.Parse(text, "", "")
		same := err == nil && len(got) == len(def)
		for i := 0; same && i < len(got); i++ {
			same = treeShape(got[i]) == want[i]
		}
		if !same {
			return m.at, "reads as another statement under sql_mode " + m.name + " (where " + m.what + "), which the session that runs the schema may have; write " + m.fix
		}
	}
	return 0, ""
}

// lexReading compares the tokens of text in the default mode with its
// tokens under the lexing modes of mode (NO_BACKSLASH_ESCAPES,
// ANSI_QUOTES; each combination of them when not known), as MySQL's and
// MariaDB's lexers split it: at is the offset of the first token that
// starts or ends elsewhere, and why names the mode. The TiDB parser,
// which SchemaReading's trees come from, reads a backslash inside an
// ANSI_QUOTES name as an escape, which the servers do not ("a\" is the
// name a\), so its trees alone may see the same statement where the
// servers read another.
func lexReading(text string, mode mysql.SQLMode, known bool) (at int, why string) {
	if !strings.ContainsAny(text, "\\\"") {
		return 0, ""
	}
	lexing := []mysql.SQLMode{mysql.ModeNoBackslashEscapes, mysql.ModeANSIQuotes, mysql.ModeNoBackslashEscapes | mysql.ModeANSIQuotes}
	if known {
		m := mode & (mysql.ModeNoBackslashEscapes | mysql.ModeANSIQuotes)
		if m == 0 {
			return 0, ""
		}
		lexing = []mysql.SQLMode{m}
	}
	def := lexMode(text, true, 0)
	for _, m := range lexing {
		got := lexMode(text, true, m)
		i := 0
		for i < len(def) && i < len(got) && def[i].pos == got[i].pos && def[i].end == got[i].end {
			i++
		}
		if i == len(def) && i == len(got) {
			continue
		}
		at := len(text)
		if i < len(def) {
			at = def[i].pos
		}
		if i < len(got) && got[i].pos < at {
			at = got[i].pos
		}
		var names, whats, fixes []string
		for _, sm := range sqlModes {
			if m&sm.mode != 0 {
				names, whats, fixes = append(names, sm.name), append(whats, sm.what), append(fixes, sm.fix)
			}
		}
		return at, "reads as another statement under sql_mode " + strings.Join(names, ",") + " (where " + strings.Join(whats, "; ") + "), which the session that runs the schema may have; write " + strings.Join(fixes, ", ")
	}
	return 0, ""
}

// combinedModes are the modes any of readings reads otherwise under.
func combinedModes(readings []modeReading) mysql.SQLMode {
	var m mysql.SQLMode
	for _, r := range readings {
		m |= r.mode
	}
	return m
}
