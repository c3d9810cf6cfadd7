// Package mysqloracle checks fencegen's MySQL write analysis (package
// mysqlwrites) against MariaDB: the server, not the analysis, says which
// statements write a fenced table.
//
// Check applies a case's schema to a scratch database of its own
// (fencegen_<random>, dropped after), seeds two rows into every table
// (one of defaults, one with every integer column 1, which the
// statements' parameters, all bound to 1, find), and installs recording
// triggers (AFTER INSERT, UPDATE and DELETE) on every fenced table, which
// write to a log table. Every statement of the case is classified
// (mysqlwrites.Of) and run inside a transaction that is rolled back after
// the log is read:
//
//   - a statement the analysis passes (no write of a fenced table, no
//     refusal) that MariaDB lets write a fenced table is an escape, and so
//     is a statement whose recorded fenced writes include a table the
//     analysis did not report;
//   - a statement the analysis reports as writing a fenced table (or
//     refuses) that runs without writing one is counted as not observed
//     (the seeded rows may not match; an upper bound of over-refusals);
//   - a statement MariaDB rejects is counted as rejected, never as a pass.
//
// Statements that MariaDB commits implicitly (DDL, TRUNCATE) are run after
// the others, outside a transaction, and checked by the log and by every
// fenced table's row count; the analysis' fenced DDL is not run.
package mysqloracle

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"

	"github.com/fencegen/fencegen/gen/internal/writes/mysqlwrites"
)

// Case is a schema and the statements to check against it.
type Case struct {
	// Label names the case in findings.
	Label string
	// Schema are the schema files' contents, applied in order.
	Schema [][]byte
	// Queries are the statements, each one statement of MySQL (sqlc's
	// macros sqlc.arg, sqlc.narg, sqlc.slice and sqlc.embed are rewritten
	// to placeholders and t.* before parsing).
	Queries []string
	// Facts, when set, is the schema the analysis reads instead of Schema
	// (a test of the oracle itself: facts left out make escapes).
	Facts [][]byte
	// Fenced are the fenced tables; nil fences every base table with an
	// integer column (its first one is the token column).
	Fenced []string
	// SQLModes are further session sql_mode settings (as in
	// "NO_BACKSLASH_ESCAPES") each statement other than DDL is run under
	// too, each run checked against the same analysis: the analysis
	// cannot see the session's mode, so it must hold under every one.
	SQLModes []string
}

// Finding is one escape (or, with Kind "schema", a schema statement
// MariaDB or the analysis could not read, which is not a failure).
type Finding struct {
	Label, Query string
	Kind         string
	Detail       string
}

func (f Finding) String() string {
	return fmt.Sprintf("%s: %s: %s\n    %s", f.Label, f.Kind, f.Detail, oneLine(f.Query))
}

// Report counts what Check saw. Statements = Passed + Refused + Unparsed.
type Report struct {
	Statements int
	// Unparsed statements the TiDB parser does not read (fencegen's front
	// end reports them); not run.
	Unparsed int
	// Passed are classified as writing no fenced table; PassedRun of them
	// ran on MariaDB (the rest were rejected by it).
	Passed, PassedRun int
	// Refused are classified as writing a fenced table or refused;
	// NotObserved of them ran and wrote no fenced row.
	Refused, NotObserved int
	// RefusedReads are the Refused whose statement writes nothing itself
	// (a SELECT, DO, SET, ...): refused for what they call or read.
	RefusedReads int
	// Rejected statements MariaDB refused to run.
	Rejected int
	// Escapes are the unsound classifications.
	Escapes  []Finding
	Schema   []Finding
	Rejects  []Finding
	Observed []Finding // refused statements that did not write (for the trace)
}

// Add merges o into r.
func (r *Report) Add(o *Report) {
	r.Statements += o.Statements
	r.Unparsed += o.Unparsed
	r.Passed += o.Passed
	r.PassedRun += o.PassedRun
	r.Refused += o.Refused
	r.NotObserved += o.NotObserved
	r.RefusedReads += o.RefusedReads
	r.Rejected += o.Rejected
	r.Escapes = append(r.Escapes, o.Escapes...)
	r.Schema = append(r.Schema, o.Schema...)
	r.Rejects = append(r.Rejects, o.Rejects...)
	r.Observed = append(r.Observed, o.Observed...)
}

// Summary is one line of counts.
func (r *Report) Summary() string {
	return fmt.Sprintf("%d statements: %d passed as writing no fenced table (%d ran on MariaDB), %d refused or fenced writes (%d of them read-only statements; %d ran without writing a fenced row), %d unparsed, %d rejected by MariaDB; %d escapes",
		r.Statements, r.Passed, r.PassedRun, r.Refused, r.RefusedReads, r.NotObserved, r.Unparsed, r.Rejected, len(r.Escapes))
}

// LogTable is the recording triggers' table in the scratch database.
const LogTable = "fencegen_oracle_writes"

// Scratch is a scratch database with a case's schema, seeded rows and
// recording triggers.
type Scratch struct {
	Name   string
	DB     *sql.DB
	Fenced []string
	// SQLMode is added to the session's sql_mode in Run ("" none).
	SQLMode string
	admin   *sql.DB
}

// Close drops the scratch database.
func (s *Scratch) Close() {
	s.DB.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	_, _ = s.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS `"+s.Name+"`")
}

// NewScratch creates a scratch database on admin's server (dsn is
// admin's go-sql-driver DSN), applies schema, seeds it and installs the
// recording triggers on the fenced tables (fenced nil: every base table
// with an integer column). The schema statements MariaDB rejects are
// returned as findings.
func NewScratch(ctx context.Context, admin *sql.DB, dsn string, schema [][]byte, fenced []string) (*Scratch, []Finding, error) {
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "fencegen_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE `"+name+"`"); err != nil {
		return nil, nil, err
	}
	cfg, err := mysql.ParseDSN(dsn)
	if err != nil {
		return nil, nil, err
	}
	cfg.DBName = name
	cfg.MultiStatements = false
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return nil, nil, err
	}
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	s := &Scratch{Name: name, DB: db, admin: admin}
	var findings []Finding
	conn, err := db.Conn(ctx)
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	// Tables may reference tables created after them (as in a schema
	// dump); MariaDB checks the references when rows are written.
	_, _ = conn.ExecContext(ctx, "SET SESSION foreign_key_checks = 0")
	for _, f := range schema {
		for _, st := range mysqlwrites.SplitStatements(string(f)) {
			if _, err := conn.ExecContext(ctx, st.Text); err != nil {
				findings = append(findings, Finding{Kind: "schema", Query: st.Text, Detail: "MariaDB: " + err.Error()})
			}
		}
	}
	_, _ = conn.ExecContext(ctx, "SET SESSION foreign_key_checks = 1")
	// A USE in the schema selected another database on the one
	// connection: the statements run in the scratch one.
	if _, err := conn.ExecContext(ctx, "USE `"+name+"`"); err != nil {
		conn.Close()
		s.Close()
		return nil, nil, err
	}
	conn.Close()
	if err := s.prepare(ctx, fenced); err != nil {
		s.Close()
		return nil, nil, err
	}
	return s, findings, nil
}

// prepare seeds the tables and installs the recording triggers.
func (s *Scratch) prepare(ctx context.Context, fenced []string) error {
	rows, err := s.DB.QueryContext(ctx, `SELECT c.table_name, c.column_name, c.data_type FROM information_schema.columns c
JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
WHERE c.table_schema = DATABASE() AND t.table_type = 'BASE TABLE' ORDER BY c.table_name, c.ordinal_position`)
	if err != nil {
		return err
	}
	ints := map[string][]string{}
	var tables []string
	for rows.Next() {
		var tb, col, typ string
		if err := rows.Scan(&tb, &col, &typ); err != nil {
			rows.Close()
			return err
		}
		if len(tables) == 0 || tables[len(tables)-1] != tb {
			tables = append(tables, tb)
		}
		switch strings.ToLower(typ) {
		case "tinyint", "smallint", "mediumint", "int", "bigint":
			ints[tb] = append(ints[tb], col)
		}
	}
	rows.Close()
	if fenced == nil {
		for _, tb := range tables {
			if len(ints[tb]) > 0 {
				fenced = append(fenced, tb)
			}
		}
	}
	s.Fenced = fenced
	conn, err := s.DB.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	_, _ = conn.ExecContext(ctx, "SET SESSION foreign_key_checks = 0")
	for _, tb := range tables {
		_, _ = conn.ExecContext(ctx, "INSERT IGNORE INTO "+quote(tb)+" () VALUES ()")
		if cols := ints[tb]; len(cols) > 0 {
			var qs, ones []string
			for _, c := range cols {
				qs = append(qs, quote(c))
				ones = append(ones, "1")
			}
			_, _ = conn.ExecContext(ctx, "INSERT IGNORE INTO "+quote(tb)+" ("+strings.Join(qs, ", ")+") VALUES ("+strings.Join(ones, ", ")+")")
		}
	}
	_, _ = conn.ExecContext(ctx, "SET SESSION foreign_key_checks = 1")
	if _, err := conn.ExecContext(ctx, "CREATE TABLE "+LogTable+" (tbl VARCHAR(64) NOT NULL, op VARCHAR(8) NOT NULL)"); err != nil {
		return err
	}
	for i, tb := range fenced {
		for _, op := range []string{"INSERT", "UPDATE", "DELETE"} {
			q := fmt.Sprintf("CREATE TRIGGER fencegen_oracle_%d_%s AFTER %s ON %s FOR EACH ROW INSERT INTO %s VALUES (%s, '%s')",
				i, strings.ToLower(op), op, quote(tb), LogTable, literal(strings.ToLower(tb)), op)
			if _, err := conn.ExecContext(ctx, q); err != nil {
				return fmt.Errorf("recording trigger on %s: %w", tb, err)
			}
		}
	}
	return nil
}

// Bindings are the values every placeholder is bound to, one run each
// until a run writes a fenced row: the second seeded row's integers, the
// first row's defaults (0 equals ” too), a value no row holds, a date.
var Bindings = []any{1, 0, 7, "2000-01-01 00:00:00"}

// Run runs query, every placeholder bound to arg, in a transaction rolled
// back after the log is read: the fenced tables written and the
// statement's error. The session is not strict (sql_mode without
// STRICT_*), so that an INSERT missing a column still runs. DDL
// (implicit commit) must not be run with it.
func (s *Scratch) Run(ctx context.Context, query string, arg any) (map[string]bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	conn, err := s.DB.Conn(ctx)
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	mode := "NO_ENGINE_SUBSTITUTION"
	if s.SQLMode != "" {
		mode += "," + s.SQLMode
	}
	if _, err := conn.ExecContext(ctx, "SET SESSION max_statement_time = 5, innodb_lock_wait_timeout = 5, sql_mode = "+literal(mode)); err != nil {
		return nil, err
	}
	tx, err := conn.BeginTx(ctx, nil)
	if err != nil {
		return nil, err
	}
	defer func() { _ = tx.Rollback() }()
	args := make([]any, Placeholders(query))
	for i := range args {
		args[i] = arg
	}
	before := s.contents(ctx, tx)
	rows, err := tx.QueryContext(ctx, query, args...)
	if err == nil {
		for rows.Next() {
		}
		err = rows.Err()
		rows.Close()
		// A CALL returns more result sets.
	}
	written, lerr := s.log(ctx, tx)
	if lerr != nil && err == nil {
		err = lerr
	}
	// Writes that fire no trigger of the fenced table (through a MERGE
	// table, a foreign-key action) show in its rows.
	for tb, c := range s.contents(ctx, tx) {
		if b, ok := before[tb]; ok && b != c && written != nil {
			written[tb] = true
		}
	}
	return written, err
}

// contents are the rows of every fenced table as q reads them, one
// string per table (in the server's order of a full scan, which a write
// that changes nothing leaves as it was).
func (s *Scratch) contents(ctx context.Context, q querier) map[string]string {
	out := map[string]string{}
	for _, tb := range s.Fenced {
		rows, err := q.QueryContext(ctx, "SELECT * FROM "+quote(tb))
		if err != nil {
			continue
		}
		cols, _ := rows.Columns()
		vals := make([]sql.RawBytes, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		var b strings.Builder
		for rows.Next() {
			if rows.Scan(ptrs...) != nil {
				break
			}
			for _, v := range vals {
				fmt.Fprintf(&b, "%q,", v)
			}
			b.WriteByte('\n')
		}
		if rows.Err() == nil {
			out[strings.ToLower(tb)] = b.String()
		}
		rows.Close()
	}
	return out
}

// RunCommitted runs a statement MariaDB commits implicitly (DDL) outside
// a transaction and reports the fenced tables written: by the log, or by
// a changed row count (TRUNCATE fires no triggers) or a table gone.
func (s *Scratch) RunCommitted(ctx context.Context, query string, arg any) (map[string]bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	before := s.counts(ctx)
	if _, err := s.DB.ExecContext(ctx, "DELETE FROM "+LogTable); err != nil {
		return nil, err
	}
	args := make([]any, Placeholders(query))
	for i := range args {
		args[i] = arg
	}
	_, err := s.DB.ExecContext(ctx, query, args...)
	written, lerr := s.log(ctx, s.DB)
	if lerr != nil && err == nil {
		err = lerr
	}
	after := s.counts(ctx)
	for tb, n := range before {
		if m, ok := after[tb]; !ok || m != n {
			if written == nil {
				written = map[string]bool{}
			}
			written[tb] = true
		}
	}
	return written, err
}

type querier interface {
	QueryContext(ctx context.Context, q string, args ...any) (*sql.Rows, error)
}

func (s *Scratch) log(ctx context.Context, q querier) (map[string]bool, error) {
	rows, err := q.QueryContext(ctx, "SELECT tbl FROM "+LogTable)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	written := map[string]bool{}
	for rows.Next() {
		var tb string
		if err := rows.Scan(&tb); err != nil {
			return nil, err
		}
		written[tb] = true
	}
	return written, rows.Err()
}

func (s *Scratch) counts(ctx context.Context) map[string]int {
	out := map[string]int{}
	for _, tb := range s.Fenced {
		var n int
		if err := s.DB.QueryRowContext(ctx, "SELECT COUNT(*) FROM "+quote(tb)).Scan(&n); err == nil {
			out[strings.ToLower(tb)] = n
		}
	}
	return out
}

// Check runs c against the server of admin (dsn its DSN).
func Check(ctx context.Context, admin *sql.DB, dsn string, c Case) (*Report, error) {
	s, schemaFindings, err := NewScratch(ctx, admin, dsn, c.Schema, c.Fenced)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	rep := &Report{}
	for _, f := range schemaFindings {
		f.Label = c.Label
		rep.Schema = append(rep.Schema, f)
	}
	facts := c.Schema
	if c.Facts != nil {
		facts = c.Facts
	}
	sc, err := mysqlwrites.ReadSchema(facts...)
	if err != nil {
		rep.Schema = append(rep.Schema, Finding{Label: c.Label, Kind: "schema", Detail: "mysqlwrites.ReadSchema: " + oneLine(err.Error())})
	}
	for _, tb := range s.Fenced {
		sc.Fence(tb)
	}
	var later []string
	for _, q := range c.Queries {
		q = Rewrite(q)
		st, err := parseOne(q)
		if err != nil {
			rep.Statements++
			rep.Unparsed++
			continue
		}
		if implicitCommit(st) {
			later = append(later, q)
			continue
		}
		rep.check(ctx, s, sc, c.Label, q, st, s.Run, false)
		for _, m := range c.SQLModes {
			s.SQLMode = m
			rep.check(ctx, s, sc, c.Label+" sql_mode "+m, q, st, s.Run, false)
			s.SQLMode = ""
		}
	}
	for _, q := range later {
		st, _ := parseOne(q)
		rep.check(ctx, s, sc, c.Label, q, st, s.RunCommitted, true)
	}
	return rep, nil
}

// check classifies and runs one statement.
func (rep *Report) check(ctx context.Context, s *Scratch, sc *mysqlwrites.Schema, label, q string, st ast.StmtNode,
	run func(context.Context, string, any) (map[string]bool, error), once bool) {
	rep.Statements++
	r := mysqlwrites.Of(st, 0, sc)
	fw := r.FencedWrites(sc)
	positive := len(fw) > 0 || len(r.Refusals) > 0
	if positive {
		rep.Refused++
		if r.Class == mysqlwrites.ReadOnly {
			rep.RefusedReads++
		}
		if implicitCommit(st) {
			return // refused DDL of a fenced table: not run
		}
	} else {
		rep.Passed++
	}
	written := map[string]bool{}
	var err error
	ran := false
	for _, arg := range Bindings {
		var w map[string]bool
		var e error
		w, e = run(ctx, q, arg)
		for tb := range w {
			written[tb] = true
		}
		if e == nil {
			ran = true
		} else {
			err = e
		}
		if once || ran && len(written) > 0 {
			break
		}
	}
	if !ran && len(written) == 0 {
		rep.Rejected++
		rep.Rejects = append(rep.Rejects, Finding{Label: label, Query: q, Kind: "rejected", Detail: oneLine(err.Error())})
	} else if !positive {
		rep.PassedRun++
	}
	err = nil
	if !ran {
		err = errors.New("rejected")
	}
	reported := map[string]bool{}
	for _, w := range fw {
		reported[w.Table] = true
	}
	var missed []string
	for tb := range written {
		if !reported[tb] && len(r.Refusals) == 0 {
			missed = append(missed, tb)
		}
	}
	sort.Strings(missed)
	switch {
	case len(missed) > 0:
		rep.Escapes = append(rep.Escapes, Finding{Label: label, Query: q, Kind: "escape",
			Detail: fmt.Sprintf("MariaDB recorded writes of fenced %s that the analysis did not report (it reported %v)", strings.Join(missed, ", "), tables(fw))})
	case positive && err == nil && len(written) == 0:
		rep.NotObserved++
		rep.Observed = append(rep.Observed, Finding{Label: label, Query: q, Kind: "not observed", Detail: fmt.Sprintf("reported %v, refusals %d; MariaDB recorded no fenced write", tables(fw), len(r.Refusals))})
	}
}

func tables(ws []mysqlwrites.Write) []string {
	var out []string
	for _, w := range ws {
		out = append(out, w.Verb+" "+w.Table)
	}
	return out
}

// implicitCommit reports whether MariaDB commits around st (DDL, TRUNCATE),
// so that it cannot be rolled back.
func implicitCommit(st ast.StmtNode) bool {
	if _, ok := st.(*ast.TruncateTableStmt); ok {
		return true
	}
	_, ok := st.(ast.DDLNode)
	return ok
}

func parseOne(q string) (ast.StmtNode, error) {
	stmts, _, err := parser.New().Parse(q, "", "")
	if err != nil {
		return nil, err
	}
	if len(stmts) != 1 {
		return nil, errors.New("not one statement")
	}
	return stmts[0], nil
}

var (
	argMacro   = regexp.MustCompile(`(?i)sqlc\s*\.\s*n?arg\s*\(\s*[^)]*\)`)
	sliceMacro = regexp.MustCompile(`(?i)sqlc\s*\.\s*slice\s*\(\s*[^)]*\)`)
	embedMacro = regexp.MustCompile(`(?i)sqlc\s*\.\s*embed\s*\(\s*([^)\s]*)\s*\)`)
)

// Rewrite replaces sqlc's macros with what MariaDB runs: sqlc.arg(x) and
// sqlc.narg(x) with ?, sqlc.slice(x) with ?, sqlc.embed(t) with t.*.
func Rewrite(q string) string {
	q = argMacro.ReplaceAllString(q, "?")
	q = sliceMacro.ReplaceAllString(q, "?")
	return embedMacro.ReplaceAllString(q, "$1.*")
}

// Placeholders counts the ? placeholders of q outside strings, quoted
// names and comments.
func Placeholders(q string) int {
	n := 0
	for i := 0; i < len(q); i++ {
		switch c := q[i]; {
		case c == '?':
			n++
		case c == '\'' || c == '"' || c == '`':
			for i++; i < len(q) && q[i] != c; i++ {
				if q[i] == '\\' && c != '`' {
					i++
				}
			}
		case c == '#' || strings.HasPrefix(q[i:], "-- "):
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case strings.HasPrefix(q[i:], "/*"):
			j := strings.Index(q[i+2:], "*/")
			if j < 0 {
				return n
			}
			i += j + 3
		}
	}
	return n
}

// Queries splits a sqlc query file into its statements.
func Queries(src []byte) []string {
	var out []string
	for _, st := range mysqlwrites.SplitStatements(string(src)) {
		out = append(out, st.Text)
	}
	return out
}

func quote(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

func literal(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
