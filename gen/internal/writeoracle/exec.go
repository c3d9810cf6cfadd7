package writeoracle

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// Write is one row of the audit: a write PostgreSQL made to a table.
type Write struct {
	Table, Op, Level string
	// OldToken and NewToken are the token column's value before and
	// after a row-level write (nil where the operation has none).
	OldToken, NewToken *int64
}

func (w Write) String() string {
	s := fmt.Sprintf("%s %s on %s", w.Level, w.Op, w.Table)
	if w.OldToken != nil {
		s += fmt.Sprintf(" (stored token %d", *w.OldToken)
		if w.NewToken != nil {
			s += fmt.Sprintf(", new %d", *w.NewToken)
		}
		s += ")"
	} else if w.NewToken != nil {
		s += fmt.Sprintf(" (new token %d)", *w.NewToken)
	}
	return s
}

// outcome is what running one statement under each binding gave.
type outcome struct {
	// ran counts the bindings PostgreSQL ran without error; tried all.
	ran, tried int
	// err is the first error PostgreSQL returned.
	err error
	// writes are the recorded writes of the bindings that ran, each once.
	writes []Write
	// skipped says why the statement was not sent (transaction control,
	// COPY FROM STDIN, a database/sql slice), "" when it was.
	skipped string
}

// runner executes statements in the scratch database.
type runner struct {
	conn    *pgx.Conn
	dsn     string
	types   typeCache
	timeout time.Duration
	// prelude runs after each BEGIN (Options.Prelude).
	prelude []string
	// done keeps the outcome of each statement and bindings: every run
	// starts from the same database (each is rolled back), so a statement
	// generated alike under other marks is not sent again.
	done map[string]outcome
}

// plain runs sql with every parameter bound to its type's first, second
// and third candidate value, then NULL.
func (r *runner) plain(ctx context.Context, sql string) outcome {
	return r.cached(ctx, "plain", sql, []binding{kBinding(1, nil, 0), kBinding(2, nil, 0), kBinding(3, nil, 0), nullBinding(nil, 0)})
}

// withToken runs sql as plain does, but with the parameters tokens bound
// to token.
func (r *runner) withToken(ctx context.Context, sql string, tokens []int, token int64) outcome {
	return r.cached(ctx, fmt.Sprintf("token %v %d", tokens, token), sql, []binding{kBinding(1, tokens, token), kBinding(2, tokens, token), kBinding(3, tokens, token), nullBinding(tokens, token)})
}

func (r *runner) cached(ctx context.Context, key, sql string, bindings []binding) outcome {
	key += "\x00" + sql
	if o, ok := r.done[key]; ok {
		return o
	}
	o := r.run(ctx, sql, bindings)
	if r.done == nil {
		r.done = map[string]outcome{}
	}
	if ctx.Err() == nil {
		r.done[key] = o
	}
	return o
}

func connect(ctx context.Context, dsn string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	cfg.DefaultQueryExecMode = pgx.QueryExecModeSimpleProtocol
	return pgx.ConnectConfig(ctx, cfg)
}

// notSent are statements the oracle does not send: those that end or nest
// the transaction it rolls back, and COPY with a client side.
var notSent = regexp.MustCompile(`(?is)^(BEGIN|START|COMMIT|END|ROLLBACK|ABORT|SAVEPOINT|RELEASE|PREPARE\s+TRANSACTION|DISCARD|COPY\b.*\bSTDIN)\b`)

// copyTo is COPY ... TO STDOUT, whose rows the oracle reads and drops.
var copyTo = regexp.MustCompile(`(?is)^COPY\b.*\bTO\s+STDOUT\b`)

var leadingComments = regexp.MustCompile(`^(\s*(--[^\n]*\n?|/\*.*?\*/))*\s*`)

var paramRef = regexp.MustCompile(`\$(\d+)`)

// binding gives the literal of each parameter (types[i] may be nil when
// PostgreSQL's statement could not be prepared).
type binding func(types []*typeInfo) []string

// kBinding binds every parameter to its type's k-th candidate value, and
// the parameters in tokens to token.
func kBinding(k int, tokens []int, token int64) binding {
	return func(types []*typeInfo) []string {
		out := make([]string, len(types))
		for i, t := range types {
			switch {
			case slices.Contains(tokens, i+1):
				out[i] = fmt.Sprintf("'%d'", token)
			case t == nil:
				out[i] = fmt.Sprintf("'%d'", k)
			default:
				out[i] = t.literal(k)
			}
		}
		return out
	}
}

// nullBinding binds every parameter to NULL (the tokens to token).
func nullBinding(tokens []int, token int64) binding {
	return func(types []*typeInfo) []string {
		out := make([]string, len(types))
		for i := range types {
			out[i] = "NULL"
			if slices.Contains(tokens, i+1) {
				out[i] = fmt.Sprintf("'%d'", token)
			}
		}
		return out
	}
}

// run executes sql once per binding, each inside a savepoint of one
// transaction that is rolled back, reading the audit before each
// rollback. A statement PostgreSQL cannot PREPARE (a utility statement) is
// sent as it is, its $n replaced by the binding's literals; a PREPARE is
// sent as it is and its statement executed with each binding.
func (r *runner) run(ctx context.Context, sql string, bindings []binding) (out outcome) {
	body := leadingComments.ReplaceAllString(sql, "")
	if notSent.MatchString(body) {
		out.skipped = "transaction control or COPY FROM STDIN"
		return out
	}
	if strings.Contains(sql, "/*SLICE:") {
		out.skipped = "a database/sql slice, expanded only by the generated method"
		return out
	}
	if r.conn == nil || r.conn.IsClosed() {
		c, err := connect(ctx, r.dsn)
		if err != nil {
			out.err = err
			return out
		}
		r.conn = c
	}
	ctx, cancel := context.WithTimeout(ctx, 4*r.timeout*time.Duration(len(bindings)+1))
	defer cancel()
	exec := func(s string) error {
		_, err := r.conn.Exec(ctx, s)
		return err
	}
	defer func() {
		if !r.conn.IsClosed() {
			_ = exec("ROLLBACK")
			_ = exec("DEALLOCATE ALL")
		}
	}()
	ms := r.timeout.Milliseconds()
	if err := exec(fmt.Sprintf("BEGIN; SET LOCAL statement_timeout = %d; SET LOCAL lock_timeout = %d", ms, ms)); err != nil {
		out.err = err
		return out
	}
	for _, p := range r.prelude {
		if err := exec(p); err != nil {
			out.err = fmt.Errorf("prelude: %w", err)
			return out
		}
	}
	if len(r.prelude) > 0 {
		// What the statement writes after the prelude, not the prelude's
		// own writes: a session statement that writes a fenced table
		// itself (refused for that, alone) would otherwise justify the
		// refusal of every statement run after it (sessionPairs).
		if err := exec("DELETE FROM oracle_audit"); err != nil {
			out.err = fmt.Errorf("prelude: %w", err)
			return out
		}
	}
	if err := exec("SAVEPOINT oracle_prepare"); err != nil {
		out.err = err
		return out
	}
	var types []*typeInfo
	// The name EXECUTE runs: the oracle's own, or that of a PREPARE
	// statement, which writes nothing itself but runs its statement
	// whenever the session executes the name (EXECUTE, or a driver's
	// statement of that name it rebinds, trial t24f): its writes are
	// those of executing it.
	stmtName := "oracle_s"
	var prepared bool
	if name := preparedName(body); name != "" {
		stmtName, prepared = name, exec(sql) == nil
	} else {
		prepared = exec("PREPARE oracle_s AS "+sql) == nil
	}
	if !prepared {
		if err := exec("ROLLBACK TO SAVEPOINT oracle_prepare"); err != nil {
			out.err = err
			return out
		}
		max := 0
		for _, m := range paramRef.FindAllStringSubmatch(sql, -1) {
			var n int
			fmt.Sscan(m[1], &n)
			if n > max {
				max = n
			}
		}
		types = make([]*typeInfo, max)
		if max == 0 {
			bindings = bindings[:1]
		}
	} else {
		var oids []uint32
		if err := r.conn.QueryRow(ctx, "SELECT coalesce(parameter_types::oid[], '{}') FROM pg_prepared_statements WHERE name = $1", stmtName).Scan(&oids); err != nil {
			out.err = err
			return out
		}
		for _, o := range oids {
			t, err := r.types.get(ctx, r.conn, o)
			if err != nil {
				out.err = err
				return out
			}
			types = append(types, t)
		}
		if len(types) == 0 {
			bindings = bindings[:1]
		}
	}
	seen := map[string]bool{}
	for _, b := range bindings {
		lits := b(types)
		var s string
		switch {
		case prepared && len(lits) == 0:
			s = "EXECUTE " + pgx.Identifier{stmtName}.Sanitize()
		case prepared:
			s = "EXECUTE " + pgx.Identifier{stmtName}.Sanitize() + "(" + strings.Join(lits, ", ") + ")"
		default:
			s = paramRef.ReplaceAllStringFunc(sql, func(m string) string {
				var n int
				fmt.Sscan(m[1:], &n)
				if n >= 1 && n <= len(lits) {
					return lits[n-1]
				}
				return m
			})
		}
		out.tried++
		run := func() error { return exec("SAVEPOINT oracle_b; " + s) }
		if cursor := declaredCursor(body); cursor != "" {
			// DECLARE runs its query when the cursor is read (PostgreSQL
			// docs, DECLARE): the statement's writes are those of reading
			// it all, in the same transaction.
			run = func() error {
				return exec("SAVEPOINT oracle_b; " + s + "; FETCH ALL FROM " + pgx.Identifier{cursor}.Sanitize() + "; CLOSE " + pgx.Identifier{cursor}.Sanitize())
			}
		}
		if copyTo.MatchString(body) {
			run = func() error {
				if err := exec("SAVEPOINT oracle_b"); err != nil {
					return err
				}
				_, err := r.conn.PgConn().CopyTo(ctx, io.Discard, s)
				return err
			}
		}
		if err := run(); err != nil {
			if out.err == nil {
				out.err = err
			}
			if r.conn.IsClosed() || exec("ROLLBACK TO SAVEPOINT oracle_b") != nil {
				return out
			}
			continue
		}
		out.ran++
		ws, err := r.auditAndRollback(ctx)
		if err != nil {
			if out.err == nil {
				out.err = err
			}
			return out
		}
		for _, w := range ws {
			if k := w.String(); !seen[k] {
				seen[k] = true
				out.writes = append(out.writes, w)
			}
		}
	}
	return out
}

// preparedName is the name of the prepared statement that sql, a
// PREPARE statement, creates; "" for any other statement.
func preparedName(sql string) string {
	tree, err := pg.Parse(sql)
	if err != nil || len(tree.Stmts) != 1 {
		return ""
	}
	if p := tree.Stmts[0].Stmt.GetPrepareStmt(); p != nil {
		return p.Name
	}
	return ""
}

// declaredCursor is the name of the cursor that sql, a DECLARE ...
// CURSOR statement, declares; "" for any other statement.
func declaredCursor(sql string) string {
	tree, err := pg.Parse(sql)
	if err != nil || len(tree.Stmts) != 1 {
		return ""
	}
	if d := tree.Stmts[0].Stmt.GetDeclareCursorStmt(); d != nil {
		return d.Portalname
	}
	return ""
}

// auditAndRollback reads the audit and rolls back to savepoint oracle_b,
// in one round trip.
func (r *runner) auditAndRollback(ctx context.Context) ([]Write, error) {
	res, err := r.conn.PgConn().Exec(ctx, "SELECT tbl, op, level, old_tok, new_tok FROM oracle_audit ORDER BY id; ROLLBACK TO SAVEPOINT oracle_b").ReadAll()
	if err != nil {
		return nil, err
	}
	if len(res) != 2 {
		return nil, fmt.Errorf("audit: %d results", len(res))
	}
	token := func(b []byte) *int64 {
		if b == nil {
			return nil
		}
		v, err := strconv.ParseInt(string(b), 10, 64)
		if err != nil {
			return nil
		}
		return &v
	}
	var out []Write
	for _, row := range res[0].Rows {
		out = append(out, Write{Table: string(row[0]), Op: string(row[1]), Level: string(row[2]), OldToken: token(row[3]), NewToken: token(row[4])})
	}
	return out, nil
}

// fencedWrites keeps the writes to the fenced tables.
func fencedWrites(ws []Write, fenced map[string]bool) []Write {
	var out []Write
	for _, w := range ws {
		if fenced[w.Table] {
			out = append(out, w)
		}
	}
	return out
}

// staleWrites keeps the writes a stale token must not make: a row updated
// or deleted whose stored token the stale one does not beat (every row
// stores staleStored, see seed), a TRUNCATE, or a schema change. A row inserted is not one: no token was stored.
func staleWrites(ws []Write, fenced map[string]bool) []Write {
	var out []Write
	for _, w := range fencedWrites(ws, fenced) {
		beaten := w.OldToken == nil || *w.OldToken > staleToken
		if w.Op == "TRUNCATE" || w.Level == "DDL" || (w.Level == "ROW" && (w.Op == "UPDATE" || w.Op == "DELETE") && beaten) {
			out = append(out, w)
		}
	}
	return out
}

func describe(ws []Write) string {
	s := make([]string, len(ws))
	for i, w := range ws {
		s[i] = w.String()
	}
	sort.Strings(s)
	return strings.Join(s, "; ")
}
