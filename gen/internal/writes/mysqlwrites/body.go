package mysqlwrites

import (
	"strings"

	"github.com/pingcap/tidb/pkg/parser/mysql"
)

// scanBody reads a stored program's body text, lexed and parsed under
// the sql_mode mode, into e (see body).
//
// The body is read as MySQL's and MariaDB's compound-statement grammar
// nests it (BEGIN ... END, IF, CASE, loops, labels, DECLARE ... HANDLER
// FOR <statement>), and every statement is classified by its first
// words: one that can write is cut out and parsed alone (cut), a
// wrapper that runs another statement (MariaDB's SET STATEMENT ... FOR,
// EXPLAIN, ANALYZE) is read as the statement it runs, one that only
// reads or controls the flow has its words followed (stored functions,
// views), and any other, or a structure this reading does not expect,
// makes the body opaque: what fencegen does not classify is refused,
// not skipped.
//
// opaque receives each refusal with the byte offset in text of the words
// it is about; at is where text starts in the schema (nil unknown).
func (a *analysis) scanBody(text string, mode mysql.SQLMode, loc int, at *Source, e *effects, opaque func(string, int)) {
	b := &bodyReader{a: a, toks: lexMode(text, true, mode), text: text, mode: mode, loc: loc, at: at, e: e, opaque: opaque}
	i := b.characteristics(0)
	i = b.list(i, nil)
	if i < len(b.toks) && !b.failed {
		b.fail(i, "holds "+b.near(i)+" where a statement ends")
	}
}

type bodyReader struct {
	a      *analysis
	toks   []token
	text   string
	mode   mysql.SQLMode
	loc    int
	at     *Source
	e      *effects
	opaque func(string, int)
	failed bool
}

// fail makes the body opaque for reason, about the words at toks[i].
func (b *bodyReader) fail(i int, reason string) {
	if !b.failed {
		b.failed = true
		off := len(b.text)
		if i < len(b.toks) {
			off = b.toks[i].pos
		}
		b.opaque(reason, off)
	}
}

// near names the words at toks[i] for a refusal.
func (b *bodyReader) near(i int) string {
	if i >= len(b.toks) {
		return "the end of the body"
	}
	return "\"" + firstWords(b.text[b.toks[i].pos:]) + "\""
}

func (b *bodyReader) word(i int) string {
	if i < len(b.toks) {
		return b.toks[i].upper()
	}
	return ""
}

func (b *bodyReader) punct(i int, p string) bool {
	return i < len(b.toks) && b.toks[i].kind == tokPunct && b.toks[i].text == p
}

// characteristics skips a routine's RETURNS clause and characteristics
// (COMMENT, LANGUAGE SQL, [NOT] DETERMINISTIC, CONTAINS SQL, NO SQL,
// READS SQL DATA, MODIFIES SQL DATA, SQL SECURITY ...), which precede
// its statement; a trigger's body has none.
func (b *bodyReader) characteristics(i int) int {
	if b.word(i) == "RETURNS" {
		i++
		depth := 0
		for ; i < len(b.toks); i++ {
			if b.punct(i, "(") {
				depth++
				continue
			}
			if b.punct(i, ")") {
				depth--
				continue
			}
			if depth > 0 {
				continue
			}
			w := b.word(i)
			if w == "SET" && (b.word(i-1) == "CHARACTER" || b.punct(i+1, "(")) {
				continue // CHARACTER SET x, the SET('a', 'b') type
			}
			if characteristicWords[w] || statementWords[w] != 0 || b.punct(i+1, ":") {
				break
			}
		}
	}
	for i < len(b.toks) {
		w := b.word(i)
		switch {
		case w == "COMMENT":
			i += 2
		case characteristicWords[w] && w != "COMMENT":
			i++
		default:
			return i
		}
	}
	return i
}

var characteristicWords = map[string]bool{
	"COMMENT": true, "LANGUAGE": true, "SQL": true, "NOT": true, "DETERMINISTIC": true, "CONTAINS": true,
	"NO": true, "READS": true, "MODIFIES": true, "DATA": true, "SECURITY": true, "DEFINER": true, "INVOKER": true,
}

// statement kinds by first word.
const (
	stmtWrite    = iota + 1 // cut out and parsed (cut)
	stmtRead                // reads or sets variables: its words are followed
	stmtDynamic             // PREPARE, EXECUTE: opaque
	stmtCompound            // BEGIN, IF, CASE, loops
	stmtWrapper             // runs the statement it names
)

var statementWords = map[string]int{
	"INSERT": stmtWrite, "REPLACE": stmtWrite, "UPDATE": stmtWrite, "DELETE": stmtWrite, "LOAD": stmtWrite,
	"CALL": stmtWrite, "TRUNCATE": stmtWrite, "ALTER": stmtWrite, "DROP": stmtWrite, "CREATE": stmtWrite,
	"RENAME": stmtWrite, "IMPORT": stmtWrite, "WITH": stmtWrite, "OPTIMIZE": stmtWrite,

	"SELECT": stmtRead, "VALUES": stmtRead, "TABLE": stmtRead, "DO": stmtRead, "RETURN": stmtRead,
	"LEAVE": stmtRead, "ITERATE": stmtRead, "OPEN": stmtRead, "CLOSE": stmtRead, "FETCH": stmtRead,
	"SIGNAL": stmtRead, "RESIGNAL": stmtRead, "GET": stmtRead, "COMMIT": stmtRead, "ROLLBACK": stmtRead,
	"START": stmtRead, "SAVEPOINT": stmtRead, "RELEASE": stmtRead, "LOCK": stmtRead, "UNLOCK": stmtRead,
	"SHOW": stmtRead, "DEALLOCATE": stmtRead, "SET": stmtRead, "DECLARE": stmtRead, "NULL": stmtRead,

	"PREPARE": stmtDynamic, "EXECUTE": stmtDynamic,

	"BEGIN": stmtCompound, "IF": stmtCompound, "CASE": stmtCompound, "WHILE": stmtCompound,
	"REPEAT": stmtCompound, "LOOP": stmtCompound, "FOR": stmtCompound,

	"EXPLAIN": stmtWrapper, "DESCRIBE": stmtWrapper, "DESC": stmtWrapper, "ANALYZE": stmtWrapper,
}

// list reads statements separated by semicolons from toks[i] until one
// of the words in ends opens a statement (or the tokens end), and
// returns the index of that word.
func (b *bodyReader) list(i int, ends map[string]bool) int {
	for i < len(b.toks) && !b.failed {
		if b.punct(i, ";") {
			i++
			continue
		}
		if ends[b.word(i)] {
			return i
		}
		i = b.statement(i)
		if b.failed {
			return len(b.toks)
		}
		if i < len(b.toks) && !b.punct(i, ";") && !ends[b.word(i)] {
			b.fail(i, "holds "+b.near(i)+" where a statement ends")
			return len(b.toks)
		}
	}
	return i
}

// statement reads the statement at toks[i] and returns the index of the
// token after it.
func (b *bodyReader) statement(i int) int {
	// A label (lbl: BEGIN, lbl: LOOP, ...).
	if i+1 < len(b.toks) && b.toks[i].kind == tokWord && b.punct(i+1, ":") {
		i += 2
	}
	w := b.word(i)
	if b.punct(i, "(") {
		w = "SELECT" // a parenthesised query
	}
	switch statementWords[w] {
	case stmtWrite:
		j := b.a.cut(b.toks, i, b.text, b.mode, b.at, b.e, b.opaque) + 1
		return j
	case stmtDynamic:
		b.fail(i, "runs dynamic SQL ("+w+"), whose text is only known when it runs")
		return len(b.toks)
	case stmtWrapper:
		return b.wrapper(i)
	case stmtCompound:
		return b.compound(i)
	case stmtRead:
		switch {
		case w == "SET" && b.word(i+1) == "STATEMENT":
			// MariaDB's SET STATEMENT var = value [, ...] FOR <statement>
			// runs <statement>.
			j := b.until(i+2, map[string]bool{"FOR": true})
			if j >= len(b.toks) {
				b.fail(i, "holds SET STATEMENT without the FOR of the statement it runs")
				return len(b.toks)
			}
			return b.statement(j + 1)
		case w == "DECLARE":
			if h := b.handler(i); h >= 0 {
				return b.statement(h)
			}
		}
		return b.simple(i)
	}
	b.fail(i, "holds a statement fencegen does not classify ("+b.near(i)+")")
	return len(b.toks)
}

// wrapper reads EXPLAIN, DESCRIBE or ANALYZE: with a statement after its
// options (MariaDB's ANALYZE runs the statement), as that statement;
// otherwise (EXPLAIN t, ANALYZE TABLE t) as a read.
func (b *bodyReader) wrapper(i int) int {
	j := i + 1
	for j < len(b.toks) {
		switch b.word(j) {
		case "FORMAT":
			j++
			if b.punct(j, "=") {
				j++
			}
			j++
			continue
		case "EXTENDED", "PARTITIONS", "ANALYZE":
			j++
			continue
		}
		break
	}
	w := b.word(j)
	if b.punct(j, "(") {
		w = "SELECT"
	}
	switch {
	case w == "TABLE" || w == "FOR":
		return b.simple(i)
	case statementWords[w] == stmtWrite || w == "SELECT" || w == "VALUES":
		return b.statement(j)
	}
	return b.simple(i)
}

// handler finds DECLARE {CONTINUE | EXIT | UNDO} HANDLER FOR cond [, cond]
// at toks[i] and returns the index of the handler's statement, or -1
// when the DECLARE declares something else.
func (b *bodyReader) handler(i int) int {
	j := i + 1
	if w := b.word(j); w != "CONTINUE" && w != "EXIT" && w != "UNDO" {
		return -1
	}
	if b.word(j+1) != "HANDLER" || b.word(j+2) != "FOR" {
		return -1
	}
	j += 3
	for j < len(b.toks) {
		switch b.word(j) {
		case "SQLSTATE":
			j++
			if b.word(j) == "VALUE" {
				j++
			}
			j++ // the state's string
		case "NOT":
			j += 2 // NOT FOUND
		default:
			j++ // SQLWARNING, SQLEXCEPTION, an error number, a condition's name
		}
		if !b.punct(j, ",") {
			return j
		}
		j++
	}
	return j
}

// until returns the index of the first of the words ends at toks[i:]
// outside parentheses and CASE ... END expressions, or len(toks); the
// words passed on the way are followed (words).
func (b *bodyReader) until(i int, ends map[string]bool) int {
	depth, cases := 0, 0
	j := i
	for ; j < len(b.toks); j++ {
		t := b.toks[j]
		if t.kind == tokPunct {
			switch t.text {
			case "(":
				depth++
			case ")":
				depth--
			case ";":
				if depth <= 0 {
					b.words(i, j)
					return len(b.toks)
				}
			}
			continue
		}
		w := t.upper()
		if depth > 0 || j > 0 && b.punct(j-1, ".") {
			continue
		}
		switch {
		case w == "CASE":
			cases++
		case w == "END" && cases > 0:
			cases--
		case cases == 0 && ends[w]:
			b.words(i, j)
			return j
		}
	}
	b.words(i, j)
	return j
}

// simple reads a statement that writes nothing itself, up to its
// semicolon (or the end): its words are followed, and a word that could
// start a write where this reading expects none makes the body opaque.
func (b *bodyReader) simple(i int) int {
	depth := 0
	j := i
	for ; j < len(b.toks); j++ {
		t := b.toks[j]
		if t.kind == tokPunct {
			switch t.text {
			case "(":
				depth++
			case ")":
				depth--
			case ";":
				if depth <= 0 {
					b.words(i, j)
					return j
				}
			}
			continue
		}
		if j == i {
			continue
		}
		prev := b.word(j - 1)
		if b.punct(j-1, ".") {
			continue
		}
		switch w := t.upper(); w {
		case "PREPARE", "EXECUTE":
			b.fail(i, "runs dynamic SQL ("+w+"), whose text is only known when it runs")
			return len(b.toks)
		case "INSERT", "REPLACE", "UPDATE", "DELETE":
			if b.punct(j+1, "(") || prev == "FOR" || prev == "KEY" || prev == "ON" || prev == "SHARE" {
				continue
			}
			b.fail(i, "holds "+w+" inside a statement fencegen reads as writing nothing ("+b.near(i)+")")
			return len(b.toks)
		}
	}
	b.words(i, j)
	return j
}

// words follows the stored functions called and the views named in
// toks[i:j].
func (b *bodyReader) words(i, j int) {
	for k := i; k < j && k < len(b.toks); k++ {
		t := b.toks[k]
		if t.kind != tokWord || k > 0 && b.punct(k-1, ".") {
			continue
		}
		name := strings.ToLower(t.text)
		if b.a.sc.Routines[name] != nil && b.punct(k+1, "(") && b.word(k-1) != "CALL" {
			b.e.calls = append(b.e.calls, call{name: name, loc: b.loc})
		}
		if b.a.sc.Views[name] != nil {
			b.e.views = append(b.e.views, call{name: name, loc: b.loc})
		}
	}
}

// compound reads BEGIN ... END, IF, CASE, WHILE, REPEAT, LOOP and
// MariaDB's FOR loop at toks[i].
func (b *bodyReader) compound(i int) int {
	w := b.word(i)
	end := func(j int, kw string) int {
		if b.word(j) != "END" {
			b.fail(j, "holds "+b.near(j)+" where "+w+" ends")
			return len(b.toks)
		}
		j++
		if kw != "" {
			if b.word(j) != kw {
				b.fail(j, "holds "+b.near(j)+" where END "+kw+" ends "+w)
				return len(b.toks)
			}
			j++
		}
		// An end label.
		if j < len(b.toks) && b.toks[j].kind == tokWord && (j+1 == len(b.toks) || b.punct(j+1, ";")) {
			j++
		}
		return j
	}
	switch w {
	case "BEGIN":
		j := i + 1
		if b.word(j) == "NOT" && b.word(j+1) == "ATOMIC" {
			j += 2
		}
		j = b.list(j, map[string]bool{"END": true})
		return end(j, "")
	case "IF":
		j := i
		for b.word(j) == "IF" || b.word(j) == "ELSEIF" {
			j = b.until(j+1, map[string]bool{"THEN": true})
			if b.word(j) != "THEN" {
				b.fail(i, "holds IF without THEN")
				return len(b.toks)
			}
			j = b.list(j+1, map[string]bool{"ELSEIF": true, "ELSE": true, "END": true})
		}
		if b.word(j) == "ELSE" {
			j = b.list(j+1, map[string]bool{"END": true})
		}
		return end(j, "IF")
	case "CASE":
		j := i + 1
		if b.word(j) != "WHEN" {
			j = b.until(j, map[string]bool{"WHEN": true})
		}
		for b.word(j) == "WHEN" {
			j = b.until(j+1, map[string]bool{"THEN": true})
			if b.word(j) != "THEN" {
				b.fail(i, "holds CASE ... WHEN without THEN")
				return len(b.toks)
			}
			j = b.list(j+1, map[string]bool{"WHEN": true, "ELSE": true, "END": true})
		}
		if b.word(j) == "ELSE" {
			j = b.list(j+1, map[string]bool{"END": true})
		}
		return end(j, "CASE")
	case "WHILE", "FOR":
		j := b.until(i+1, map[string]bool{"DO": true})
		if b.word(j) != "DO" {
			b.fail(i, "holds "+w+" without DO")
			return len(b.toks)
		}
		j = b.list(j+1, map[string]bool{"END": true})
		return end(j, w)
	case "REPEAT":
		j := b.list(i+1, map[string]bool{"UNTIL": true})
		if b.word(j) != "UNTIL" {
			b.fail(i, "holds REPEAT without UNTIL")
			return len(b.toks)
		}
		j = b.until(j+1, map[string]bool{"END": true})
		return end(j, "REPEAT")
	case "LOOP":
		j := b.list(i+1, map[string]bool{"END": true})
		return end(j, "LOOP")
	}
	b.fail(i, "holds a statement fencegen does not classify ("+b.near(i)+")")
	return len(b.toks)
}
