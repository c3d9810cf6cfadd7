package gen

// sqlc's analysis with a database (an entry's database key: docs/sqlc.md,
// "database:"), as sqlc v1.31.1 does it (its PostgreSQL analyzer,
// internal/engine/postgresql/analyzer, and its compiler's
// combineAnalysis): each query is prepared on the server, and where the
// server's answer has as many parameters (result columns) as sqlc's own
// reading, each parameter, and each result column that is no table
// column in sqlc's reading, takes the type PostgreSQL gives it, spelt by
// format_type; names and nullability stay sqlc's reading's.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/config"
	"github.com/fencegen/fencegen/gen/internal/diag"
)

// dbTimeout bounds the connection and the whole analysis of one entry.
const dbTimeout = 2 * time.Minute

// dbType is what the database says of one type: format_type's spelling,
// as sqlc's parseType reads it (array brackets counted off, the SQL
// spellings of bpchar, varchar, bit, varbit, timestamp(tz) and time(tz)
// rewritten to pg_catalog names), and the type's own name and schema.
type dbType struct {
	spelling string // sqlc's DataType, brackets removed
	dims     int
	schema   string // pg_type's namespace of the element type
	name     string // pg_type.typname of the element type
	kind     byte   // pg_type.typtype of the element type: b, e, d, c, p, r, m
}

// sqlcRewriteType is sqlc v1.31.1's rewriteType.
func sqlcRewriteType(dt string) string {
	switch {
	case strings.HasPrefix(dt, "character("):
		return "pg_catalog.bpchar"
	case strings.HasPrefix(dt, "character varying"):
		return "pg_catalog.varchar"
	case strings.HasPrefix(dt, "bit varying"):
		return "pg_catalog.varbit"
	case strings.HasPrefix(dt, "bit("):
		return "pg_catalog.bit"
	}
	switch dt {
	case "bpchar":
		return "pg_catalog.bpchar"
	case "timestamp without time zone":
		return "pg_catalog.timestamp"
	case "timestamp with time zone":
		return "pg_catalog.timestamptz"
	case "time without time zone":
		return "pg_catalog.time"
	case "time with time zone":
		return "pg_catalog.timetz"
	}
	return dt
}

// dbAnalyzer asks one entry's database. It talks to the server through
// pgconn, pgx's connection layer, without pgx's Conn: a Conn builds
// pgx's type map (pgtype's codecs for every PostgreSQL type), which the
// analysis does not need (its few catalog queries read text), and which
// would be linked into every run's binary, about 3 MB of code and data
// that a run maps whether or not its configuration has a database (issue
// 23: peak memory against sqlc's on small projects).
type dbAnalyzer struct {
	conn  *pgconn.PgConn
	types map[[2]int64]*dbType // by oid and typmod
}

// errNoRows is pgx's ErrNoRows's text: a catalog query that finds no row.
var errNoRows = errors.New("no rows in result set")

// queryRow runs sql with args (in text format, their types the server's
// reading of the statement) and returns its first row's values in text
// format, or errNoRows.
func (a *dbAnalyzer) queryRow(ctx context.Context, sql string, args ...string) ([][]byte, error) {
	params := make([][]byte, len(args))
	for i, arg := range args {
		params[i] = []byte(arg)
	}
	res := a.conn.ExecParams(ctx, sql, params, nil, nil, nil).Read()
	if res.Err != nil {
		return nil, res.Err
	}
	if len(res.Rows) == 0 {
		return nil, errNoRows
	}
	return res.Rows[0], nil
}

func (a *dbAnalyzer) typeOf(ctx context.Context, oid uint32, typmod int32) (*dbType, error) {
	key := [2]int64{int64(oid), int64(typmod)}
	if t, ok := a.types[key]; ok {
		return t, nil
	}
	row, err := a.queryRow(ctx, `SELECT format_type($1::oid, $2::int4),
  n.nspname, e.typname, e.typtype::text
FROM pg_catalog.pg_type t
JOIN pg_catalog.pg_type e ON e.oid = CASE WHEN t.typcategory = 'A' AND t.typelem <> 0 THEN t.typelem ELSE t.oid END
JOIN pg_catalog.pg_namespace n ON n.oid = e.typnamespace
WHERE t.oid = $1::oid`, fmt.Sprint(oid), fmt.Sprint(typmod))
	if err != nil {
		return nil, err
	}
	// None of the four is NULL: format_type of an existing type and
	// pg_type's and pg_namespace's NOT NULL columns.
	spelling, kind := string(row[0]), string(row[3])
	t := dbType{schema: string(row[1]), name: string(row[2])}
	for strings.HasSuffix(spelling, "[]") {
		spelling = strings.TrimSuffix(spelling, "[]")
		t.dims++
	}
	t.spelling = sqlcRewriteType(spelling)
	if kind != "" {
		t.kind = kind[0]
	}
	a.types[key] = &t
	return &t, nil
}

// sqlcMaps reports whether sqlc's Go type mapping reads t's spelling as
// the type it names: format_type's spelling with a type modifier
// (numeric(10,2), timestamp(3) without time zone, interval day) is no
// spelling sqlc's postgresType knows, nor is a domain's name (sqlc's
// catalog has no domains), a pseudo-type's or the internal "char".
func (t *dbType) sqlcMaps() bool {
	if strings.ContainsAny(t.spelling, "( ") && !strings.HasPrefix(t.spelling, "pg_catalog.") {
		switch t.spelling {
		case "double precision":
			return true
		}
		return false
	}
	switch t.kind {
	case 'd', 'p':
		return false
	}
	return t.spelling != `"char"`
}

// catalogType is t as the catalog names types (pg_catalog's typname, a
// user type's schema and name).
func (t *dbType) catalogType() catalog.Type {
	if t.schema != "pg_catalog" && !strings.Contains(t.spelling, ".") && catalog.KnownTypeName(t.name) {
		// An extension's type on the search path (citext, hstore in
		// public): format_type leaves it unqualified, and sqlc maps
		// that spelling as it maps the type without a database.
		return catalog.Type{Schema: "pg_catalog", Name: t.name, ArrayDims: t.dims}
	}
	return catalog.Type{Schema: t.schema, Name: t.name, ArrayDims: t.dims}
}

// databaseTypes types the queries of an entry with a database as sqlc's
// analysis with it does. The database is connected to once per entry;
// an unreachable database is an error at the database key, as sqlc fails
// then too. A query PostgreSQL refuses to prepare is an error at the
// query, with the server's message (sqlc fails with it). Fenced writes
// keep fencegen's own typing (the guard's text is fencegen's), and so do
// queries with an IN (sqlc.slice(x)) list.
func databaseTypes(cfg *Config, pkg config.Package, files []*analyze.File) diag.List {
	var errs diag.List
	d := pkg.Database
	uri := os.Expand(d.URI, os.Getenv) // sqlc's shfmt.Replacer: $VAR and ${VAR}
	ctx, cancel := context.WithTimeout(context.Background(), dbTimeout)
	defer cancel()
	// pgx.ParseConfig reads the URI as pgx.Connect, which sqlc's
	// analyzer's pool uses, reads it (pgx's own keys are no server
	// settings).
	conn, err := func() (*pgconn.PgConn, error) {
		pc, err := pgx.ParseConfig(uri)
		if err != nil {
			return nil, err
		}
		return pgconn.ConnectConfig(ctx, &pc.Config)
	}()
	if err != nil {
		msg := errLine(err)
		errs.Add(cfg.Path, d.Pos.Line, d.Pos.Col, "database: cannot connect: %s (sqlc v1.31.1 analyses this entry's queries with the database and fails too; analyzer: {database: false} analyses them without it)", msg)
		return errs
	}
	defer conn.Close(context.Background())
	a := &dbAnalyzer{conn: conn, types: map[[2]int64]*dbType{}}
	for _, f := range files {
		for _, q := range f.Queries {
			if q.Fence != nil || q.OptOut != nil || len(q.InSlices) > 0 {
				continue
			}
			desc, err := conn.Prepare(ctx, "", q.SQL, nil)
			if err != nil {
				msg := err.Error()
				var pe *pgconn.PgError
				if errors.As(err, &pe) {
					msg = pe.Message
				}
				errs.Add(q.File, q.Line, q.Col, "query %s: PostgreSQL refuses to prepare it: %s (sqlc v1.31.1, analysing with the database, fails too)", q.Name, msg)
				continue
			}
			if err := a.typeQuery(ctx, q, desc); err != nil {
				errs.Add(q.File, q.Line, q.Col, "query %s: reading its types from the database: %v", q.Name, err)
			}
		}
	}
	return errs
}

// typeQuery merges the database's answer into q as sqlc's
// combineAnalysis does where the counts agree. (Where they do not, sqlc
// takes the database's names and nullability too; fencegen's reading,
// which numbers the parameters as sqlc does, then keeps its own.)
func (a *dbAnalyzer) typeQuery(ctx context.Context, q *analyze.Query, desc *pgconn.StatementDescription) error {
	if q.SqlcParamsFail && len(desc.ParamOIDs) == len(q.Params) {
		// sqlc's own reading failed: the database's answer alone, the
		// names of named parameters kept, $n ones dollar_N, all
		// nullable, no column's overrides.
		for i, p := range q.Params {
			t, err := a.typeOf(ctx, desc.ParamOIDs[i], -1)
			if err != nil {
				return err
			}
			if !p.Named {
				p.Name, p.Unnamed = fmt.Sprintf("column_%d", p.Number), true
			}
			p.NotNull, p.Sqlc, p.SqlcUntyped = false, nil, false
			p.Known = t.sqlcMaps() || t.kind == 'd'
			p.Type, p.DBType = t.catalogType(), t.spelling
			p.Column = &catalog.Column{Name: p.Name, Type: p.Type, DBType: t.spelling}
		}
	} else if len(desc.ParamOIDs) == len(q.Params) {
		for i, p := range q.Params {
			t, err := a.typeOf(ctx, desc.ParamOIDs[i], -1)
			if err != nil {
				return err
			}
			if t.spelling == "any" {
				continue
			}
			// Nullability is sqlc's reading's: a parameter it leaves
			// untyped (interface{}) it reads as nullable.
			switch {
			case p.Sqlc != nil && p.Sqlc.Any && p.Sqlc.NotNull:
				// A function's argument, NOT NULL where interface{}
				// (a polymorphic one); other untyped parameters are
				// nullable (sqlc's addUnknownParam).
				p.NotNull = true
			case !p.Known || p.SqlcUntyped || p.Sqlc != nil && p.Sqlc.Any:
				p.NotNull = false
			case p.Sqlc != nil:
				p.NotNull = p.Sqlc.NotNull
			}
			p.Sqlc, p.SqlcUntyped = nil, false
			if !t.sqlcMaps() && t.kind != 'd' {
				p.Known = false
				continue
			}
			// A domain's parameter is interface{} unless a column
			// override types it (golang's sqlcDomain, after overrides,
			// as sqlc checks them first).
			p.Known = true
			p.Type = t.catalogType()
			p.DBType = t.spelling
			// The column keeps sqlc's column overrides (table and name)
			// with the database's type.
			c := &catalog.Column{Name: p.Name, Type: p.Type, DBType: t.spelling, NotNull: p.NotNull}
			if p.Column != nil {
				c.Name, c.Table = p.Column.Name, p.Column.Table
				if t := c.Table; t != nil && t.Schema == "information_schema" && t.IsSystem() {
					// Not one of sqlc's information_schema domains
					// (interface{}): the database's type (name) stands.
					c.Table = nil
				}
			}
			p.Column = c
		}
	}
	if len(desc.Fields) != len(q.Columns) {
		return nil
	}
	for _, c := range q.Columns {
		if c.Embed != nil {
			return nil
		}
	}
	for i, c := range q.Columns {
		col := c.Column
		if c.Sqlc != nil {
			col = c.Sqlc.Column
		}
		if col != nil && col.Table != nil {
			// A table's column in sqlc's reading: its catalog type
			// stands (sqlc's Column.Type), whatever the database says.
			continue
		}
		f := desc.Fields[i]
		oid, typmod := f.DataTypeOID, f.TypeModifier
		if f.TableOID > 0 {
			// sqlc reads the table column's own type (a domain stays
			// the domain).
			row, err := a.queryRow(ctx, `SELECT atttypid, atttypmod FROM pg_catalog.pg_attribute WHERE attrelid = $1 AND attnum = $2`,
				fmt.Sprint(f.TableOID), fmt.Sprint(int16(f.TableAttributeNumber)))
			if err != nil {
				return err
			}
			if _, err := fmt.Sscan(string(row[0])+" "+string(row[1]), &oid, &typmod); err != nil {
				return err
			}
		}
		t, err := a.typeOf(ctx, oid, typmod)
		if err != nil {
			return err
		}
		if t.spelling == "any" {
			continue
		}
		if c.Known && !c.SqlcAny && c.Sqlc == nil && c.Type == t.catalogType() {
			// sqlc's reading has the database's type already (a cast
			// keeps its own type name in sqlc, typmod and all).
			continue
		}
		notNull := c.NotNull
		switch {
		case c.SqlcAny:
			// sqlc's reading leaves it untyped, and nullable but for a
			// function call.
			notNull = c.SqlcAnyNotNull
		case !c.Known || c.Sqlc != nil && c.Sqlc.Any:
			notNull = false
		case c.Sqlc != nil:
			notNull = c.Sqlc.NotNull
		}
		c.Sqlc, c.NotNull = nil, notNull
		if !t.sqlcMaps() {
			c.SqlcAny = true
			continue
		}
		c.SqlcAny, c.Known = false, true
		c.Type = t.catalogType()
		c.DBType = t.spelling
		c.Column = &catalog.Column{Name: c.Name, Type: c.Type, DBType: t.spelling, NotNull: notNull}
	}
	return nil
}

// errLine is err's text on one line, its whitespace runs collapsed, for
// a message that quotes a connection's error (pgconn's name the host
// and wrap the dial error over several lines).
func errLine(err error) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(err.Error(), "\n", "; ")), " ")
}
