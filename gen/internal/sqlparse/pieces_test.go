//go:build cgo

package sqlparse

import (
	"fmt"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
)

// piecesText is a query file with semicolons at line ends that do not end
// a statement: in strings, comments, quoted names, dollar-quoted and
// BEGIN ATOMIC bodies, and empty statements, comments between statements,
// and a last statement without a semicolon.
var piecesText = func() string {
	var b strings.Builder
	for i := 0; i < 6; i++ {
		fmt.Fprintf(&b, `-- name: Get%[1]d :one
SELECT * FROM t%[1]d WHERE id = $1;

-- name: Str%[1]d :one
SELECT 'a;
b' AS s, E'c\';
d', "x;
y" FROM t%[1]d;
/* a comment;
 still; */
-- a line comment;
CREATE FUNCTION f%[1]d() RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT 1;
SELECT 2;
END;
CREATE FUNCTION g%[1]d() RETURNS int AS $body$ SELECT 1;
$body$ LANGUAGE sql;
;;
-- name: Upd%[1]d :exec
UPDATE t%[1]d SET a = $1 WHERE id = $2 ; -- trailing;
`, i)
	}
	b.WriteString("SELECT 1 -- no semicolon;\n")
	return b.String()
}()

// TestParseTextPieces: parsed in pieces cut anywhere, a text gives
// pg.Parse's tree of the whole text (locations and statement spans
// included), and a text with a syntax error pg.Parse's error.
func TestParseTextPieces(t *testing.T) {
	defer func(m int, p func() int) { pieceMin, maxPieces = m, p }(pieceMin, maxPieces)
	for _, text := range []string{piecesText, piecesText + "SELECT FROM WHERE;\n", "SELECT 1;\n" + piecesText, strings.Repeat("SELECT 1;\n", 200)} {
		want, wantErr := pg.Parse(text)
		for _, pieces := range []int{2, 3, 7, 50} {
			for size := 8; size <= len(text)/2; size += 7 {
				pieceMin, maxPieces = size, func() int { return pieces }
				got, err := parseText([]byte(text))
				if fmt.Sprint(err) != fmt.Sprint(wantErr) {
					t.Fatalf("%d pieces of %d bytes: error %v, want %v", pieces, size, err, wantErr)
				}
				if !proto.Equal(got, want) {
					t.Fatalf("%d pieces of %d bytes: the tree differs from the whole text's", pieces, size)
				}
			}
		}
	}
}

// TestParseTextCuts: parseText does cut a large text (the test above would
// pass if it never did).
func TestParseTextCuts(t *testing.T) {
	defer func(m int, p func() int) { pieceMin, maxPieces = m, p }(pieceMin, maxPieces)
	pieceMin, maxPieces = 64, func() int { return 4 }
	text := []byte(strings.Repeat("SELECT 1;\n", 100))
	cuts := pieceCuts(text, 4)
	if len(cuts) != 3 {
		t.Fatalf("cuts %v, want 3", cuts)
	}
	for _, c := range cuts {
		if text[c-1] != ';' {
			t.Errorf("cut at %d is not after a semicolon", c)
		}
	}
}

// TestParseNamedTextMustParse: a text with sqlc's named parameters is
// read with $n in their place only when the text itself parses into as
// many statements (parseNamed asks pg_query's parser for its statements
// without its tree); one that does not parse is the text's syntax error,
// even when the text with $n parses.
func TestParseNamedTextMustParse(t *testing.T) {
	good := []byte("SELECT * FROM t WHERE a = @a AND b = @b;\nSELECT @c::int + 1;\n")
	tree, named, err := parseNamed(good)
	if err != nil || len(tree.Stmts) != 2 || len(named) != 3 {
		t.Fatalf("parseNamed(good): %d statements, %d names, %v; want 2, 3, nil", len(tree.GetStmts()), len(named), err)
	}
	bad := []byte("SELECT * FROM t LIMIT @limit;\n")
	if sub, names := namedParams(bad); names == nil {
		t.Fatal("no named parameter found in the bad text")
	} else if _, err := pg.Parse(string(sub)); err != nil {
		t.Fatalf("the bad text with $n does not parse either (%v): the test needs one that does", err)
	}
	_, wantErr := pg.Parse(string(bad))
	if wantErr == nil {
		t.Fatal("the bad text parses: the test needs one that does not")
	}
	if _, _, err := parseNamed(bad); fmt.Sprint(err) != fmt.Sprint(wantErr) {
		t.Errorf("parseNamed(bad) error %v, want %v", err, wantErr)
	}
}
