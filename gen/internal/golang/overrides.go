package golang

import (
	"go/token"
	"path"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/config"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// override is a resolved sqlc override: a database type or a column
// pattern, and the Go type to use.
type override struct {
	dbType *catalog.Type
	// dbTypeName is the db_type as configured: sqlc compares it with a
	// value's spelling (catalog.Column.DBType) as a string.
	dbTypeName string
	// serial is set for a db_type written as a serial pseudo-type
	// (serial, bigserial, serial8...): sqlc matches it against columns
	// declared so, and only those.
	serial   bool
	nullable bool
	// unsigned is the override's unsigned (MySQL's db_type overrides
	// match columns of that signedness only).
	unsigned bool
	// column patterns (path.Match syntax per part); schema "" matches the
	// default schema.
	schema, table, column string
	isColumn              bool
	// literal is set for column patterns without a glob character:
	// matchesColumn compares them with == (match's answer, without its
	// look for glob characters in every comparison).
	literal bool
	goType  goType
	hasType bool   // false for an override that only adds tags
	alias   string // the import's alias, "" for none (see parseGoType)
	// tags are the go_struct_tag's key-value pairs.
	tags map[string]string
}

// parseStructTag splits a struct tag (key:"value" pairs separated by
// spaces, reflect.StructTag's format) into its pairs; text that does not
// follow the format ends the parse.
func parseStructTag(tag string) map[string]string {
	out := map[string]string{}
	for {
		tag = strings.TrimLeft(tag, " ")
		i := strings.Index(tag, ":\"")
		if i <= 0 || strings.ContainsAny(tag[:i], " \"") {
			return out
		}
		key := tag[:i]
		rest := tag[i+1:]
		// Find the closing quote, skipping escaped characters.
		j := 1
		for j < len(rest) && rest[j] != '"' {
			if rest[j] == '\\' {
				j++
			}
			j++
		}
		if j >= len(rest) {
			return out
		}
		v, err := strconv.Unquote(rest[:j+1])
		if err != nil {
			return out
		}
		out[key] = v
		tag = rest[j+1:]
	}
}

// parseGoType reads an override's go_type: the string form
// "github.com/google/uuid.UUID", "*time.Time", "[]string", "string", or the
// object form with import, package, type, pointer and slice. It returns
// the type and the alias the import is written with ("" for none), by
// sqlc's rules (see specAlias and importAlias).
func parseGoType(g config.GoType, pgtypePath string) (goType, string) {
	var t goType
	if g.Spec == "" {
		t.pkg, t.name, t.pointer = g.Import, g.Type, g.Pointer
		if g.Slice {
			t.slices = 1
		}
		// sqlc imports the package of a type it knows by the type's
		// name, less one leading "[]" and then one "*" (its
		// trimSliceAndPointerPrefix): {type: "*time.Time"} and
		// {type: "[]time.Time"} import time as {type: time.Time} does,
		// {type: "[][]time.Time"} does not.
		inner, known := "", g.Type
		if strings.HasPrefix(known, "[]") {
			inner, known = "[]", known[2:]
		}
		if strings.HasPrefix(known, "*") {
			inner, known = inner+"*", known[1:]
		}
		p, ok := sqlcKnownTypes[known]
		switch {
		case strings.HasPrefix(known, "pgtype."):
			p, ok = pgtypePath, true // sqlc's uses("pgtype."), by driver
		case strings.HasPrefix(known, "sql.Null"):
			p, ok = sqlPkg, true // sqlc's uses("sql.Null")
		}
		if ok && g.Import == "" {
			// {type: time.Time} without import: sqlc imports the
			// package of the types it knows.
			t.pkg, t.name, t.inner = p, known[strings.IndexByte(known, '.')+1:], inner
		}
		alias := g.Package
		if alias == "" && g.Import != "" {
			alias = importAlias(g.Import)
		}
		return t, alias
	}
	spec := g.Spec
	for {
		switch {
		case strings.HasPrefix(spec, "*"):
			t.pointer = true
			spec = spec[1:]
			continue
		case strings.HasPrefix(spec, "[]"):
			t.slices++
			spec = spec[2:]
			continue
		}
		break
	}
	slash := strings.LastIndexByte(spec, '/')
	dot := strings.LastIndexByte(spec, '.')
	if dot <= slash {
		t.name = spec // a builtin such as string or interface{}
		return t, ""
	}
	t.pkg, t.name = spec[:dot], spec[dot+1:]
	// sqlc keeps a leading star in the type name of a path without a
	// slash and adds one for it: "*time.Time" is **time.Time, which
	// compiles, and is sqlc's API ("*github.com/google/uuid.UUID" is
	// *uuid.UUID).
	if t.pointer && strings.HasPrefix(g.Spec, "*") && !strings.Contains(g.Spec, "/") {
		t.inner = "*"
	}
	return t, specAlias(t.pkg)
}

// sqlcKnownTypes are the qualified types that sqlc imports the package
// of when an override's object form names one without import
// ({type: time.Time}): its imports.go's standard library types, and
// pgtype's (any), database/sql's Null types, pqtype's, pq's, uuid's and
// pgvector's it checks by name.
var sqlcKnownTypes = map[string]string{
	"json.RawMessage": "encoding/json", "time.Time": "time", "net.IP": "net", "net.HardwareAddr": "net",
	"netip.Addr": "net/netip", "netip.Prefix": "net/netip",
	"pqtype.CIDR": pqtypePkg, "pqtype.Inet": pqtypePkg, "pqtype.Macaddr": pqtypePkg, "pqtype.NullRawMessage": pqtypePkg,
	"pq.NullTime": pqPkg, "uuid.UUID": uuidPkg, "uuid.NullUUID": uuidPkg, "pgvector.Vector": pgvectorPkg,
}

// specAlias is the alias of the import of a go_type written as a string
// ("github.com/x/go-money.Money"). sqlc qualifies the type with the
// import path's last element less a "go-" prefix (money.Money) and
// imports the path without an alias; so does fencegen, and it returns "".
// Where that qualifier is not a Go identifier, or is a major version
// (yaml.v3.Node, pgvector-go.Vector, v2.Thing), sqlc's code does not
// compile (or only for a package named v2): fencegen then imports the
// path under the name packageName guesses (yaml, pgvector, thing), as an
// alias, so that the code compiles whatever the package clause says
// (under the object form's alias when that name is a keyword: go-go gives
// go_go).
func specAlias(importPath string) string {
	last := strings.TrimPrefix(path.Base(importPath), "go-")
	if token.IsIdentifier(last) && !isMajorVersion(last) {
		return ""
	}
	if name := packageName(importPath); token.IsIdentifier(name) {
		return name
	}
	// A keyword (go-go), or nothing left: the object form's alias.
	name := sanitizeImportElem(path.Base(importPath))
	if !token.IsIdentifier(name) {
		name = "_" + name
	}
	return name
}

// importAlias is the alias sqlc imports the path of a go_type's object
// form under when it names no package ("" for none): a last element
// that is a major version (github.com/x/y/v2) gives the element before
// it, lower-cased, with "_" for each character other than an ASCII
// letter, digit or underscore (y, go_redis); any other last element is
// the package name as it is when it consists of such characters only
// (decimal, Upper: no alias), and otherwise the same lower-cased
// replacement (go-geo gives go_geo, yaml.v3 yaml_v3).
func importAlias(importPath string) string {
	elems := strings.Split(importPath, "/")
	last := elems[len(elems)-1]
	if isMajorVersion(last) && len(elems) >= 2 {
		return sanitizeImportElem(elems[len(elems)-2])
	}
	if last != "" && strings.Trim(last, asciiIdentChars) == "" {
		return ""
	}
	return sanitizeImportElem(last)
}

const asciiIdentChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_"

// sanitizeImportElem lower-cases elem and replaces every character other
// than an ASCII letter, digit or underscore with one "_" (é gives one).
func sanitizeImportElem(elem string) string {
	return strings.Map(func(r rune) rune {
		if r < utf8.RuneSelf && strings.ContainsRune(asciiIdentChars, r) {
			return r
		}
		return '_'
	}, strings.ToLower(elem))
}

// isMajorVersion reports whether an import path element is a major
// version suffix: v and digits (v2, v10).
func isMajorVersion(elem string) bool {
	return len(elem) > 1 && elem[0] == 'v' && strings.Trim(elem[1:], "0123456789") == ""
}

// packageName is the name an import path's package is taken to have when
// it is imported without an alias, by Go's convention (the go command's
// and goimports' guess): the last element, or the one before a major
// version (github.com/jackc/pgx/v5: pgx), less a "go-" prefix
// (go-money: money), cut at its first character that cannot be in an
// identifier (yaml.v3: yaml, pgvector-go: pgvector).
func packageName(importPath string) string {
	base := path.Base(importPath)
	if isMajorVersion(base) {
		if dir := path.Dir(importPath); dir != "." {
			base = path.Base(dir)
		}
	}
	base = strings.TrimPrefix(base, "go-")
	if i := strings.IndexFunc(base, func(r rune) bool { return r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) }); i >= 0 {
		base = base[:i]
	}
	return base
}

// aliasSep joins an import path and the name an override imports it
// under, where that name is not the package's own (see newOverrides).
// No import path has it.
const aliasSep = "#"

// importPath is the import path of a goType's package: pkg, less the
// name newOverrides may have joined to it.
func importPath(pkg string) string {
	p, _, _ := strings.Cut(pkg, aliasSep)
	return p
}

// newOverrides reads the overrides of in. An override whose package is
// imported under a name of its own (package: fuid for
// github.com/gofrs/uuid, orm for database/sql) has that name joined to its
// import path (aliasSep): sqlc imports a path once per name it is used
// under (fuid "github.com/gofrs/uuid" beside uuid "github.com/gofrs/uuid",
// orm "database/sql" beside its own "database/sql"), where jennifer
// imports a path under one name per file; sqlcImports writes the path
// back.
func newOverrides(cat *catalog.Catalog, in []config.Override, pgtypePath string) []override {
	var out []override
	for _, o := range in {
		gt, alias := parseGoType(o.GoType, pgtypePath)
		if gt.pkg != "" && alias != "" && alias != packageName(gt.pkg) {
			gt.pkg += aliasSep + alias
		}
		ov := override{goType: gt, nullable: o.Nullable, unsigned: o.Unsigned, alias: alias, hasType: gt.name != ""}
		if o.GoStructTag != "" {
			ov.tags = parseStructTag(o.GoStructTag)
		}
		if o.Column != "" {
			parts := strings.Split(o.Column, ".")
			ov.isColumn = true
			switch len(parts) {
			case 2:
				ov.table, ov.column = parts[0], parts[1]
			case 3:
				ov.schema, ov.table, ov.column = parts[0], parts[1], parts[2]
			case 4:
				// sqlc matches the catalog part against the table's
				// catalog, which PostgreSQL names leave empty: only a
				// pattern matching "" can match.
				if !match(parts[0], "") || parts[0] == "" {
					continue
				}
				ov.schema, ov.table, ov.column = parts[1], parts[2], parts[3]
			default:
				continue
			}
			ov.literal = !strings.ContainsAny(ov.schema+ov.table+ov.column, globChars)
		} else if o.DBType != "" {
			schema, name := "", o.DBType
			if i := strings.LastIndexByte(name, '.'); i >= 0 {
				schema, name = name[:i], name[i+1:]
			}
			t, _ := cat.ResolveType(&sqlparse.TypeName{Schema: schema, Name: name})
			ov.dbType, ov.dbTypeName = &t, o.DBType
			ov.serial = serialTypes[strings.ToLower(name)] && (schema == "" || schema == "pg_catalog")
		}
		out = append(out, ov)
	}
	return out
}

// serialTypes are PostgreSQL's serial pseudo-types (PostgreSQL
// documentation, "Serial Types"): a column declared with one is an
// integer column with a sequence default.
var serialTypes = map[string]bool{
	"serial": true, "serial4": true, "bigserial": true, "serial8": true, "smallserial": true, "serial2": true,
}

// spelledSerial reports whether a value of type t that is column col (nil
// for none) has, for sqlc, the serial type its column was declared with:
// sqlc types a column by its spelling, so that a db_type override for
// serial matches a serial column and one for int4 does not.
func spelledSerial(col *catalog.Column, t catalog.Type) bool {
	return col != nil && col.Sequence && t.ArrayDims == 0 && t == col.Type
}

// matchesDBType reports whether o is a db_type override for a value of
// type t, that is column col (nil for none), nullable unless notNull.
func (o *override) matchesDBType(col *catalog.Column, t catalog.Type, notNull bool) bool {
	if o.dbType == nil || o.isColumn {
		return false
	}
	if col != nil && col.DBType != "" {
		// sqlc (Override.MatchesColumn) compares the db_type with the
		// type as the parser spells it: "timestamptz" matches a column
		// written timestamptz, not one written TIMESTAMP WITH TIME ZONE
		// ("pg_catalog.timestamptz"). An array matches through its
		// element, NOT NULL.
		return t.ArrayDims == 0 && o.dbTypeName == col.DBType && o.nullable != notNull && (t.Schema != catalog.MySQLSchema || o.unsigned == t.Unsigned)
	}
	if o.dbType.Name != t.Name || (o.dbType.Schema != t.Schema && !(o.dbType.Schema == "" || t.Schema == "")) || o.dbType.ArrayDims != t.ArrayDims {
		return false
	}
	if o.serial != spelledSerial(col, t) {
		return false
	}
	return o.nullable != notNull
}

// globChars are the characters that make a pattern a glob for path.Match.
const globChars = `*?[\`

func match(pattern, s string) bool {
	if pattern == "" {
		return true
	}
	if !strings.ContainsAny(pattern, globChars) {
		return pattern == s // path.Match's answer, without its parse of the pattern
	}
	ok, err := path.Match(pattern, s)
	return err == nil && ok
}

// overrideFor returns the override for a value of type t (nullable unless
// notNull) that is column col (nil when the value is no table column).
// Column overrides win over type overrides, later entries over earlier ones
// of the same kind... as in sqlc, the first match of each kind applies.
func (m *typeMapper) overrideFor(col *catalog.Column, t catalog.Type, notNull bool) (goType, bool) {
	for i := range m.overrides {
		o := &m.overrides[i]
		if o.hasType && o.matchesColumn(col) {
			m.use(o)
			return o.goType, true
		}
	}
	if el := elemSpelling(col); el != nil && t.ArrayDims > 0 {
		// sqlc matches an array's element, spelt as the column's type,
		// NOT NULL, and adds a slice per dimension to what it maps to.
		g, ok := m.overrideFor(el, t.Elem(), true)
		if !ok {
			g = m.defaultType(t.Elem(), true)
		}
		g.slices += t.ArrayDims
		return g, true
	}
	for i := range m.overrides {
		o := &m.overrides[i]
		if !o.hasType || !o.matchesDBType(col, t, notNull) {
			continue
		}
		m.use(o)
		return o.goType, true
	}
	return goType{}, false
}

// elemSpelling is the spelling (Column.DBType) of the elements of an
// array that is column col: the column's own, which has no brackets.
func elemSpelling(col *catalog.Column) *catalog.Column {
	if col == nil || col.DBType == "" {
		return nil
	}
	return &catalog.Column{DBType: col.DBType}
}

// matchesColumn reports whether o is a column override whose pattern
// matches col. A pattern without a schema ("table.column") matches tables
// of the default schema only, as in sqlc; each part is a glob.
func (o *override) matchesColumn(col *catalog.Column) bool {
	if !o.isColumn || col == nil || col.Table == nil {
		return false
	}
	schema := col.Table.Schema
	if schema == "" || col.Table.Temp || col.Table.SqlcPublic {
		schema = catalog.DefaultSchema // sqlc's catalog has CREATE TEMP TABLE t in it
	}
	if o.schema == "" {
		if schema != catalog.DefaultSchema {
			return false
		}
	} else if o.literal {
		if o.schema != schema {
			return false
		}
	} else if !match(o.schema, schema) {
		return false
	}
	if o.literal {
		return (o.table == "" || o.table == col.Table.Name) && (o.column == "" || o.column == col.Name)
	}
	return match(o.table, col.Table.Name) && match(o.column, col.Name)
}

// structTags returns the go_struct_tag pairs of every override matching
// a field, in configuration order, later overrides winning for a key (as
// sqlc's addExtraGoStructTags): a column override matching col, or a
// db_type override matching typ (nil when unknown) and notNull, an array
// matching as its element type, NOT NULL, as sqlc's MatchesColumn.
func (m *typeMapper) structTags(col *catalog.Column, typ *catalog.Type, notNull bool) map[string]string {
	var out map[string]string
	for i := range m.overrides {
		o := &m.overrides[i]
		if len(o.tags) == 0 || !(o.matchesColumn(col) || o.matchesTagType(col, typ, notNull)) {
			continue
		}
		if out == nil {
			out = map[string]string{}
		}
		for k, v := range o.tags {
			out[k] = v
		}
	}
	return out
}

// matchesTagType reports whether o is a db_type override for values of
// type t (nil: unknown) that are column col, nullable unless notNull; an
// array value counts as its NOT NULL element type, as in sqlc.
func (o *override) matchesTagType(col *catalog.Column, t *catalog.Type, notNull bool) bool {
	if t == nil {
		return false
	}
	if t.ArrayDims > 0 {
		return o.matchesDBType(elemSpelling(col), t.Elem(), true)
	}
	return o.matchesDBType(col, *t, notNull)
}

func (m *typeMapper) use(o *override) {
	if o.goType.pkg != "" {
		m.mu.Lock()
		m.imports[o.goType.pkg] = o.importName()
		m.mu.Unlock()
	}
}

// importName is the package name o's Go type's package is imported
// under: its configured package, or the one packageName guesses.
func (o override) importName() string {
	if o.alias != "" {
		return o.alias
	}
	return packageName(o.goType.pkg)
}
