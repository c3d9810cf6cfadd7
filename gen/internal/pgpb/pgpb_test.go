package pgpb

import (
	"bytes"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"
	"github.com/pganalyze/pg_query_go/v5/parser"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// sqlTexts is the text of every .sql file of the module and of the team's
// corpora beside it (../shared, when present), by path.
func sqlTexts(t testing.TB) map[string]string {
	t.Helper()
	texts := map[string]string{}
	for _, root := range []string{"../../..", "../../../../shared/corpus"} {
		if _, err := os.Stat(root); err != nil {
			continue
		}
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() || !strings.HasSuffix(p, ".sql") {
				return err
			}
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			texts[p] = string(b)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(texts) < 100 {
		t.Fatalf("found %d .sql files; want the module's test data at least", len(texts))
	}
	return texts
}

// TestDecodeIsProtobufs decodes pg_query's parse and scan output of every
// .sql file at hand with the generated decoder and with proto.Unmarshal:
// the trees must be equal, and the generated decoder must have read each
// one itself (no fall-back to proto.Unmarshal).
func TestDecodeIsProtobufs(t *testing.T) {
	parsed := 0
	for name, text := range sqlTexts(t) {
		if b, err := parser.ParseToProtobuf(text); err == nil {
			var d decoder
			got := decParseResult(&d, b)
			if d.bad {
				t.Errorf("%s: the generated decoder refused pg_query's parse output", name)
				continue
			}
			want := &pg.ParseResult{}
			if err := proto.Unmarshal(b, want); err != nil {
				t.Fatalf("%s: proto.Unmarshal: %v", name, err)
			}
			if !proto.Equal(got, want) {
				t.Errorf("%s: the generated decoder's parse tree differs from proto.Unmarshal's", name)
			}
			parsed++
		}
		if b, err := parser.ScanToProtobuf(text); err == nil {
			var d decoder
			got := decScanResult(&d, b)
			want := &pg.ScanResult{}
			if err := proto.Unmarshal(b, want); err != nil {
				t.Fatalf("%s: proto.Unmarshal: %v", name, err)
			}
			if d.bad || !proto.Equal(got, want) {
				t.Errorf("%s: the generated decoder's scan differs from proto.Unmarshal's (refused: %v)", name, d.bad)
			}
		}
	}
	if parsed < 100 {
		t.Errorf("%d files parsed; want at least 100", parsed)
	}
}

// TestParseIsPgQuerys compares Parse and Scan with pg_query_go's on texts
// that parse, texts that do not, and text that is not UTF-8.
func TestParseIsPgQuerys(t *testing.T) {
	for _, text := range []string{
		"SELECT 1",
		"SELECT a, b FROM t WHERE c = $1 AND d IN (1, 2.5, 'x', true, NULL, B'101') ORDER BY a DESC LIMIT 3",
		"CREATE TABLE t (id bigserial PRIMARY KEY, v text NOT NULL DEFAULT 'x', n numeric(10, 2))",
		"INSERT INTO t (v) VALUES ('a') ON CONFLICT (id) DO UPDATE SET v = excluded.v RETURNING *",
		"SELEC 1",
		"SELECT 'unterminated",
		"SELECT '\xff\xfe'",
		"",
	} {
		got, gotErr := Parse(text)
		want, wantErr := pg.Parse(text)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Errorf("Parse(%q): error %v, pg_query_go's %v", text, gotErr, wantErr)
		} else if !proto.Equal(got, want) {
			t.Errorf("Parse(%q) differs from pg_query_go's", text)
		}
		gotScan, gotErr := Scan(text)
		wantScan, wantErr := pg.Scan(text)
		if (gotErr == nil) != (wantErr == nil) || gotErr != nil && gotErr.Error() != wantErr.Error() {
			t.Errorf("Scan(%q): error %v, pg_query_go's %v", text, gotErr, wantErr)
		} else if !proto.Equal(gotScan, wantScan) {
			t.Errorf("Scan(%q) differs from pg_query_go's", text)
		}
	}
}

// TestDecodeFallsBack gives DecodeParseResult encodings pg_query does not
// write, which the generated decoder leaves to proto.Unmarshal: the
// results must be proto.Unmarshal's (unknown fields kept, a message field
// given twice merged, a field of another wire type kept as unknown).
func TestDecodeFallsBack(t *testing.T) {
	b, err := parser.ParseToProtobuf("SELECT 1 FROM t")
	if err != nil {
		t.Fatal(err)
	}
	one, err := parser.ParseToProtobuf("SELECT 1")
	if err != nil {
		t.Fatal(err)
	}
	tree := &pg.ParseResult{}
	if err := proto.Unmarshal(one, tree); err != nil {
		t.Fatal(err)
	}
	node, err := proto.Marshal(tree.Stmts[0].Stmt)
	if err != nil {
		t.Fatal(err)
	}
	var twice []byte // a RawStmt with its stmt field twice
	for range 2 {
		twice = protowire.AppendTag(twice, 1, protowire.BytesType)
		twice = protowire.AppendBytes(twice, node)
	}
	// Nodes nested deeper than protobuf's recursion limit, which
	// proto.Unmarshal refuses: a Node holding a List holding a Node ...
	var deep []byte
	for range protowire.DefaultRecursionLimit / 2 {
		list := protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), deep)  // List.items
		deep = protowire.AppendBytes(protowire.AppendTag(nil, 249, protowire.BytesType), list) // Node.list
	}
	deep = protowire.AppendBytes(protowire.AppendTag(nil, 1, protowire.BytesType), deep) // RawStmt.stmt
	deep = protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), deep) // ParseResult.stmts
	cases := map[string][]byte{
		"too deep":        deep,
		"unknown field":   protowire.AppendVarint(protowire.AppendTag(bytes.Clone(b), 99, protowire.VarintType), 7),
		"wrong wire type": protowire.AppendFixed32(protowire.AppendTag(bytes.Clone(b), 1, protowire.Fixed32Type), 7),
		"stmt twice":      protowire.AppendBytes(protowire.AppendTag(nil, 2, protowire.BytesType), twice),
		"truncated":       b[:len(b)-1],
	}
	for name, in := range cases {
		var d decoder
		decParseResult(&d, in)
		if !d.bad {
			t.Errorf("%s: the generated decoder read it; want it left to proto.Unmarshal", name)
		}
		got, gotErr := DecodeParseResult(in)
		want := &pg.ParseResult{}
		wantErr := proto.Unmarshal(in, want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Errorf("%s: error %v, proto.Unmarshal's %v", name, gotErr, wantErr)
		} else if wantErr == nil && !proto.Equal(got, want) {
			t.Errorf("%s: the result differs from proto.Unmarshal's", name)
		}
	}
}

// FuzzDecodeParseResult compares DecodeParseResult with proto.Unmarshal
// on any bytes, seeded with pg_query's parse output of the smaller .sql
// files of the module and the corpora (sqlTexts).
func FuzzDecodeParseResult(f *testing.F) {
	texts := sqlTexts(f)
	names := make([]string, 0, len(texts))
	for name := range texts {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, text := range append([]string{"SELECT 1", "SELECT a FROM t WHERE b = $1", "UPDATE t SET a = 1 RETURNING *"}, names...) {
		if t, ok := texts[text]; ok {
			if len(t) > 4096 {
				continue
			}
			text = t
		}
		b, err := parser.ParseToProtobuf(text)
		if err != nil {
			continue
		}
		f.Add(b)
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		got, gotErr := DecodeParseResult(b)
		want := &pg.ParseResult{}
		wantErr := proto.Unmarshal(b, want)
		if (gotErr == nil) != (wantErr == nil) {
			t.Fatalf("error %v, proto.Unmarshal's %v", gotErr, wantErr)
		}
		if wantErr == nil && !proto.Equal(got, want) {
			t.Fatalf("the result differs from proto.Unmarshal's")
		}
	})
}

// TestGeneratedIsCurrent runs gendecode.go and compares its output with
// decode_gen.go: a pg_query_go update must regenerate it (go generate).
func TestGeneratedIsCurrent(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs the generator")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH")
	}
	out := filepath.Join(t.TempDir(), "decode_gen.out") // a name go run does not take for a source file
	if b, err := exec.Command(goBin, "run", "gendecode.go", out).CombinedOutput(); err != nil {
		t.Fatalf("go run gendecode.go: %v\n%s", err, b)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("decode_gen.go")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("decode_gen.go is not gendecode.go's output: run go generate in gen/internal/pgpb")
	}
}
