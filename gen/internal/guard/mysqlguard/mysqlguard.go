// Package mysqlguard adds the fencing guard to a write to a fenced table
// on MySQL and MariaDB (engine: mysql), as package guard does on
// PostgreSQL: it rewrites one INSERT, UPDATE or DELETE, parsed with the
// TiDB parser sqlc uses, into its guarded form (Form), and says how the
// generated code reads the result (Form.Reader, runtime/fenceimpl's
// MySQLByKey and MySQLUpsert).
//
// The guarded statements use only what MySQL 8 and MariaDB 10.x both
// accept: no RETURNING (MySQL has none), no row alias in ON DUPLICATE KEY
// UPDATE (MariaDB has none), VALUES(col) there instead (deprecated in
// MySQL 8.0.20, which warns, and the only form MariaDB knows).
//
// The stored token of the row a guarded UPDATE or upsert meets comes back
// in the statement's own OK packet, through LAST_INSERT_ID(expr), whose
// argument the server returns as the packet's last-insert id (MySQL
// manual, "Information Functions", LAST_INSERT_ID(expr); the same trick as
// its sequence-emulation example): one round trip whether the write
// succeeds, is refused, or finds no row, and no second statement that a
// concurrent writer could run before. A DELETE's OK packet carries no
// last-insert id, so a DELETE that removed nothing is followed by a locked
// read (Guarded.Stored). See docs/mysql.md.
package mysqlguard

import (
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	"github.com/pingcap/tidb/pkg/parser/mysql"
	"github.com/pingcap/tidb/pkg/parser/opcode"
	"github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/guard"
	"github.com/fencegen/fencegen/gen/internal/writes/mysqlwrites"
)

// Form is the shape of a guarded MySQL write.
type Form int

// The forms of a guarded MySQL write.
const (
	// Store is an INSERT without ON DUPLICATE KEY UPDATE, of VALUES rows
	// or a SET list: it stores the presented token in every row and checks
	// nothing (a new row holds no token). Read with fenceimpl.TriggerError.
	Store Form = iota + 1
	// ByKey is an UPDATE or DELETE of one table whose WHERE clause pins
	// every column of the primary key with =: at most one row. Read with
	// fenceimpl.MySQLByKey.
	ByKey
	// Upsert is INSERT ... VALUES (one row) ON DUPLICATE KEY UPDATE: each
	// assignment applies only when the presented token beats the stored
	// one. Read with fenceimpl.MySQLUpsert (one VALUES row) or
	// fenceimpl.MySQLUpsertRows (several).
	Upsert
	// All is an UPDATE or DELETE of one table that may match several
	// rows: all or nothing. A matched row whose stored token the
	// presented one does not beat makes the statement fail (error 1242,
	// fenceimpl.MySQLSubqueryErrno), and InnoDB rolls the whole statement
	// back. Read with fenceimpl.MySQLAll.
	All
)

// String names the form as the guarded statement's comment does.
func (f Form) String() string {
	switch f {
	case Store:
		return "stores the token"
	case ByKey:
		return "guarded by key"
	case Upsert:
		return "guarded upsert"
	case All:
		return "guarded, all or nothing"
	}
	return fmt.Sprintf("Form(%d)", int(f))
}

// Reader names the function of runtime/fenceimpl that reads the guarded
// statement's result: "MySQLByKey", "MySQLUpsert" (MySQLUpsertRows for an
// upsert of several rows, Guarded.Rows), "MySQLAll", or "" for Store (run
// as a plain statement, its error passed through fenceimpl.TriggerError).
func (f Form) Reader() string {
	switch f {
	case ByKey:
		return "MySQLByKey"
	case Upsert:
		return "MySQLUpsert"
	case All:
		return "MySQLAll"
	}
	return ""
}

// Spec says how to guard a write.
type Spec struct {
	// Column is the fencing-token column.
	Column string
	// Key lists the table's primary-key columns.
	Key []string
	// UniqueKeys are the columns of each of the table's unique keys, the
	// primary key among them (catalog.Table.UniqueKeys): an upsert's row
	// may meet a stored row by any of them, and the refusal's read of
	// the stored token looks it up by each one its VALUES give.
	UniqueKeys [][]string
	// Param is the 1-based number of the parameter that carries the
	// presented token: usually one past the query's own `?` parameters.
	Param int
	// Strict guards with stored < presented instead of stored ≤ presented.
	Strict bool
	// Required is the table's mode required: the token assignment also
	// declares the presented token to the database-side guard's trigger
	// (guard.MySQLPresentedVar), which otherwise takes an UPDATE that
	// leaves the stored token as it is for one presenting no token.
	Required bool
	// Table is the fenced table's name as messages and the comment give
	// it; Name is the name the write must target (not checked when "").
	Table, Name string
	// KeyTypes gives, by lower-case name, the type class of each key
	// column: KeyString (CHAR, VARCHAR, TEXT, BINARY, BLOB), KeyNumber
	// (an integer or DECIMAL type) or KeyOther (any other). A WHERE
	// clause pins a key column for the by-key form only when MySQL's
	// comparison is a lookup of that key: a literal of the column's
	// class, or a parameter typed as the column (KeyParams). Compared
	// with a value of another class MySQL converts both sides (a VARCHAR
	// key = 0 compares as numbers: '0', '00' and 'abc' all match), and
	// the write takes the all-or-nothing form. nil is an all-KeyNumber
	// key.
	KeyTypes map[string]KeyClass
	// KeyParams gives, for each parameter (numbered as Param) that the
	// generated method sends typed as a key column, that column's
	// lower-case name; a parameter compared with a key column but not
	// in KeyParams (interface{}, another column's type) does not pin it.
	// nil is every parameter typed as the key column it is compared
	// with.
	KeyParams map[int]string
	// Engine is the table's storage engine as the schema names it ("" for
	// the server's default). A write of several rows (All, an upsert of
	// several rows) is all or nothing only where a failed statement is
	// rolled back whole: it is refused on an engine other than InnoDB.
	Engine string
	// StoreAs gives, by lower-case name, the CAST type that converts a
	// value as storing it in that column does, for a column whose stored
	// text may differ from the text of an equal value written to it:
	// DECIMAL(p,s) (a DECIMAL(6,2) stores 12 as 12.00, rounds 12.345 to
	// 12.35), DATETIME(n) for DATETIME(n) and TIMESTAMP(n) (the
	// fractional seconds past n dropped as the server drops them), TIME(n)
	// and DATE. The locked read of an UPDATE compares such a column with
	// its expression converted so (holdsWrite). A column not in it
	// compares with the expression as it is.
	StoreAs map[string]string
}

// KeyClass is the type class of a key column (Spec.KeyTypes).
type KeyClass int

// The classes of Spec.KeyTypes.
const (
	KeyNumber KeyClass = iota
	KeyString
	KeyOther
)

// transactional returns an error when spec's table is on an engine that
// does not roll a failed statement back (MyISAM, MEMORY, Aria, ...).
func (spec Spec) transactional(what string) error {
	if spec.Engine == "" || strings.EqualFold(spec.Engine, "InnoDB") {
		return nil
	}
	return fmt.Errorf("%s of fenced table %s is not guarded on MySQL: its engine %s does not roll back a statement that fails, so the guard's refusal of one row would leave the rows written before it; pin the primary key with = (one row), or use ENGINE=InnoDB", what, spec.Table, spec.Engine)
}

// Guarded is a write with its guard added.
type Guarded struct {
	Form Form
	// SQL is the guarded statement: a one-line comment naming the form,
	// then the statement. Its parameters are `?`, bound by position.
	SQL string
	// Params lists, for each `?` of SQL in order, the 1-based number of
	// the query's parameter it binds (Spec.Param for the token, which an
	// UPDATE or DELETE binds twice).
	Params []int
	// Stored is set for a DELETE by key: SELECT <token> FROM <table>
	// WHERE <the DELETE's WHERE> FOR UPDATE, run only when the DELETE
	// removed nothing; StoredParams are its parameters as Params.
	//
	// For All, Stored is the read of the rows the write's WHERE clause
	// matches, SELECT COUNT(*), <highest token refused, else highest>,
	// <rows refused> ... FOR UPDATE, run when the write failed on a stale
	// row (for the error's fields) or when its reply does not say whether
	// it matched (fenceimpl.MySQLAll).
	Stored       string
	StoredParams []int
	// Rows is the number of VALUES rows of an Upsert (1, or more: read
	// with fenceimpl.MySQLUpsertRows). An Upsert's Stored, when its VALUES
	// give the primary key, reads the stored token of each row it may
	// meet by key (for the refusal's Stored and Rows).
	Rows int
	// Assigned are the columns an UPDATE (ByKey, All) sets, in lower
	// case, as its SET clause names them: the columns its locked read
	// compares with what it writes (holdsWrite).
	Assigned []string
}

// assigned is Guarded.Assigned of the assignments set.
func assigned(set []*ast.Assignment) []string {
	var out []string
	for _, a := range set {
		out = append(out, strings.ToLower(a.Column.Name.O))
	}
	return out
}

// paramVar is the name of the user variable that stands for parameter n
// while a statement is rewritten: the TiDB parser restores every
// parameter marker as a bare `?`, so each is swapped for @fencegen_p_<n>
// before the rewrite and back after, which numbers them in the guarded
// text's order.
const paramVar = "fencegen_p_"

var paramVarRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("@`?" + paramVar + "([0-9]+)(?:_s([0-9a-f]*))?`?") })

// Rewrite adds the guard to sql, one INSERT, UPDATE or DELETE with `?`
// parameters (as analysis hands it), and returns it with its form. The
// error says why the write cannot be guarded; the caller refuses the
// query at the statement (file:line:col), never emitting it unguarded.
func Rewrite(sql string, spec Spec) (*Guarded, error) {
	if strings.Contains(strings.ToLower(sql), paramVar) {
		return nil, fmt.Errorf("the statement names %s..., which the guard uses for its own parameters", paramVar)
	}
	if !utf8.ValidString(sql) {
		// The parser's restore turns bytes that are not UTF-8 into
		// something else: the guarded text would not be the statement.
		return nil, fmt.Errorf("the write to guard is not valid UTF-8")
	}
	// One parser serves every parse of the rewrite (statement, guard
	// expressions, guarded text): a Parser is reusable, not concurrent.
	p := parser.New()
	stmt, err := p.ParseOneStmt(sql, "", "")
	if err != nil {
		return nil, fmt.Errorf("parsing the write to guard: %w", err)
	}
	lists := sliceMarkers(sql)
	sp, err := newSplicer(sql)
	if err != nil {
		return nil, fmt.Errorf("the guard cannot be added to the text of the write to fenced table %s: %v", spec.Table, err)
	}
	n, marked, numbers := numberParams(stmt, lists)
	sp.p, sp.numbers, sp.tokenNum = p, numbers, strconv.Itoa(spec.Param)
	if spec.Param <= n {
		return nil, fmt.Errorf("the token parameter %d is one of the statement's own %d parameters", spec.Param, n)
	}
	if marked != len(lists) || strings.Count(sql, "/*SLICE:") != len(lists) {
		return nil, fmt.Errorf("a sqlc.slice marker of the write to fenced table %s stands before no parameter", spec.Table)
	}
	if _, ok := stmt.(*ast.InsertStmt); ok && len(lists) > 0 {
		return nil, fmt.Errorf("a sqlc.slice parameter in an INSERT into fenced table %s is not guarded on MySQL: give each row its own VALUES", spec.Table)
	}
	if m := lenient(stmt); m != "" {
		return nil, fmt.Errorf("%s in a write to fenced table %s is not guarded on MySQL: it turns the guard's refusal (an error) into a warning, or writes after the statement has returned; write it without %s", m, spec.Table, m)
	}
	if err := ownParts(stmt, spec); err != nil {
		return nil, err
	}
	// The guarded text is the user's text with the guard spliced in (sp);
	// the reads of the stored token are the TiDB parser's restore of
	// parts of it, which must read as what was written.
	lits, _ := parts(stmt)
	var g *Guarded
	switch s := stmt.(type) {
	case *ast.UpdateStmt:
		g, err = rewriteUpdate(p, sp, s, spec)
	case *ast.DeleteStmt:
		g, err = rewriteDelete(p, sp, s, spec)
	case *ast.InsertStmt:
		g, err = rewriteInsert(p, sp, s, spec)
	default:
		return nil, fmt.Errorf("%s is not a write fencegen guards on MySQL", diag.A(strings.TrimPrefix(fmt.Sprintf("%T", stmt), "*ast.")))
	}
	if err != nil {
		return nil, err
	}
	// The guarded statement as the rewrite built it, which the spliced
	// text must read as: the same tree, each parameter the same one.
	want, err := restoreRaw(stmt)
	if err != nil {
		return nil, err
	}
	var text string
	var params []int
	for _, bare := range []bool{true, false} {
		var serr error
		if text, params, serr = sp.text(want, bare); serr == nil {
			err = nil
			break
		} else if err == nil {
			err = serr
		}
	}
	if err != nil {
		return nil, fmt.Errorf("the guard cannot be spliced into the text of the write to fenced table %s so that it reads as the guarded statement (%v); write the statement more plainly", spec.Table, err)
	}
	// What is generated must be a statement MySQL reads as one: a guarded
	// text the parser refuses is refused here, never emitted. Its comment
	// line holds no line break, so the text parses as it does without it.
	c := comment(g.Form, spec)
	if _, err := p.ParseOneStmt(c+text, "", ""); err != nil {
		return nil, fmt.Errorf("the guarded form of the write does not parse (%v); write the statement more plainly", err)
	}
	// Generated code holds the text in a Go raw string, which drops a
	// carriage return: harmless between tokens, not inside a literal.
	if strings.Contains(text, "\x00") || slices.ContainsFunc(sp.toks, func(t token) bool {
		return (t.kind == 's' || t.kind == 'q') && strings.Contains(sql[t.start:t.end], "\r")
	}) {
		return nil, fmt.Errorf("a string literal of the write to fenced table %s holds a NUL or carriage return, which the guarded text cannot carry; pass the value as a parameter", spec.Table)
	}
	// The whole guarded text, as sent, reads as fencegen reads it: no
	// carriage return that changes its tokens once the Go raw string
	// drops it, no control byte, no delimiter a multi-byte client
	// character set reads into a character (the splice must not make
	// one either).
	if mysqlwrites.DroppedCR(c+text) >= 0 || mysqlwrites.ControlByte(c+text) >= 0 || mysqlwrites.MultibyteTrail(c+text) >= 0 {
		return nil, fmt.Errorf("the guarded text of the write to fenced table %s holds a carriage return, a control character or a non-ASCII character before a delimiter, which the server would read otherwise than fencegen; write the statement without it", spec.Table)
	}
	if g.Stored != "" {
		read, err := p.ParseOneStmt(g.Stored, "", "")
		if err != nil {
			return nil, fmt.Errorf("the guard's read of the stored token does not parse (%v); write the statement more plainly", err)
		}
		// (Its calls are the statement's, checked in the guarded text,
		// and the guard's own comparison: CHARSET, CONVERT, MAX, ...)
		if err := roundTrips("", nil, read, g.Stored, spec); err != nil {
			return nil, err
		}
		// The read holds part of the statement: each of its string
		// literals is one the statement or the guard wrote.
		rl, _ := parts(read)
		for lit := range rl {
			if lits[lit] == 0 && !strings.Contains(unicodeCharsets, "'"+lit+"'") {
				return nil, litChanged(lit, spec)
			}
		}
	}
	g.SQL, g.Params = c+text, params
	g.Stored = unquoted(p, g.Stored, nil)
	return g, nil
}

// ownParts refuses what the statement itself holds that the guard cannot
// take: LAST_INSERT_ID in an UPDATE (its guard sets it with
// LAST_INSERT_ID(expr) while the statement runs, so the statement's own
// call would read the guard's value; an INSERT's and a DELETE's guard do
// not call it) and a PARTITION (...) clause (the guard's read of the stored
// token would look in every partition, the write only in those named).
func ownParts(stmt ast.StmtNode, spec Spec) error {
	v := &partFinder{}
	stmt.Accept(v)
	if _, update := stmt.(*ast.UpdateStmt); v.lastID && update {
		return fmt.Errorf("LAST_INSERT_ID in a write to fenced table %s is not guarded on MySQL: the guard sets LAST_INSERT_ID(expr) while the statement runs, so the statement would read the guard's value; read it in a statement of its own, or pass it as a parameter", spec.Table)
	}
	if v.partition {
		return fmt.Errorf("PARTITION (...) in a write to fenced table %s is not guarded on MySQL: the guard's read of the stored token would not be limited to the partitions named; write it without PARTITION (the key finds the row)", spec.Table)
	}
	return nil
}

type partFinder struct{ lastID, partition bool }

func (v *partFinder) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *ast.FuncCallExpr:
		if x.FnName.L == "last_insert_id" {
			v.lastID = true
		}
	case *ast.TableName:
		if len(x.PartitionNames) > 0 {
			v.partition = true
		}
	}
	return n, false
}
func (v *partFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }

// parts lists n's string literals (their values) and the names of its
// function calls, each with its count.
func parts(n ast.Node) (lits, fns map[string]int) {
	v := &partsCollector{lits: map[string]int{}, fns: map[string]int{}}
	n.Accept(v)
	return v.lits, v.fns
}

type partsCollector struct{ lits, fns map[string]int }

func (v *partsCollector) Enter(n ast.Node) (ast.Node, bool) {
	switch x := n.(type) {
	case *test_driver.ValueExpr:
		if k := x.Datum.Kind(); k == test_driver.KindString || k == test_driver.KindBytes {
			v.lits[string(x.Datum.GetBytes())]++
		}
	case *ast.FuncCallExpr:
		v.fns[x.FnName.L]++
	}
	return n, false
}
func (v *partsCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

func litChanged(lit string, spec Spec) error {
	return fmt.Errorf("the guarded form of the write to fenced table %s would not keep the string literal %s as written (the parser writes it back with another value); pass the value as a parameter", spec.Table, strconv.Quote(lit))
}

// guardFuncs are the functions the guard's own expressions call.
var guardFuncs = map[string]bool{"last_insert_id": true, "if": true, "coalesce": true, "charset": true, "convert": true}

var word = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_$]*`) })

// roundTrips refuses a guarded text (text, parsed as got) that does not
// keep the user's statement (src, with string literals lits and calls
// fns): each string literal must read back byte for byte (the restore
// writes a backslash unescaped, so 'C:\\tmp' would store C:, TAB, mp),
// each function must be called by a name the user wrote (the restore
// writes CHAR(65) as CHAR_FUNC(65, NULL)), and the text must hold no NUL
// or carriage return, which a Go raw string cannot carry as written.
// With src "" the calls are not checked.
func roundTrips(src string, lits map[string]int, got ast.Node, text string, spec Spec) error {
	if strings.ContainsAny(text, "\x00\r") {
		return fmt.Errorf("a string literal of the write to fenced table %s holds a NUL or carriage return, which the guarded text cannot carry; pass the value as a parameter", spec.Table)
	}
	gl, gf := parts(got)
	for lit, n := range lits {
		if gl[lit] < n {
			return litChanged(lit, spec)
		}
	}
	if src == "" {
		return nil
	}
	written := map[string]bool{}
	for _, w := range word().FindAllString(src, -1) {
		written[strings.ToLower(w)] = true
	}
	for fn := range gf {
		if !written[fn] && !guardFuncs[fn] {
			return fmt.Errorf("the guarded form of the write to fenced table %s would call %s, a name the statement does not write (the parser writes a call back under its own name); write the call another way, or the write without it", spec.Table, strings.ToUpper(fn))
		}
	}
	return nil
}

// lenient names stmt's modifier that keeps the guard's refusal, an
// error, from failing it: IGNORE (errors become warnings: a stale row is
// skipped, or the failed token expression stored as NULL, then 0) or
// DELAYED; "" when it has neither.
func lenient(stmt ast.StmtNode) string {
	var ignore bool
	var pr mysql.PriorityEnum
	switch s := stmt.(type) {
	case *ast.InsertStmt:
		ignore, pr = s.IgnoreErr, s.Priority
	case *ast.UpdateStmt:
		ignore, pr = s.IgnoreErr, s.Priority
	case *ast.DeleteStmt:
		ignore, pr = s.IgnoreErr, s.Priority
	}
	switch {
	case ignore:
		return "IGNORE"
	case pr == mysql.DelayedPriority:
		return "DELAYED"
	}
	return ""
}

var quotedIdent = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile("`([A-Za-z_][A-Za-z0-9_]*)`") })

// unquoted is sql with the backquotes the TiDB parser's restore puts
// around every name removed where the name needs none: the statement
// without them must parse and restore to the same text, so a keyword
// keeps its quotes (all of them stay then). Generated code holds the
// statement in a Go raw string, where each backquote costs a
// concatenation. parsed is sql's statement when the caller has parsed it
// already, else nil.
func unquoted(p *parser.Parser, sql string, parsed ast.StmtNode) string {
	if sql == "" || !strings.Contains(sql, "`") {
		return sql
	}
	plain := quotedIdent().ReplaceAllString(sql, "$1")
	if plain == sql || strings.Contains(plain, "`") {
		return sql
	}
	a := parsed
	if a == nil {
		var err error
		if a, err = p.ParseOneStmt(sql, "", ""); err != nil {
			return sql
		}
	}
	b, err := p.ParseOneStmt(plain, "", "")
	if err != nil {
		return sql
	}
	ra, _, errA := restore(a)
	rb, _, errB := restore(b)
	if errA != nil || errB != nil || ra != rb {
		return sql
	}
	return plain
}

// comment is the guarded statement's first line, e.g. "-- fencegen:
// guarded by key (accounts.fence_token <= the presented token)". It holds
// no `?`: go-sql-driver/mysql's interpolateParams counts them in the text.
func comment(f Form, spec Spec) string {
	col := spec.Column
	if spec.Table != "" {
		col = spec.Table + "." + col
	}
	col = strings.NewReplacer("\n", " ", "\r", " ", "?", "_").Replace(col)
	op := spec.op()
	if f == Store {
		op = "="
	}
	return fmt.Sprintf("%s%s (%s %s the presented token)\n", guard.CommentPrefix, f, col, op)
}

// op is stored ≤ presented, or < when Strict.
func (spec Spec) op() string {
	if spec.Strict {
		return "<"
	}
	return "<="
}

// sliceRE is a sqlc.slice list's marker, /*SLICE:<name>*/?, as sqlc
// writes it in the query text (analyze.SliceMarker).
var sliceRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/\*SLICE:([^*]*)\*/\?`) })

// sliceMarkers maps the offset in sql of each sqlc.slice list's `?` to
// the list's name.
func sliceMarkers(sql string) map[int]string {
	out := map[int]string{}
	for _, m := range sliceRE().FindAllStringSubmatchIndex(sql, -1) {
		out[m[1]-1] = sql[m[2]:m[3]]
	}
	return out
}

// numberParams replaces every parameter marker of stmt with the user
// variable @fencegen_p_<n>, n its 1-based position in the text, and
// returns how many there were. The `?` of a sqlc.slice list (lists, by
// offset) becomes @fencegen_p_<n>_s<the list's name in hex>, which
// restore writes back with its marker, /*SLICE:<name>*/?, in every copy
// the guarded text holds; marked is how many of lists were found.
func numberParams(stmt ast.StmtNode, lists map[int]string) (n, marked int, num map[int]string) {
	c := &markerCollector{}
	stmt.Accept(c)
	sort.Ints(c.offsets)
	num = map[int]string{}
	for i, off := range c.offsets {
		num[off] = strconv.Itoa(i + 1)
		if name, ok := lists[off]; ok {
			num[off] += "_s" + hex.EncodeToString([]byte(name))
			marked++
		}
	}
	stmt.Accept(&markerReplacer{num: num})
	return len(c.offsets), marked, num
}

type markerCollector struct{ offsets []int }

func (c *markerCollector) Enter(n ast.Node) (ast.Node, bool) {
	if p, ok := n.(*test_driver.ParamMarkerExpr); ok {
		c.offsets = append(c.offsets, p.Offset)
	}
	return n, false
}
func (c *markerCollector) Leave(n ast.Node) (ast.Node, bool) { return n, true }

type markerReplacer struct{ num map[int]string }

func (r *markerReplacer) Enter(n ast.Node) (ast.Node, bool) { return n, false }
func (r *markerReplacer) Leave(n ast.Node) (ast.Node, bool) {
	if p, ok := n.(*test_driver.ParamMarkerExpr); ok {
		v := &ast.VariableExpr{Name: paramVar + r.num[p.Offset]}
		// The variable keeps the marker's place in the text (splice).
		v.SetOriginTextPosition(p.Offset)
		return v, true
	}
	return n, true
}

// restore writes n back as SQL and turns the parameter variables back into
// `?` (a sqlc.slice list's into its marker, /*SLICE:<name>*/?), returning
// the text and the parameter each `?` binds, in order.
func restore(n ast.Node) (string, []int, error) {
	var b strings.Builder
	if err := n.Restore(format.NewRestoreCtx(format.DefaultRestoreFlags, &b)); err != nil {
		return "", nil, err
	}
	var params []int
	out := paramVarRE().ReplaceAllStringFunc(b.String(), func(m string) string {
		sub := paramVarRE().FindStringSubmatch(m)
		k, _ := strconv.Atoi(sub[1])
		params = append(params, k)
		if name, err := hex.DecodeString(sub[2]); err == nil && len(name) > 0 {
			return "/*SLICE:" + string(name) + "*/?"
		}
		return "?"
	})
	return out, params, nil
}

// expr parses one expression given as SQL text (its parameters written
// @fencegen_p_<n>).
func expr(p *parser.Parser, text string) (ast.ExprNode, error) {
	st, err := p.ParseOneStmt("SELECT "+text, "", "")
	if err != nil {
		return nil, fmt.Errorf("building the guard expression %q: %w", text, err)
	}
	return st.(*ast.SelectStmt).Fields.Fields[0].Expr, nil
}

func quote(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

func tokenVar(spec Spec) string { return "@" + paramVar + strconv.Itoa(spec.Param) }

// upsertToken is the value an upsert assigns the token column when the
// presented token beats the stored one: VALUES(tok), declared in
// parentheses for a table of mode required.
func upsertToken(tok string, spec Spec) string {
	if !spec.Required {
		return "VALUES(" + tok + ")"
	}
	return "(" + declared("VALUES("+tok+")", spec) + ")"
}

// declared is v, the value an UPDATE assigns the token column, as the
// assignment writes it: for a table of mode required, declared to the
// guard trigger for the statement (Spec.Required, guard.MySQLDeclared).
func declared(v string, spec Spec) string {
	if !spec.Required {
		return v
	}
	return guard.MySQLDeclared(v, spec.scopeTable())
}

// deleteDeclared is v, the token a DELETE compares the stored one with,
// declared to the guard's BEFORE DELETE trigger for the statement, in
// every mode (guard.MySQLDeclared): the trigger takes it over a
// hand-written writer's @fencegen_token left on the connection.
func deleteDeclared(v string, spec Spec) string {
	return guard.MySQLDeclared(v, spec.scopeTable())
}

// scopeTable is the table's name as the guard triggers name it (sqlc's
// catalog's): Name, else Table.
func (spec Spec) scopeTable() string {
	if spec.Name != "" {
		return spec.Name
	}
	return spec.Table
}

// target returns the one table a single-table UPDATE or DELETE writes and
// the name its columns may be qualified with (its alias, else its name).
func target(refs *ast.TableRefsClause, spec Spec) (*ast.TableName, string, error) {
	if refs == nil || refs.TableRefs == nil || refs.TableRefs.Right != nil {
		return nil, "", fmt.Errorf("a write to fenced table %s that joins other tables is not guarded on MySQL: write it as a single-table statement by key", spec.Table)
	}
	ts, ok := refs.TableRefs.Left.(*ast.TableSource)
	if !ok {
		return nil, "", fmt.Errorf("the write to fenced table %s names no plain table", spec.Table)
	}
	tn, ok := ts.Source.(*ast.TableName)
	if !ok {
		return nil, "", fmt.Errorf("the write to fenced table %s writes a derived table", spec.Table)
	}
	if spec.Name != "" && !strings.EqualFold(tn.Name.O, spec.Name) {
		return nil, "", fmt.Errorf("the write to guard is into %s, not into fenced table %s, which the statement writes elsewhere; write the fenced write as its own statement", tn.Name.O, spec.Table)
	}
	qual := tn.Name.L
	if ts.AsName.L != "" {
		qual = ts.AsName.L
	}
	return tn, qual, nil
}

// splitWhere splits where's top-level AND conjuncts into those that pin
// a key column with = to a value that reads no column (a parameter, a
// literal, a user variable), and the rest; ok reports whether every
// column of key is pinned.
func splitWhere(where ast.ExprNode, qual string, spec Spec) (keyConj, rest []ast.ExprNode, ok bool) {
	key := spec.Key
	pinned := map[string]bool{}
	for _, c := range conjuncts(where) {
		if col := pinnedKey(c, qual, spec); col != "" {
			pinned[col] = true
			keyConj = append(keyConj, c)
			continue
		}
		rest = append(rest, c)
	}
	for _, k := range key {
		if !pinned[strings.ToLower(k)] {
			return nil, nil, false
		}
	}
	return keyConj, rest, len(key) > 0
}

func conjuncts(e ast.ExprNode) []ast.ExprNode {
	switch x := e.(type) {
	case nil:
		return nil
	case *ast.ParenthesesExpr:
		if b, ok := x.Expr.(*ast.BinaryOperationExpr); ok && b.Op == opcode.LogicAnd {
			return conjuncts(b)
		}
	case *ast.BinaryOperationExpr:
		if x.Op == opcode.LogicAnd {
			return append(conjuncts(x.L), conjuncts(x.R)...)
		}
	}
	return []ast.ExprNode{e}
}

// pinnedKey returns the key column (lower case) that c pins, or "": c
// is key = v (or v = key) where v is a lookup value of the key column
// (keyValue).
func pinnedKey(c ast.ExprNode, qual string, spec Spec) string {
	key := spec.Key
	for {
		p, ok := c.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		c = p.Expr
	}
	b, ok := c.(*ast.BinaryOperationExpr)
	if !ok || b.Op != opcode.EQ {
		return ""
	}
	for _, side := range [][2]ast.ExprNode{{b.L, b.R}, {b.R, b.L}} {
		col, ok := side[0].(*ast.ColumnNameExpr)
		if !ok || !isValue(side[1]) {
			continue
		}
		if t := col.Name.Table.L; t != "" && t != qual {
			continue
		}
		for _, k := range key {
			if strings.EqualFold(k, col.Name.Name.O) && keyValue(side[1], strings.ToLower(k), spec) {
				return strings.ToLower(k)
			}
		}
	}
	return ""
}

// keyValue reports whether comparing key column col with value v (which
// reads no column: isValue) is a lookup of the key under MySQL's
// comparison rules (MySQL manual, "Type Conversion in Expression
// Evaluation"): a parameter the method sends typed as the column; NULL
// (which matches nothing); a string literal for a string column (the
// column's collation decides, the key's own); an integer or decimal
// literal for an integer or DECIMAL column (compared exactly). Anything
// else converts: a string key compared with a number, a boolean or a
// float is compared as a floating-point number, so '0', '00' and '0x'
// all equal 0; a user variable's type is the one last assigned.
func keyValue(v ast.ExprNode, col string, spec Spec) bool {
	for {
		p, ok := v.(*ast.ParenthesesExpr)
		if !ok {
			break
		}
		v = p.Expr
	}
	class := spec.KeyTypes[col] // KeyNumber when nil
	switch x := v.(type) {
	case *ast.VariableExpr:
		n, ok := strings.CutPrefix(strings.ToLower(x.Name), paramVar)
		if !ok {
			return false
		}
		num, err := strconv.Atoi(n)
		if err != nil {
			return false
		}
		if spec.KeyParams == nil {
			return true
		}
		return spec.KeyParams[num] == col
	case *test_driver.ValueExpr:
		switch x.Datum.Kind() {
		case test_driver.KindNull:
			return true
		case test_driver.KindString, test_driver.KindBytes:
			return class == KeyString
		case test_driver.KindInt64, test_driver.KindUint64, test_driver.KindMysqlDecimal:
			return class == KeyNumber
		}
	}
	return false
}

// isValue reports whether e reads no column: a literal, a parameter or a
// user variable.
func isValue(e ast.ExprNode) bool {
	switch x := e.(type) {
	case *ast.ParenthesesExpr:
		return isValue(x.Expr)
	case *ast.VariableExpr:
		return !x.IsSystem && x.Value == nil
	case ast.ValueExpr:
		return true
	}
	return false
}

func paren(e ast.ExprNode) ast.ExprNode {
	if _, ok := e.(*ast.ParenthesesExpr); ok {
		return e
	}
	return &ast.ParenthesesExpr{Expr: e}
}

func setsColumn(list []*ast.Assignment, col string) bool {
	for _, a := range list {
		if strings.EqualFold(a.Column.Name.O, col) {
			return true
		}
	}
	return false
}

// rewriteUpdate guards UPDATE t SET ... WHERE <key = ...> [AND <rest>]:
//
//	UPDATE t SET ..., tok = LAST_INSERT_ID(?tok)
//	WHERE <key = ...> AND CASE WHEN <rest> THEN <guard> ELSE FALSE END
//
// where guard is CAST(~LAST_INSERT_ID(~tok) AS SIGNED) <= ?tok (or <):
// the stored token's complement is recorded when the WHERE clause reaches
// the row, the presented token when the SET clause runs (fenceimpl.MySQLByKey).
// The key conjuncts stay outside the CASE so that the primary key still
// finds the row; the guard runs only when the rest of the WHERE clause
// holds (CASE evaluates only the branch it takes), so a row the rest
// rejects reads as no row matched.
func rewriteUpdate(p *parser.Parser, sp *splicer, u *ast.UpdateStmt, spec Spec) (*Guarded, error) {
	if u.With != nil {
		return nil, fmt.Errorf("an UPDATE of fenced table %s with a WITH clause is not guarded on MySQL", spec.Table)
	}
	if u.MultipleTable {
		return nil, fmt.Errorf("a multi-table UPDATE of fenced table %s is not guarded on MySQL: update it alone, by key", spec.Table)
	}
	_, qual, err := target(u.TableRefs, spec)
	if err != nil {
		return nil, err
	}
	if setsColumn(u.List, spec.Column) {
		return nil, fmt.Errorf("the UPDATE sets token column %s itself; fencegen sets it to the presented token", spec.Column)
	}
	_, rest, ok := splitWhere(u.Where, qual, spec)
	if !ok {
		return rewriteUpdateAll(p, sp, u, spec)
	}
	stored, storedParams, err := storedRead(sp, u.TableRefs, u.Where, spec, u.List...)
	if err != nil {
		return nil, err
	}
	cols := assigned(u.List)
	tv := tokenVar(spec)
	set, err := expr(p, "LAST_INSERT_ID("+declared(tv, spec)+")")
	if err != nil {
		return nil, err
	}
	sp.setToken(u, spec)
	u.List = append(u.List, &ast.Assignment{Column: &ast.ColumnName{Name: ast.NewCIStr(spec.Column)}, Expr: set})
	guardText := "CAST(~LAST_INSERT_ID(~{c}) AS SIGNED) " + spec.op() + " ?"
	guard, err := expr(p, fmt.Sprintf("CAST(~LAST_INSERT_ID(~%s) AS SIGNED) %s %s", quote(spec.Column), spec.op(), tv))
	if err != nil {
		return nil, err
	}
	w := paren(u.Where)
	if len(rest) > 0 {
		sp.guardWhere(u.Where, guardText, spec, true)
		guard = &ast.CaseExpr{
			WhenClauses: []*ast.WhenClause{{Expr: w, Result: guard}},
			ElseClause:  ast.NewValueExpr(false, "", ""),
		}
	} else {
		sp.guardWhere(u.Where, guardText, spec, false)
	}
	u.Where = &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: w, R: guard}
	text, params, err := restore(u)
	if err != nil {
		return nil, err
	}
	return &Guarded{Form: ByKey, SQL: text, Params: params, Stored: stored, StoredParams: storedParams, Assigned: cols}, nil
}

// storedRead is the locked read of the stored token of the row a write
// by key targets: SELECT tok FROM t [AS a] WHERE (<where>) FOR UPDATE,
// and the parameters it binds (as Guarded.Params).
//
// For an UPDATE (set, its assignments), a second column says whether the
// row already holds what the UPDATE would write: every assigned column
// byte for byte equal (CAST(... AS BINARY) <=>) to its expression, and
// the token equal to the presented one. MySQLByKey reads it when the
// UPDATE changed nothing and the reply does not say whether it matched
// (a trigger cleared the last-insert id): the write would change nothing
// at the read either, so it is done. A column of Spec.StoreAs is
// compared with its expression converted as the column stores it (12
// for DECIMAL(6,2) reads 12.00); any other errs only towards "differs"
// (a value the column stores otherwise, such as 'ab ' for CHAR 'ab',
// compares unequal), which makes the write run again.
// A column of a character set that maps its text to Unicode one to one
// (unicodeCharsets) also compares equal when the two, converted to
// utf8mb4, are: storing the expression would convert it back to the
// same bytes (a latin1 column written from a utf8mb4 connection).
// Each expression is evaluated on the row as it is; if all of them equal
// their columns, MySQL's left-to-right assignments, each seeing the
// earlier ones' new values, see the same values.
// unicodeCharsets are the character sets whose text converts to Unicode
// and back unchanged, byte for byte (MySQL's latin1 is cp1252 with its
// five unassigned bytes mapped to the C1 controls): storedRead compares
// a column of one of them with an expression as utf8mb4 text. The
// others (cp932, sjis, ...) map some characters twice and compare byte
// for byte only.
const unicodeCharsets = "'ascii', 'latin1', 'utf8', 'utf8mb3', 'utf8mb4', 'ucs2', 'utf16', 'utf16le', 'utf32'"

func storedRead(sp *splicer, refs *ast.TableRefsClause, where ast.ExprNode, spec Spec, set ...*ast.Assignment) (string, []int, error) {
	from := fromTable(refs)
	cols := quote(spec.Column)
	var holes []hole
	if len(set) > 0 {
		var same string
		same, holes = holdsWrite(sp, spec, set, holes)
		cols += ", " + same
	}
	start, end := sp.whereSpan(where)
	w := "@" + holeVar + strconv.Itoa(len(holes))
	holes = append(holes, hole{node: where, start: start, end: end, paren: true})
	return sp.read(fmt.Sprintf("SELECT %s FROM %s WHERE %s%s FOR UPDATE", cols, from, w, allRowsLimit), holes)
}

// holdsWrite is the condition that a row already holds what the UPDATE
// assignments set would write, under the presented token (see
// storedRead): each assigned column equal to its expression, byte for
// byte or as utf8mb4 text, and the token column equal to the presented
// one (a ? the splicer binds to the token). A column of spec.StoreAs
// is compared byte for byte with the expression converted as storing
// it converts it (CAST(e AS DECIMAL(6,2)): 12 reads 12.00, a Go time's
// microseconds are dropped for a DATETIME), so that a value equal to
// the stored one after that conversion reads as unchanged, as MySQL's
// changed-rows count has it. The expressions are holes appended to
// holes, numbered after the ones there.
func holdsWrite(sp *splicer, spec Spec, set []*ast.Assignment, holes []hole) (string, []hole) {
	var same []string
	for _, a := range set {
		c := quote(a.Column.Name.O)
		// SET c = DEFAULT stores what DEFAULT(c) reads (DEFAULT alone
		// is no expression outside a SET or VALUES list).
		e := "DEFAULT(" + c + ")"
		if !bareDefault(a.Expr) {
			start, end, _ := sp.span(a.Expr, true, "WHERE", "ORDER", "LIMIT")
			e = "@" + holeVar + strconv.Itoa(len(holes))
			holes = append(holes, hole{node: a.Expr, start: start, end: end})
		}
		if as := spec.StoreAs[strings.ToLower(a.Column.Name.O)]; as != "" {
			// The expression as the column stores it; a value the
			// conversion makes NULL (a text that is no date) is not
			// one the column holds as NULL.
			same = append(same, fmt.Sprintf("(CAST(%[1]s AS BINARY) <=> CAST(CAST((%[2]s) AS %[3]s) AS BINARY) AND (%[1]s IS NULL) = ((%[2]s) IS NULL))", c, e, as))
			continue
		}
		same = append(same, fmt.Sprintf("(CAST(%[1]s AS BINARY) <=> CAST((%[2]s) AS BINARY) OR CHARSET(%[1]s) IN (%[3]s) AND CAST(CONVERT(%[1]s USING utf8mb4) AS BINARY) <=> CAST(CONVERT((%[2]s) USING utf8mb4) AS BINARY))", c, e, unicodeCharsets))
	}
	same = append(same, fmt.Sprintf("%s = ?", quote(spec.Column)))
	return strings.Join(same, " AND "), holes
}

// allRowsLimit ends each of the guard's reads: a SELECT with a LIMIT of
// its own returns the rows it gives whatever the session's
// sql_select_limit (MySQL manual and MariaDB KB, sql_select_limit), which
// a DSN may set (sql_select_limit=0 returns no row from a SELECT without
// one), so a stale write is never reported as a missing row (issue 27,
// trial t27s F4). 18446744073709551615 is the largest LIMIT, as the
// manual spells "all rows".
const allRowsLimit = " LIMIT 18446744073709551615"

// staleGuard is the guard of a write of several rows (All and Upsert):
// IF(tok <= ?tok, TRUE, (SELECT tok UNION ALL SELECT tok)) (or <). On a
// row whose stored token the presented one does not beat it evaluates a
// scalar subquery of two rows, which fails the statement with error 1242
// (ER_SUBQUERY_NO_1_ROW) under every sql_mode; IF evaluates only the
// branch it takes, and the subquery reads the row's own column, so it is
// never evaluated ahead of the row.
func staleGuard(tok, presented string, spec Spec) string {
	return fmt.Sprintf("IF(%[1]s %[2]s %[3]s, TRUE, (SELECT %[1]s UNION ALL SELECT %[1]s))", tok, spec.op(), presented)
}

// allWhere is the WHERE clause of a guarded write of several rows:
//
//	(<where>) AND CASE WHEN (<where>) THEN <staleGuard> ELSE FALSE END
//
// The first copy of where is what the optimizer reads to choose an index
// (its rows are the rows locked and scanned); the CASE evaluates the
// guard only on a row where accepts, whatever order the server evaluates
// the conjuncts in, so a stale row that the write does not match never
// fails it. Without a WHERE clause, the guard alone. Of a DELETE (del),
// the presented token is declared to the guard's BEFORE DELETE trigger
// (deleteDeclared).
func allWhere(p *parser.Parser, where ast.ExprNode, spec Spec, del bool) (ast.ExprNode, error) {
	presented := tokenVar(spec)
	if del {
		presented = deleteDeclared(presented, spec)
	}
	guard, err := expr(p, staleGuard(quote(spec.Column), presented, spec))
	if err != nil {
		return nil, err
	}
	if where == nil {
		return guard, nil
	}
	w := paren(where)
	c := &ast.CaseExpr{
		WhenClauses: []*ast.WhenClause{{Expr: w, Result: guard}},
		ElseClause:  ast.NewValueExpr(false, "", ""),
	}
	return &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: w, R: c}, nil
}

// allRefusals are the checks of a write of several rows: the statement's
// own subqueries are refused, since a refusal is the error a subquery of
// two rows raises (1242), which must be the guard's.
//
// ORDER BY with LIMIT is refused too (trial-my3 F1): unless an index gives
// the order, MariaDB/MySQL evaluates the WHERE clause, and so the guard,
// on every row it matches before it sorts them and keeps the first n, so
// a stale row the LIMIT leaves out would refuse the write; whether an
// index is used is the optimizer's choice at run time. LIMIT alone stops
// the scan at the n-th row written, and ORDER BY alone writes every row
// matched: both are guarded.
func allRefusals(n ast.Node, verb string, spec Spec, order *ast.OrderByClause, limit *ast.Limit) error {
	if err := spec.transactional(diag.A(verb) + " that may match several rows"); err != nil {
		return err
	}
	if order != nil && limit != nil {
		return fmt.Errorf("ORDER BY ... LIMIT in %s of fenced table %s that may match several rows is not guarded on MySQL: unless an index gives the order, MariaDB/MySQL checks every row the WHERE clause matches before it sorts and limits them, so a stale row the LIMIT leaves out would refuse the write; select the keys first (SELECT ... ORDER BY ... LIMIT) and write them by key or with WHERE <key> IN (sqlc.slice(...)), or drop ORDER BY (LIMIT alone is guarded)", diag.A(verb), spec.Table)
	}
	if hasSubquery(n) {
		return fmt.Errorf("a subquery in %s of fenced table %s that may match several rows is not guarded on MySQL: the guard's refusal is the error a subquery of two rows raises (1242), which must be its own; pin the primary key with = (one row), or write the subquery's result as a parameter", diag.A(verb), spec.Table)
	}
	return nil
}

// allRead is the read of the rows a write of several rows matches (see
// Guarded.Stored for All): SELECT COUNT(*), COALESCE(MAX(CASE WHEN NOT
// (tok <= ?) THEN tok END), MAX(tok), 0), COUNT(CASE WHEN NOT (tok <= ?)
// THEN 1 END) FROM t WHERE <where> FOR UPDATE.
//
// For an UPDATE (set, its assignments) a fourth column counts the rows
// that do not already hold what it writes (COUNT(CASE WHEN NOT
// (<holdsWrite>) THEN 1 END)): when the UPDATE changed nothing and a
// trigger cleared the reply's last-insert id, none such under accepted
// tokens means the write is done whatever the DSN's affected-rows rule
// (fenceimpl.MySQLAll), as for a write by key (storedRead).
func allRead(sp *splicer, refs *ast.TableRefsClause, where ast.ExprNode, spec Spec, set ...*ast.Assignment) (string, []int, error) {
	from := fromTable(refs)
	tok := quote(spec.Column)
	refused := fmt.Sprintf("NOT (%s %s ?)", tok, spec.op())
	cols := fmt.Sprintf("COUNT(*), COALESCE(MAX(CASE WHEN %[2]s THEN %[1]s END), MAX(%[1]s), 0), COUNT(CASE WHEN %[2]s THEN 1 END)", tok, refused)
	var holes []hole
	if len(set) > 0 {
		var same string
		same, holes = holdsWrite(sp, spec, set, holes)
		cols += ", COUNT(CASE WHEN NOT (" + same + ") THEN 1 END)"
	}
	text := "SELECT " + cols + " FROM " + from
	if where != nil {
		start, end := sp.whereSpan(where)
		text += " WHERE @" + holeVar + strconv.Itoa(len(holes))
		holes = append(holes, hole{node: where, start: start, end: end, paren: true})
	}
	return sp.read(text+allRowsLimit+" FOR UPDATE", holes)
}

// rewriteUpdateAll guards an UPDATE that may match several rows:
//
//	UPDATE t SET ..., tok = LAST_INSERT_ID(?tok) WHERE <allWhere>
//
// all or nothing: a matched stale row fails the statement (1242), which
// InnoDB rolls back whole. The reply's last-insert id is the presented
// token when any row matched (its SET ran), and 0 when none did or a
// trigger cleared it (fenceimpl.MySQLAll). ORDER BY or LIMIT stays: the
// rows the guard sees are the rows the UPDATE writes (both together are
// refused, see allRefusals).
func rewriteUpdateAll(p *parser.Parser, sp *splicer, u *ast.UpdateStmt, spec Spec) (*Guarded, error) {
	if err := allRefusals(u, "UPDATE", spec, u.Order, u.Limit); err != nil {
		return nil, err
	}
	stored, storedParams, err := allRead(sp, u.TableRefs, u.Where, spec, u.List...)
	if err != nil {
		return nil, err
	}
	cols := assigned(u.List)
	set, err := expr(p, "LAST_INSERT_ID("+declared(tokenVar(spec), spec)+")")
	if err != nil {
		return nil, err
	}
	sp.setToken(u, spec)
	sp.allWhere(u.Where, spec, false)
	u.List = append(u.List, &ast.Assignment{Column: &ast.ColumnName{Name: ast.NewCIStr(spec.Column)}, Expr: set})
	if u.Where, err = allWhere(p, u.Where, spec, false); err != nil {
		return nil, err
	}
	text, params, err := restore(u)
	if err != nil {
		return nil, err
	}
	return &Guarded{Form: All, SQL: text, Params: params, Stored: stored, StoredParams: storedParams, Assigned: cols}, nil
}

// rewriteDeleteAll guards a DELETE that may match several rows:
//
//	DELETE FROM t WHERE <allWhere>
//
// all or nothing, as rewriteUpdateAll. A DELETE's affected rows are the
// rows it deleted, whatever the DSN says.
func rewriteDeleteAll(p *parser.Parser, sp *splicer, d *ast.DeleteStmt, spec Spec) (*Guarded, error) {
	if err := allRefusals(d, "DELETE", spec, d.Order, d.Limit); err != nil {
		return nil, err
	}
	stored, storedParams, err := allRead(sp, d.TableRefs, d.Where, spec)
	if err != nil {
		return nil, err
	}
	sp.allWhere(d.Where, spec, true)
	if d.Where, err = allWhere(p, d.Where, spec, true); err != nil {
		return nil, err
	}
	text, params, err := restore(d)
	if err != nil {
		return nil, err
	}
	return &Guarded{Form: All, SQL: text, Params: params, Stored: stored, StoredParams: storedParams}, nil
}

// rewriteDelete guards DELETE FROM t WHERE <where pinning the key>:
//
//	DELETE FROM t WHERE (<where>) AND tok <= IF(..., @fencegen_presented := ?tok)
//
// (the token declared to the guard's BEFORE DELETE trigger for this
// statement, deleteDeclared)
// with the locked read SELECT tok FROM t WHERE (<where>) FOR UPDATE, run
// when it deleted nothing (fenceimpl.MySQLByKey).
func rewriteDelete(p *parser.Parser, sp *splicer, d *ast.DeleteStmt, spec Spec) (*Guarded, error) {
	if d.With != nil {
		return nil, fmt.Errorf("a DELETE from fenced table %s with a WITH clause is not guarded on MySQL", spec.Table)
	}
	if d.IsMultiTable {
		return nil, fmt.Errorf("a multi-table DELETE from fenced table %s is not guarded on MySQL: delete from it alone, by key", spec.Table)
	}
	_, qual, err := target(d.TableRefs, spec)
	if err != nil {
		return nil, err
	}
	if _, _, ok := splitWhere(d.Where, qual, spec); !ok {
		return rewriteDeleteAll(p, sp, d, spec)
	}
	stored, storedParams, err := storedRead(sp, d.TableRefs, d.Where, spec)
	if err != nil {
		return nil, err
	}
	where := paren(d.Where)
	sp.guardWhere(d.Where, "{c} "+spec.op()+" "+deleteDeclared("?", spec), spec, false)
	guard, err := expr(p, fmt.Sprintf("%s %s %s", quote(spec.Column), spec.op(), deleteDeclared(tokenVar(spec), spec)))
	if err != nil {
		return nil, err
	}
	d.Where = &ast.BinaryOperationExpr{Op: opcode.LogicAnd, L: where, R: guard}
	text, params, err := restore(d)
	if err != nil {
		return nil, err
	}
	return &Guarded{Form: ByKey, SQL: text, Params: params, Stored: stored, StoredParams: storedParams}, nil
}

// rewriteInsert stores the token in an INSERT (Store) and guards ON
// DUPLICATE KEY UPDATE (Upsert): each assignment c = e becomes
//
//	c = IF(tok <= VALUES(tok), e, c)
//
// and tok = IF(CAST(~LAST_INSERT_ID(~tok) AS SIGNED) <= VALUES(tok),
// VALUES(tok), tok) comes last: MySQL runs the assignments left to right,
// each seeing the earlier ones' new values, so every condition reads the
// stored token, which changes only in the last.
func rewriteInsert(p *parser.Parser, sp *splicer, in *ast.InsertStmt, spec Spec) (*Guarded, error) {
	if in.IsReplace {
		return nil, fmt.Errorf("REPLACE into fenced table %s deletes the row it conflicts with without checking its token; use INSERT ... ON DUPLICATE KEY UPDATE", spec.Table)
	}
	if in.Select != nil {
		return nil, fmt.Errorf("INSERT ... SELECT into fenced table %s is not guarded on MySQL: insert VALUES rows", spec.Table)
	}
	if _, _, err := target(in.Table, spec); err != nil {
		return nil, err
	}
	if len(in.Columns) == 0 {
		return nil, fmt.Errorf("the INSERT into fenced table %s names no columns; name them, so that fencegen can add token column %s", spec.Table, spec.Column)
	}
	for _, c := range in.Columns {
		if strings.EqualFold(c.Name.O, spec.Column) {
			return nil, fmt.Errorf("the INSERT sets token column %s itself; fencegen sets it to the presented token", spec.Column)
		}
	}
	tv := tokenVar(spec)
	sp.insertToken(in, spec)
	in.Columns = append(in.Columns, &ast.ColumnName{Name: ast.NewCIStr(spec.Column)})
	for i := range in.Lists {
		v, err := expr(p, tv)
		if err != nil {
			return nil, err
		}
		in.Lists[i] = append(in.Lists[i], v)
	}
	form := Store
	if len(in.OnDuplicate) > 0 {
		form = Upsert
		if len(in.Lists) > 1 {
			if err := spec.transactional(fmt.Sprintf("an upsert of %d rows", len(in.Lists))); err != nil {
				return nil, err
			}
		}
		if hasSubquery(in) {
			return nil, fmt.Errorf("a subquery in an upsert of fenced table %s is not guarded on MySQL: the guard's refusal is the error a subquery of two rows raises (1242), which must be its own", spec.Table)
		}
		if setsColumn(in.OnDuplicate, spec.Column) {
			return nil, fmt.Errorf("the ON DUPLICATE KEY UPDATE sets token column %s itself; fencegen sets it to the presented token when it beats the stored one", spec.Column)
		}
		tok := quote(spec.Column)
		sp.upsert(in, spec)
		for _, a := range in.OnDuplicate {
			cond, err := expr(p, fmt.Sprintf("%s %s VALUES(%s)", tok, spec.op(), tok))
			if err != nil {
				return nil, err
			}
			self := &ast.ColumnNameExpr{Name: &ast.ColumnName{Name: a.Column.Name}}
			v := a.Expr
			if bareDefault(v) {
				// sp.upsert writes DEFAULT(c) for it: the IF's branch is
				// an expression, where DEFAULT alone is not.
				v = &ast.DefaultExpr{Name: &ast.ColumnName{Name: a.Column.Name}}
			}
			a.Expr = &ast.FuncCallExpr{FnName: ast.NewCIStr("IF"), Args: []ast.ExprNode{cond, v, self}}
		}
		last, err := expr(p, fmt.Sprintf("IF(%s %s VALUES(%s), %s, (SELECT %s UNION ALL SELECT %s))", tok, spec.op(), tok, upsertToken(tok, spec), tok, tok))
		if err != nil {
			return nil, err
		}
		in.OnDuplicate = append(in.OnDuplicate, &ast.Assignment{Column: &ast.ColumnName{Name: ast.NewCIStr(spec.Column)}, Expr: last})
	}
	var stored string
	var storedParams []int
	if form == Upsert {
		stored, storedParams = upsertStoredRead(sp, in, spec)
	}
	text, params, err := restore(in)
	if err != nil {
		return nil, err
	}
	if slices.Contains(params, 0) {
		return nil, fmt.Errorf("internal error: a parameter of the guarded INSERT lost its number")
	}
	return &Guarded{Form: form, SQL: text, Params: params, Stored: stored, StoredParams: storedParams, Rows: len(in.Lists)}, nil
}

// upsertStoredRead is the read of the stored tokens that reports a
// refused upsert's Stored (and, of several rows, its Rows): SELECT tok
// FROM t WHERE (k = v) OR (u = w) ..., each row of the table the INSERT
// may have met by a unique key (the primary key or another: spec's
// UniqueKeys, else Key) whose every column a VALUES row gives a value
// that reads no column, for every VALUES row. It is "" when no row gives
// a whole key; a conflict on a key it does not read leaves the refusal's
// stored token unknown (fence.StaleError.StoredUnknown), never a wrong
// one.
func upsertStoredRead(sp *splicer, in *ast.InsertStmt, spec Spec) (string, []int) {
	keys := spec.UniqueKeys
	if len(keys) == 0 && len(spec.Key) > 0 {
		keys = [][]string{spec.Key}
	}
	if len(keys) == 0 || len(in.Lists) == 0 {
		return "", nil
	}
	var rows []string
	var holes []hole
	for _, list := range in.Lists {
	key:
		for _, key := range keys {
			var conds []string
			var hs []hole
			for _, k := range key {
				found := false
				for i, c := range in.Columns {
					if !strings.EqualFold(c.Name.O, k) || i >= len(list) || !isValue(list[i]) {
						continue
					}
					start, end, _ := sp.span(list[i], true)
					conds = append(conds, quote(k)+" = @"+holeVar+strconv.Itoa(len(holes)+len(hs)))
					hs = append(hs, hole{node: list[i], start: start, end: end})
					found = true
					break
				}
				if !found {
					continue key
				}
			}
			rows = append(rows, strings.Join(conds, " AND "))
			holes = append(holes, hs...)
		}
	}
	if len(rows) == 0 {
		return "", nil
	}
	from := tableName(in.Table.TableRefs.Left.(*ast.TableSource).Source.(*ast.TableName))
	where := rows[0]
	if len(rows) > 1 {
		where = "(" + strings.Join(rows, ") OR (") + ")"
	}
	text, params, err := sp.read(fmt.Sprintf("SELECT %s FROM %s WHERE %s%s", quote(spec.Column), from, where, allRowsLimit), holes)
	if err != nil {
		return "", nil
	}
	return text, params
}

// bareDefault reports whether e is the keyword DEFAULT alone (SET c =
// DEFAULT), which stores the column's default: what DEFAULT(c) reads.
func bareDefault(e ast.ExprNode) bool {
	d, ok := e.(*ast.DefaultExpr)
	return ok && d.Name == nil
}

// fromTable is the one table of a single-table UPDATE or DELETE (refs,
// checked by target) as a read's FROM names it: quoted, with its schema
// and its alias when it has them.
func fromTable(refs *ast.TableRefsClause) string {
	ts := refs.TableRefs.Left.(*ast.TableSource)
	from := tableName(ts.Source.(*ast.TableName))
	if ts.AsName.O != "" {
		from += " AS " + quote(ts.AsName.O)
	}
	return from
}

// tableName is tn quoted, with its schema when it names one.
func tableName(tn *ast.TableName) string {
	if tn.Schema.O != "" {
		return quote(tn.Schema.O) + "." + quote(tn.Name.O)
	}
	return quote(tn.Name.O)
}

// hasSubquery reports whether n holds a subquery.
func hasSubquery(n ast.Node) bool {
	v := &subqueryFinder{}
	n.Accept(v)
	return v.found
}

type subqueryFinder struct{ found bool }

func (v *subqueryFinder) Enter(n ast.Node) (ast.Node, bool) {
	if _, ok := n.(*ast.SubqueryExpr); ok {
		v.found = true
	}
	return n, v.found
}
func (v *subqueryFinder) Leave(n ast.Node) (ast.Node, bool) { return n, true }
