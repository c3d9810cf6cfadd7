// Command pgcatalog writes gen/internal/catalog/pgcatalog/builtin.go: the
// built-in functions, operators, casts, types and system relations of the
// PostgreSQL server at DATABASE_URL, read from its pg_catalog, together with
// those of the extensions sqlc knows that the server has.
//
// It creates a scratch database (named fg_builtin_<random>, dropped on
// exit), runs CREATE EXTENSION for each of extensions that the server
// offers, and reads (PostgreSQL docs, chapter 53 "System Catalogs"):
//
//   - pg_proc: every function in pg_catalog or owned by one of the
//     extensions, except those that take or return a pseudo-type no query
//     can pass or read (internal, cstring, the handler types, trigger);
//   - pg_operator, pg_cast and pg_type (without array and composite types,
//     which are written as elem[] and relations);
//   - the columns of every table and view in pg_catalog and
//     information_schema, with attnotnull.
//
// The output is sorted and deterministic for a given server: functions in
// the order sqlc's catalog generator lists them (name, result type, argument
// types, as format_type spells them), the rest by name. Run from the module
// root:
//
//	go run ./internal/pgcatalog            # writes the file
//	go run ./internal/pgcatalog -o -       # prints it
package main

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"go/format"
	"net/url"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/fencegen/fencegen/internal/pgscratch"
)

// Output is where the generated file goes, relative to the module root.
const Output = "gen/internal/catalog/pgcatalog/builtin.go"

// defaultURL is used when DATABASE_URL is not set.
const defaultURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"

// extensions are the extensions whose objects sqlc's catalog knows
// (sqlc internal/engine/postgresql/extension.go) that fencegen records.
var extensions = []string{"btree_gist", "citext", "hstore", "ltree", "pg_trgm", "pgcrypto", "uuid-ossp", "vector"}

func main() {
	out := flag.String("o", Output, "output file, - for standard output")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	src, err := Generate(ctx, databaseURL())
	if err != nil {
		fmt.Fprintln(os.Stderr, "pgcatalog:", err)
		os.Exit(1)
	}
	if *out == "-" {
		os.Stdout.Write(src)
		return
	}
	if err := os.WriteFile(*out, src, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "pgcatalog:", err)
		os.Exit(1)
	}
}

func databaseURL() string {
	if u := os.Getenv("DATABASE_URL"); u != "" {
		return u
	}
	return defaultURL
}

// Generate reads the catalog of the server at dbURL through a scratch
// database and returns the gofmt'd Go source of builtin.go.
func Generate(ctx context.Context, dbURL string) ([]byte, error) {
	admin, err := pgx.Connect(ctx, dbURL)
	if err != nil {
		return nil, err
	}
	defer admin.Close(context.Background())
	name, drop, err := pgscratch.Create(ctx, admin.PgConn(), "fg_builtin_", 30*time.Second)
	if err != nil {
		return nil, fmt.Errorf("create scratch database: %w", err)
	}
	defer drop()
	u, err := url.Parse(dbURL)
	if err != nil {
		return nil, err
	}
	u.Path = "/" + name
	conn, err := pgx.Connect(ctx, u.String())
	if err != nil {
		return nil, err
	}
	defer conn.Close(context.Background())
	return read(ctx, conn)
}

type pgType struct {
	oid      uint32
	name     string
	schema   string
	typtype  string
	category string
	pref     bool
	elem     uint32
	array    uint32
	base     uint32
	relid    uint32
	isArray  bool
	ext      string
}

type reader struct {
	conn  *pgx.Conn
	types map[uint32]*pgType
}

// typeName is the name fencegen's catalog uses for a type: typname, elem[]
// for an array type, and a domain's base type for a domain (the
// information schema's columns are domains over name, int4, varchar and
// timestamptz).
func (r *reader) typeName(oid uint32) (string, bool) {
	t := r.types[oid]
	if t == nil {
		return "", false
	}
	if t.typtype == "d" {
		return r.typeName(t.base)
	}
	if t.isArray {
		e, ok := r.typeName(t.elem)
		return e + "[]", ok
	}
	return t.name, true
}

var unusable = map[string]bool{
	"internal": true, "cstring": true, "language_handler": true, "fdw_handler": true,
	"index_am_handler": true, "table_am_handler": true, "tsm_handler": true,
	"trigger": true, "event_trigger": true, "opaque": true,
}

func read(ctx context.Context, conn *pgx.Conn) ([]byte, error) {
	var version, major string
	if err := conn.QueryRow(ctx, "SELECT current_setting('server_version'), current_setting('server_version_num')").Scan(&version, &major); err != nil {
		return nil, err
	}
	if len(major) >= 2 {
		major = strings.TrimLeft(major[:len(major)-4], "0")
	}
	var installed, missing []string
	for _, e := range extensions {
		var ok bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT FROM pg_available_extensions WHERE name = $1)", e).Scan(&ok); err != nil {
			return nil, err
		}
		if !ok {
			missing = append(missing, e)
			continue
		}
		if _, err := conn.Exec(ctx, `CREATE EXTENSION IF NOT EXISTS "`+e+`"`); err != nil {
			return nil, fmt.Errorf("create extension %s: %w", e, err)
		}
		installed = append(installed, e)
	}
	r := &reader{conn: conn, types: map[uint32]*pgType{}}
	// Types.
	rows, err := conn.Query(ctx, `
SELECT t.oid, t.typname, n.nspname, t.typtype, t.typcategory, t.typispreferred, t.typelem, t.typarray,
  t.typbasetype, t.typrelid, (t.typelem <> 0 AND t.typlen = -1 AND t.typname LIKE '\_%'),
  coalesce((SELECT e.extname FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
    WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'), '')
FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		t := &pgType{}
		if err := rows.Scan(&t.oid, &t.name, &t.schema, &t.typtype, &t.category, &t.pref, &t.elem, &t.array, &t.base, &t.relid, &t.isArray, &t.ext); err != nil {
			return nil, err
		}
		r.types[t.oid] = t
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	// An extension's array type belongs to it through its element.
	for _, t := range r.types {
		if t.isArray && t.ext == "" {
			if e := r.types[t.elem]; e != nil {
				t.ext = e.ext
			}
		}
	}
	visible := func(t *pgType) bool {
		return t != nil && (t.schema == "pg_catalog" || t.schema == "information_schema" || t.ext != "")
	}
	var typeLines []string
	for _, t := range r.types {
		if !visible(t) || t.isArray || t.typtype == "c" || t.schema != "pg_catalog" && t.ext == "" {
			continue
		}
		arr := "-"
		if t.array != 0 {
			arr = "[]"
		}
		pref := "-"
		if t.pref {
			pref = "p"
		}
		typeLines = append(typeLines, strings.Join([]string{t.name, t.typtype, t.category + pref + arr, t.ext}, "|"))
	}
	slices.Sort(typeLines)

	// Functions.
	funcLines, err := r.funcs(ctx)
	if err != nil {
		return nil, err
	}
	// Operators.
	var opLines []string
	rows, err = conn.Query(ctx, `
SELECT o.oprname, o.oprleft, o.oprright, o.oprresult,
  coalesce((SELECT e.extname FROM pg_depend d JOIN pg_extension e ON e.oid = d.refobjid
    WHERE d.classid = 'pg_operator'::regclass AND d.objid = o.oid AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'), '')
FROM pg_operator o JOIN pg_namespace n ON n.oid = o.oprnamespace
WHERE n.nspname = 'pg_catalog' OR EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_operator'::regclass
  AND d.objid = o.oid AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e')`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var name, ext string
		var l, rt, res uint32
		if err := rows.Scan(&name, &l, &rt, &res, &ext); err != nil {
			return nil, err
		}
		ln, _ := r.typeName(l)
		rn, _ := r.typeName(rt)
		resn, ok := r.typeName(res)
		if !ok || unusable[ln] || unusable[rn] || unusable[resn] {
			continue
		}
		opLines = append(opLines, strings.Join([]string{name, ln, rn, resn, ext}, "|"))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.Sort(opLines)
	opLines = slices.Compact(opLines)
	// Casts.
	var castLines []string
	rows, err = conn.Query(ctx, `SELECT castsource, casttarget, castcontext FROM pg_cast`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var s, t uint32
		var c string
		if err := rows.Scan(&s, &t, &c); err != nil {
			return nil, err
		}
		if !visible(r.types[s]) || !visible(r.types[t]) {
			continue
		}
		sn, _ := r.typeName(s)
		tn, _ := r.typeName(t)
		castLines = append(castLines, sn+"|"+tn+"|"+c)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.Sort(castLines)
	castLines = slices.Compact(castLines)
	// System relations.
	var relLines []string
	rows, err = conn.Query(ctx, `
SELECT n.nspname, c.relname, c.relkind,
  array(SELECT a.attname || ' ' || a.atttypid::text || ' ' || a.attnotnull::text FROM pg_attribute a
    WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum)
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname IN ('pg_catalog', 'information_schema') AND c.relkind IN ('r', 'v', 'm', 'p', 'f')`)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var sch, name, kind string
		var cols []string
		if err := rows.Scan(&sch, &name, &kind, &cols); err != nil {
			return nil, err
		}
		var cs []string
		for _, c := range cols {
			f := strings.Fields(c)
			var oid uint32
			fmt.Sscan(f[1], &oid)
			tn, _ := r.typeName(oid)
			nn := ""
			if f[2] == "true" {
				nn = "!"
			}
			cs = append(cs, f[0]+" "+tn+nn)
		}
		relLines = append(relLines, sch+"|"+name+"|"+kind+"|"+strings.Join(cs, ","))
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.Sort(relLines)

	var buf bytes.Buffer
	fmt.Fprintf(&buf, "// Code generated by go run ./internal/pgcatalog; DO NOT EDIT.\n\n")
	fmt.Fprintf(&buf, "// Read from PostgreSQL %s.\n", version)
	fmt.Fprintf(&buf, "// Extensions: %s.\n", strings.Join(installed, ", "))
	if len(missing) > 0 {
		fmt.Fprintf(&buf, "// Not available on that server, so not recorded: %s.\n", strings.Join(missing, ", "))
	}
	fmt.Fprintf(&buf, "\npackage pgcatalog\n\n")
	fmt.Fprintf(&buf, "// ServerMajor is the major version of the server the data was read from.\nconst ServerMajor = %q\n\n", major)
	fmt.Fprintf(&buf, "// Extensions lists the extensions whose objects are recorded.\nvar Extensions = []string{%s}\n\n", quoteList(installed))
	writeData(&buf, "typesData", "types: name|typtype|category, p if preferred, [] if it has an array type|extension", typeLines)
	writeData(&buf, "funcsData", "functions: name|kind, s if strict, volatility, * if SETOF, v if variadic|result|argument types|argument names|defaulted arguments|result columns|extension", funcLines)
	writeData(&buf, "operatorsData", "operators: name|left|right|result|extension", opLines)
	writeData(&buf, "castsData", "casts: source|target|context (i implicit, a assignment, e explicit)", castLines)
	writeData(&buf, "relationsData", "relations: schema|name|relkind|columns (name type, ! for NOT NULL)", relLines)
	return format.Source(buf.Bytes())
}

func quoteList(xs []string) string {
	var q []string
	for _, x := range xs {
		q = append(q, fmt.Sprintf("%q", x))
	}
	return strings.Join(q, ", ")
}

func writeData(buf *bytes.Buffer, name, doc string, lines []string) {
	fmt.Fprintf(buf, "// %s lists the %s.\nconst %s = `\n", name, doc, name)
	for _, l := range lines {
		if strings.ContainsAny(l, "`\n") {
			continue
		}
		buf.WriteString(l)
		buf.WriteByte('\n')
	}
	buf.WriteString("`\n\n")
}

type funcRow struct {
	key  []string
	line string
}

func (r *reader) funcs(ctx context.Context) ([]string, error) {
	rows, err := r.conn.Query(ctx, `
SELECT p.proname, p.prokind, p.proisstrict, p.provolatile, p.proretset, p.prorettype,
  p.proargtypes::oid[], coalesce(p.proallargtypes, '{}'), coalesce(p.proargmodes::text[], '{}'),
  coalesce(p.proargnames, '{}'), p.pronargdefaults, p.provariadic,
  format_type(p.prorettype, NULL), array(SELECT format_type(unnest(p.proargtypes), NULL)),
  coalesce(e.extname, '')
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
LEFT JOIN pg_depend d ON d.classid = 'pg_proc'::regclass AND d.objid = p.oid
  AND d.refclassid = 'pg_extension'::regclass AND d.deptype = 'e'
LEFT JOIN pg_extension e ON e.oid = d.refobjid
WHERE n.nspname = 'pg_catalog' OR e.extname IS NOT NULL`)
	if err != nil {
		return nil, err
	}
	var out []funcRow
	for rows.Next() {
		var name, kind, vol, fmtRet, ext string
		var strict, set bool
		var ret, variadic uint32
		var argTypes, allTypes []uint32
		var modes, names, fmtArgs []string
		var ndef int16
		if err := rows.Scan(&name, &kind, &strict, &vol, &set, &ret, &argTypes, &allTypes, &modes, &names, &ndef, &variadic, &fmtRet, &fmtArgs, &ext); err != nil {
			return nil, err
		}
		if strings.ContainsAny(name, "|,") {
			continue
		}
		resName, ok := r.typeName(ret)
		if !ok || unusable[resName] {
			continue
		}
		var args, argNames, cols []string
		bad := false
		for _, a := range argTypes {
			n, ok := r.typeName(a)
			if !ok || unusable[n] {
				bad = true
			}
			args = append(args, n)
		}
		if bad {
			continue
		}
		if len(modes) == 0 {
			for i := range args {
				nm := ""
				if i < len(names) {
					nm = names[i]
				}
				argNames = append(argNames, nm)
			}
		} else {
			for i, m := range modes {
				nm := ""
				if i < len(names) {
					nm = names[i]
				}
				switch m {
				case "i", "b", "v":
					argNames = append(argNames, nm)
				}
				switch m {
				case "o", "b", "t":
					tn, _ := r.typeName(allTypes[i])
					cols = append(cols, nm+" "+tn)
				}
			}
		}
		if slices.IndexFunc(argNames, func(s string) bool { return s != "" }) < 0 {
			argNames = nil
		}
		flags := kind
		if strict {
			flags += "s"
		} else {
			flags += "-"
		}
		flags += vol
		if set {
			flags += "*"
		} else {
			flags += "-"
		}
		if variadic != 0 {
			flags += "v"
		} else {
			flags += "-"
		}
		line := strings.Join([]string{name, flags, resName, strings.Join(args, ","), strings.Join(argNames, ","),
			fmt.Sprint(ndef), strings.Join(cols, ","), ext}, "|")
		// sqlc's catalog generator orders by name, result type and
		// argument types as format_type spells them.
		key := append([]string{name, fmtRet}, fmtArgs...)
		out = append(out, funcRow{key: key, line: line})
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b funcRow) int {
		for i := 0; i < 2; i++ {
			if c := strings.Compare(a.key[i], b.key[i]); c != 0 {
				return c
			}
		}
		if c := slices.Compare(a.key[2:], b.key[2:]); c != 0 {
			return c
		}
		return strings.Compare(a.line, b.line)
	})
	var lines []string
	for _, f := range out {
		lines = append(lines, f.line)
	}
	return slices.Compact(lines), nil
}
