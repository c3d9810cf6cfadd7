package mysqlwrites

import "strings"

// asciiSafeCharsets are the client character sets under which MySQL and
// MariaDB lex a statement's ASCII bytes as UTF-8 does, as fencegen reads
// it: no multi-byte character holds an ASCII byte (utf8mb4, utf8mb3,
// ujis, eucjpms, euckr, gb2312), or every byte is one character with
// ASCII's meaning below 0x80 (latin1, ascii, binary). "default" is the
// server's, which a DSN without charset= also gets (docs/mysql.md).
var asciiSafeCharsets = map[string]bool{
	"utf8mb4": true, "utf8mb3": true, "utf8": true, "latin1": true, "ascii": true, "binary": true,
	"ujis": true, "eucjpms": true, "euckr": true, "gb2312": true, "default": true,
}

// ClientCharset follows the session's client character set through a
// schema's SET statements (SET NAMES, SET CHARACTER SET, SET CHARSET,
// SET [SESSION|GLOBAL] character_set_client, @@character_set_client,
// also inside mysqldump's /*!40101 ... */ comments, and a user variable
// that saved it and restores it, as mysqldump writes). The server reads
// every later statement, and keeps every stored program, in that set:
// under gbk, big5, sjis, cp932 or gb18030 an ASCII byte after a
// non-ASCII one is part of a character, and names are decoded otherwise.
// The zero value starts at the connection's set, taken to be one of
// asciiSafeCharsets.
type ClientCharset struct {
	unknown bool
	// other is the set the client reads in when it is one of
	// asciiSafeCharsets other than UTF-8's (latin1, ascii, ujis,
	// ...): ASCII bytes read as fencegen reads them, a non-ASCII byte
	// not (the UTF-8 bytes of é are the two latin1 characters Ã©).
	other string
	saved map[string]string // @var -> the set it saved; "" unknown
}

// Read reads one schema statement: when it sets the client character set
// to one outside asciiSafeCharsets or to a value fencegen cannot read,
// at is the offset of the assignment and why says so; a later statement
// that sets a safe set again clears it.
func (c *ClientCharset) Read(text string) (at int, why string) {
	lower := strings.ToLower(text)
	if !strings.Contains(lower, "set") || !(strings.Contains(lower, "names") || strings.Contains(lower, "char")) {
		return 0, ""
	}
	toks := lex(text)
	if len(toks) == 0 || toks[0].upper() != "SET" {
		return 0, ""
	}
	// The assignments, split at commas outside parentheses.
	var parts [][]token
	depth, start := 0, 1
	for i := 1; i <= len(toks); i++ {
		if i < len(toks) {
			switch toks[i].text {
			case "(":
				depth++
				continue
			case ")":
				depth--
				continue
			case ",":
				if depth != 0 || toks[i].kind != tokPunct {
					continue
				}
			default:
				continue
			}
		}
		parts = append(parts, toks[start:i])
		start = i + 1
	}
	for _, p := range parts {
		if len(p) == 0 {
			continue
		}
		name, value, ok := charsetAssignment(p)
		if !ok {
			// Not an assignment of the client set; an assignment of a
			// user variable from it saves it.
			if v := p[0]; v.kind == tokVar && !strings.HasPrefix(v.text, "@@") && len(p) >= 3 {
				key := strings.ToLower(v.text)
				val := p[2:]
				if p[1].text == ":" && len(p) >= 4 {
					val = p[3:]
				}
				if c.saved == nil {
					c.saved = map[string]string{}
				}
				if len(val) == 1 && val[0].kind == tokVar && isClientVar(val[0].text) && !c.unknown {
					c.saved[key] = "default"
				} else {
					delete(c.saved, key)
				}
			}
			continue
		}
		if name == "" && len(value) == 1 && value[0].kind == tokVar {
			name = c.saved[strings.ToLower(value[0].text)]
		}
		if name == "" {
			c.unknown = true
			return p[0].pos, "sets the client character set to a value fencegen cannot read (" + strings.TrimSpace(text[value[0].pos:value[len(value)-1].end]) + "); fencegen reads the schema as UTF-8, which the server reads the later statements in only under utf8mb4, utf8, latin1, ascii or binary: set one of those by name"
		}
		if !asciiSafeCharsets[name] {
			c.unknown = true
			return p[0].pos, "sets the client character set to " + name + ": fencegen reads the schema as UTF-8 (as utf8mb4), while the server reads the later statements, and keeps the stored programs they create, in " + name + ", whose multi-byte characters may end in an ASCII byte (a backquote, a backslash) and whose names decode otherwise; create the schema under utf8mb4, utf8, latin1, ascii or binary"
		}
		c.unknown = false
		c.other = ""
		if !utf8Charsets[name] {
			c.other = name
		}
	}
	return 0, ""
}

// utf8Charsets are the client character sets under which the server
// reads a name's non-ASCII bytes as fencegen does, as UTF-8 ("default"
// taken to be one, as above; under binary MariaDB keeps the bytes, so
// `ét` names the table é t).
var utf8Charsets = map[string]bool{"utf8mb4": true, "utf8mb3": true, "utf8": true, "binary": true, "default": true}

// NonASCII reads one schema statement (any, stored programs included)
// after Read has read it: when the client character set is one whose
// non-ASCII characters are not UTF-8's (latin1, ascii, ujis,
// ...) and text holds a non-ASCII byte, at is its offset and why says
// so. The server decodes a name, and keeps a stored program, in that
// set: `ét` in a UTF-8 file read under latin1 names the table `Ã©t`.
func (c *ClientCharset) NonASCII(text string) (at int, why string) {
	if c.other == "" {
		return 0, ""
	}
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			return i, "holds a non-ASCII character while the client character set is " + c.other + " (set by the schema before it): fencegen reads the schema as UTF-8, while the server decodes the statement's names and text, and keeps the stored programs it creates, in " + c.other + ", so that a name may mean another table; set utf8mb4 before it, or write the statement in ASCII"
		}
	}
	return 0, ""
}

// charsetAssignment reads one assignment of a SET statement: ok when it
// sets the client character set, name the set's lower-case name ("" when
// not a plain name, a DEFAULT, or a user variable known to hold one) and
// value its tokens.
func charsetAssignment(p []token) (name string, value []token, ok bool) {
	i := 0
	switch p[0].upper() {
	case "SESSION", "GLOBAL", "LOCAL", "PERSIST":
		i++
	}
	if i >= len(p) {
		return "", nil, false
	}
	switch {
	case p[i].upper() == "NAMES":
		value = p[i+1:]
		// NAMES x COLLATE y: the set is x.
		for k, t := range value {
			if t.upper() == "COLLATE" {
				value = value[:k]
				break
			}
		}
	case p[i].upper() == "CHARSET":
		value = p[i+1:]
	case p[i].upper() == "CHARACTER" && i+1 < len(p) && p[i+1].upper() == "SET":
		value = p[i+2:]
	case p[i].kind == tokWord && strings.EqualFold(p[i].text, "character_set_client"),
		p[i].kind == tokVar && isClientVar(p[i].text):
		value = p[i+1:]
		if len(value) > 0 && value[0].text == ":" {
			value = value[1:]
		}
		if len(value) == 0 || value[0].text != "=" {
			return "", p, true
		}
		value = value[1:]
	default:
		return "", nil, false
	}
	if len(value) != 1 {
		if len(value) == 0 {
			value = p
		}
		return "", value, true
	}
	switch t := value[0]; t.kind {
	case tokWord:
		return strings.ToLower(t.text), value, true
	case tokString:
		if len(t.text) >= 2 && !strings.ContainsAny(t.text[1:len(t.text)-1], "'\"\\") {
			return strings.ToLower(t.text[1 : len(t.text)-1]), value, true
		}
	}
	return "", value, true
}

// isClientVar reports whether v (@@x, @@session.x, ...) is the client
// character set's system variable.
func isClientVar(v string) bool {
	v = strings.ToLower(v)
	if !strings.HasPrefix(v, "@@") {
		return false
	}
	v = strings.TrimPrefix(v, "@@")
	for _, p := range []string{"session.", "global.", "local."} {
		v = strings.TrimPrefix(v, p)
	}
	return v == "character_set_client"
}
