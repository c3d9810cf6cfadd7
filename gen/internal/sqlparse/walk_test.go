package sqlparse_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// TestViewRefs: a view's relations (CreateView.Refs, read by
// WalkMessages with the WITH entries in scope as its state) are every
// relation its query names, at any depth, each once, in tree order, but
// an unqualified name of a WITH entry in whose statement it is.
func TestViewRefs(t *testing.T) {
	f, err := sqlparse.Parse("v.sql", []byte(`CREATE VIEW v AS
WITH jobs AS (SELECT 1 AS id)
SELECT * FROM jobs, app.jobs, (SELECT * FROM events WHERE EXISTS (SELECT 1 FROM notes)) e, events
WHERE id IN (WITH notes AS (SELECT 2) SELECT * FROM notes UNION SELECT id FROM jobs2);
SELECT 1;`))
	if err != nil {
		t.Fatal(err)
	}
	v, ok := f.Stmts[0].Node.(*sqlparse.CreateView)
	if !ok {
		t.Fatalf("%T, want a CreateView", f.Stmts[0].Node)
	}
	var got []string
	for _, r := range v.Refs {
		got = append(got, r.String())
	}
	if want := []string{"app.jobs", "events", "notes", "jobs2"}; !slices.Equal(got, want) {
		t.Errorf("Refs = %q, want %q", got, want)
	}
}

// TestWalkMessages: f sees every message of the tree, parents first,
// with the state its parent's call returned; a false stops the walk
// below that message only.
func TestWalkMessages(t *testing.T) {
	tree, err := pg.Parse("SELECT a FROM t WHERE b = (SELECT c FROM u)")
	if err != nil {
		t.Fatal(err)
	}
	var seen []string
	sqlparse.WalkMessages(tree.Stmts[0].Stmt.ProtoReflect(), 0, func(m protoreflect.Message, depth int) (int, bool) {
		switch x := m.Interface().(type) {
		case *pg.RangeVar:
			seen = append(seen, fmt.Sprintf("%s@%d", x.Relname, depth))
		case *pg.SubLink:
			return depth + 1, true
		case *pg.ColumnRef:
			return depth, false // its fields are not walked
		case *pg.String:
			seen = append(seen, "string "+x.Sval) // the operator's name; a, b and c are under ColumnRef
		}
		return depth, true
	})
	if want := []string{"t@0", "string =", "u@1"}; !slices.Equal(seen, want) {
		t.Errorf("seen %q, want %q", seen, want)
	}
	n := 0
	sqlparse.EachMessage(tree.Stmts[0].Stmt.ProtoReflect(), func(m protoreflect.Message) bool {
		n++
		_, sub := m.Interface().(*pg.SubLink)
		return !sub
	})
	all := 0
	sqlparse.EachMessage(tree.Stmts[0].Stmt.ProtoReflect(), func(protoreflect.Message) bool { all++; return true })
	if n == 0 || n >= all {
		t.Errorf("EachMessage visited %d messages with the subquery pruned, %d in all", n, all)
	}
}

// TestWalkMessagesAsEveryField: WalkMessages, which asks a message which
// field of a oneof it holds (walkPlanOf), visits the same messages in the
// same order as a walk that asks every message field of every message
// whether it is set, on every PostgreSQL statement of the repository's
// test data under gen (each file that pg_query parses whole).
func TestWalkMessagesAsEveryField(t *testing.T) {
	var files []string
	err := filepath.WalkDir("../..", func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Ext(p) == ".sql" {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	parsed := 0
	for _, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		tree, err := pg.Parse(string(b))
		if err != nil {
			continue // a MySQL file, or one made to fail
		}
		parsed++
		for i, st := range tree.Stmts {
			var got, want []proto.Message
			sqlparse.EachMessage(st.ProtoReflect(), func(m protoreflect.Message) bool {
				got = append(got, m.Interface())
				return true
			})
			everyField(st.ProtoReflect(), func(m protoreflect.Message) { want = append(want, m.Interface()) })
			if len(got) != len(want) {
				t.Fatalf("%s, statement %d: %d messages walked, want %d", name, i+1, len(got), len(want))
			}
			for j := range got {
				if got[j] != want[j] {
					t.Fatalf("%s, statement %d: message %d is a %T, want the %T", name, i+1, j, got[j], want[j])
				}
			}
		}
	}
	if parsed < 50 {
		t.Fatalf("only %d of %d test data files parsed", parsed, len(files))
	}
}

// everyField is the walk WalkMessages does, asking each message field of
// each message whether it is set (Has), fields in declaration order.
func everyField(m protoreflect.Message, f func(protoreflect.Message)) {
	f(m)
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Kind() != protoreflect.MessageKind || !m.Has(fd) {
			continue
		}
		if fd.IsList() {
			l := m.Get(fd).List()
			for i := 0; i < l.Len(); i++ {
				everyField(l.Get(i).Message(), f)
			}
			continue
		}
		everyField(m.Get(fd).Message(), f)
	}
}
