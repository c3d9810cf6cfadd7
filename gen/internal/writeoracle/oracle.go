// Package writeoracle checks fencegen's write analysis against PostgreSQL:
// PostgreSQL, not the analysis, says which statements write a fenced
// table (issue 24, "PostgreSQL is the oracle for writes").
//
// For one sql entry of a configuration file, Check applies the schema to a
// scratch database of its own (named oracle_<random>, dropped after), adds
// a token column (TokenColumn, bigint NOT NULL DEFAULT 0) to every table
// without a parent, seeds two rows into every table with a stored token
// that the stale token (1) does not beat, and installs recording triggers
// (statement- and row-level, AFTER INSERT, UPDATE, DELETE and, per
// statement, TRUNCATE) on every table, its inheritance children and
// partitions, which write to an audit table. It then marks tables fenced
// (COMMENT ON COLUMN ... IS 'fencegen:token', as a schema marks them), runs
// the generator (gen.Generate, the CLI's entry) and runs every SQL
// constant of the generated code inside a transaction that is rolled back
// after the audit is read, once per binding of its parameters (every
// parameter to its type's first candidate value, which the first seeded
// row holds, then the second, then NULL):
//
//   - a statement generated without a guard that PostgreSQL lets write a
//     fenced table is an escape;
//   - a guarded statement run with the stale token must not update,
//     delete or truncate a fenced row (a stale write); it is also run with
//     a fresh token, and one PostgreSQL rejects with both is a guarded
//     statement that always fails;
//   - a query the generator refuses (with the marks; it generates without
//     them) that PostgreSQL runs without writing a fenced table is an
//     over-refusal;
//   - a statement PostgreSQL rejects under every binding is counted as
//     rejected, never as a pass;
//   - a session statement without parameters (DDL, SET, set_config: its
//     effect outlives it on a pooled connection) is run before every
//     statement generated without a guard, in one transaction: a fenced
//     write the second does not make alone is an escape when the first
//     was generated, and justifies its refusal when it was refused
//     (sessionPairs).
//
// Marks: every table at once; with Options.Each also each table alone
// (with its children and partitions), which finds what a mark on one
// table lets through on another (an unfenced parent's write reaching a
// fenced child).
package writeoracle

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/gen/internal/config"
	"github.com/fencegen/fencegen/internal/pgscratch"
)

// Options configure a check.
type Options struct {
	// AdminURL is a PostgreSQL URL whose user may create databases; the
	// scratch databases are created on its server.
	AdminURL string
	// Each also marks each table alone, after all tables together; MaxEach
	// bounds how many tables of an entry are marked alone (0: all).
	Each    bool
	MaxEach int
	// Timeout bounds each statement (statement_timeout and lock_timeout);
	// 0 means 5 seconds.
	Timeout time.Duration
	// Label names the checked entry in findings (default: the
	// configuration's path).
	Label string
	// Prelude are statements run after BEGIN, before each statement
	// (prepared statements that the checked queries EXECUTE).
	Prelude []string
	// OwnMarksOnly marks no table beyond those the project marks itself.
	OwnMarksOnly bool
	// NoSessionPairs skips the runs of each session statement before every
	// other statement (sessionPairs): their number is the product of the
	// two counts, too many for a real project whose query files hold
	// dozens of CREATE TABLE statements (TestOracleCorpora; the shapes
	// hold the session classes and keep the pairs).
	NoSessionPairs bool
	// SharedDatabase checks each entry of a configuration in a database
	// that holds every entry's schema (applied in order), with every
	// entry generated (the others with a read-only query each), as
	// fencegen takes the entries to share one database: a write of one
	// entry that reaches a table another fences through that entry's
	// schema (a trigger, a cascading foreign key, a relation of another
	// schema of the same name) is seen (trial r24 N6, N8).
	SharedDatabase bool
	// Trace, when set, receives one line per query: what the generator
	// made of it and what PostgreSQL recorded.
	Trace func(line string)
}

// Figures count what a check did.
type Figures struct {
	// Entries checked, and those the generator could not render even
	// without marks (a problem outside the queries).
	Entries, EntriesFailed int
	// Statements run: Unguarded + GuardedStale.
	Statements int
	// Unguarded statements executed, and the Escapes among them.
	Unguarded, Escapes int
	// GuardedStale are guarded statements run with the stale token, and
	// StaleWrites those that wrote; GuardedRejected those PostgreSQL
	// rejected with both the stale and a fresh token while it runs the
	// query generated without the marks (a guarded method that always
	// fails).
	GuardedStale, StaleWrites, GuardedRejected int
	// Rejected are unguarded statements PostgreSQL rejected under every
	// binding (no verdict); Skipped those not sent (transaction control,
	// COPY with the client).
	Rejected, Skipped int
	// Refused are queries the generator refused with the marks (and
	// generated without them); OverRefusals those PostgreSQL ran without
	// writing any table; OverRefusalCandidates those it ran writing only
	// tables that are not fenced (a fenced write that depends on rows,
	// such as a foreign key's cascade, may need rows the seeding did not
	// make); RefusedRejected those it rejected.
	Refused, OverRefusals, OverRefusalCandidates, RefusedRejected int
	// RejectedBy counts the statements PostgreSQL rejected (every
	// binding) by the SQLSTATE of the first error.
	RejectedBy map[string]int
}

// add adds g's counts to f.
func (f *Figures) add(g Figures) {
	f.Entries += g.Entries
	f.EntriesFailed += g.EntriesFailed
	f.Statements += g.Statements
	f.Unguarded += g.Unguarded
	f.Escapes += g.Escapes
	f.GuardedStale += g.GuardedStale
	f.StaleWrites += g.StaleWrites
	f.GuardedRejected += g.GuardedRejected
	f.Rejected += g.Rejected
	f.Skipped += g.Skipped
	f.Refused += g.Refused
	f.OverRefusals += g.OverRefusals
	f.OverRefusalCandidates += g.OverRefusalCandidates
	for k, v := range g.RejectedBy {
		if f.RejectedBy == nil {
			f.RejectedBy = map[string]int{}
		}
		f.RejectedBy[k] += v
	}
	f.RefusedRejected += g.RefusedRejected
}

// Table renders the figures as a Markdown table.
func (f Figures) Table() string {
	var b strings.Builder
	b.WriteString("| entries (failed) | statements run | unguarded executed | escapes | guarded run stale | stale writes | guarded always rejected | unguarded rejected by PostgreSQL | refused | over-refusals (candidates) | refused, rejected by PostgreSQL |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| %d (%d) | %d | %d | %d | %d | %d | %d | %d | %d | %d (%d) | %d |\n",
		f.Entries, f.EntriesFailed, f.Statements, f.Unguarded, f.Escapes, f.GuardedStale, f.StaleWrites,
		f.GuardedRejected, f.Rejected, f.Refused, f.OverRefusals, f.OverRefusalCandidates, f.RefusedRejected)
	return b.String()
}

// Rejections lists Figures.RejectedBy as "SQLSTATE count" pairs, most
// frequent first.
func (f Figures) Rejections() string {
	type kv struct {
		k string
		v int
	}
	var l []kv
	for k, v := range f.RejectedBy {
		l = append(l, kv{k, v})
	}
	sort.Slice(l, func(i, j int) bool { return l[i].v > l[j].v || l[i].v == l[j].v && l[i].k < l[j].k })
	parts := make([]string, len(l))
	for i, e := range l {
		parts[i] = fmt.Sprintf("%s %d", e.k, e.v)
	}
	return strings.Join(parts, ", ")
}

// Kinds of Finding.
const (
	Escape      = "escape"
	StaleWrite  = "stale write"
	AlwaysFails = "guarded statement always rejected"
	OverRefusal = "over-refusal"
	// OverRefusalCandidate is a refused query that wrote only tables
	// that are not fenced (see Figures.OverRefusalCandidates).
	OverRefusalCandidate = "over-refusal candidate"
	GeneratorError       = "generator failed with the marks"
)

// Finding is one statement the oracle disagrees with the generator on.
type Finding struct {
	Kind string
	// Where is the entry (Options.Label, entry index) and Fenced the
	// tables marked.
	Where  string
	Fenced []string
	Query  string
	SQL    string
	// Detail is what PostgreSQL recorded (the writes), the generator's
	// refusal, or PostgreSQL's error.
	Detail string
}

// Unseen reports whether f is a refusal of code fencegen cannot see or
// does not analyse (EXECUTE of a prepared statement, dynamic SQL, a
// statement kind it does not classify): refused because what it runs is
// unknown, not because of a write the analysis found, so PostgreSQL
// writing nothing on the oracle's bindings does not make it an
// over-refusal of the analysis.
func (f Finding) Unseen() bool {
	return strings.Contains(f.Detail, "fencegen cannot see") || strings.Contains(f.Detail, "cannot show that it writes no fenced table")
}

func (f Finding) String() string {
	return fmt.Sprintf("%s: %s, query %s, fenced %s: %s\n%s", f.Kind, f.Where, f.Query, strings.Join(f.Fenced, ", "), f.Detail, f.SQL)
}

// Report is the result of a check.
type Report struct {
	Figures
	Findings []Finding
}

// Merge adds another report's figures and findings to r.
func (r *Report) Merge(o *Report) {
	r.Figures.add(o.Figures)
	r.Findings = append(r.Findings, o.Findings...)
}

// rejected counts a statement PostgreSQL rejected by its SQLSTATE.
func (r *Report) rejected(err error) {
	code := "other"
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		code = pe.Code
	}
	if r.RejectedBy == nil {
		r.RejectedBy = map[string]int{}
	}
	r.RejectedBy[code]++
}

// Checker checks configurations in one scratch database of its own
// (named oracle_<random> on Options.AdminURL's server), emptied between
// entries; Close drops it.
type Checker struct {
	opt  Options
	dsn  string
	drop func()
}

// NewChecker creates the scratch database.
func NewChecker(ctx context.Context, opt Options) (*Checker, error) {
	dsn, drop, err := scratch(ctx, opt.AdminURL)
	if err != nil {
		return nil, err
	}
	return &Checker{opt: opt, dsn: dsn, drop: drop}, nil
}

// Close drops the scratch database.
func (c *Checker) Close() { c.drop() }

// CheckConfig checks every sql entry of the configuration file at path;
// label names it in findings ("" for the path).
func (c *Checker) CheckConfig(ctx context.Context, path, label string) (*Report, error) {
	cfg, err := gen.LoadConfig(path)
	if err != nil {
		return nil, err
	}
	opt := c.opt
	opt.Label = label
	rep := &Report{}
	for i := range cfg.Packages {
		if err := reset(ctx, c.dsn); err != nil {
			return rep, err
		}
		r, err := checkEntry(ctx, opt, c.dsn, cfg, i)
		if err != nil {
			return rep, err
		}
		rep.Merge(r)
	}
	return rep, nil
}

// resetSQL empties the scratch database: every schema but the system
// ones (with what is in them: tables, types, functions, extensions'
// objects), the extensions and the event triggers; public is created
// again.
const resetSQL = `
DO $$
DECLARE r record;
BEGIN
    FOR r IN SELECT evtname FROM pg_event_trigger LOOP
        EXECUTE format('DROP EVENT TRIGGER %I', r.evtname);
    END LOOP;
    FOR r IN SELECT extname FROM pg_extension WHERE extname <> 'plpgsql' LOOP
        EXECUTE format('DROP EXTENSION %I CASCADE', r.extname);
    END LOOP;
    FOR r IN SELECT nspname FROM pg_namespace
             WHERE nspname NOT IN ('pg_catalog', 'information_schema', 'pg_toast')
               AND nspname NOT LIKE 'pg\_temp\_%' AND nspname NOT LIKE 'pg\_toast\_temp\_%' LOOP
        EXECUTE format('DROP SCHEMA %I CASCADE', r.nspname);
    END LOOP;
END
$$;
CREATE SCHEMA public;
`

func reset(ctx context.Context, dsn string) error {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, resetSQL); err != nil {
		return fmt.Errorf("empty the scratch database: %w", err)
	}
	return nil
}

// CheckConfig checks every sql entry of the configuration file at path in
// a scratch database of its own (see Checker).
func CheckConfig(ctx context.Context, opt Options, path string) (*Report, error) {
	c, err := NewChecker(ctx, opt)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	return c.CheckConfig(ctx, path, opt.Label)
}

// scratch creates a database of its own on the admin URL's server and
// returns its URL and a function that drops it.
func scratch(ctx context.Context, adminURL string) (string, func(), error) {
	admin, err := pgx.Connect(ctx, adminURL)
	if err != nil {
		return "", nil, err
	}
	name, dropDB, err := pgscratch.Create(ctx, admin.PgConn(), "oracle_", 0)
	if err != nil {
		admin.Close(ctx)
		return "", nil, err
	}
	u, err := url.Parse(adminURL)
	if err != nil {
		dropDB()
		admin.Close(ctx)
		return "", nil, err
	}
	u.Path = "/" + name
	drop := func() {
		dropDB()
		admin.Close(context.WithoutCancel(ctx))
	}
	return u.String(), drop, nil
}

// entryDB is an entry's scratch database, ready for statements.
type entryDB struct {
	r       *runner
	tables  []*Table
	colsSQL string
	// own are the tables the project marks itself, and ownCols their
	// token columns (schema.table -> column).
	own     map[string]bool
	ownCols map[string]string
	// unmark removes the project's comment marks.
	unmark string
	// applied and rejected count the schema's statements.
	applied, rejected int
}

func prepareDB(ctx context.Context, opt Options, dsn string, cfg *gen.Config, entry int) (*entryDB, error) {
	conn, err := connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	timeout := opt.Timeout
	if timeout == 0 {
		timeout = 5 * time.Second
	}
	db := &entryDB{r: &runner{conn: conn, dsn: dsn, types: typeCache{}, timeout: timeout, prelude: opt.Prelude}}
	schema := cfg.Packages[entry].Schema
	fence := cfg.Packages[entry].Fence
	if opt.SharedDatabase {
		// Every entry's schema, in order: the entries share the database.
		schema, fence = nil, nil
		for _, p := range cfg.Packages {
			schema = append(schema, p.Schema...)
			fence = append(fence, p.Fence...)
		}
	}
	applied, rejected, err := applySchema(ctx, conn, schemaFiles(cfg.Dir, schema))
	if err != nil {
		conn.Close(ctx)
		return nil, err
	}
	db.applied, db.rejected = applied, rejected
	// A new session: the schema may have set search_path or other
	// settings for its own (pg_dump's set_config('search_path', '', false)).
	conn.Close(ctx)
	if conn, err = connect(ctx, dsn); err != nil {
		return nil, err
	}
	db.r.conn = conn
	if db.tables, err = listTables(ctx, conn); err != nil {
		return nil, err
	}
	comments, err := columnComments(ctx, conn)
	if err != nil {
		return nil, err
	}
	db.unmark = db.unmarkStatements(comments)
	db.own, db.ownCols = ownMarks(db.tables, comments, fence)
	tokens := map[string]bool{}
	for _, c := range db.ownCols {
		tokens[c] = true
	}
	if db.colsSQL, err = addTokenColumns(ctx, conn, db.tables); err != nil {
		return nil, err
	}
	if _, err := seed(ctx, conn, db.tables, db.r.types, tokens); err != nil {
		return nil, err
	}
	if err := installTriggers(ctx, conn, db.tables, db.tokenOf); err != nil {
		return nil, err
	}
	return db, nil
}

func errNote(err error) string {
	if err == nil {
		return ""
	}
	return "; first error: " + err.Error()
}

// tmpPath matches the oracle's temporary directory in a message.
var tmpPath = regexp.MustCompile(`\S*writeoracle\d+/`)

// ownMarks returns the tables the project marks itself (a column whose
// comment holds the mark, or the entry's fence configuration) and their
// token columns.
func ownMarks(tables []*Table, comments map[string]map[string]string, fence []config.FenceTable) (map[string]bool, map[string]string) {
	own, cols := map[string]bool{}, map[string]string{}
	for t, byCol := range comments {
		for col, c := range byCol {
			if strings.Contains(c, "fencegen:token") {
				own[t] = true
				cols[t] = col
			}
		}
	}
	for _, f := range fence {
		for _, t := range tables {
			if t.Name == f.TableName && (f.TableSchema == t.Schema || f.TableSchema == "" && t.Schema == "public") {
				own[t.Qualified()] = true
				cols[t.Qualified()] = f.ColumnName
			}
		}
	}
	return own, cols
}

// tokenOf is the token column the audit reads of a table: the project's
// own (also a parent's or child's), else TokenColumn.
func (db *entryDB) tokenOf(t *Table) string {
	for q, col := range db.ownCols {
		for _, o := range db.tables {
			if o.Qualified() == q && (q == t.Qualified() || descendants(db.tables, []*Table{o})[t.Qualified()] || descendants(db.tables, []*Table{t})[q]) {
				return col
			}
		}
	}
	return TokenColumn
}

// unmarkStatements removes the project's own comment marks, for the
// generation without marks.
func (db *entryDB) unmarkStatements(comments map[string]map[string]string) string {
	var b strings.Builder
	for _, t := range db.tables {
		for col, c := range comments[t.Qualified()] {
			if strings.Contains(c, "fencegen:token") {
				fmt.Fprintf(&b, "COMMENT ON COLUMN %s.%s IS NULL;\n", t.Ident(), pgx.Identifier{col}.Sanitize())
			}
		}
	}
	return b.String()
}

// topmost keeps the tables of marked that descend from no other table of
// marked.
func topmost(all, marked []*Table) []*Table {
	var out []*Table
	for _, t := range marked {
		under := false
		for _, o := range marked {
			if o != t && descendants(all, []*Table{o})[t.Qualified()] {
				under = true
			}
		}
		if !under {
			out = append(out, t)
		}
	}
	return out
}

// descendants returns the tables with their inheritance children and
// partitions, at any depth, as schema.name.
func descendants(all, marked []*Table) map[string]bool {
	out := map[string]bool{}
	for _, t := range marked {
		out[t.Qualified()] = true
	}
	for changed := true; changed; {
		changed = false
		for _, t := range all {
			if out[t.Qualified()] {
				continue
			}
			for _, p := range t.Parents {
				if out[p] {
					out[t.Qualified()] = true
					changed = true
					break
				}
			}
		}
	}
	return out
}

func checkEntry(ctx context.Context, opt Options, dsn string, cfg *gen.Config, entry int) (*Report, error) {
	ses, err := openSession(ctx, opt, dsn, cfg, entry)
	if err != nil {
		return nil, err
	}
	defer ses.close(ctx)
	queries, err := loadQueryFiles(cfg, cfg.Packages[entry].Queries, ses.tmp)
	if err != nil {
		return nil, err
	}
	return ses.check(ctx, queries)
}

// session is one sql entry's scratch database, ready for query files.
type session struct {
	opt   Options
	cfg   *gen.Config
	entry int
	label string
	db    *entryDB
	// tmp holds the extra schema files: cols (the token columns) and
	// unmark (the project's comment marks removed).
	tmp, cols, unmark string
}

func openSession(ctx context.Context, opt Options, dsn string, cfg *gen.Config, entry int) (*session, error) {
	s := &session{opt: opt, cfg: cfg, entry: entry, label: opt.Label}
	if s.label == "" {
		s.label = cfg.Path
	}
	if len(cfg.Packages) > 1 {
		s.label = fmt.Sprintf("%s, sql entry %d", s.label, entry+1)
	}
	db, err := prepareDB(ctx, opt, dsn, cfg, entry)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", s.label, err)
	}
	s.db = db
	if s.tmp, err = os.MkdirTemp("", "writeoracle"); err != nil {
		s.close(ctx)
		return nil, err
	}
	s.cols = filepath.Join(s.tmp, "oracle_token_columns.sql")
	s.unmark = filepath.Join(s.tmp, "oracle_unmark.sql")
	if err := os.WriteFile(s.cols, []byte(db.colsSQL), 0o644); err != nil {
		s.close(ctx)
		return nil, err
	}
	if err := os.WriteFile(s.unmark, []byte(db.unmark), 0o644); err != nil {
		s.close(ctx)
		return nil, err
	}
	return s, nil
}

func (s *session) close(ctx context.Context) {
	if s.db.r.conn != nil {
		s.db.r.conn.Close(context.WithoutCancel(ctx))
	}
	if s.tmp != "" {
		os.RemoveAll(s.tmp)
	}
}

// check generates the query files without marks and with each run's
// marks, and runs what was generated.
func (s *session) check(ctx context.Context, queries []*queryFile) (*Report, error) {
	opt, cfg, entry, label, db, tmp, cols, unmark := s.opt, s.cfg, s.entry, s.label, s.db, s.tmp, s.cols, s.unmark
	rep := &Report{}
	rep.Entries = 1
	trace := func(format string, args ...any) {
		if opt.Trace != nil {
			opt.Trace(label + ": " + fmt.Sprintf(format, args...))
		}
	}
	trace("schema: %d statements applied, %d rejected by PostgreSQL", db.applied, db.rejected)
	plain := generate(ctx, cfg, entry, []string{cols, unmark}, queries, true, opt.SharedDatabase)
	if plain.failed != nil {
		rep.EntriesFailed = 1
		trace("the generator fails without the marks: %s", tmpPath.ReplaceAllString(plain.failed.Error(), ""))
		return rep, nil
	}
	for q, msg := range plain.refused {
		trace("%s: refused without the marks: %s", q, msg)
	}
	plainByQuery := map[string][]*Statement{}
	for _, s := range plain.stmts {
		plainByQuery[s.Query] = append(plainByQuery[s.Query], s)
	}
	if len(db.tables) == 0 {
		return rep, nil
	}
	// Tables the project marks itself (in its schema or configuration)
	// stay fenced in every run and are not marked again.
	own := db.own
	// A table related to one the project marks (its parent or child)
	// is not marked: a table has one fencing token.
	var free []*Table
	for _, t := range db.tables {
		related := false
		for _, o := range db.tables {
			if own[o.Qualified()] && (descendants(db.tables, []*Table{o})[t.Qualified()] || descendants(db.tables, []*Table{t})[o.Qualified()]) {
				related = true
			}
		}
		if !related {
			free = append(free, t)
		}
	}
	var ownTables []*Table
	for _, t := range db.tables {
		if own[t.Qualified()] {
			ownTables = append(ownTables, t)
		}
	}
	// The runs: every free table marked; the project's own marks alone;
	// each free table alone (the project's marks stay in every run).
	runs := [][]*Table{free}
	if opt.OwnMarksOnly {
		runs = [][]*Table{nil}
	} else if len(ownTables) > 0 && len(free) > 0 {
		runs = append(runs, nil)
	}
	if opt.Each && !opt.OwnMarksOnly && (len(free) > 1 || len(ownTables) > 0 && len(free) > 0) {
		for i, t := range free {
			if opt.MaxEach > 0 && i >= opt.MaxEach {
				break
			}
			runs = append(runs, []*Table{t})
		}
	}
	// The outcomes of a session statement followed by another statement
	// (sessionPairs), which do not depend on the marks.
	pairs := map[[2]string]outcome{}
	for i, marked := range runs {
		// Refused queries that PostgreSQL let write a fenced table after
		// a session statement, or that let a statement generated without
		// a guard write one after them: not over-refusals.
		justified := map[string]bool{}
		// A child or partition of a marked table is fenced through it:
		// only the topmost marked tables get a mark.
		marked = topmost(db.tables, marked)
		mark := filepath.Join(tmp, fmt.Sprintf("oracle_marks_%d.sql", i))
		if err := os.WriteFile(mark, []byte(markStatements(marked)), 0o644); err != nil {
			return nil, err
		}
		fenced := descendants(db.tables, append(append([]*Table(nil), ownTables...), marked...))
		qs := make([]*queryFile, len(queries))
		for j, q := range queries {
			qs[j] = q.clone()
		}
		g := generate(ctx, cfg, entry, []string{cols, mark}, qs, false, opt.SharedDatabase)
		// A mark the generator could not read (a table its catalog does
		// not have) was left out: that table, and a table whose token
		// column was left out, is not fenced in this run.
		kept, keptCols := keptLines(append([]string{mark}, g.copies[mark]...)...), keptLines(append([]string{cols}, g.copies[cols]...)...)
		for _, t := range db.tables {
			lost := len(t.Parents) == 0 && !keptCols[strings.TrimSuffix(columnStatement(t), "\n")]
			for _, m := range marked {
				lost = lost || m == t && !kept[strings.TrimSuffix(markStatements([]*Table{t}), "\n")]
			}
			if lost {
				for n := range descendants(db.tables, []*Table{t}) {
					if !own[n] {
						delete(fenced, n)
					}
				}
			}
		}
		names := make([]string, 0, len(fenced))
		for n := range fenced {
			names = append(names, n)
		}
		sort.Strings(names)
		finding := func(kind, query, sql, detail string) {
			// One finding per statement: the first run's marks.
			for _, f := range rep.Findings {
				if f.Kind == kind && f.Query == query && f.SQL == sql {
					return
				}
			}
			rep.Findings = append(rep.Findings, Finding{Kind: kind, Where: label, Fenced: names, Query: query, SQL: sql, Detail: detail})
		}
		if g.failed != nil {
			finding(GeneratorError, "", "", tmpPath.ReplaceAllString(g.failed.Error(), ""))
			continue
		}
		for _, s := range g.stmts {
			if g.optOut[s.Query] {
				continue
			}
			if !s.Guarded() {
				o := db.r.plain(ctx, s.SQL)
				if o.skipped != "" {
					rep.Skipped++
					continue
				}
				rep.Statements++
				rep.Unguarded++
				trace("marks %s: %s: unguarded, ran %d of %d bindings, recorded: %s%s", strings.Join(names, ","), s.Query, o.ran, o.tried, describe(o.writes), errNote(o.err))
				if ws := fencedWrites(o.writes, fenced); len(ws) > 0 {
					rep.Escapes++
					finding(Escape, s.Query, s.SQL, describe(ws))
				} else if o.ran == 0 {
					rep.Rejected++
					rep.rejected(o.err)
				}
				continue
			}
			o := db.r.withToken(ctx, s.SQL, s.Tokens, staleToken)
			if o.skipped != "" {
				rep.Skipped++
				continue
			}
			rep.Statements++
			rep.GuardedStale++
			trace("marks %s: %s: guarded, stale token: ran %d of %d bindings, recorded: %s%s", strings.Join(names, ","), s.Query, o.ran, o.tried, describe(o.writes), errNote(o.err))
			if ws := staleWrites(o.writes, fenced); len(ws) > 0 {
				rep.StaleWrites++
				finding(StaleWrite, s.Query, s.SQL, describe(ws))
			}
			if o.ran > 0 {
				continue
			}
			// Rejected with the stale token: a guard's refusal may be an
			// error (a raising guard's cast); with a fresh token it must
			// run wherever the query without the guard runs.
			fresh := db.r.withToken(ctx, s.SQL, s.Tokens, 2*staleStored)
			if fresh.ran > 0 {
				continue
			}
			plainRan := false
			for _, p := range plainByQuery[s.Query] {
				po := db.r.plain(ctx, p.SQL)
				plainRan = plainRan || po.ran > 0
			}
			if plainRan {
				rep.GuardedRejected++
				detail := "PostgreSQL rejected every binding"
				if fresh.err != nil {
					detail = fresh.err.Error()
				}
				finding(AlwaysFails, s.Query, s.SQL, detail+" (the query without the marks runs)")
			}
		}
		if !opt.NoSessionPairs {
			rep.Escapes += sessionPairs(ctx, db, g, plainByQuery, fenced, pairs, justified, finding)
		}
		refused := make([]string, 0, len(g.refused))
		for q := range g.refused {
			refused = append(refused, q)
		}
		sort.Strings(refused)
		for _, q := range refused {
			stmts := plainByQuery[q]
			if len(stmts) == 0 {
				continue
			}
			rep.Refused++
			var ws, all []Write
			ran, skipped := 0, false
			var firstErr error
			for _, s := range stmts {
				o := db.r.plain(ctx, s.SQL)
				skipped = skipped || o.skipped != ""
				ran += o.ran
				if firstErr == nil {
					firstErr = o.err
				}
				all = append(all, o.writes...)
				ws = append(ws, fencedWrites(o.writes, fenced)...)
			}
			trace("marks %s: %s: refused (%s), without the marks ran %d bindings, recorded: %s", strings.Join(names, ","), q, g.refused[q], ran, describe(all))
			switch {
			case skipped || len(ws) > 0 || justified[q]:
			case ran == 0:
				rep.RefusedRejected++
				rep.rejected(firstErr)
			case len(all) > 0:
				rep.OverRefusalCandidates++
				finding(OverRefusalCandidate, q, stmts[0].SQL, "refused: "+g.refused[q]+"; PostgreSQL recorded: "+describe(all))
			default:
				rep.OverRefusals++
				finding(OverRefusal, q, stmts[0].SQL, "refused: "+g.refused[q])
			}
		}
	}
	return rep, nil
}

// sessionSQL matches a statement whose effect outlives it on the session
// (a pool hands the connection on): DDL, which can create temporary
// objects that shadow others or give a relation a name, and settings
// (search_path).
var sessionSQL = regexp.MustCompile(`(?is)^(CREATE|ALTER|DROP|COMMENT|SET|RESET)\b|\bset_config\s*\(`)

// sessionPairs runs, for each session statement D without parameters
// (sessionSQL) that the generator generated without a guard or refused,
// every statement it generated without a guard after D in one
// transaction (issue 24: CREATE TEMP VIEW notes AS SELECT ... FROM jobs,
// then the plain UPDATE notes; SET search_path = app, public, then the
// plain UPDATE gadgets). A fenced write that the statement alone does not
// make is an escape when D was generated, and justifies D's refusal when
// D was refused. pairs caches outcomes across the runs; it returns the
// escapes found and records each as a finding.
func sessionPairs(ctx context.Context, db *entryDB, g *generation, plainByQuery map[string][]*Statement, fenced map[string]bool, pairs map[[2]string]outcome, justified map[string]bool, finding func(kind, query, sql, detail string)) int {
	type sessionStmt struct {
		query, sql string
		refused    bool
	}
	var unguarded []*Statement
	var sess []sessionStmt
	for _, st := range g.stmts {
		if g.optOut[st.Query] || st.Guarded() {
			continue
		}
		unguarded = append(unguarded, st)
		if sql := leadingComments.ReplaceAllString(st.SQL, ""); sessionSQL.MatchString(sql) && !paramRef.MatchString(sql) {
			sess = append(sess, sessionStmt{st.Query, sql, false})
		}
	}
	for q := range g.refused {
		for _, st := range plainByQuery[q] {
			if sql := leadingComments.ReplaceAllString(st.SQL, ""); sessionSQL.MatchString(sql) && !paramRef.MatchString(sql) {
				sess = append(sess, sessionStmt{q, sql, true})
			}
		}
	}
	sort.Slice(sess, func(i, j int) bool { return sess[i].query < sess[j].query })
	// A refused write after a session statement: PostgreSQL writing a
	// fenced table there justifies the refusal (an unqualified name that
	// another schema's view over a fenced table takes under SET
	// search_path).
	var refusedWrites []*Statement
	for q := range g.refused {
		for _, st := range plainByQuery[q] {
			if !sessionSQL.MatchString(leadingComments.ReplaceAllString(st.SQL, "")) {
				refusedWrites = append(refusedWrites, st)
			}
		}
	}
	escapes := 0
	for _, d := range sess {
		r := *db.r
		r.prelude = append(append([]string(nil), db.r.prelude...), d.sql)
		r.done = map[string]outcome{}
		for _, st := range refusedWrites {
			if justified[st.Query] || st.Query == d.query {
				continue
			}
			key := [2]string{d.sql, st.SQL}
			o, ok := pairs[key]
			if !ok {
				o = r.plain(ctx, st.SQL)
				if ctx.Err() == nil {
					pairs[key] = o
				}
			}
			if len(fencedWrites(o.writes, fenced)) > 0 {
				justified[st.Query] = true
			}
		}
		for _, st := range unguarded {
			if st.Query == d.query {
				continue
			}
			key := [2]string{d.sql, st.SQL}
			o, ok := pairs[key]
			if !ok {
				o = r.plain(ctx, st.SQL)
				if ctx.Err() == nil {
					pairs[key] = o
				}
			}
			ws := fencedWrites(o.writes, fenced)
			if len(ws) == 0 || len(fencedWrites(db.r.plain(ctx, st.SQL).writes, fenced)) > 0 {
				continue // none, or the statement's own (found alone)
			}
			if d.refused {
				justified[d.query] = true
				break
			}
			escapes++
			finding(Escape, d.query+" then "+st.Query, d.sql+";\n"+st.SQL, describe(ws))
		}
	}
	return escapes
}
