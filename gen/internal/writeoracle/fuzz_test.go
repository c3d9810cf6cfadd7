package writeoracle

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/fencegen/fencegen/gen"
)

// FuzzWriteShapes generates a statement from PostgreSQL's grammar
// (shapeGen) over testdata/shapes/schema.sql, whose own marks fence jobs,
// child (an INHERITS child of the unfenced parent) and ppart (a partition
// of the unfenced pparent), and checks what fencegen generates for it with
// PostgreSQL as the oracle: an unguarded statement that writes a fenced
// table, a guarded one that writes with a stale token, and a guarded one
// that PostgreSQL always rejects where the unguarded query runs, fail.
func FuzzWriteShapes(f *testing.F) {
	ctx := context.Background()
	opt := Options{AdminURL: adminURL(f), OwnMarksOnly: true, Timeout: 2 * time.Second, Label: "shape"}
	ch, err := NewChecker(ctx, opt)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(ch.Close)
	cfg, err := gen.LoadConfig("testdata/shapes/sqlc.yaml")
	if err != nil {
		f.Fatal(err)
	}
	if err := reset(ctx, ch.dsn); err != nil {
		f.Fatal(err)
	}
	ses, err := openSession(ctx, opt, ch.dsn, cfg, 0)
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { ses.close(ctx) })
	for _, s := range shapeSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, choices []byte) {
		src := shape(choices)
		qf := newQueryFile(filepath.Join(ses.tmp, "shape.sql"), []byte(src))
		rep, err := ses.check(ctx, []*queryFile{qf})
		if err != nil {
			t.Fatal(err)
		}
		requireSound(t, rep, GeneratorError)
	})
}

// shapeSeeds are choice strings of shapeGen, two for each kind of
// statement (its first byte), that the guard handles or refuses: the
// escapes issue 24 lists, which the guard does not handle yet, are in no
// seed: a seed that fails would fail every run of go test.
var shapeSeeds = [][]byte{
	[]byte("\x00\xfd\xfc\a!\x82eO\x16?"),
	[]byte("\x00\x0f\x9ab\x1dr\x95f\xc7M"),
	[]byte("\x01\x03|M{\xbb\x04\a\xd1\xe2"),
	[]byte("\x01I\x81\x85Z\xd8h\x1d\r\x86"),
	[]byte("\x02\xe9\x1e\x00\x16y9\xcbf\x94"),
	[]byte("\x02\xc4\"\xac\xd2\b\xa0\a)9"),
	[]byte("\x03\x7fi\x99\xeb\x9d\x18\xa4G\x84"),
	[]byte("\x03]\x87\xf3\xc6|\xf2'F\xe9"),
	[]byte("\x04\xafZ%6yQ\xba\xa2\xff"),
	[]byte("\x04\xd4qă\xf1_\xb9\v\xad"),
	[]byte("\x05|X!\xb6\xd9U&\xa4\x1a"),
	[]byte("\x05\x04h\vN|\x8bv:\x1b"),
	[]byte("\x06Iԕ\\\x84\x86!c%"),
	[]byte("\x06?\xecs\x8dש\xe2\x8b\xf9"),
	[]byte("\a\x11\x9c\x16\x0f\a\x02D\x86\x15"),
	[]byte("\a\xda\b1?j\x8e\xb6h\xd2"),
	[]byte("\b\xf5\x05\x98u\x92\x1ef\x8a["),
	[]byte("\b\x06h\xd2\xd6\xc5/PT\xe2"),
	[]byte("\t\x83k\xf8Lqt\xcbtv"),
	[]byte("\tL\xc3\xdb\xd9h\xb0\xf7\x17."),
	[]byte("\nW\x94\xbb5\x8b\f;R]"),
	[]byte("\nxo\x9f\xff\tBy\xdb\x19"),
	[]byte("\v\xebס\x9d\x0f{\xba\xcb\xe0"),
	[]byte("\vZ\xa5\xb7\xd4K\xec@\xf8L"),
	[]byte("\f+\x9b\xff\xd46)\xb0\";"),
	[]byte("\f\xa5\xf4\xf7C\x91\xf4E\xd1Z"),
	[]byte("\rB\x94\x04\x03t\xf6\x92K\x98"),
	[]byte("\r\xf8q?\x8d\x96-|\x8d\x01"),
	[]byte("\x0e\x92\xc2B$\xe2\xca\xfc\xca\xe3"),
	[]byte("\x0e\x1f\xb5\x86\xb1C#\xa6\xbc\x8f"),
	[]byte("\x0f}\xf1\xd9)3?\xf9\x93\x93"),
	[]byte("\x0f\xeao[:\xf6\xde\x03t6"),
}
