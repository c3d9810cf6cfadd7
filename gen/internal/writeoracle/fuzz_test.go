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

// shapeSeeds are choice strings of shapeGen: two for each kind of
// statement (its first byte), then the shapes that escaped the guard or
// always failed until the write analysis read the whole parse tree
// (issue 24; each was found by this target).
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
	[]byte("\x73\x5d\x35\xd2\xef\xf2\x42\xf7\x7b\x81\xfe\x3a"), // CREATE TEMP TABLE AS over a data-modifying WITH
	[]byte("\x98\x12\xf1\x7f\x05\x72\xf6\x65\x81\xad\x2a\xc2"), // TRUNCATE parent CASCADE (fenced INHERITS child)
	[]byte("\x78\x3a\xc3\xea\x50\xc3\x85\x2c\xae\xaf\xdd\xeb"), // TRUNCATE parent
	[]byte("\xe8\x8c\x5e\x2e\x6b\x00\x8b\x5a\x9f\x2f\x0d\x6d"), // TRUNCATE pparent CASCADE (fenced partition)
	[]byte("\x18\xdc\xa8\x22\xd6\x7b\x1c\x74\x6e\x64\x37\x09"), // TRUNCATE pparent
	[]byte("\x60\x34\x2d\xdb\xea\xb4\x1d\x0b\x7c\x8e\x46\xf8"), // MERGE INTO pparent
	[]byte("\x80\xe2\x95\x97\xa0\xea\x4d\x8e\xf2\x87\x65\x22"), // MERGE INTO parent
	[]byte("\xa4\x5f\xc5\x40\x69\xa2\x80\x41\x37\x8e\xcb\xb4"), // SELECT INTO TEMP TABLE over a fenced WITH entry
	[]byte("\x11\x3d\x30\xa1\xd9\xd5\x78\xd3\x85\x25\x03\x52"), // WITH (UPDATE ppart) MERGE
	[]byte("\x92\x9e\xe7\x63\x93\xda\x0e\xa3\x05\x48\xa5\xe7"), // WITH (UPDATE jobs_v) MERGE
	[]byte("\xb2\xbe\x5b\xd3\xcf\xbe\x59\x11\xa4\xea\xd2\xb9"), // WITH (upsert into jobs_v) MERGE
	[]byte("\xd2\x18\x49\x9d\x30\x51\xe1\xa2\x7f\x19\xec\xca"), // WITH (DELETE FROM jobs) MERGE
	[]byte("\xe2\xe0\xd8\x47\x39\x7e\x5f\xda\xaa\xa8\x21\x01"), // WITH (UPDATE jobs) MERGE
	[]byte("\xf1\x4b\xdf\x25\x25\xad\x6d\xec\xfa\x42\x51\xd2"), // WITH (UPDATE child) MERGE
	[]byte("\xd0\xa0\xd6\x0c\xbf\xfc\xfc\x4d\x28\x55\x66\xec"), // WITH (UPDATE pparent) MERGE INTO ppart...
	[]byte("\x90\x37\x5e\x91\x70\xd3\x1c\x9d\xa7\x2d\xd1\x66"), // WITH (UPDATE events) MERGE INTO pparent
	[]byte("\x10\x95\x4e\x0f\xf0\x98\x12\x05\xf0\x88\x17\xf9"), // WITH (UPDATE ONLY parent) MERGE INTO parent
}
