// The comparisons of TestPgRef (see pgref_test.go): fencegen's catalog
// against pg_catalog, and its query types against PREPARE.
package gen

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/diag"
)

// userNS selects the user schemas of pg_namespace n.
const userNS = `n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_toast%' AND n.nspname NOT LIKE 'pg\_temp%'`

// notExtension selects objects (of system catalog class, id column) that
// no extension owns: CREATE EXTENSION's objects are PostgreSQL's, not the
// schema's.
func notExtension(class, id string) string {
	return fmt.Sprintf(`NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = '%s'::regclass AND d.objid = %s AND d.deptype = 'e')`, class, id)
}

// pgType is a row of pg_type.
type pgType struct {
	nsp, name, typtype, category, relkind string
	elem, base                            uint32
	notNull, ext                          bool
}

type pgTypes map[uint32]*pgType

func loadTypes(ctx context.Context, conn *pgx.Conn) (pgTypes, error) {
	rows, err := conn.Query(ctx, `SELECT t.oid::int8, n.nspname::text, t.typname::text, t.typtype::text, t.typcategory::text,
		coalesce(c.relkind::text, ''), t.typelem::int8, t.typbasetype::int8, t.typnotnull,
		EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid AND d.deptype = 'e')
		FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace LEFT JOIN pg_class c ON c.oid = t.typrelid`)
	if err != nil {
		return nil, err
	}
	out := pgTypes{}
	for rows.Next() {
		var oid, elem, base int64
		t := &pgType{}
		if err := rows.Scan(&oid, &t.nsp, &t.name, &t.typtype, &t.category, &t.relkind, &elem, &base, &t.notNull, &t.ext); err != nil {
			return nil, err
		}
		t.elem, t.base = uint32(elem), uint32(base)
		out[uint32(oid)] = t
	}
	return out, rows.Err()
}

// name is the canonical name of type oid, spelt as fencegen's types are
// compared: a domain is its base type (fencegen models a domain so), an
// array is its element type and "[]" (PostgreSQL does not track the
// number of dimensions of a value), a built-in or extension type is its
// bare typname, a user type schema.typname.
func (ts pgTypes) name(oid uint32) string {
	t, ok := ts[oid]
	if !ok {
		return fmt.Sprintf("oid %d", oid)
	}
	switch {
	case t.typtype == "d":
		return ts.name(t.base)
	case t.category == "A" && t.elem != 0:
		return ts.name(t.elem) + "[]"
	case t.nsp == "pg_catalog" || t.ext:
		return t.name
	}
	return t.nsp + "." + t.name
}

// notNull reports whether oid is a domain that is NOT NULL, itself or
// through its base domains.
func (ts pgTypes) notNull(oid uint32) bool {
	for t := ts[oid]; t != nil && t.typtype == "d"; t = ts[t.base] {
		if t.notNull {
			return true
		}
	}
	return false
}

// fgType spells a fencegen type as pgTypes.name does.
func fgType(t catalog.Type) string {
	s := t.Name
	if t.Schema != "" && t.Schema != "pg_catalog" {
		s = t.Schema + "." + s
	}
	if t.ArrayDims > 0 {
		s += "[]"
	}
	return s
}

// pgRel is a relation of pg_class with its columns and constraints.
type pgRel struct {
	kind, comment string
	cols          []*pgCol
	pk            []string
	keys          map[string]string // constraint name → "primary key (a, b)" / "unique (a)"
	fks           []string
	parents       []string
}

type pgCol struct {
	name                         string
	typ                          uint32
	notNull, hasDef              bool
	identity, generated, comment string
	defaultNextval               bool
}

var relKinds = map[string]string{"r": "table", "p": "partitioned table", "v": "view", "m": "view", "f": "table", "S": "sequence"}

func fgKind(t *catalog.Table) string {
	switch {
	case t.IsSequence:
		return "sequence"
	case t.IsView:
		return "view"
	case t.Partitioned:
		return "partitioned table"
	}
	return "table"
}

var fkActions = map[string]string{"a": "NO ACTION", "r": "RESTRICT", "c": "CASCADE", "n": "SET NULL", "d": "SET DEFAULT", "\x00": "NO ACTION", "": "NO ACTION"}

func loadRels(ctx context.Context, conn *pgx.Conn) (map[string]*pgRel, []string, error) {
	rels := map[string]*pgRel{}
	var order []string
	rows, err := conn.Query(ctx, `SELECT n.nspname::text, c.relname::text, c.relkind::text, coalesce(obj_description(c.oid, 'pg_class'), ''),
		coalesce(a.attname::text, ''), coalesce(a.atttypid, 0)::int8, coalesce(a.attnotnull, false), coalesce(a.atthasdef, false),
		coalesce(a.attidentity::text, ''), coalesce(a.attgenerated::text, ''), coalesce(col_description(c.oid, a.attnum), ''),
		coalesce(pg_get_expr(ad.adbin, ad.adrelid) LIKE 'nextval(%', false)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
		LEFT JOIN pg_attrdef ad ON ad.adrelid = c.oid AND ad.adnum = a.attnum
		WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND `+userNS+` AND `+notExtension("pg_class", "c.oid")+`
		ORDER BY 1, 2, a.attnum`)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var nsp, rel, kind, comment string
		var typ int64
		col := &pgCol{}
		if err := rows.Scan(&nsp, &rel, &kind, &comment, &col.name, &typ, &col.notNull, &col.hasDef, &col.identity, &col.generated, &col.comment, &col.defaultNextval); err != nil {
			return nil, nil, err
		}
		col.typ = uint32(typ)
		key := nsp + "." + rel
		r := rels[key]
		if r == nil {
			r = &pgRel{kind: relKinds[kind], comment: comment, keys: map[string]string{}}
			rels[key] = r
			order = append(order, key)
		}
		if col.name != "" {
			r.cols = append(r.cols, col)
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	rows, err = conn.Query(ctx, `SELECT n.nspname::text, c.relname::text, k.conname::text, k.contype::text, k.conparentid <> 0,
		array(SELECT a.attname::text FROM unnest(k.conkey) WITH ORDINALITY u(n, o) JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = u.n ORDER BY u.o),
		coalesce(fn.nspname || '.' || fc.relname, ''),
		array(SELECT a.attname::text FROM unnest(k.confkey) WITH ORDINALITY u(n, o) JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = u.n ORDER BY u.o),
		k.confdeltype::text, k.confupdtype::text
		FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_class fc ON fc.oid = k.confrelid LEFT JOIN pg_namespace fn ON fn.oid = fc.relnamespace
		WHERE k.contype IN ('p', 'u', 'f') AND `+userNS+`
		ORDER BY 1, 2, 3`)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var nsp, rel, name, typ, parent, del, upd string
		var cloned bool
		var cols, refs []string
		if err := rows.Scan(&nsp, &rel, &name, &typ, &cloned, &cols, &parent, &refs, &del, &upd); err != nil {
			return nil, nil, err
		}
		r := rels[nsp+"."+rel]
		if r == nil {
			continue
		}
		switch typ {
		case "p":
			r.pk = cols
			r.keys[name] = "primary key (" + strings.Join(cols, ", ") + ")"
		case "u":
			r.keys[name] = "unique (" + strings.Join(cols, ", ") + ")"
		case "f":
			// A foreign key PostgreSQL clones onto partitions (or onto the
			// partitions of the table referred to) is not one the schema
			// declares.
			if !cloned {
				r.fks = append(r.fks, fkString(cols, parent, refs, del, upd))
			}
		}
	}
	if err := rows.Err(); err != nil {
		return nil, nil, err
	}
	rows, err = conn.Query(ctx, `SELECT cn.nspname::text, c.relname::text, pn.nspname::text, p.relname::text
		FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid JOIN pg_namespace cn ON cn.oid = c.relnamespace
		JOIN pg_class p ON p.oid = i.inhparent JOIN pg_namespace pn ON pn.oid = p.relnamespace
		WHERE c.relkind IN ('r', 'p', 'f') ORDER BY 1, 2, i.inhseqno`)
	if err != nil {
		return nil, nil, err
	}
	for rows.Next() {
		var cn, c, pn, p string
		if err := rows.Scan(&cn, &c, &pn, &p); err != nil {
			return nil, nil, err
		}
		if r := rels[cn+"."+c]; r != nil {
			r.parents = append(r.parents, pn+"."+p)
		}
	}
	return rels, order, rows.Err()
}

func fkString(cols []string, parent string, refs []string, del, upd string) string {
	return fmt.Sprintf("(%s) references %s (%s) on delete %s on update %s", strings.Join(cols, ", "), parent, strings.Join(refs, ", "), fkActions[del], fkActions[upd])
}

// The catalog keeps keys, foreign keys and parents unexported; the test
// reads them by reflection (reading unexported fields is allowed, only
// Interface is not), so that the catalog's API does not grow for a test.

func fgKeys(t *catalog.Table) map[string]string {
	out := map[string]string{}
	m := reflect.ValueOf(t).Elem().FieldByName("keys")
	if !m.IsValid() {
		return out
	}
	it := m.MapRange()
	for it.Next() {
		k := it.Value()
		cols := reflectStrings(k.FieldByName("columns"))
		kind := "unique"
		if k.FieldByName("primary").Bool() {
			kind = "primary key"
		}
		out[it.Key().String()] = kind + " (" + strings.Join(cols, ", ") + ")"
	}
	return out
}

func fgForeignKeys(t *catalog.Table) []string {
	var out []string
	s := reflect.ValueOf(t).Elem().FieldByName("foreignKeys")
	for i := 0; s.IsValid() && i < s.Len(); i++ {
		fk := s.Index(i)
		p := fk.FieldByName("parent")
		var parent string
		var pk []string
		if !p.IsNil() {
			pt := p.Elem()
			parent = schemaOr(pt.FieldByName("Schema").String()) + "." + pt.FieldByName("Name").String()
			pk = reflectStrings(pt.FieldByName("PrimaryKey"))
		}
		refs := reflectStrings(fk.FieldByName("refs"))
		if len(refs) == 0 {
			refs = pk
		}
		out = append(out, fkString(reflectStrings(fk.FieldByName("columns")), parent, refs,
			string(rune(fk.FieldByName("onDelete").Uint())), string(rune(fk.FieldByName("onUpdate").Uint()))))
	}
	return out
}

func fgParents(t *catalog.Table) []string {
	var out []string
	s := reflect.ValueOf(t).Elem().FieldByName("parents")
	for i := 0; s.IsValid() && i < s.Len(); i++ {
		p := s.Index(i).Elem()
		out = append(out, schemaOr(p.FieldByName("Schema").String())+"."+p.FieldByName("Name").String())
	}
	return out
}

func reflectStrings(v reflect.Value) []string {
	var out []string
	for i := 0; v.IsValid() && i < v.Len(); i++ {
		out = append(out, v.Index(i).String())
	}
	return out
}

func schemaOr(s string) string {
	if s == "" {
		return catalog.DefaultSchema
	}
	return s
}

func list(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return "[" + strings.Join(s, "; ") + "]"
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// compareCatalog compares cat with the database's user schemas.
func (e *pgrefEntry) compareCatalog(ctx context.Context, conn *pgx.Conn, cat *catalog.Catalog, _ bool) {
	types, err := loadTypes(ctx, conn)
	if err != nil {
		e.t.Fatalf("%s: read pg_type: %v", e.name, err)
	}
	rels, order, err := loadRels(ctx, conn)
	if err != nil {
		e.t.Fatalf("%s: read pg_class: %v", e.name, err)
	}

	// Schemas.
	var pgSchemas []string
	if err := pgCollect(ctx, conn, &pgSchemas, `SELECT nspname::text FROM pg_namespace n WHERE `+userNS+` ORDER BY 1`); err != nil {
		e.t.Fatal(err)
	}
	var fgSchemas []string
	for _, s := range cat.Schemas {
		if s.Name != "pg_catalog" {
			fgSchemas = append(fgSchemas, s.Name)
		}
	}
	for _, s := range pgSchemas {
		if !slices.Contains(fgSchemas, s) {
			e.differ("schema "+s, "exists", "no", "yes")
		}
	}
	for _, s := range fgSchemas {
		if !slices.Contains(pgSchemas, s) {
			e.differ("schema "+s, "exists", "yes", "no")
		}
	}

	// Relations.
	fgRels := map[string]*catalog.Table{}
	for _, s := range cat.Schemas {
		if s.Name == "pg_catalog" {
			continue
		}
		for _, t := range s.Tables {
			fgRels[schemaOr(t.Schema)+"."+t.Name] = t
		}
	}
	for _, k := range order {
		if fgRels[k] == nil {
			e.differ(rels[k].kind+" "+k, "exists", "no", "yes")
		}
	}
	for _, k := range slices.Sorted(mapKeys(fgRels)) {
		t := fgRels[k]
		r := rels[k]
		if r == nil {
			e.differ(fgKind(t)+" "+k, "exists", "yes", "no")
			continue
		}
		e.compareRel(k, t, r, types)
	}

	// Types.
	e.compareTypes(ctx, conn, cat, types)
	// Functions.
	e.compareFuncs(ctx, conn, cat, types)
	// Fencing marks written as column comments.
	for _, k := range order {
		r := rels[k]
		var pgMark []string
		for _, c := range r.cols {
			if marked, _, err := catalog.ParseFenceComment(c.comment); marked && err == nil {
				pgMark = append(pgMark, c.name)
			}
		}
		t := fgRels[k]
		var fgMark []string
		if t != nil && t.Fence != nil && t.Fence.Source == "comment" && t.Fence.From == nil {
			fgMark = []string{t.Fence.Column}
		}
		if list(pgMark) != list(fgMark) {
			e.differ(r.kind+" "+k, "fencing mark (column comment)", list(fgMark), list(pgMark))
		}
	}
}

func (e *pgrefEntry) compareRel(k string, t *catalog.Table, r *pgRel, types pgTypes) {
	obj := r.kind + " " + k
	if fgKind(t) != r.kind {
		e.differ(obj, "kind", fgKind(t), r.kind)
		return
	}
	if t.Comment != r.comment && !t.IsSequence {
		e.differ(obj, "comment", fmt.Sprintf("%q", t.Comment), fmt.Sprintf("%q", r.comment))
	}
	if t.IsSequence {
		return
	}
	view := r.kind == "view"
	var fgNames, pgNames []string
	for _, c := range t.Columns {
		fgNames = append(fgNames, c.Name)
	}
	for _, c := range r.cols {
		pgNames = append(pgNames, c.name)
	}
	for _, n := range pgNames {
		if !slices.Contains(fgNames, n) {
			e.differ(obj+" column "+n, "exists", "no", "yes")
		}
	}
	for _, n := range fgNames {
		if !slices.Contains(pgNames, n) {
			e.differ(obj+" column "+n, "exists", "yes", "no")
		}
	}
	var common []string
	for _, n := range fgNames {
		if slices.Contains(pgNames, n) {
			common = append(common, n)
		}
	}
	var pgCommon []string
	for _, n := range pgNames {
		if slices.Contains(fgNames, n) {
			pgCommon = append(pgCommon, n)
		}
	}
	if !slices.Equal(common, pgCommon) {
		e.differ(obj, "column order", list(common), list(pgCommon))
	}
	for _, pc := range r.cols {
		c := t.Column(pc.name)
		if c == nil {
			continue
		}
		co := obj + " column " + pc.name
		if fg, pg := fgType(c.Type), types.name(pc.typ); fg != pg {
			e.differ(co, "type", fg, pg)
		}
		if c.Comment != pc.comment {
			e.differ(co, "comment", fmt.Sprintf("%q", c.Comment), fmt.Sprintf("%q", pc.comment))
		}
		if view {
			continue // PostgreSQL has no NOT NULL or default for a view's columns
		}
		if pg := pc.notNull || types.notNull(pc.typ); c.NotNull != pg {
			e.differ(co, "not null", yesNo(c.NotNull), yesNo(pg))
		}
		fgDef := c.HasDefault || c.Identity || c.Generated
		pgDef := pc.hasDef || pc.identity != ""
		if fgDef != pgDef {
			e.differ(co, "has a default (DEFAULT, serial, identity or generated)", yesNo(fgDef), yesNo(pgDef))
		}
		if c.Identity != (pc.identity != "") {
			e.differ(co, "identity", yesNo(c.Identity), yesNo(pc.identity != ""))
		}
		if c.Generated != (pc.generated != "") {
			e.differ(co, "generated", yesNo(c.Generated), yesNo(pc.generated != ""))
		}
	}
	if view {
		return
	}
	if !slices.Equal(t.PrimaryKey, r.pk) {
		e.differ(obj, "primary key", list(t.PrimaryKey), list(r.pk))
	}
	fk := fgKeys(t)
	for _, n := range slices.Sorted(mapKeys(r.keys)) {
		if fk[n] != r.keys[n] {
			e.differ(obj+" constraint "+n, "definition", orNone(fk[n]), r.keys[n])
		}
	}
	for _, n := range slices.Sorted(mapKeys(fk)) {
		if _, ok := r.keys[n]; !ok {
			e.differ(obj+" constraint "+n, "definition", fk[n], "none")
		}
	}
	fgFKs := fgForeignKeys(t)
	sort.Strings(fgFKs)
	pgFKs := slices.Clone(r.fks)
	sort.Strings(pgFKs)
	for _, x := range pgFKs {
		if !slices.Contains(fgFKs, x) {
			e.differ(obj+" foreign key", x, "none", "yes")
		}
	}
	for _, x := range fgFKs {
		if !slices.Contains(pgFKs, x) {
			e.differ(obj+" foreign key", x, "yes", "none")
		}
	}
	fp, pp := fgParents(t), slices.Clone(r.parents)
	sort.Strings(fp)
	sort.Strings(pp)
	if !slices.Equal(fp, pp) {
		e.differ(obj, "parents (INHERITS, PARTITION OF)", list(fp), list(pp))
	}
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func (e *pgrefEntry) compareTypes(ctx context.Context, conn *pgx.Conn, cat *catalog.Catalog, types pgTypes) {
	// PostgreSQL's user types: enums, domains, composite types (not a
	// table's row type), ranges.
	pg := map[string]string{}
	pgOID := map[string]uint32{}
	for oid, t := range types {
		if t.ext || t.nsp == "pg_catalog" || t.nsp == "information_schema" || strings.HasPrefix(t.nsp, "pg_toast") || strings.HasPrefix(t.nsp, "pg_temp") {
			continue
		}
		kind := map[string]string{"e": "enum", "d": "domain", "r": "range"}[t.typtype]
		if t.typtype == "c" && t.relkind == "c" {
			kind = "composite"
		}
		if kind == "" {
			continue
		}
		pg[t.nsp+"."+t.name] = kind
		pgOID[t.nsp+"."+t.name] = oid
	}
	fg := map[string]string{}
	fgEnums := map[string]*catalog.Enum{}
	fgUser := map[string]*catalog.UserType{}
	for _, s := range cat.Schemas {
		for _, en := range s.Enums {
			k := schemaOr(en.Schema) + "." + en.Name
			fg[k], fgEnums[k] = "enum", en
		}
		for _, u := range s.Types {
			k := schemaOr(u.Schema) + "." + u.Name
			fg[k], fgUser[k] = u.Kind, u
		}
	}
	var labels map[uint32][]string
	for _, k := range slices.Sorted(mapKeys(pg)) {
		if fg[k] != pg[k] {
			e.differ("type "+k, "kind", orNone(fg[k]), pg[k])
			continue
		}
		t := types[pgOID[k]]
		switch pg[k] {
		case "enum":
			if labels == nil {
				labels = map[uint32][]string{}
				rows, err := conn.Query(ctx, `SELECT enumtypid::int8, enumlabel::text FROM pg_enum ORDER BY enumtypid, enumsortorder`)
				if err != nil {
					e.t.Fatal(err)
				}
				for rows.Next() {
					var oid int64
					var l string
					if err := rows.Scan(&oid, &l); err != nil {
						e.t.Fatal(err)
					}
					labels[uint32(oid)] = append(labels[uint32(oid)], l)
				}
				if err := rows.Err(); err != nil {
					e.t.Fatal(err)
				}
			}
			if a, b := list(fgEnums[k].Values), list(labels[pgOID[k]]); a != b {
				e.differ("enum "+k, "values", a, b)
			}
		case "domain":
			u := fgUser[k]
			if a, b := fgType(u.Base), types.name(t.base); a != b {
				e.differ("domain "+k, "base type", a, b)
			}
			if a, b := u.NotNull, types.notNull(pgOID[k]); a != b {
				e.differ("domain "+k, "not null", yesNo(a), yesNo(b))
			}
		case "composite":
			var cols []string
			rows, err := conn.Query(ctx, `SELECT a.attname::text, a.atttypid::int8 FROM pg_attribute a JOIN pg_type t ON t.typrelid = a.attrelid
				WHERE t.oid = $1 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`, int64(pgOID[k]))
			if err != nil {
				e.t.Fatal(err)
			}
			for rows.Next() {
				var n string
				var oid int64
				if err := rows.Scan(&n, &oid); err != nil {
					e.t.Fatal(err)
				}
				cols = append(cols, n+" "+types.name(uint32(oid)))
			}
			if err := rows.Err(); err != nil {
				e.t.Fatal(err)
			}
			var fcols []string
			for _, c := range fgUser[k].Columns {
				fcols = append(fcols, c.Name+" "+fgType(c.Type))
			}
			if a, b := list(fcols), list(cols); a != b {
				e.differ("composite type "+k, "fields", a, b)
			}
		}
	}
	for _, k := range slices.Sorted(mapKeys(fg)) {
		if _, ok := pg[k]; !ok {
			e.differ("type "+k, "kind", fg[k], "none")
		}
	}
}

func (e *pgrefEntry) compareFuncs(ctx context.Context, conn *pgx.Conn, cat *catalog.Catalog, types pgTypes) {
	type fn struct {
		result, out string
		procedure   bool
	}
	pg := map[string]fn{}
	rows, err := conn.Query(ctx, `SELECT n.nspname::text, p.proname::text, p.prokind::text, p.proargtypes::oid[]::int8[], p.prorettype::int8, p.proretset,
		coalesce(p.proallargtypes::int8[], '{}'), coalesce(p.proargmodes::text[], '{}'), coalesce(p.proargnames, '{}')
		FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
		WHERE p.prokind IN ('f', 'p') AND `+userNS+` AND `+notExtension("pg_proc", "p.oid"))
	if err != nil {
		e.t.Fatal(err)
	}
	for rows.Next() {
		var nsp, name, kind string
		var args, all []int64
		var ret int64
		var set bool
		var modes, names []string
		if err := rows.Scan(&nsp, &name, &kind, &args, &ret, &set, &all, &modes, &names); err != nil {
			e.t.Fatal(err)
		}
		var as []string
		for _, a := range args {
			as = append(as, types.name(uint32(a)))
		}
		f := fn{result: types.name(uint32(ret)), procedure: kind == "p"}
		if set {
			f.result = "setof " + f.result
		}
		var outs []string
		for i, m := range modes {
			if m == "o" || m == "b" || m == "t" {
				n := ""
				if i < len(names) {
					n = names[i]
				}
				outs = append(outs, strings.TrimSpace(n+" "+types.name(uint32(all[i]))))
			}
		}
		f.out = list(outs)
		pg[fmt.Sprintf("%s %s.%s(%s)", map[bool]string{true: "procedure", false: "function"}[f.procedure], nsp, name, strings.Join(as, ", "))] = f
	}
	if err := rows.Err(); err != nil {
		e.t.Fatal(err)
	}
	fg := map[string]fn{}
	for _, s := range cat.Schemas {
		for _, f := range s.Funcs {
			var as []string
			for _, a := range f.ArgTypes {
				as = append(as, fgType(a))
			}
			x := fn{procedure: f.Procedure, result: "void"}
			if f.ReturnType != nil {
				x.result = fgType(*f.ReturnType)
			} else if len(f.ReturnsTable) == 1 {
				x.result = fgType(f.ReturnsTable[0].Type)
			} else if len(f.ReturnsTable) > 1 {
				x.result = "record"
			}
			if f.ReturnsSet {
				x.result = "setof " + x.result
			}
			var outs []string
			for _, c := range f.ReturnsTable {
				outs = append(outs, strings.TrimSpace(c.Name+" "+fgType(c.Type)))
			}
			x.out = list(outs)
			fg[fmt.Sprintf("%s %s.%s(%s)", map[bool]string{true: "procedure", false: "function"}[f.Procedure], schemaOr(f.Schema), f.Name, strings.Join(as, ", "))] = x
		}
	}
	for _, k := range slices.Sorted(mapKeys(pg)) {
		f, ok := fg[k]
		if !ok {
			e.differ(k, "exists", "no", "yes")
			continue
		}
		p := pg[k]
		if p.procedure {
			continue // a procedure's result is its OUT arguments, passed in CALL
		}
		if f.result != p.result {
			e.differ(k, "result type", f.result, p.result)
		}
		if f.out != p.out {
			e.differ(k, "result columns (OUT, TABLE)", f.out, p.out)
		}
	}
	for _, k := range slices.Sorted(mapKeys(fg)) {
		if _, ok := pg[k]; !ok {
			e.differ(k, "exists", "yes", "no")
		}
	}
}

// compareFences checks, once the config marks are applied and the catalog
// validated (verrs), each fenced table against PostgreSQL: a table's own
// mark must name a column PostgreSQL has as a NOT NULL integer without a
// sequence default, exactly when fencegen accepts it; and a partition or
// inheritance child is fenced by its nearest marked ancestor in
// pg_inherits.
func (e *pgrefEntry) compareFences(ctx context.Context, conn *pgx.Conn, cat *catalog.Catalog, verrs diag.List) {
	types, err := loadTypes(ctx, conn)
	if err != nil {
		e.t.Fatal(err)
	}
	rels, order, err := loadRels(ctx, conn)
	if err != nil {
		e.t.Fatal(err)
	}
	own := map[string]string{} // table → own marked column
	for _, t := range cat.FencedTables() {
		k := schemaOr(t.Schema) + "." + t.Name
		if t.Fence.From != nil {
			continue
		}
		own[k] = t.Fence.Column
		pgVerdict := "usable"
		r := rels[k]
		switch {
		case r == nil:
			pgVerdict = "no such table"
		case r.kind == "view":
			pgVerdict = "a view"
		default:
			i := slices.IndexFunc(r.cols, func(c *pgCol) bool { return c.name == t.Fence.Column })
			switch {
			case i < 0:
				pgVerdict = "no such column"
			case types.name(r.cols[i].typ) != "int8" && types.name(r.cols[i].typ) != "int4":
				pgVerdict = "type " + types.name(r.cols[i].typ)
			case r.cols[i].defaultNextval:
				pgVerdict = "a sequence default"
			case !r.cols[i].notNull && !types.notNull(r.cols[i].typ):
				pgVerdict = "nullable"
			}
		}
		fgVerdict := "usable"
		qn := t.QualifiedName()
		for _, v := range verrs {
			if !errors.Is(v, catalog.ErrFence) || !strings.Contains(v.Msg, qn) {
				continue
			}
			switch {
			case strings.Contains(v.Msg, "is a view"):
				fgVerdict = "a view"
			case strings.Contains(v.Msg, "does not exist"):
				fgVerdict = "no such column"
			case strings.Contains(v.Msg, "has type"):
				fgVerdict = "type " + fgType(t.FenceColumn().Type)
			case strings.Contains(v.Msg, "serial"):
				fgVerdict = "a sequence default"
			case strings.Contains(v.Msg, "NOT NULL"):
				fgVerdict = "nullable"
			default:
				continue
			}
			break
		}
		if fgVerdict != pgVerdict {
			e.differ("fencing token column "+k+"."+t.Fence.Column, "usable as a token", fgVerdict, pgVerdict)
		}
	}
	// Inherited marks, along pg_inherits.
	var nearest func(k string, seen map[string]bool) string
	nearest = func(k string, seen map[string]bool) string {
		r := rels[k]
		if r == nil {
			return ""
		}
		for _, p := range r.parents {
			if seen[p] {
				continue
			}
			seen[p] = true
			if c, ok := own[p]; ok {
				return p + "." + c
			}
			if x := nearest(p, seen); x != "" {
				return x
			}
		}
		return ""
	}
	fgRels := map[string]*catalog.Table{}
	for _, s := range cat.Schemas {
		for _, t := range s.Tables {
			fgRels[schemaOr(t.Schema)+"."+t.Name] = t
		}
	}
	for _, k := range order {
		if _, ok := own[k]; ok {
			continue
		}
		want := nearest(k, map[string]bool{k: true})
		got := ""
		if t := fgRels[k]; t != nil && t.Fence != nil && t.Fence.From != nil {
			got = schemaOr(t.Fence.From.Schema) + "." + t.Fence.From.Name + "." + t.Fence.Column
		}
		if want != got {
			e.differ(rels[k].kind+" "+k, "fenced through its ancestor", orNone(got), orNone(want))
		}
	}
}

// oneElementSQL is q's SQL as sent with one element in each
// IN (sqlc.slice) list (database/sql output sends one parameter per
// element; the first is the slice's own $n).
func oneElementSQL(q *analyze.Query) string {
	sql := q.SQL
	for _, s := range q.InSlices {
		sql = strings.ReplaceAll(sql, analyze.SliceMarker(s.Name), fmt.Sprintf("$%d", s.Number))
	}
	return sql
}

// compareQuery PREPAREs q's SQL and compares the parameter and result
// column types PostgreSQL infers with fencegen's.
func (e *pgrefEntry) compareQuery(ctx context.Context, conn *pgx.Conn, types pgTypes, q *analyze.Query) {
	obj := "query " + q.Name
	sd, err := conn.PgConn().Prepare(ctx, "", oneElementSQL(q), nil)
	refused := false
	for _, n := range q.Notes {
		// A query generated as sqlc generates it, with a note that
		// PostgreSQL refuses it (analyze: refusedf and a parameter of
		// two types).
		refused = refused || strings.Contains(n, "PostgreSQL refuses this query")
	}
	if err != nil {
		if !refused {
			e.differ(obj, "PREPARE", "SQL to send", "error "+stripPos(pgMessage(err)))
		}
		return
	}
	if refused {
		e.differ(obj, "PREPARE", "refused (a vet note)", "accepted")
		return
	}
	token := 0
	if q.Fence != nil {
		token = q.Fence.TokenParam
	}
	fgN := len(q.Params)
	if token > 0 {
		fgN++
	}
	if fgN != len(sd.ParamOIDs) {
		e.differ(obj, "parameter count", fmt.Sprint(fgN), fmt.Sprint(len(sd.ParamOIDs)))
	}
	for _, p := range q.Params {
		if p.Number < 1 || p.Number > len(sd.ParamOIDs) || p.Number == token {
			continue
		}
		fg := "unknown"
		if p.Known && p.SqlcUntyped {
			// Declared interface{}, as sqlc v1.31.1 does (docs/sqlc.md).
			fg = pgrefSqlcAny
		} else if p.Known {
			fg = fgType(p.Type)
			if p.Slice && p.Type.ArrayDims == 0 {
				fg += "[]"
			}
			if p.InList {
				fg = strings.TrimSuffix(fg, "[]") // the element is sent
			}
		}
		if pg := types.name(sd.ParamOIDs[p.Number-1]); fg != pg {
			e.differ(fmt.Sprintf("%s $%d (%s)", obj, p.Number, p.Name), "parameter type", fg, pg)
		}
	}
	if q.Fence != nil {
		return // the guard adds result columns of its own (the stored token)
	}
	if len(q.Columns) != len(sd.Fields) {
		e.differ(obj, "result column count", fmt.Sprint(len(q.Columns)), fmt.Sprint(len(sd.Fields)))
		return
	}
	for i, c := range q.Columns {
		fg := "unknown"
		if c.SqlcAny {
			fg = pgrefSqlcAny
		} else if c.Known {
			fg = fgType(c.Type)
		}
		if pg := types.name(sd.Fields[i].DataTypeOID); fg != pg {
			e.differ(fmt.Sprintf("%s column %d (%s)", obj, i+1, c.Name), "result type", fg, pg)
		}
	}
}

// pgrefSqlcAny is what a disagreement says fencegen answers for a
// parameter or result column it declares interface{} because sqlc v1.31.1
// does (analyze.Param.SqlcUntyped, analyze.Column.SqlcAny).
const pgrefSqlcAny = "interface{} (as sqlc)"

func pgCollect(ctx context.Context, conn *pgx.Conn, out *[]string, sql string) error {
	rows, err := conn.Query(ctx, sql)
	if err != nil {
		return err
	}
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			return err
		}
		*out = append(*out, s)
	}
	return rows.Err()
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// pgrefClasses name the class of a disagreement from its key (never from
// a corpus file), for the reason of a new line in accepted.txt
// (-pgref.update). The first match wins; review the result.
var pgrefClasses = []struct {
	re    *regexp.Regexp
	class string
}{
	{regexp.MustCompile(`: sequence [^:]*: exists: fencegen says no`), "implicit sequence of a serial or identity column not in the catalog"},
	{regexp.MustCompile(`pg_temp[.:]|(view|table) [^:]*: exists: fencegen says yes, PostgreSQL says no`), "temporary relation (CREATE TEMP TABLE [AS], pg_temp) kept in the catalog after PostgreSQL dropped it"},
	{regexp.MustCompile(`: kind: fencegen says view, PostgreSQL says table`), "CREATE TABLE AS modelled as a view"},
	{regexp.MustCompile(`column \?column\?: exists`), "unnamed view column (?column?) left out of the view"},
	{regexp.MustCompile(`: exists: fencegen says no, PostgreSQL says yes`), "object created where fencegen does not look (DDL inside a DO block or a function)"},
	{regexp.MustCompile(`: exists: fencegen says yes, PostgreSQL says no`), "object PostgreSQL dropped or never created still in the catalog"},
	{regexp.MustCompile(`has a default [^:]*: fencegen says yes, PostgreSQL says no`), "DEFAULT NULL (which PostgreSQL does not store) or a dropped default counted as a default"},
	{regexp.MustCompile(`has a default [^:]*: fencegen says no, PostgreSQL says yes`), "default added later (ALTER COLUMN SET DEFAULT, ADD GENERATED AS IDENTITY) not tracked"},
	{regexp.MustCompile(`: identity: fencegen says no`), "ALTER COLUMN ADD GENERATED AS IDENTITY not tracked"},
	{regexp.MustCompile(`: not null: fencegen says no, PostgreSQL says yes`), "column PostgreSQL makes NOT NULL (serial types, a later PRIMARY KEY or SET NOT NULL) nullable in fencegen"},
	{regexp.MustCompile(`: not null: fencegen says yes, PostgreSQL says no`), "NOT NULL PostgreSQL dropped still set in fencegen"},
	{regexp.MustCompile(`: primary key: |definition: fencegen says primary key|PostgreSQL says primary key`), "ALTER TABLE DROP CONSTRAINT of a primary key not tracked (the old key stays, ADD PRIMARY KEY appends to it)"},
	{regexp.MustCompile(`definition: fencegen says none, PostgreSQL says unique`), "UNIQUE constraint added by ALTER TABLE not recorded"},
	{regexp.MustCompile(`definition: fencegen says unique .*PostgreSQL says none`), "UNIQUE constraint PostgreSQL dropped (DROP CONSTRAINT, DROP COLUMN) still recorded"},
	{regexp.MustCompile(`foreign key: .*fencegen says yes, PostgreSQL says none`), "ALTER TABLE DROP CONSTRAINT of a foreign key not tracked (the old foreign key stays)"},
	{regexp.MustCompile(`foreign key: .*fencegen says none, PostgreSQL says yes`), "foreign key added by ALTER TABLE (ADD COLUMN ... REFERENCES, ADD CONSTRAINT) not recorded"},
	{regexp.MustCompile(`: comment: `), "comment tracked differently (COMMENT ON after the object changed)"},
	{regexp.MustCompile(`fencegen says interface\{\} \(as sqlc\)`), "interface{} where sqlc v1.31.1 answers interface{} (same API as sqlc: COALESCE without a column, CASE without a typed ELSE, max/min/now() and other calls sqlc cannot type, parameters sqlc leaves untyped); interface{} scans and binds any value"},
	{regexp.MustCompile(`parameter type: fencegen says int4, PostgreSQL says int8`), "LIMIT/OFFSET-like parameter typed int4 as sqlc does; PostgreSQL says int8"},
	{regexp.MustCompile(`parameter type: fencegen says varchar, PostgreSQL says text`), "parameter compared with a varchar column: PostgreSQL resolves it as text"},
	{regexp.MustCompile(`parameter type: fencegen says unknown`), "untyped parameter (interface{}) that PostgreSQL types"},
	{regexp.MustCompile(`parameter type: `), "parameter type inferred differently from PostgreSQL's operator and function resolution"},
	{regexp.MustCompile(`result type: fencegen says unknown`), "result type of a built-in function unknown to fencegen"},
	{regexp.MustCompile(`query [^:]*: result type: `), "result type of a built-in function or operator differs from PostgreSQL's overload resolution"},
	{regexp.MustCompile(`PREPARE: .*does not exist`), "query PostgreSQL rejects: function or object missing from the schema (fencegen accepts it)"},
	{regexp.MustCompile(`PREPARE: `), "query PostgreSQL rejects that fencegen accepts"},
	{regexp.MustCompile(`result column count`), "result column count differs"},
	{regexp.MustCompile(`fencing mark|usable as a token|fenced through`), "fencing mark tracked differently from the column comments and pg_inherits"},
	{regexp.MustCompile(`: statement: fencegen says error`), "fencegen reports an error on a statement PostgreSQL accepts"},
	{regexp.MustCompile(`: parse: `), "fencegen cannot parse a file PostgreSQL accepts"},
	{regexp.MustCompile(`parents \(`), "inheritance or partition parents differ"},
	{regexp.MustCompile(`^[^:]*: (function|procedure) `), "function signature or result differs"},
	{regexp.MustCompile(`: type: `), "column type differs"},
}

func classify(key string) string {
	for _, c := range pgrefClasses {
		if c.re.MatchString(key) {
			return c.class
		}
	}
	_, what, _ := strings.Cut(key, ": ")
	parts := strings.SplitN(what, ": ", 3)
	if len(parts) < 3 {
		return "unclassified"
	}
	return parts[1]
}
