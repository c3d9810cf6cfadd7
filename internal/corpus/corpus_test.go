package main

import (
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
)

// writeTree writes files (slash-separated path → contents) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// lineOf is the 1-based number of the first line of s containing sub, 0
// when none does.
func lineOf(s, sub string) int {
	for i, l := range strings.Split(s, "\n") {
		if strings.Contains(l, sub) {
			return i + 1
		}
	}
	return 0
}

const multiYAML = `version: "2"
# the engines of one project
sql:
  - name: lite
    engine: sqlite
    schema: sqlite/schema.sql
    queries: sqlite/query.sql
    gen:
      go: &gogen {package: db, out: sqlite}
  - name: pg
    engine: "postgresql"
    schema: postgresql/schema.sql # same tables
    queries: postgresql/query.sql
    gen:
      go:
        package: db
        sql_package: pgx/v5
        out: postgresql
        rename: &names
          ids: IDs
  - engine: mysql
    schema: mysql/schema.sql
    queries: mysql/query.sql
    gen:
      go: {package: db, out: mysql}
  - engine: postgresql
    schema: postgresql/schema.sql
    queries: postgresql/query.sql
    gen:
      go:
        package: stdlib
        out: postgresql/stdlib
        rename: *names
rules:
  - name: no-delete
    rule: query.sql.contains("DELETE")
`

func TestParseConfigEntries(t *testing.T) {
	c, err := parseConfig("sqlc.yaml", []byte(multiYAML))
	if err != nil {
		t.Fatal(err)
	}
	want := []entry{
		{Index: 0, Name: "lite", Engine: "sqlite", Out: "sqlite", Paths: []string{"sqlite/schema.sql", "sqlite/query.sql"}},
		{Index: 1, Name: "pg", Engine: "postgresql", SQLPackage: "pgx/v5", Out: "postgresql", Paths: []string{"postgresql/schema.sql", "postgresql/query.sql"}},
		{Index: 2, Engine: "mysql", Out: "mysql", Paths: []string{"mysql/schema.sql", "mysql/query.sql"}},
		{Index: 3, Engine: "postgresql", Out: "postgresql/stdlib", Paths: []string{"postgresql/schema.sql", "postgresql/query.sql"}},
	}
	if !reflect.DeepEqual(c.Entries, want) {
		t.Errorf("entries =\n%+v\nwant\n%+v", c.Entries, want)
	}
	if got := []string{c.Entries[1].sqlPackageLabel(), c.Entries[3].sqlPackageLabel()}; !reflect.DeepEqual(got, []string{"pgx/v5", "none"}) {
		t.Errorf("labels = %v", got)
	}
	if g := sqlPackageGroup("none"); g != "database/sql" {
		t.Errorf("group of an unset sql_package = %q, want database/sql", g)
	}
}

func TestReduceYAMLKeepsLinesAndAnchors(t *testing.T) {
	// Keep both PostgreSQL entries: the second uses an anchor the first
	// defines; the sqlite entry defines one nobody else uses.
	b, err := reduceConfig("sqlc.yaml", []byte(multiYAML), map[int]bool{1: true, 3: true})
	if err != nil {
		t.Fatal(err)
	}
	out := string(b)
	c, err := parseConfig("sqlc.yaml", b)
	if err != nil {
		t.Fatalf("reduced file does not parse: %v\n%s", err, out)
	}
	if len(c.Entries) != 2 || c.Entries[0].Out != "postgresql" || c.Entries[1].Out != "postgresql/stdlib" {
		t.Errorf("reduced entries = %+v", c.Entries)
	}
	for _, key := range []string{"engine: \"postgresql\"", "package: stdlib", "rules:", "# the engines"} {
		if lineOf(out, key) != lineOf(multiYAML, key) {
			t.Errorf("%q moved from line %d to %d", key, lineOf(multiYAML, key), lineOf(out, key))
		}
	}
	for _, gone := range []string{"sqlite", "mysql"} {
		if strings.Contains(out, gone) {
			t.Errorf("reduced file still mentions %s:\n%s", gone, out)
		}
	}
}

func TestReduceYAMLDroppedAnchorRewrites(t *testing.T) {
	// Keeping only the last entry loses the anchor &names it aliases: the
	// file is written anew, with the alias resolved.
	b, err := reduceConfig("sqlc.yaml", []byte(multiYAML), map[int]bool{3: true})
	if err != nil {
		t.Fatal(err)
	}
	c, err := parseConfig("sqlc.yaml", b)
	if err != nil || len(c.Entries) != 1 || c.Entries[0].Out != "postgresql/stdlib" {
		t.Fatalf("reduced = %+v, %v\n%s", c, err, b)
	}
	if !strings.Contains(string(b), "IDs") || !strings.Contains(string(b), "no-delete") {
		t.Errorf("the rewritten file lost the resolved alias or the rules:\n%s", b)
	}
}

const multiJSON = `{
  "version": "1",
  "packages": [
    {
      "name": "lite",
      "path": "sqlite",
      "engine": "sqlite",
      "schema": "sqlite/schema.sql",
      "queries": "sqlite/query.sql"
    },
    {
      "name": "pg",
      "path": "postgresql",
      "engine": "postgresql",
      "sql_package": "pgx/v5",
      "schema": "postgresql/schema.sql",
      "queries": "postgresql/query.sql"
    },
    {
      "name": "my",
      "path": "mysql",
      "engine": "mysql",
      "schema": "mysql/schema.sql",
      "queries": "mysql/query.sql"
    }
  ],
  "overrides": [{"go_type": "string", "db_type": "uuid", "engine": "postgresql"}]
}
`

func TestReduceJSON(t *testing.T) {
	for _, keep := range []map[int]bool{{1: true}, {0: true, 2: true}, {2: true}, {0: true}} {
		b, err := reduceConfig("sqlc.json", []byte(multiJSON), keep)
		if err != nil {
			t.Fatalf("keep %v: %v", keep, err)
		}
		c, err := parseConfig("sqlc.json", b)
		if err != nil {
			t.Fatalf("keep %v: %v\n%s", keep, err, b)
		}
		var got, want []int
		for _, e := range c.Entries {
			got = append(got, map[string]int{"lite": 0, "pg": 1, "my": 2}[e.Name])
		}
		for i := range keep {
			want = append(want, i)
		}
		sort.Ints(want)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("keep %v: entries %v", keep, got)
		}
		if strings.Count(string(b), "\n") != strings.Count(multiJSON, "\n") || lineOf(string(b), `"overrides"`) != lineOf(multiJSON, `"overrides"`) {
			t.Errorf("keep %v: lines moved:\n%s", keep, b)
		}
	}
}

func TestReduceV1YAML(t *testing.T) {
	src := "version: 1\npackages:\n- name: a\n  path: a\n  engine: sqlite\n- name: b\n  path: b\n  engine: postgresql\noverrides:\n- {go_type: string, db_type: uuid}\n"
	b, err := reduceConfig("sqlc.yml", []byte(src), map[int]bool{1: true})
	if err != nil {
		t.Fatal(err)
	}
	c, _ := parseConfig("sqlc.yml", b)
	if len(c.Entries) != 1 || c.Entries[0].Name != "b" || !strings.Contains(string(b), "overrides:") {
		t.Errorf("reduced:\n%s", b)
	}
}

// TestInPlace runs fencegen on a configuration whose schema and output
// leave its folder, with entries for other engines and two PostgreSQL
// entries: each entry becomes a case that runs in one copy of the tree.
func TestInPlace(t *testing.T) {
	wd, _ := os.Getwd()
	t.Cleanup(func() { os.Chdir(wd) })
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"sql/schema/001_authors.sql": "CREATE TABLE authors (id bigint PRIMARY KEY, name text NOT NULL);\n",
		"sql/schema/002_books.sql":   "CREATE TABLE books (id bigint PRIMARY KEY, author_id bigint NOT NULL REFERENCES authors);\n",
		"db/query/authors.sql":       "-- name: GetAuthor :one\nSELECT id, name FROM authors WHERE id = $1;\n",
		"db/sqlc.yaml": `version: "2"
sql:
  - engine: sqlite
    schema: ../sql/sqlite
    queries: query
    gen: {go: {package: lite, out: ../internal/lite}}
  - engine: postgresql
    schema: ../sql/schema
    queries: query
    gen: {go: {package: pg, out: ../internal/pg, sql_package: pgx/v5}}
  - engine: postgresql
    schema: ../sql/schema
    queries: query
    gen: {go: {package: pg2, out: ../internal/pg2, sql_package: pgx/v5}}
`,
		"db/stray.go": "package stray\n",
	})
	cases, err := discover(root, false)
	if err != nil || len(cases) != 1 {
		t.Fatalf("discover = %v, %v", cases, err)
	}
	c := cases[0]
	if c.Dir != "db" || c.File != "db/sqlc.yaml" || c.SqlcCfg != "sqlc.yaml" {
		t.Errorf("case = %+v", c)
	}
	tmp := t.TempDir()
	for _, tool := range []string{"fencegen", "sqlc"} {
		if err := copyTree(root, filepath.Join(tmp, tool)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(tmp, "fencegen", "db", "stray.go")); err == nil {
		t.Error("copyTree copied a Go file")
	}
	c.work = filepath.Join(tmp, "fencegen", "db")
	c.sqlcWork = filepath.Join(tmp, "sqlc", "db")
	cs, err := prepare(c, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) != 2 {
		t.Fatalf("prepare gave %d cases, want one per PostgreSQL entry", len(cs))
	}
	for i, d := range cs {
		wantName := []string{"db#2", "db#3"}[i]
		wantFile := []string{"sqlc.corpus-2.yaml", "sqlc.corpus-3.yaml"}[i]
		wantOut := []string{"../internal/pg", "../internal/pg2"}[i]
		if d.Name != wantName || d.Config != wantFile || d.SqlcCfg != wantFile || d.SQLPackage != "pgx/v5" ||
			!reflect.DeepEqual(d.Dropped, []string{"sqlite"}) || !reflect.DeepEqual(d.outs, []string{wantOut}) {
			t.Errorf("case %d = %+v", i, d)
		}
		for _, tool := range []string{d.work, d.sqlcWork} {
			b, err := os.ReadFile(filepath.Join(tool, wantFile))
			if err != nil {
				t.Fatal(err)
			}
			pc, err := parseConfig(wantFile, b)
			if err != nil || len(pc.Entries) != 1 || pc.Entries[0].Out != wantOut {
				t.Errorf("%s in %s: %+v, %v", wantFile, tool, pc, err)
			}
		}
		runFencegen(d)
		if d.files == nil {
			t.Fatalf("%s: fencegen failed: %v", d.Name, d.Errors)
		}
		if _, ok := d.files[wantOut+"/models.go"]; !ok {
			t.Errorf("%s: files %v, want %s/models.go", d.Name, d.Files, wantOut)
		}
		if got := modPath(wantOut + "/models.go"); got != "_up/internal/"+filepath.Base(wantOut)+"/models.go" {
			t.Errorf("modPath = %q", got)
		}
	}

	// What sqlc would have written is collected from the entry's output
	// directory, relative to the configuration, like fencegen's files.
	writeTree(t, filepath.Join(tmp, "sqlc"), map[string]string{
		"internal/pg/models.go": "package pg\n",
		"internal/pg/db.go":     "package pg\n",
		"internal/pg2/db.go":    "package pg2\n",
	})
	got := sortedKeys(collectGo(cs[0].sqlcWork, cs[0].outs))
	if want := []string{"../internal/pg/db.go", "../internal/pg/models.go"}; !reflect.DeepEqual(got, want) {
		t.Errorf("collectGo = %v, want %v", got, want)
	}
}

func TestPrepareSingleEntryDropsInPlace(t *testing.T) {
	root := t.TempDir()
	cfg := "{\n  \"version\": \"2\",\n  \"sql\": [\n    {\"engine\": \"mysql\", \"schema\": \"m.sql\", \"queries\": \"m.sql\", \"gen\": {\"go\": {\"package\": \"m\", \"out\": \"m\"}}},\n    {\"engine\": \"postgresql\", \"schema\": \"p.sql\", \"queries\": \"p.sql\", \"gen\": {\"go\": {\"package\": \"p\", \"out\": \"p\"}}}\n  ]\n}\n"
	writeTree(t, root, map[string]string{"x/sqlc.json": cfg, "x/p.sql": "CREATE TABLE t (a int);\n"})
	cases, err := discover(root, false)
	if err != nil || len(cases) != 1 {
		t.Fatalf("discover = %v, %v", cases, err)
	}
	c := cases[0]
	tmp := t.TempDir()
	c.work, c.sqlcWork = filepath.Join(tmp, "f"), filepath.Join(tmp, "s")
	for _, d := range []string{c.work, c.sqlcWork} {
		if err := copyTree(filepath.Join(root, "x"), d); err != nil {
			t.Fatal(err)
		}
	}
	cs, err := prepare(c, true)
	if err != nil || len(cs) != 1 || cs[0] != c {
		t.Fatalf("prepare = %v, %v", cs, err)
	}
	if c.Config != "sqlc.json" || c.SQLPackage != "none" || !reflect.DeepEqual(c.Dropped, []string{"mysql"}) {
		t.Errorf("case = %+v", c)
	}
	if got := configCell(c); got != "x/sqlc.json [dropped entries: mysql]" {
		t.Errorf("configCell = %q", got)
	}
	for _, d := range []string{c.work, c.sqlcWork} {
		b, _ := os.ReadFile(filepath.Join(d, "sqlc.json"))
		pc, err := parseConfig("sqlc.json", b)
		if err != nil || len(pc.Entries) != 1 || pc.Entries[0].Engine != "postgresql" {
			t.Errorf("%s: %+v, %v\n%s", d, pc, err, b)
		}
	}
	// The original is untouched.
	if b, _ := os.ReadFile(filepath.Join(root, "x", "sqlc.json")); string(b) != cfg {
		t.Error("prepare changed the source tree")
	}
}

func TestPrepareNoPostgres(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"sqlc.yaml": "version: \"2\"\nsql:\n- {engine: sqlite, schema: s.sql, queries: s.sql, gen: {go: {package: s, out: s}}}\n"})
	cases, _ := discover(root, false)
	c := cases[0]
	c.work, c.sqlcWork = t.TempDir(), t.TempDir()
	cs, err := prepare(c, true)
	if err != nil || len(cs) != 1 || !strings.HasPrefix(cs[0].Skip, "no engine postgresql entry") {
		t.Fatalf("prepare = %+v, %v", cs, err)
	}
}

// TestPrepareMySQLPartlyCopied: under -engine mysql a configuration
// without a mysql entry is skipped as such, and one whose mysql entry
// names files the corpus lacks (sqlc's examples keep their MySQL halves
// in peers/sqlc-examples) is skipped, naming them, rather than failed by
// both generators; a project without a configuration yields no
// schema-only cases (those are PostgreSQL schemas).
func TestPrepareMySQLPartlyCopied(t *testing.T) {
	defer func(e string) { engine = e }(engine)
	engine = "mysql"
	root := t.TempDir()
	writeTree(t, root, map[string]string{
		"pg/sqlc.yaml":       "version: \"2\"\nsql:\n- {engine: postgresql, schema: s.sql, queries: s.sql, gen: {go: {package: s, out: s}}}\n",
		"part/sqlc.yaml":     "version: \"2\"\nsql:\n- {engine: postgresql, schema: p/s.sql, queries: p/q.sql, gen: {go: {package: s, out: p}}}\n- {engine: mysql, schema: [m/schema.sql], queries: m/q.sql, gen: {go: {package: s, out: m}}}\n",
		"part/p/s.sql":       "CREATE TABLE t (id int);\n",
		"whole/sqlc.yaml":    "version: \"2\"\nsql:\n- {engine: mysql, schema: \"m/*.sql\", queries: m/q.sql, gen: {go: {package: s, out: m}}}\n",
		"whole/m/q.sql":      "-- name: A :exec\nSELECT 1;\n",
		"whole/m/schema.sql": "CREATE TABLE t (id int);\n",
	})
	cases, _ := discover(root, false)
	skips := map[string]string{}
	for _, c := range cases {
		c.work, c.sqlcWork = t.TempDir(), t.TempDir()
		cs, err := prepare(c, true)
		if err != nil || len(cs) != 1 {
			t.Fatalf("prepare(%s) = %+v, %v", c.Name, cs, err)
		}
		skips[c.Name] = cs[0].Skip
	}
	want := map[string]string{"pg": "no engine mysql entry (postgresql)", "part": "not in the corpus: m/schema.sql, m/q.sql", "whole": ""}
	if !reflect.DeepEqual(skips, want) {
		t.Errorf("skips = %q, want %q", skips, want)
	}
	schemaOnly := t.TempDir()
	writeTree(t, schemaOnly, map[string]string{"db/schema.sql": "CREATE TABLE t (id int);\n"})
	if cases, err := discover(schemaOnly, false); err != nil || len(cases) != 0 {
		t.Errorf("schema-only project under -engine mysql: %d cases (%v), want none", len(cases), err)
	}
}

func TestProjectTypes(t *testing.T) {
	c := &Case{
		Compile:    "fail",
		CompileErr: []string{"db/models.go:7:9: undefined: AssetMetadata"},
		sqlcFiles:  map[string][]byte{"db/models.go": []byte("package db\n\ntype Upload struct {\n\tMeta AssetMetadata\n}\n")},
	}
	projectTypes(c)
	if !strings.HasPrefix(c.Compile, "skipped: needs the project's own Go types (AssetMetadata)") {
		t.Errorf("Compile = %q", c.Compile)
	}
	// A name sqlc declares itself is fencegen's defect, not the input's.
	c = &Case{
		Compile:    "fail",
		CompileErr: []string{"db/models.go:7:9: undefined: Status"},
		sqlcFiles:  map[string][]byte{"db/models.go": []byte("package db\n\ntype Status string\n\ntype T struct{ S Status }\n")},
	}
	projectTypes(c)
	if c.Compile != "fail" {
		t.Errorf("Compile = %q, want fail", c.Compile)
	}
}

// FuzzReduceConfig feeds configurations (the test's, and every sqlc
// configuration of ../shared/corpus when present) to parseConfig and
// reduceConfig: neither may panic, and a reduction that succeeds holds
// exactly the kept entries in the same order.
func FuzzReduceConfig(f *testing.F) {
	f.Add("sqlc.yaml", multiYAML, uint8(0b1010))
	f.Add("sqlc.json", multiJSON, uint8(0b010))
	filepath.WalkDir(filepath.Join("..", "..", "..", "shared", "corpus"), func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		if n := d.Name(); n == "sqlc.yaml" || n == "sqlc.yml" || n == "sqlc.json" {
			if b, err := os.ReadFile(p); err == nil {
				f.Add(n, string(b), uint8(0b01))
			}
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, name, src string, mask uint8) {
		if name != "sqlc.json" {
			name = "sqlc.yaml"
		}
		c, err := parseConfig(name, []byte(src))
		if err != nil {
			return
		}
		keep := map[int]bool{}
		var want []entry
		for _, e := range c.Entries {
			if e.Index < 8 && mask&(1<<e.Index) != 0 {
				keep[e.Index] = true
				want = append(want, e)
			}
		}
		b, err := reduceConfig(name, []byte(src), keep)
		if err != nil {
			return
		}
		r, err := parseConfig(name, b)
		if err != nil {
			t.Fatalf("reduced configuration does not parse: %v\n%s", err, b)
		}
		if len(r.Entries) != len(want) {
			t.Fatalf("%d entries after reduction, want %d\n%s", len(r.Entries), len(want), b)
		}
	})
}

func TestCopyTreeLinks(t *testing.T) {
	outside := t.TempDir()
	root := t.TempDir()
	writeTree(t, root, map[string]string{"sql/schema/a.sql": "CREATE TABLE a (x int);\n", "q.sql": "-- q\n", "x.go": "package x\n"})
	writeTree(t, outside, map[string]string{"b.sql": "-- b\n"})
	for link, target := range map[string]string{
		"schema":  "sql/schema",                   // in the tree: stays a link
		"q2.sql":  "q.sql",                        // a file: copied
		"out":     outside,                        // outside, absolute: left out
		"out_rel": "../" + filepath.Base(outside), // outside, relative: left out
		".git":    "sql",                          // hidden: left out
	} {
		if err := os.Symlink(target, filepath.Join(root, link)); err != nil {
			t.Skip("no symbolic links here:", err)
		}
	}
	dst := filepath.Join(t.TempDir(), "copy")
	if err := copyTree(root, dst); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(filepath.Join(dst, "schema", "a.sql")); err != nil || string(b) != "CREATE TABLE a (x int);\n" {
		t.Errorf("schema/a.sql through the copied link: %q, %v", b, err)
	}
	if l, err := os.Readlink(filepath.Join(dst, "schema")); err != nil || l != "sql/schema" {
		t.Errorf("schema link = %q, %v", l, err)
	}
	if fi, err := os.Lstat(filepath.Join(dst, "q2.sql")); err != nil || !fi.Mode().IsRegular() {
		t.Errorf("q2.sql: %v, %v; want a regular file", fi, err)
	}
	for _, gone := range []string{"out", "out_rel", ".git", "x.go"} {
		if _, err := os.Lstat(filepath.Join(dst, gone)); err == nil {
			t.Errorf("%s was copied", gone)
		}
	}
}
