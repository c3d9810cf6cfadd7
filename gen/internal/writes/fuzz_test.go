package writes

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// corpusFiles returns up to n SQL files of the team's corpora matching
// glob (none when the corpora are absent).
func corpusFiles(glob string, n int) []string {
	paths, _ := filepath.Glob("../../../../shared/corpus/" + glob)
	var out []string
	for _, p := range paths {
		if len(out) == n {
			break
		}
		if b, err := os.ReadFile(p); err == nil {
			out = append(out, string(b))
		}
	}
	return out
}

// FuzzOf analyses arbitrary SQL files: Of must not panic, every write and
// refusal must be located inside the file, and every refusal must say why.
// Seeds: the shapes of TestWritesAtAnyDepth and the corpora's query and
// schema files.
func FuzzOf(f *testing.F) {
	for _, s := range []string{
		"WITH u AS (DELETE FROM a RETURNING id) MERGE INTO b USING u ON b.id = u.id WHEN MATCHED THEN DELETE",
		"CREATE TEMP TABLE t AS WITH u AS (UPDATE a SET x = 1 RETURNING id) SELECT * FROM u",
		"EXPLAIN (ANALYZE) COPY (UPDATE a SET x = 1 RETURNING id) TO STDOUT",
		"CREATE TABLE t AS EXECUTE p", "DO $$ begin null; end $$",
	} {
		f.Add(s)
	}
	for _, s := range corpusFiles("sqlc/*/postgresql/pgx/v5/query.sql", 30) {
		f.Add(s)
	}
	for _, s := range corpusFiles("real/*/*.sql", 10) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		file, err := sqlparse.Parse("q.sql", []byte(src))
		if err != nil || file == nil {
			return
		}
		for _, st := range file.Stmts {
			r := Of(st, file.Src)
			for _, w := range r.Writes {
				if w.Loc < 0 || w.Loc > len(src) || w.Verb == "" || len(w.Events) == 0 && w.Verb != "MERGE" {
					t.Fatalf("write %+v of %q", w, src)
				}
			}
			for _, x := range r.Refusals {
				if x.Loc < 0 || x.Loc > len(src) || x.Reason == "" {
					t.Fatalf("refusal %+v of %q", x, src)
				}
			}
		}
	})
}

// FuzzBody reads arbitrary PL/pgSQL and SQL function definitions: Body
// must not panic, and a body it reads must yield parse trees Of can walk.
// Seeds: TestBodyStatements' functions and the corpora's CREATE FUNCTION
// statements.
func FuzzBody(f *testing.F) {
	f.Add("plpgsql", `create function f() returns int language plpgsql as $$ begin update a set x = 1; return 1; end $$`)
	f.Add("sql", "update a set x = 1 returning 1")
	for _, s := range corpusFiles("real/*/*.sql", 40) {
		file, err := sqlparse.Parse("s.sql", []byte(s))
		if err != nil || file == nil {
			continue
		}
		for _, st := range file.Stmts {
			if fn, ok := st.Node.(*sqlparse.CreateFunction); ok {
				lang := strings.ToLower(fn.Language)
				if lang == "plpgsql" {
					f.Add(lang, file.Text(st))
				} else if lang == "sql" {
					f.Add(lang, fn.Body)
				}
			}
		}
	}
	f.Fuzz(func(t *testing.T, lang, text string) {
		b, err := Body(lang, text, text)
		if err != nil {
			return
		}
		for _, s := range b.Stmts {
			OfTree(s)
		}
	})
}

// TestCorpusBodiesRead reads every LANGUAGE plpgsql function of the
// corpora with Body: at least 95% must be read as statements (a body the
// PL/pgSQL parser refuses is scanned as text instead, conservatively).
func TestCorpusBodiesRead(t *testing.T) {
	var paths []string
	filepath.WalkDir("../../../../shared/corpus", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".sql") && !strings.Contains(p, "mysql") {
			paths = append(paths, p)
		}
		return nil
	})
	if len(paths) == 0 {
		t.Skip("the corpora (../shared/corpus) are not present")
	}
	read, unread := 0, 0
	for _, p := range paths {
		src, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		file, err := sqlparse.Parse(p, src)
		if err != nil || file == nil {
			continue
		}
		for _, st := range file.Stmts {
			fn, ok := st.Node.(*sqlparse.CreateFunction)
			if !ok || strings.ToLower(fn.Language) != "plpgsql" {
				continue
			}
			if _, err := Body("plpgsql", fn.Body, file.Text(st)); err != nil {
				unread++
				t.Logf("%s: not read: %v", p, err)
				continue
			}
			read++
		}
	}
	t.Logf("%d PL/pgSQL bodies read as statements, %d not", read, unread)
	if read == 0 || unread*20 > read+unread {
		t.Errorf("%d of %d PL/pgSQL bodies not read", unread, read+unread)
	}
}
