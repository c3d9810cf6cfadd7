package mysqlwrites

import (
	"regexp"
	"strings"
	"sync"
)

// dropTriggerText is DROP TRIGGER in a string literal (the text of a
// statement PREPAREd or EXECUTEd IMMEDIATE).
var dropTriggerText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bDROP\s+TRIGGER\b`) })

// TriggerDrops reads one schema statement (as SplitStatements gives it)
// for the triggers it drops, as the server reads it: comments dropped, and
// the text of version comments (/*!40000 IF EXISTS */, /*M!100400 ... */)
// read both as run and as skipped, since whether a server runs one
// depends on its version and kind. It returns the names dropped (lower
// case, without their database) by DROP TRIGGER [IF EXISTS] [db.]name,
// and the byte offset of the statement's first token.
//
// A statement that may drop a trigger but is not that one statement in
// either reading (DROP followed by TRIGGER elsewhere in it, as in a stored
// procedure's body, or DROP TRIGGER in a string, as PREPAREd text) is
// returned as unread, with why: whether it drops a guard trigger cannot be
// told, and the caller refuses it.
func TriggerDrops(text string) (names []string, pos int, unread string) {
	pos = -1
	seen := map[string]bool{}
	for _, run := range []bool{true, false} {
		toks := lexVersions(text, run)
		for len(toks) > 0 && toks[len(toks)-1].kind == tokPunct && toks[len(toks)-1].text == ";" {
			toks = toks[:len(toks)-1]
		}
		if len(toks) == 0 {
			continue
		}
		if pos < 0 {
			pos = toks[0].pos
		}
		if toks[0].upper() == "DROP" && len(toks) > 1 && toks[1].upper() == "TRIGGER" {
			i := 2
			if i+1 < len(toks) && toks[i].upper() == "IF" && toks[i+1].upper() == "EXISTS" {
				i += 2
			}
			name, j := qualifiedName(toks, i)
			if name == "" || j != len(toks) {
				return nil, pos, "it is a DROP TRIGGER fencegen cannot read (DROP TRIGGER [IF EXISTS] [db.]name is what it reads)"
			}
			if !seen[name] {
				seen[name] = true
				names = append(names, name)
			}
			continue
		}
		if w := toks[0].upper(); w == "GRANT" || w == "REVOKE" {
			continue // privileges (GRANT DROP, TRIGGER ON ...), no drop
		}
		drop := false
		for _, t := range toks {
			switch {
			case t.upper() == "DROP":
				drop = true
			case drop && t.upper() == "TRIGGER":
				return nil, pos, "it holds a DROP ... TRIGGER that is not a statement of its own (a stored program's body, or a version comment around part of it), which may drop a trigger"
			case t.kind == tokString && dropTriggerText().MatchString(t.text):
				return nil, pos, "it holds DROP TRIGGER in a string (the text of a prepared statement), which may drop a trigger"
			}
		}
	}
	return names, pos, ""
}

// TriggerReplaces reads one schema statement for MariaDB's CREATE OR
// REPLACE TRIGGER, which drops the trigger of that name and installs its
// own: the name replaced (lower case, without its database) and the byte
// offset of the statement's first token, or "". The statement may be
// wrapped in SET STATEMENT ... FOR. Version comments are read both as
// run and as skipped (see TriggerDrops): a reading in which the
// statement replaces a trigger counts.
//
// A statement that may replace a trigger but is not that statement in
// either reading (OR REPLACE ... TRIGGER elsewhere in it, or in a string,
// the text of a prepared statement) is returned as unread, with why.
func TriggerReplaces(text string) (name string, pos int, unread string) {
	pos = -1
	for _, run := range []bool{true, false} {
		toks := lexVersions(text, run)
		if len(toks) == 0 {
			continue
		}
		if pos < 0 {
			pos = toks[0].pos
		}
		// SET STATEMENT var = value [, ...] FOR <statement>.
		if len(toks) > 2 && toks[0].upper() == "SET" && toks[1].upper() == "STATEMENT" {
			depth := 0
			for i := 2; i < len(toks); i++ {
				if toks[i].kind == tokPunct && toks[i].text == "(" {
					depth++
				} else if toks[i].kind == tokPunct && toks[i].text == ")" {
					depth--
				} else if depth == 0 && toks[i].upper() == "FOR" {
					toks = toks[i+1:]
					break
				}
			}
		}
		if len(toks) > 2 && toks[0].upper() == "CREATE" && orReplace(toks) {
			if kind, i := programKind(toks); kind == "TRIGGER" {
				if i+2 < len(toks) && toks[i].upper() == "IF" && toks[i+1].upper() == "NOT" && toks[i+2].upper() == "EXISTS" {
					i += 3
				}
				if exact, _, _ := nameRef(toks, i); exact != "" {
					return strings.ToLower(exact), pos, ""
				}
			}
		}
		replace := false
		for _, t := range toks {
			switch {
			case t.upper() == "REPLACE":
				replace = true
			case replace && t.upper() == "TRIGGER":
				return "", pos, "it holds an OR REPLACE ... TRIGGER that is not a statement of its own (a stored program's body, or a version comment around part of it), which may replace a trigger"
			case t.kind == tokString && replaceTriggerText().MatchString(t.text):
				return "", pos, "it holds CREATE OR REPLACE TRIGGER in a string (the text of a prepared statement), which may replace a trigger"
			}
		}
	}
	return "", pos, ""
}

// replaceTriggerText is CREATE OR REPLACE ... TRIGGER in a string literal.
var replaceTriggerText = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)\bOR\s+REPLACE\b.*\bTRIGGER\b`) })
