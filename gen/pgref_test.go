// PostgreSQL itself as the reference for fencegen's catalog and types.
//
// TestPgRef takes every configuration it can find (the sqlc cases in
// ../shared/corpus/sqlc and ../shared/corpus/sqlc-stdlib, the real
// projects in ../shared/corpus/real, this package's own
// testdata/cases/* and examples/accounts) and, for each PostgreSQL sql
// entry:
//
//  1. builds fencegen's catalog exactly as preparePackage does (expand,
//     readAndParse, catalog.Update statement by statement) while applying
//     the same statements, one at a time and in the same order, to a
//     scratch database (named fg_pgref_..., dropped after). After every
//     schema file it compares fencegen's catalog with pg_catalog: schemas,
//     tables, views and sequences, their columns (type, NOT NULL, default,
//     identity, generated, comment), primary keys and unique constraints,
//     foreign keys with their actions, enums, domains, composite types,
//     functions (argument and result types), and the fencing marks
//     (COMMENT ON COLUMN ... 'fencegen:token'). At the end the config
//     marks are applied and the fenced tables checked against
//     PostgreSQL's view of the token column and of pg_inherits.
//  2. with the whole schema applied, analyses the entry's queries and
//     PREPAREs each query's SQL (Query.SQL, as sent) to compare the
//     parameter and result column types PostgreSQL infers with fencegen's.
//
// Each disagreement is a line "config: after <schema file>: <object>:
// <aspect>: fencegen says X, PostgreSQL says Y". Its key (the line without
// the "after" part) must be listed in testdata/pgref/accepted.txt with a
// one-line reason (the class of error), or the test fails. Listed keys
// that no longer occur are logged as stale; -pgref.stale makes them fail.
// -pgref.update rewrites accepted.txt with the current disagreements,
// keeping the reasons of the keys already listed.
//
// A schema that PostgreSQL rejects (syntax newer than PostgreSQL 15, an
// extension the server lacks, ...) stops the comparison of that entry at
// that statement: the entry's status says "PostgreSQL rejected
// file:line: error", which is not a failure. Statements PostgreSQL rejects
// only because a role does not exist (GRANT, OWNER TO) are skipped.
//
//	go test -count=1 -run TestPgRef ./gen -v
//	go test -count=1 -run 'TestPgRef/real/kannon' ./gen -v
//	go test -count=1 -run TestPgRef ./gen -pgref.update
package gen

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/config"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/internal/testenv"
)

var (
	pgrefUpdate = flag.Bool("pgref.update", false, "rewrite testdata/pgref/accepted.txt with TestPgRef's current disagreements")
	pgrefStale  = flag.Bool("pgref.stale", false, "fail TestPgRef on accepted disagreements that no longer occur")
)

const pgrefAccepted = "testdata/pgref/accepted.txt"

// pgrefConfigNames are the configuration files a directory may hold, in
// the order fencegen looks for them (config.Find).
var pgrefConfigNames = []string{"fencegen.yaml", "fencegen.yml", "sqlc.yaml", "sqlc.yml", "sqlc.json"}

// pgrefCase is one configuration to compare.
type pgrefCase struct {
	// Name is the subtest name and the key prefix: group/relative path of
	// the configuration's directory.
	Name string
	// Path is the configuration file; "" for a schema-only case.
	Path string
	// Schema is the schema file of a schema-only case (a project without
	// configuration: a pg_dump or a schema file per version).
	Schema string
}

// pgrefRun collects what the subtests found.
type pgrefRun struct {
	accepted map[string]string
	mu       sync.Mutex
	found    map[string]string // key → reason (accepted or classified)
	ran      map[string]bool   // case names compared to the end
	entries  int
	statuses map[string]int
	queries  int
}

func TestPgRef(t *testing.T) {
	run := &pgrefRun{accepted: readAccepted(t), found: map[string]string{}, ran: map[string]bool{}, statuses: map[string]int{}}
	// One connection to check the server is there (skip or, under CI,
	// fail, with one line).
	ctx := context.Background()
	admin, err := pgx.Connect(ctx, testenv.DatabaseURL())
	if err != nil {
		testenv.Unavailable(t, "PostgreSQL", "DATABASE_URL", err)
	}
	roles := pgrefRoles(t, admin)
	admin.Close(ctx)
	t.Cleanup(func() {
		pgrefDBs.dropAll(t)
		c, err := pgx.Connect(ctx, testenv.DatabaseURL())
		if err != nil {
			return
		}
		defer c.Close(ctx)
		for _, r := range pgrefRoles(t, c) {
			if !slices.Contains(roles, r) {
				t.Errorf("role %s appeared while TestPgRef ran: a schema statement reached the cluster (see clusterStmt)", r)
			}
		}
	})
	start := time.Now()

	corpus := filepath.Join("..", "..", "shared", "corpus")
	groups := []struct{ name, dir string }{
		{"cases", filepath.Join("testdata", "cases")},
		{"examples", filepath.Join("..", "examples")},
		{"sqlc", filepath.Join(corpus, "sqlc")},
		{"sqlc-stdlib", filepath.Join(corpus, "sqlc-stdlib")},
		{"real", filepath.Join(corpus, "real")},
	}
	t.Run("all", func(t *testing.T) {
		for _, g := range groups {
			t.Run(g.name, func(t *testing.T) {
				if _, err := os.Stat(g.dir); err != nil {
					t.Skipf("SKIP: %s not present (the shared corpus is optional)", filepath.ToSlash(g.dir))
				}
				cases, err := pgrefDiscover(g.dir)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range cases {
					c.Name = g.name + "/" + c.Name
					t.Run(strings.TrimPrefix(c.Name, g.name+"/"), func(t *testing.T) {
						t.Parallel()
						run.compareCase(t, c)
					})
				}
			})
		}
	})
	t.Logf("TestPgRef: %d entries, %d queries prepared, %d disagreements, in %s", run.entries, run.queries, len(run.found), time.Since(start).Round(time.Second))
	statuses := slices.Sorted(func(yield func(string) bool) {
		for k := range run.statuses {
			if !yield(k) {
				return
			}
		}
	})
	for _, s := range statuses {
		t.Logf("status %-40s %d entries", s, run.statuses[s])
	}
	if *pgrefUpdate {
		writeAccepted(t, run.found)
		return
	}
	var stale []string
	for k := range run.accepted {
		if _, ok := run.found[k]; ok {
			continue
		}
		if c, _, ok := strings.Cut(k, ": "); ok && run.ran[strings.SplitN(c, "#", 2)[0]] {
			stale = append(stale, k)
		}
	}
	sort.Strings(stale)
	for _, k := range stale {
		if *pgrefStale {
			t.Errorf("stale accepted difference (no longer occurs; remove it from %s): %s", pgrefAccepted, k)
		} else {
			t.Logf("stale accepted difference: %s", k)
		}
	}
}

func pgrefRoles(t *testing.T, conn *pgx.Conn) []string {
	rows, err := conn.Query(context.Background(), "SELECT rolname::text FROM pg_roles ORDER BY 1")
	if err != nil {
		t.Fatal(err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatal(err)
	}
	return names
}

// pgrefDiscover finds the configurations under dir (a directory holding
// one of pgrefConfigNames, the first taken), and, when there is none, the
// *schema*.sql files as schema-only cases.
func pgrefDiscover(dir string) ([]*pgrefCase, error) {
	var out []*pgrefCase
	var schemas []*pgrefCase
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p != dir && d.IsDir() && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || d.Name() == "want") {
			return filepath.SkipDir
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		if !d.IsDir() {
			if strings.HasSuffix(d.Name(), ".sql") && strings.Contains(strings.ToLower(d.Name()), "schema") {
				schemas = append(schemas, &pgrefCase{Name: rel, Schema: p})
			}
			return nil
		}
		for _, n := range pgrefConfigNames {
			if _, err := os.Stat(filepath.Join(p, n)); err == nil {
				out = append(out, &pgrefCase{Name: path0(rel), Path: filepath.Join(p, n)})
				break
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	// A project (first path element) without any configuration
	// contributes its schema files.
	projects := map[string]bool{}
	for _, c := range out {
		projects[strings.SplitN(c.Name, "/", 2)[0]] = true
	}
	for _, s := range schemas {
		if !projects[strings.SplitN(s.Name, "/", 2)[0]] && strings.Contains(s.Name, "/") {
			out = append(out, s)
		}
	}
	return out, nil
}

func path0(rel string) string {
	if rel == "." {
		return "root"
	}
	return rel
}

// pgrefDiff is one disagreement.
type pgrefDiff struct {
	key, line string
}

// entry is one sql entry being compared.
type pgrefEntry struct {
	t      *testing.T
	name   string // key prefix: case name and, for several entries, #n
	cfgDir string
	diffs  []pgrefDiff
	seen   map[string]bool
	status string
	after  string // schema file last applied, relative to the configuration
}

func (e *pgrefEntry) rel(file string) string {
	if r, err := filepath.Rel(e.cfgDir, filepath.FromSlash(file)); err == nil && !strings.HasPrefix(r, "..") {
		return filepath.ToSlash(r)
	}
	return filepath.ToSlash(filepath.Base(file))
}

// differ records "object: aspect: fencegen says fg, PostgreSQL says pg".
func (e *pgrefEntry) differ(object, aspect, fg, pg string) {
	what := fmt.Sprintf("%s: %s: fencegen says %s, PostgreSQL says %s", object, aspect, fg, pg)
	what = strings.NewReplacer("\t", " ", "\n", " ", "\r", " ").Replace(what)
	key := e.name + ": " + what
	if e.seen[key] {
		return
	}
	e.seen[key] = true
	e.diffs = append(e.diffs, pgrefDiff{key: key, line: fmt.Sprintf("%s: after %s: %s", e.name, e.after, what)})
}

func (run *pgrefRun) compareCase(t *testing.T, c *pgrefCase) {
	var cfg *Config
	if c.Path != "" {
		var err error
		cfg, err = LoadConfig(c.Path)
		if err != nil {
			// sqlc configurations fencegen refuses (database/sql, ...):
			// the catalog does not depend on the Go options, so take the
			// schema and queries of each PostgreSQL entry as they are.
			cfg = pgrefLenientConfig(c.Path)
			if cfg == nil {
				run.status(t, c.Name, "fencegen could not load the configuration")
				return
			}
		}
	} else {
		cfg = &Config{Path: c.Schema, Dir: filepath.Dir(c.Schema), Version: "2",
			Packages: []config.Package{{Engine: "postgresql", Schema: []string{filepath.Base(c.Schema)}}}}
	}
	for i, pkg := range cfg.Packages {
		name := c.Name
		if len(cfg.Packages) > 1 {
			name = fmt.Sprintf("%s#%d", c.Name, i+1)
		}
		e := &pgrefEntry{t: t, name: name, cfgDir: cfg.Dir, seen: map[string]bool{}}
		func() {
			defer func() {
				if r := recover(); r != nil {
					e.differ("fencegen", "panic", fmt.Sprint(r), "no error")
					t.Logf("%s: panic: %v\n%s", name, r, debug.Stack())
				}
			}()
			run.compareEntry(t, e, cfg, pkg)
		}()
		run.mu.Lock()
		run.entries++
		st := e.status
		if st == "" {
			st = "compared"
		}
		run.statuses[statusClass(st)]++
		for _, d := range e.diffs {
			reason, ok := run.accepted[d.key]
			if !ok {
				reason = classify(d.key)
				if !*pgrefUpdate {
					t.Errorf("new disagreement (list it in %s if accepted): %s", pgrefAccepted, d.line)
				}
			}
			run.found[d.key] = reason
		}
		run.mu.Unlock()
		if e.status != "" {
			t.Logf("%s: %s", name, e.status)
		}
		if testing.Verbose() {
			for _, d := range e.diffs {
				t.Logf("%s", d.line)
			}
		}
	}
	run.mu.Lock()
	run.ran[c.Name] = true
	run.mu.Unlock()
}

func (run *pgrefRun) status(t *testing.T, name, st string) {
	t.Logf("%s: %s", name, st)
	run.mu.Lock()
	run.statuses[statusClass(st)]++
	run.ran[name] = true
	run.mu.Unlock()
}

// statusClass is the first words of a status, for the summary.
func statusClass(st string) string {
	if i := strings.Index(st, ":"); i >= 0 {
		st = st[:i]
	}
	return strings.TrimRight(st, " 0123456789./-_")
}

// pgrefLenientConfig reads a configuration fencegen refuses (for example
// sqlc's database/sql entries) through a copy that asks for pgx/v5; nil
// if that does not load either.
func pgrefLenientConfig(path string) *Config {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	re := regexp.MustCompile(`("?sql_package"?\s*:\s*)"?[A-Za-z/0-9._-]+"?`)
	b = re.ReplaceAll(b, []byte(`${1}"pgx/v5"`))
	dir := filepath.Dir(path)
	f, err := os.CreateTemp("", "pgref-*"+filepath.Ext(path))
	if err != nil {
		return nil
	}
	defer os.Remove(f.Name())
	f.Write(b)
	f.Close()
	cfg, err := LoadConfig(f.Name())
	if err != nil {
		return nil
	}
	// Paths in the copy are relative to the original's directory.
	cfg.Path, cfg.Dir = path, dir
	return cfg
}

var (
	txnStmt = regexp.MustCompile(`(?i)^\s*(BEGIN|COMMIT|END|ROLLBACK|START\s+TRANSACTION|SAVEPOINT|RELEASE|ABORT)\b`)
	// clusterStmt matches statements whose effect reaches beyond the
	// scratch database (roles, databases, tablespaces, server settings),
	// which the test must not run.
	clusterStmt = regexp.MustCompile(`(?i)^\s*((CREATE|ALTER|DROP)\s+(ROLE|GROUP|DATABASE|TABLESPACE)\b|(CREATE|ALTER|DROP)\s+USER\s+\w|ALTER\s+SYSTEM\b|REASSIGN\s+OWNED\b)`)
	// doRole matches role or database statements inside a DO block.
	doRole      = regexp.MustCompile(`(?is)^\s*DO\b.*\b((CREATE|ALTER|DROP)\s+(ROLE|GROUP|DATABASE|TABLESPACE|USER))\b`)
	userMapping = regexp.MustCompile(`(?i)^\s*(CREATE|ALTER|DROP)\s+USER\s+MAPPING\b`)
	setStmt     = regexp.MustCompile(`(?i)^\s*(SET|RESET)\b|^\s*SELECT\s+(pg_catalog\.)?set_config\s*\(`)
	noTx        = regexp.MustCompile(`(?im)^--\s*\+goose\s+NO\s+TRANSACTION|\bCONCURRENTLY\b`)
	annotated   = regexp.MustCompile(`(?m)^\s*--\s*name:\s*\S+\s*:`)
)

// applyFile runs pf's statements one by one, as a migration tool runs a
// file: in one transaction, unless the file has transaction statements
// of its own (then those run as written). apply is called for each
// statement PostgreSQL accepted. Skipped: statements outside the scratch
// database (clusterStmt), annotated queries in a schema file, and
// statements PostgreSQL rejects only for a missing role (GRANT, OWNER TO),
// a setting it lacks (SET) or an existing public schema; a statement that
// cannot run in a transaction runs alone. It returns "line: error" for the
// statement PostgreSQL rejected, or "".
func applyFile(ctx context.Context, conn *pgx.Conn, pf *sqlparse.File, apply func(*sqlparse.Stmt)) string {
	// goose's NO TRANSACTION, or a statement that cannot run in one
	// (CREATE INDEX CONCURRENTLY): statement by statement, unwrapped.
	own := noTx.Match(pf.Src)
	for _, st := range pf.Stmts {
		if txnStmt.MatchString(string(pf.Src[st.Start:st.End])) {
			own = true
		}
	}
	exec := func(sql string) error { _, err := conn.Exec(ctx, sql); return err }
	inTx := func() bool { return conn.PgConn().TxStatus() != 'I' }
	defer func() {
		switch conn.PgConn().TxStatus() {
		case 'T':
			exec("COMMIT")
		case 'E':
			exec("ROLLBACK")
		}
	}()
	if !own {
		if err := exec("BEGIN"); err != nil {
			return "1: " + pgMessage(err)
		}
	}
	for _, st := range pf.Stmts {
		text := strings.TrimSpace(string(pf.Src[st.Start:st.End]))
		lead := string(pf.Src[st.Lead:st.Start])
		if text == "" || (clusterStmt.MatchString(text) && !userMapping.MatchString(text)) || doRole.MatchString(text) || annotated.MatchString(lead) {
			continue
		}
		if txnStmt.MatchString(text) {
			if err := exec(text); err != nil {
				line, _ := diag.Position(pf.Src, st.Start)
				return fmt.Sprintf("%d: %s", line, pgMessage(err))
			}
			continue
		}
		tx := inTx()
		if tx {
			exec("SAVEPOINT fg_pgref")
		}
		err := exec(text)
		if err != nil && tx {
			exec("ROLLBACK TO SAVEPOINT fg_pgref")
		}
		var pe *pgconn.PgError
		errors.As(err, &pe)
		if err != nil && pe != nil && pe.Code == "25001" && tx && !own {
			// CREATE INDEX CONCURRENTLY and the like: alone.
			exec("COMMIT")
			err = exec(text)
			exec("BEGIN")
			errors.As(err, &pe)
		}
		if err != nil {
			switch {
			case pe != nil && pe.Code == "42704" && strings.HasPrefix(pe.Message, "role "):
				continue // GRANT or OWNER TO a role this server lacks
			case setStmt.MatchString(text):
				continue // a setting of a newer server
			case pe != nil && pe.Code == "42P06" && strings.Contains(pe.Message, `"public"`):
				continue // pg_dump's CREATE SCHEMA public
			}
			line, _ := diag.Position(pf.Src, st.Start)
			return fmt.Sprintf("%d: %s", line, pgMessage(err))
		}
		if tx {
			exec("RELEASE SAVEPOINT fg_pgref")
		}
		apply(st)
	}
	return ""
}

func (run *pgrefRun) compareEntry(t *testing.T, e *pgrefEntry, cfg *Config, pkg config.Package) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	schemaFiles, errs := expand(cfg, pkg.Schema, pkg.Pos)
	if len(errs) > 0 {
		e.status = "fencegen: schema entry: " + errs[0].Msg
		return
	}
	conn := pgrefDatabase(t, ctx)
	if _, err := conn.Exec(ctx, "SET check_function_bodies = off"); err != nil {
		t.Fatal(err)
	}
	cat := catalog.New(catalog.WithColumnGenerator(analyze.ColumnGenerator{}))
	complete := true
	for _, f := range schemaFiles {
		e.after = e.rel(f)
		pf, perr := readAndParse(f, true, nil)
		if pf == nil || perr != nil {
			msg := "cannot read"
			if perr != nil {
				msg = perr.Error()
			}
			// Does PostgreSQL take the file? (In a transaction rolled back.)
			if pgErr := pgAcceptsFile(ctx, conn, f); pgErr == nil {
				e.differ("schema file "+e.rel(f), "parse", "error "+stripPos(msg), "accepted")
			}
			e.status = "fencegen rejected " + e.rel(f) + ": " + stripPos(msg)
			complete = false
			break
		}
		stop := false
		if msg := applyFile(ctx, conn, pf, func(st *sqlparse.Stmt) {
			n := len(cat.Errors)
			cat.Update(pf, st)
			for _, ce := range cat.Errors[n:] {
				e.differ("schema file "+e.rel(f), "statement", "error "+strconv(ce), "accepted")
			}
		}); msg != "" {
			e.status = "PostgreSQL rejected " + e.rel(f) + ":" + msg
			stop = true
		}
		e.compareCatalog(ctx, conn, cat, false)
		if stop {
			complete = false
			break
		}
	}
	if !complete {
		return
	}
	// The config marks, as preparePackage applies them (a table or column
	// the schema lacks is its error, and marks nothing).
	_, _ = markConfigFences(cat, cfg.Path, pkg, map[config.Position]bool{})
	verrs := cat.Validate()
	e.after = "the fence marks"
	e.compareFences(ctx, conn, cat, verrs)

	// Queries, against a fresh session (search_path as a client has it).
	qconn := pgrefConnect(t, ctx, conn.Config().Database)
	defer qconn.Close(ctx)
	queryFiles, qerr := expand(cfg, pkg.Queries, pkg.Pos)
	if len(qerr) > 0 {
		e.status = "fencegen: queries entry: " + qerr[0].Msg
		return
	}
	var parsed []*sqlparse.File
	for _, f := range queryFiles {
		pf, _ := readAndParse(f, false, nil)
		if pf != nil {
			parsed = append(parsed, pf)
		}
	}
	analyzed, aerr := analyze.Analyze(cat, parsed)
	if len(aerr) > 0 {
		e.status = fmt.Sprintf("fencegen reported %d query errors (first: %s)", len(aerr), stripPos(aerr[0].Error()))
	}
	types, err := loadTypes(ctx, qconn)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, af := range analyzed {
		for _, q := range af.Queries {
			e.after = "the schema"
			e.compareQuery(ctx, qconn, types, q)
			n++
		}
	}
	run.mu.Lock()
	run.queries += n
	run.mu.Unlock()
}

func strconv(e *diag.Error) string { return stripPos(e.Msg) }

var posRe = regexp.MustCompile(`^[^\s:]+:\d+(:\d+)?: `)
var lineRe = regexp.MustCompile(`(\.sql):\d+`)

// stripPos drops "file:line:col: " and line numbers from a message, for a
// stable key.
func stripPos(s string) string {
	s = strings.SplitN(s, "\n", 2)[0]
	s = posRe.ReplaceAllString(s, "")
	return lineRe.ReplaceAllString(s, "$1")
}

func pgMessage(err error) string {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		return pe.Message
	}
	return err.Error()
}

// pgAcceptsFile runs file in a transaction that is rolled back and
// returns PostgreSQL's error, or nil.
func pgAcceptsFile(ctx context.Context, conn *pgx.Conn, file string) error {
	b, err := os.ReadFile(file)
	if err != nil {
		return err
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	_, err = tx.Exec(ctx, string(b))
	return err
}

// pgrefPool hands out scratch databases fg_pgref_<pid>_<n>, created when
// first needed and dropped when TestPgRef ends. CREATE DATABASE costs a
// second or more; emptying one (resetDatabase) a few milliseconds.
type pgrefPool struct {
	mu   sync.Mutex
	free []string
	all  []string
}

var pgrefDBs = &pgrefPool{}

// pgrefDatabase takes an empty scratch database, returned to the pool
// when t ends, and returns a connection to it.
func pgrefDatabase(t *testing.T, ctx context.Context) *pgx.Conn {
	t.Helper()
	p := pgrefDBs
	p.mu.Lock()
	var name string
	if n := len(p.free); n > 0 {
		name, p.free = p.free[n-1], p.free[:n-1]
	} else {
		name = fmt.Sprintf("fg_pgref_%d_%d", os.Getpid(), len(p.all)+1)
		p.all = append(p.all, name)
	}
	p.mu.Unlock()
	fresh := false
	conn, err := pgrefTryConnect(ctx, name)
	if err != nil {
		admin, err := pgx.Connect(ctx, testenv.DatabaseURL())
		if err != nil {
			testenv.Unavailable(t, "PostgreSQL", "DATABASE_URL", err)
		}
		_, err = admin.Exec(ctx, "CREATE DATABASE "+name+" TEMPLATE template0")
		admin.Close(ctx)
		if err != nil {
			t.Fatalf("create database %s: %v", name, err)
		}
		conn = pgrefConnect(t, ctx, name)
		fresh = true
	}
	if !fresh {
		if err := resetDatabase(ctx, conn); err != nil {
			t.Fatalf("empty scratch database %s: %v", name, err)
		}
	}
	t.Cleanup(func() {
		conn.Close(context.Background())
		p.mu.Lock()
		p.free = append(p.free, name)
		p.mu.Unlock()
	})
	return conn
}

// dropAll drops the pool's databases.
func (p *pgrefPool) dropAll(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.all) == 0 {
		return
	}
	c, err := pgx.Connect(ctx, testenv.DatabaseURL())
	if err != nil {
		t.Errorf("drop scratch databases: %v", err)
		return
	}
	defer c.Close(ctx)
	for _, name := range p.all {
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	}
	p.all, p.free = nil, nil
}

// resetDatabase empties a scratch database: every extension but plpgsql,
// every user schema (public too, recreated), event trigger, publication,
// foreign server and wrapper, user cast and language; then checks that no
// user object is left.
func resetDatabase(ctx context.Context, conn *pgx.Conn) error {
	_, err := conn.Exec(ctx, `DO $$ DECLARE r record; BEGIN
		FOR r IN SELECT evtname FROM pg_event_trigger LOOP EXECUTE format('DROP EVENT TRIGGER %I CASCADE', r.evtname); END LOOP;
		FOR r IN SELECT pubname FROM pg_publication LOOP EXECUTE format('DROP PUBLICATION %I CASCADE', r.pubname); END LOOP;
		FOR r IN SELECT extname FROM pg_extension WHERE extname <> 'plpgsql' LOOP EXECUTE format('DROP EXTENSION IF EXISTS %I CASCADE', r.extname); END LOOP;
		FOR r IN SELECT fdwname FROM pg_foreign_data_wrapper LOOP EXECUTE format('DROP FOREIGN DATA WRAPPER %I CASCADE', r.fdwname); END LOOP;
		FOR r IN SELECT nspname FROM pg_namespace n WHERE `+userNS+` LOOP EXECUTE format('DROP SCHEMA %I CASCADE', r.nspname); END LOOP;
		FOR r IN SELECT oid FROM pg_cast WHERE oid >= 16384 LOOP EXECUTE format('DROP CAST (%s AS %s) CASCADE', (SELECT castsource::regtype FROM pg_cast WHERE oid = r.oid), (SELECT casttarget::regtype FROM pg_cast WHERE oid = r.oid)); END LOOP;
		FOR r IN SELECT lanname FROM pg_language WHERE oid >= 16384 AND lanname <> 'plpgsql' LOOP EXECUTE format('DROP LANGUAGE %I CASCADE', r.lanname); END LOOP;
		END $$`)
	if err != nil {
		return err
	}
	if _, err := conn.Exec(ctx, "CREATE SCHEMA public"); err != nil {
		return err
	}
	var left int
	err = conn.QueryRow(ctx, `SELECT (SELECT count(*) FROM pg_class WHERE oid >= 16384) + (SELECT count(*) FROM pg_type WHERE oid >= 16384)
		+ (SELECT count(*) FROM pg_proc WHERE oid >= 16384) + (SELECT count(*) FROM pg_extension WHERE extname <> 'plpgsql')`).Scan(&left)
	if err == nil && left > 0 {
		err = fmt.Errorf("%d objects left after emptying it", left)
	}
	return err
}

func pgrefTryConnect(ctx context.Context, db string) (*pgx.Conn, error) {
	pc, err := pgx.ParseConfig(testenv.DatabaseURL())
	if err != nil {
		return nil, err
	}
	pc.Database = db
	pc.RuntimeParams["statement_timeout"] = "20000"
	pc.RuntimeParams["client_min_messages"] = "warning"
	return pgx.ConnectConfig(ctx, pc)
}

func pgrefConnect(t *testing.T, ctx context.Context, db string) *pgx.Conn {
	t.Helper()
	conn, err := pgrefTryConnect(ctx, db)
	if err != nil {
		t.Fatalf("connect to %s: %v", db, err)
	}
	return conn
}

func readAccepted(t *testing.T) map[string]string {
	out := map[string]string{}
	f, err := os.Open(pgrefAccepted)
	if errors.Is(err, fs.ErrNotExist) {
		return out
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, reason, ok := strings.Cut(line, "\t")
		if !ok || strings.TrimSpace(reason) == "" {
			t.Fatalf("%s:%d: want \"key<TAB>reason\"", pgrefAccepted, n)
		}
		out[key] = strings.TrimSpace(reason)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func writeAccepted(t *testing.T, found map[string]string) {
	var b strings.Builder
	b.WriteString("# Disagreements between fencegen and PostgreSQL that TestPgRef accepts for now\n")
	b.WriteString("# (see gen/pgref_test.go). One per line: key<TAB>reason (the class of error).\n")
	b.WriteString("# Regenerate with: go test -count=1 -run TestPgRef ./gen -pgref.update\n")
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range found {
			if !yield(k) {
				return
			}
		}
	}) {
		b.WriteString(k + "\t" + found[k] + "\n")
	}
	if err := os.MkdirAll(filepath.Dir(pgrefAccepted), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pgrefAccepted, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s: %d disagreements", pgrefAccepted, len(found))
}
