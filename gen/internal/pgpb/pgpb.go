//go:build cgo

package pgpb

//go:generate go run gendecode.go

import (
	"math"
	"sync"
	"unicode/utf8"

	pg "github.com/pganalyze/pg_query_go/v5"
	"github.com/pganalyze/pg_query_go/v5/parser"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// Parse is pg_query_go's Parse: text's statements' parse trees, or
// pg_query's error (a *parser.Error, with the cursor position).
func Parse(text string) (*pg.ParseResult, error) {
	b, err := parser.ParseToProtobuf(text)
	if err != nil {
		return nil, err
	}
	return DecodeParseResult(b)
}

// Scan is pg_query_go's Scan: text's tokens as PostgreSQL's scanner reads
// them, or its error.
func Scan(text string) (*pg.ScanResult, error) {
	b, err := parser.ScanToProtobuf(text)
	if err != nil {
		return nil, err
	}
	var d decoder
	if r := decScanResult(&d, b); !d.bad {
		return r, nil
	}
	r := &pg.ScanResult{}
	return r, proto.Unmarshal(b, r)
}

// DecodeParseResult is proto.Unmarshal of b into a new pg.ParseResult.
func DecodeParseResult(b []byte) (*pg.ParseResult, error) {
	var d decoder
	if r := decParseResult(&d, b); !d.bad {
		return r, nil
	}
	r := &pg.ParseResult{}
	return r, proto.Unmarshal(b, r)
}

// decoder reads the fields of a message: each method reads one field's
// value at the front of *b (whose tag tag read) and moves *b past it.
// Output it does not expect sets bad, after which the values read are
// zero and the decoded tree is thrown away.
type decoder struct {
	bad   bool
	depth int // of the message being read: 1 for the outermost
}

// recursionLimit is the deepest nesting of messages the generated
// decoder reads: protobuf's decoder refuses nesting deeper than its
// default limit (protowire.DefaultRecursionLimit), so a tree that deep is
// left to it.
const recursionLimit = protowire.DefaultRecursionLimit

// enter notes the start of a message one level deeper.
func (d *decoder) enter() {
	d.depth++
	if d.depth > recursionLimit {
		d.bad = true
	}
}

// tag reads a field's tag: its number and wire type.
func (d *decoder) tag(b *[]byte) (protowire.Number, protowire.Type) {
	num, typ, n := protowire.ConsumeTag(*b)
	if n < 0 {
		d.bad = true
		return 0, 0
	}
	*b = (*b)[n:]
	return num, typ
}

// varint reads a varint-encoded field (bool, integer or enum).
func (d *decoder) varint(b *[]byte, typ protowire.Type) uint64 {
	if typ != protowire.VarintType {
		d.bad = true
		return 0
	}
	v, n := protowire.ConsumeVarint(*b)
	if n < 0 {
		d.bad = true
		return 0
	}
	*b = (*b)[n:]
	return v
}

// bytes reads a length-delimited field.
func (d *decoder) bytes(b *[]byte, typ protowire.Type) []byte {
	if typ != protowire.BytesType {
		d.bad = true
		return nil
	}
	v, n := protowire.ConsumeBytes(*b)
	if n < 0 {
		d.bad = true
		return nil
	}
	*b = (*b)[n:]
	return v
}

// message reads a message field's encoding; set says the field (or its
// oneof) already holds a message, which protobuf would merge with this
// one: pg_query never writes a field twice, so that is left to protobuf.
func (d *decoder) message(b *[]byte, typ protowire.Type, set bool) []byte {
	if set {
		d.bad = true
		return nil
	}
	return d.bytes(b, typ)
}

// string reads a string field, which must be UTF-8 (proto3's check).
func (d *decoder) string(b *[]byte, typ protowire.Type) string {
	v := d.bytes(b, typ)
	if !utf8.Valid(v) {
		d.bad = true
		return ""
	}
	return string(v)
}

// double reads a double field.
func (d *decoder) double(b *[]byte, typ protowire.Type) float64 {
	if typ != protowire.Fixed64Type {
		d.bad = true
		return 0
	}
	v, n := protowire.ConsumeFixed64(*b)
	if n < 0 {
		d.bad = true
		return 0
	}
	*b = (*b)[n:]
	return math.Float64frombits(v)
}

// uint64s appends to l a repeated uint64 field's values, packed or not.
func (d *decoder) uint64s(b *[]byte, typ protowire.Type, l []uint64) []uint64 {
	if typ == protowire.VarintType {
		return append(l, d.varint(b, typ))
	}
	v := d.bytes(b, typ)
	for len(v) > 0 && !d.bad {
		l = append(l, d.varint(&v, protowire.VarintType))
	}
	return l
}

var warmOnce sync.Once

// WarmReflection starts, once, on a goroutine of its own, protobuf's
// first-use set-up of pg_query's ParseResult, RawStmt and Node messages
// (Node is a oneof of 252 messages), which any use of protobuf's
// reflection on a parse tree needs first: the write analysis of a fenced
// table walks the trees that way. Parse and Scan do not need it. Called
// as soon as a run knows it has a fenced table, the set-up runs beside
// the rest of the run on a machine with a core to spare; a use that
// comes first waits for it (protobuf's own sync.Once).
func WarmReflection() {
	warmOnce.Do(func() {
		go proto.Size(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: &pg.Node{}}}})
	})
}
