package mysqlwrites

import "strings"

// DroppedCR is the offset in text of a carriage return whose removal
// makes the text lex otherwise, or -1. Generated code holds a query's
// text in a Go raw string, which drops every carriage return, so the
// server reads the text without them while fencegen analyses it with
// them: harmless between tokens and inside a -- or # comment, not where
// the removal joins or changes tokens (*<CR>/ ends a comment once the CR
// is gone, /*<CR>M! becomes MariaDB's executable comment, a string or
// a quoted name loses a byte, two words or two operator bytes join).
// Both texts are lexed as MySQL and MariaDB lex them (version comments'
// text as code) and compared token by token, and two punctuation tokens
// that only a carriage return kept apart count as different (<CR>= is
// two tokens, <= one).
func DroppedCR(text string) int {
	if !strings.Contains(text, "\r") {
		return -1
	}
	sent := strings.ReplaceAll(text, "\r", "")
	a, b := lex(text), lex(sent)
	for k := 0; k < len(a) || k < len(b); k++ {
		if k < len(a) && k < len(b) && sameToken(text, sent, a, b, k) {
			continue
		}
		from := 0
		if k > 0 {
			from = a[k-1].end
		}
		if i := strings.IndexByte(text[from:], '\r'); i >= 0 {
			return from + i
		}
		return strings.IndexByte(text, '\r')
	}
	return -1
}

// sameToken reports whether token k of a (of text) and of b (of sent)
// are the same token: kind, text, quoting, and for two punctuation
// tokens in a row, whether they touch.
func sameToken(text, sent string, a, b []token, k int) bool {
	x, y := a[k], b[k]
	if x.kind != y.kind || x.text != y.text || x.quoted != y.quoted || text[x.pos:x.end] != sent[y.pos:y.end] {
		return false
	}
	if k > 0 && x.kind == tokPunct && a[k-1].kind == tokPunct {
		return (a[k-1].end == x.pos) == (b[k-1].end == y.pos)
	}
	return true
}

// ControlByte is the offset in text of the first ASCII control byte
// other than tab, line feed and carriage return (NUL, form feed,
// vertical tab, ...), or -1. MySQL and MariaDB read some of them as
// blanks and -- followed by any of them as a comment, the TiDB parser
// fencegen reads MySQL with and Go source otherwise; a statement holding
// one is not read as the server reads it.
func ControlByte(text string) int {
	for i := 0; i < len(text); i++ {
		if c := text[i]; c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			return i
		}
	}
	return -1
}

// MultibyteTrail is the offset in text of the first ASCII byte that a
// client character set with ASCII trail bytes (gbk, big5, sjis, cp932,
// gb18030) would read as the second byte of a multi-byte character
// while UTF-8 reads it as a delimiter, or -1: an ASCII byte from 0x40
// to 0x7e that is not a letter or _ (a backquote, backslash, @, [, ], ^,
// {, |, }, ~) that ends a character for one of them. Under such a
// character set the UTF-8 bytes of € and a backquote are two GBK
// characters (E2 82, AC 60), so the backquote that closes `€` for
// fencegen is inside a character for the server and the name runs on (a
// backslash after such a byte ends escaping it, ...); after é (C3 A9,
// one character in each) it is not, so `café` passes, as in sqlc. A
// letter or _ after a non-ASCII byte is taken into a character too, but
// it ends or continues a name, string or comment the same way in both
// readings; every other ASCII byte below 0x40 is no such character set's
// trail byte but gb18030's digits, which are letters of a name too.
//
// The server reads a character set's bytes from the statement's start,
// a lead byte and a valid trail byte as one character, any other byte as
// one (MySQL's my_ismbchar). The run of non-ASCII bytes before the
// delimiter is entered at its first byte in every reading (an ASCII
// byte is a character's last byte or a character; gb18030's four-byte
// form needs a digit after its third byte), so each character set's
// reading of the run alone, by mbSchemes, says whether its last byte is
// a lead that takes the delimiter.
func MultibyteTrail(text string) int {
	for i := 1; i < len(text); i++ {
		c := text[i]
		if text[i-1] < 0x80 || c < 0x40 || c > 0x7e || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_' {
			continue
		}
		j := i - 1
		for j > 0 && text[j-1] >= 0x80 {
			j--
		}
		for _, m := range mbSchemes {
			k := j
			for k < i-1 {
				if m.lead(text[k]) && m.trail(text[k+1]) {
					k += 2
				} else {
					k++
				}
			}
			if k == i-1 && m.lead(text[k]) {
				return i
			}
		}
	}
	return -1
}

// mbScheme is how a client character set with ASCII trail bytes reads
// bytes from 0x80: which lead a two-byte character and which follow a
// lead as its second byte (ASCII ones from 0x40 to 0x7e, in each, too).
type mbScheme struct {
	name        string
	lead, trail func(b byte) bool
}

// mbSchemes are MySQL's and MariaDB's readings (strings/ctype-*.c):
// gbk and gb18030's two-byte form (lead 81-FE, trail 80-FE), big5 (lead
// A1-F9, trail A1-FE), sjis and cp932 (lead 81-9F and E0-FC, trail
// 80-FC).
var mbSchemes = []mbScheme{
	{"gbk", func(b byte) bool { return b >= 0x81 && b <= 0xfe }, func(b byte) bool { return b >= 0x80 && b <= 0xfe }},
	{"big5", func(b byte) bool { return b >= 0xa1 && b <= 0xf9 }, func(b byte) bool { return b >= 0xa1 && b <= 0xfe }},
	{"sjis", func(b byte) bool { return b >= 0x81 && b <= 0x9f || b >= 0xe0 && b <= 0xfc }, func(b byte) bool { return b >= 0x80 && b <= 0xfc }},
}
