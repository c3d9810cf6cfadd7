package analyze

import (
	"fmt"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"go/token"
	"regexp"
	"strings"
	"sync"
)

// Query commands: the second word of a "-- name: Name :command" line
// (sqlc docs, "Query annotations").
const (
	CmdOne        = ":one"        // one row, an error when there is none
	CmdMany       = ":many"       // every row, as a slice
	CmdExec       = ":exec"       // no result but the error
	CmdExecRows   = ":execrows"   // the number of rows affected
	CmdExecResult = ":execresult" // the command tag (pgconn.CommandTag)
	// CmdExecLastID is sqlc's MySQL-only command; PostgreSQL has no last
	// insert id (use RETURNING id with :one), so it is refused.
	CmdExecLastID = ":execlastid"
	CmdCopyFrom   = ":copyfrom"  // many rows inserted with COPY FROM
	CmdBatchExec  = ":batchexec" // a pgx batch of :exec items
	CmdBatchMany  = ":batchmany" // a pgx batch of :many items
	CmdBatchOne   = ":batchone"  // a pgx batch of :one items
)

// Commands are sqlc's query commands that fencegen generates for pgx/v5.
var Commands = map[string]bool{
	CmdOne: true, CmdMany: true, CmdExec: true, CmdExecRows: true, CmdExecResult: true,
	CmdCopyFrom: true, CmdBatchExec: true, CmdBatchMany: true, CmdBatchOne: true,
	// sqlc's MySQL command: accepted as sqlc accepts it with PostgreSQL
	// (database/sql: result.LastInsertId(), which PostgreSQL's drivers
	// refuse when run; pgx/v5: no method), refused for a fenced write.
	CmdExecLastID: true,
}

// IsBatch reports whether cmd is one of the pgx batch commands.
func IsBatch(cmd string) bool {
	return cmd == CmdBatchExec || cmd == CmdBatchMany || cmd == CmdBatchOne
}

var nameLine = regexp.MustCompile(`^--\s*name:\s*(\S*)\s*(\S*)\s*(.*)$`)

// nearNameLine matches a comment that is an annotation but for the case
// of "name" ("-- Name: GetOrder :one"), after the "--".
var nearNameLine = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?i:name)\s*:\s*([A-Za-z_][A-Za-z0-9_]*)\s+(:(?i:one|many|exec|execrows|execresult|copyfrom|batchexec|batchmany|batchone))\b`)
})

// Annotation is a parsed query annotation block: the comment lines above a
// query.
type Annotation struct {
	Name string
	Cmd  string
	// Doc holds the other comment lines, in order, each the text after
	// its "--" (a leading space kept, as sqlc keeps it).
	Doc []string
	// Strict is set by "-- @fence strict", NonStrict by "-- @fence non-strict";
	// NonStrictLine and NonStrictCol locate the latter.
	Strict, NonStrict           bool
	NonStrictLine, NonStrictCol int
	// OptOut is the reason given by "-- @fence off: <reason>": the query's
	// writes to fenced tables are generated without the guard, and vet
	// lists them. OptOutLine and OptOutCol locate the comment.
	OptOut                string
	OptOutLine, OptOutCol int
	// Sweep is set by "-- @fence sweep": a fenced UPDATE or DELETE of
	// many rows for which matching no row is not an error (Fence.Sweep).
	// SweepLine and SweepCol locate the comment.
	Sweep               bool
	SweepLine, SweepCol int
	// Near are the comment lines that look like a misspelled @fence
	// flag ("-- @fnce strict", "-- @strict", "-- fence strict"), with
	// what they mean: sqlc keeps them as comment lines and fencegen
	// reads no flag from them, so each is a vet note (nearFenceFlag).
	Near []locatedMsg
	// Line and Col locate the "-- name:" line; NameCol the name itself.
	Line, Col, NameCol, CmdCol int
}

// parseAnnotation reads the comment block between two statements. lines
// are the comment lines with their 1-based line numbers; problems are
// returned as messages with columns.
func parseAnnotation(lines []commentLine) (*Annotation, []locatedMsg) {
	var a *Annotation
	var doc []string
	var errs []locatedMsg
	var strict, nonStrict bool
	var strictAt, nonStrictAt commentLine
	var optOut *commentLine
	var optOutReason string
	var sweep *commentLine
	var flags []commentLine // the @fence lines, checked for where they bind
	var near []locatedMsg   // lines that look like a misspelled @fence flag
	for _, l := range lines {
		text := strings.TrimSpace(l.text)
		if m := nameLine.FindStringSubmatch(text); m != nil && strings.HasPrefix(strings.TrimSpace(strings.TrimPrefix(text, "--")), "name:") {
			if strings.HasPrefix(m[1], ":") {
				// "-- name: :one": the name is missing, not the command.
				m = []string{m[0], "", m[1], strings.TrimSpace(m[2] + " " + m[3])}
			}
			if a != nil {
				// Like sqlc, the first "-- name:" line of a block names the
				// query; a later one is dropped, even from the doc comment.
				continue
			}
			a = &Annotation{Name: m[1], Cmd: m[2], Line: l.line, Col: l.col}
			a.NameCol = l.col + strings.Index(l.text, "name:") + len("name:")
			if m[1] != "" {
				a.NameCol = l.col + strings.Index(l.text, m[1])
			}
			if m[2] != "" {
				a.CmdCol = l.col + strings.LastIndex(l.text, m[2])
			} else {
				a.CmdCol = l.col + len(strings.TrimRight(l.text, " \t"))
			}
			switch {
			case m[1] == "":
				errs = append(errs, locatedMsg{line: l.line, col: a.NameCol, msg: "missing query name after \"-- name:\""})
			case !token.IsIdentifier(m[1]):
				errs = append(errs, locatedMsg{line: l.line, col: a.NameCol, msg: fmt.Sprintf("query name %q is not a valid Go identifier", m[1])})
			case m[1] == "_":
				// sqlc generates a name starting with "_" (_Purge: an
				// unexported method, which compiles), but not the blank
				// identifier, which its code reads as a value.
				errs = append(errs, locatedMsg{line: l.line, col: a.NameCol, msg: fmt.Sprintf("query name %q is the blank identifier: it names a Go method and the constant holding the SQL", m[1])})
			}
			switch {
			case m[2] == "":
				errs = append(errs, locatedMsg{line: l.line, col: a.CmdCol, msg: fmt.Sprintf("query %s: missing command (one of :one, :many, :exec, :execrows, :execresult, :copyfrom, :batchexec, :batchmany, :batchone)", m[1])})
			case !Commands[m[2]]:
				errs = append(errs, locatedMsg{line: l.line, col: a.CmdCol, msg: fmt.Sprintf("query %s: unknown command %q (want one of :one, :many, :exec, :execrows, :execresult, :copyfrom, :batchexec, :batchmany, :batchone)", m[1], m[2])})
			}
			if rest := strings.TrimSpace(m[3]); rest != "" {
				errs = append(errs, locatedMsg{line: l.line, col: a.CmdCol + len(m[2]) + 1, msg: fmt.Sprintf("query %s: unexpected text %q after the command", m[1], rest)})
			}
			continue
		}
		body := strings.TrimSpace(strings.TrimPrefix(text, "--"))
		if m := nearNameLine().FindStringSubmatch(body); m != nil && a == nil {
			// "-- Name: GetOrder :one", "-- name : GetOrder :one": sqlc
			// reads only "name:" in lower case and drops the statement
			// without a word.
			errs = append(errs, locatedMsg{line: l.line, col: l.col, msg: fmt.Sprintf("%q is not a query annotation, and the statement below would be dropped: write \"-- name: %s %s\" (\"name\" in lower case, the colon right after it)", text, m[1], strings.ToLower(m[2]))})
			continue
		}
		if len(body) >= len("@fence") && strings.EqualFold(body[:len("@fence")], "@fence") {
			// Case-insensitive, so that "@Fence strict" can never be taken
			// for an ordinary comment and leave a query non-strict.
			flag := strings.TrimSpace(body[len("@fence"):])
			flags = append(flags, l)
			if lf := strings.ToLower(flag); lf == "strict" || lf == "non-strict" || lf == "nonstrict" || lf == "off" || lf == "sweep" {
				flag = lf
			} else if strings.HasPrefix(lf, "off") {
				flag = "off" + flag[3:]
			}
			switch {
			case flag == "strict":
				strict, strictAt = true, l
			case flag == "non-strict" || flag == "nonstrict":
				nonStrict, nonStrictAt = true, l
			case flag == "sweep":
				ll := l
				sweep = &ll
			case flag == "off" || strings.HasPrefix(flag, "off:") || strings.HasPrefix(flag, "off "):
				reason, hasColon := strings.CutPrefix(strings.TrimSpace(strings.TrimPrefix(flag, "off")), ":")
				reason = strings.TrimSpace(reason)
				switch {
				case optOut != nil:
					errs = append(errs, locatedMsg{line: l.line, col: l.col, msg: fmt.Sprintf("a second @fence off (the first is on line %d); give one reason", optOut.line)})
				case !hasColon || reason == "":
					errs = append(errs, locatedMsg{line: l.line, col: l.col, msg: "@fence off needs a reason: write \"-- @fence off: <why this write may skip the fencing guard>\"; the reason is listed by fencegen vet"})
				default:
					ll := l
					optOut, optOutReason = &ll, reason
				}
			default:
				errs = append(errs, locatedMsg{line: l.line, col: l.col, msg: fmt.Sprintf("unknown flag %q: want \"@fence strict\", \"@fence non-strict\", \"@fence sweep\" or \"@fence off: <reason>\"", body)})
			}
			continue
		}
		if note, param := nearFenceFlag(body); note != "" {
			// sqlc keeps the line as it keeps any comment line, so the
			// doc comment stays sqlc's; fencegen reads no flag from it,
			// which vet says (trial tnew F5: "-- @fnce strict" left a
			// write the author meant strict non-strict without a word).
			near = append(near, locatedMsg{line: l.line, col: l.col, msg: note, param: param})
		}
		if strings.HasPrefix(body, "@") {
			// sqlc flags such as @sqlc-vet-disable are accepted and ignored.
			continue
		}
		if strings.HasPrefix(text, "--") {
			// As sqlc keeps it: the text after "--", its leading
			// space included ("-- a" gives " a", "--a" gives "a").
			doc = append(doc, strings.TrimPrefix(text, "--"))
		}
	}
	if a != nil {
		errs = append(errs, unboundFlags(a, lines, flags)...)
		a.Near = near
		a.Doc = doc
		a.Strict, a.NonStrict = strict, nonStrict
		a.NonStrictLine, a.NonStrictCol = nonStrictAt.line, nonStrictAt.col
		if strict && nonStrict {
			second := nonStrictAt // reported at the later of the two
			if strictAt.line > nonStrictAt.line {
				second = strictAt
			}
			errs = append(errs, locatedMsg{line: second.line, col: second.col, msg: "query " + a.Name + ": both @fence strict and @fence non-strict"})
		}
		if sweep != nil {
			a.Sweep, a.SweepLine, a.SweepCol = true, sweep.line, sweep.col
			if optOut != nil {
				errs = append(errs, locatedMsg{line: sweep.line, col: sweep.col, msg: "query " + a.Name + ": @fence sweep with @fence off; an opted-out write has no guard, drop one of them"})
			}
		}
		if optOut != nil {
			a.OptOut, a.OptOutLine, a.OptOutCol = optOutReason, optOut.line, optOut.col
			if strict || nonStrict {
				errs = append(errs, locatedMsg{line: optOut.line, col: optOut.col, msg: "query " + a.Name + ": @fence off with @fence strict or non-strict; an opted-out write has no guard, drop one of them"})
			}
		}
	}
	return a, errs
}

// fenceFlags are the words that follow @fence, as a flag line is read.
var fenceFlags = []string{"strict", "non-strict", "sweep", "off"}

// sqlcFlags are sqlc v1.31.1's own comment flags (its metadata package:
// @sqlc-vet-disable, and @param's name and type), which are no typo.
var sqlcFlags = map[string]bool{"@sqlc-vet-disable": true, "@param": true}

// nearFenceFlag returns, for the text of a comment line after its "--"
// that is no @fence flag, what it looks like it means to be when it looks
// like a misspelled one, else "": an @-word within two edits of @fence
// ("@fnce strict", "@fenc"), a lone flag word ("@strict", "@non-strict",
// "@sweep", "@off: why"), any other @-word of an annotation block that
// is not sqlc's own flag, and "fence" (within one edit) followed by a
// flag word without its @ ("fence strict").
func nearFenceFlag(body string) (note, param string) {
	words := strings.Fields(body)
	if len(words) == 0 {
		return "", ""
	}
	first := strings.ToLower(strings.TrimRight(words[0], ":"))
	flagWord := func(w string) string {
		w = strings.ToLower(strings.TrimRight(w, ":"))
		for _, f := range fenceFlags {
			if w == f || len(w) > 3 && diag.Distance(w, f) <= 1 || w == "nonstrict" && f == "non-strict" {
				return f
			}
		}
		return ""
	}
	meant := func(flag string) string {
		if flag == "off" {
			return "-- @fence off: <reason>"
		}
		return "-- @fence " + flag
	}
	const tail = ", so the query is generated without it (a comment line, as in sqlc)"
	switch {
	case strings.HasPrefix(first, "@") && first != "@fence" && diag.Distance(first[1:], "fence") <= 2:
		if len(words) > 1 && flagWord(words[1]) != "" {
			f := flagWord(words[1])
			return fmt.Sprintf("%q is not a fencegen flag%s: did you mean %q?", "-- "+body, tail, meant(f)), ""
		}
		return fmt.Sprintf("%q is not a fencegen flag%s: did you mean \"-- @fence strict\", \"-- @fence non-strict\", \"-- @fence sweep\" or \"-- @fence off: <reason>\"?", "-- "+body, tail), ""
	case strings.HasPrefix(first, "@") && flagWord(first[1:]) != "":
		return fmt.Sprintf("%q is not a fencegen flag%s: did you mean %q?", "-- "+body, tail, meant(flagWord(first[1:]))), ""
	case strings.HasPrefix(first, "@") && len(first) > 1 && !sqlcFlags[first] && !strings.HasSuffix(words[0], ":"):
		// "@alias: the alias to look up" documents a parameter, as
		// projects do; so does an @-word the statement uses as its
		// parameter (checked by the caller: analyze drops the note).
		return fmt.Sprintf("%q is neither a fencegen flag nor one of sqlc's%s (fencegen's flags are \"-- @fence strict\", \"-- @fence non-strict\", \"-- @fence sweep\" and \"-- @fence off: <reason>\")", "-- "+body, tail), words[0][1:]
	case !strings.HasPrefix(first, "@") && diag.Distance(first, "fence") <= 1 && len(words) > 1 && flagWord(words[1]) != "":
		return fmt.Sprintf("%q is not a fencegen flag%s: did you mean %q?", "-- "+body, tail, meant(flagWord(words[1]))), ""
	}
	return "", ""
}

// unboundFlags reports the @fence lines of a's comment block that do not
// clearly belong to query a (issue 24): a flag binds to the query whose
// "-- name:" line it is under (before the statement) or right above,
// with no blank or code line between. One on the line where the previous
// statement ends ("...; -- @fence off: ..."), or above the "-- name:"
// line with a blank line between, reads as the previous query's
// annotation, and sqlc's comment attribution would give it to a: an
// @fence off there would silently unguard the wrong query.
func unboundFlags(a *Annotation, lines []commentLine, flags []commentLine) []locatedMsg {
	var errs []locatedMsg
	comment := map[int]bool{}
	for _, l := range lines {
		comment[l.line] = true
	}
	for _, f := range flags {
		what := strings.Fields(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(f.text), "--")))
		flag := "@fence"
		if len(what) > 1 {
			flag = "@fence " + strings.TrimSuffix(strings.ToLower(what[1]), ":")
		}
		switch {
		case f.trailing:
			errs = append(errs, locatedMsg{line: f.line, col: f.col, msg: fmt.Sprintf("%s follows the previous statement on its line, so it is not clear which query it is for (sqlc's comment attribution gives it to query %s, on line %d); put it in the comment block of the query it is meant for, on the line under its \"-- name:\" line", flag, a.Name, a.Line)})
		case f.line < a.Line:
			for n := f.line + 1; n < a.Line; n++ {
				if !comment[n] {
					errs = append(errs, locatedMsg{line: f.line, col: f.col, msg: fmt.Sprintf("%s is separated from query %s's \"-- name:\" line (line %d) by a blank line, so it is not clear whether it is for %s or for the query above it; put it in the comment block of the query it is meant for, on the line under its \"-- name:\" line", flag, a.Name, a.Line, a.Name)})
					break
				}
			}
		}
	}
	return errs
}

type commentLine struct {
	line, col int
	text      string
	// trailing is set when text precedes the comment on its line (the
	// end of the previous statement: "...; -- @fence off: ...").
	trailing bool
}

// locatedMsg is a problem of an annotation, at its place in the
// annotation (sqlc reports those at the statement below it instead; the
// annotation is where the cause is).
type locatedMsg struct {
	line, col int
	msg       string
	// param is, for a note of an unknown @-word (nearFenceFlag), the
	// word without its @: no note when the statement uses it as a
	// parameter (@word), which the comment then documents.
	param string
}

// sqlcStmtPos is where sqlc reports a problem with a statement's
// annotation or command: the file's start for the first statement (whose
// text PostgreSQL's parser starts at offset 0), otherwise the first byte
// after the previous semicolon that is neither white space nor part of a
// "--" comment (a block comment is not skipped). lead is the statement's
// Lead.
func sqlcStmtPos(src []byte, lead, start int) int {
	if lead == 0 {
		return 0
	}
	i := lead
	for i < start {
		switch {
		case src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r' || src[i] == '\f':
			i++
		case src[i] == '-' && i+1 < len(src) && src[i+1] == '-':
			for i < start && src[i] != '\n' {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// commentLines returns the "--" comment lines of src[start:end] with their
// positions. Block comments are skipped.
func commentLines(src []byte, start, end int) []commentLine {
	return commentLinesOf(src, start, end, false)
}

// commentLinesOf is commentLines; hash reads MySQL's # comments too
// ("# name: X :one" is sqlc's third annotation form on MySQL), each as a
// "--" line.
func commentLinesOf(src []byte, start, end int, hash bool) []commentLine {
	var out []commentLine
	line, col := diag.Position(src, start)
	i := start
	lineStart := start - col + 1
	for i < end {
		switch {
		case src[i] == '\n':
			line++
			i++
			lineStart = i
		case src[i] == '-' && i+1 < end && src[i+1] == '-':
			j := i
			for j < end && src[j] != '\n' {
				j++
			}
			out = append(out, commentLine{line: line, col: i - lineStart + 1, text: strings.TrimRight(string(src[i:j]), "\r"), trailing: strings.TrimSpace(string(src[max(lineStart, 0):i])) != ""})
			i = j
		case hash && src[i] == '#':
			j := i
			for j < end && src[j] != '\n' {
				j++
			}
			out = append(out, commentLine{line: line, col: i - lineStart + 1, text: "--" + strings.TrimRight(string(src[i+1:j]), "\r"), trailing: strings.TrimSpace(string(src[max(lineStart, 0):i])) != ""})
			i = j
		case src[i] == '/' && i+1 < end && src[i+1] == '*':
			// A block comment (/* name: X :one */ is sqlc's other annotation
			// form): each of its lines reads as a "--" line.
			j := strings.Index(string(src[i+2:end]), "*/")
			if j < 0 {
				j = end - i - 2
			}
			body := string(src[i+2 : i+2+j])
			col := i - lineStart + 1
			for k, l := range strings.Split(body, "\n") {
				l = strings.TrimSpace(strings.TrimRight(l, "\r"))
				l = strings.TrimSpace(strings.TrimPrefix(l, "*"))
				if l != "" {
					out = append(out, commentLine{line: line + k, col: col, text: "-- " + l, trailing: k == 0 && strings.TrimSpace(string(src[max(lineStart, 0):i])) != ""})
				}
				col = 1
			}
			line += strings.Count(body, "\n")
			i += 2 + j + 2
			if i > end {
				i = end
			}
			if nl := strings.LastIndexByte(string(src[:min(i, len(src))]), '\n'); nl >= 0 {
				lineStart = nl + 1
			}
		default:
			i++
		}
	}
	return out
}
