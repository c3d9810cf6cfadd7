package analyze

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/catalog"
)

// opClass is what fencegen reads of an "operator class" hook
// (catalog.Hook): CREATE OPERATOR CLASS, or ALTER OPERATOR FAMILY.
type opClass struct {
	// name is the class's name ("" for ALTER OPERATOR FAMILY), family
	// its family's (the class's own name when it names none), am its
	// access method, typ the type it is FOR (lower case, last part).
	name, family, am, typ string
	isDefault             bool
	// ops are its OPERATOR items.
	ops []opItem
}

// opItem is an OPERATOR item of an operator class or family: its
// symbol and the argument types written, if any (lower case).
type opItem struct {
	sym  string
	args []string
}

// opClassLocked reads hook h, of kind "operator class", nil when its
// text does not parse as one statement of CREATE OPERATOR CLASS or ALTER
// OPERATOR FAMILY. fw.mu must be held.
func (fw *funcWrites) opClassLocked(h *catalog.Hook) *opClass {
	if oc, ok := fw.opclasses[h]; ok {
		return oc
	}
	var oc *opClass
	if tree, err := pg.Parse(h.Text); err == nil && len(tree.Stmts) == 1 {
		st := tree.Stmts[0].Stmt
		var items []*pg.Node
		switch {
		case st.GetCreateOpClassStmt() != nil:
			c := st.GetCreateOpClassStmt()
			oc = &opClass{name: lastName(c.Opclassname), family: lastName(c.Opfamilyname), am: strings.ToLower(c.Amname), isDefault: c.IsDefault}
			if oc.family == "" {
				oc.family = oc.name
			}
			if c.Datatype != nil {
				oc.typ = lastName(c.Datatype.Names)
			}
			items = c.Items
		case st.GetAlterOpFamilyStmt() != nil:
			c := st.GetAlterOpFamilyStmt()
			oc = &opClass{family: lastName(c.Opfamilyname), am: strings.ToLower(c.Amname)}
			items = c.Items
		}
		for _, it := range items {
			ci := it.GetCreateOpClassItem()
			if oc == nil || ci == nil || ci.Itemtype != 1 || ci.Name == nil {
				continue // 1: OPERATOR (2: FUNCTION, 3: STORAGE)
			}
			op := opItem{sym: lastName(ci.Name.Objname)}
			for _, a := range ci.Name.Objargs {
				if tn := a.GetTypeName(); tn != nil {
					op.args = append(op.args, lastName(tn.Names))
				}
			}
			oc.ops = append(oc.ops, op)
		}
	}
	if fw.opclasses == nil {
		fw.opclasses = map[*catalog.Hook]*opClass{}
	}
	fw.opclasses[h] = oc
	return oc
}

// lastName is the last part of a qualified name, lower case.
func lastName(ns []*pg.Node) string {
	if len(ns) == 0 {
		return ""
	}
	return strings.ToLower(ns[len(ns)-1].GetString_().GetSval())
}

// builtinOrdered are built-in types whose default btree and hash operator
// classes hold their comparison operators (=, <, <=, >=, >), and, for the
// character types, the text_pattern_ops family its ~<~ operators.
var builtinOrdered = map[string]bool{
	"text": true, "varchar": true, "bpchar": true, "char": true, "name": true,
	"int2": true, "int4": true, "int8": true, "smallint": true, "integer": true, "int": true, "bigint": true,
	"numeric": true, "decimal": true, "float4": true, "float8": true, "real": true,
	"bool": true, "boolean": true, "date": true, "time": true, "timetz": true, "timestamp": true, "timestamptz": true,
	"interval": true, "uuid": true, "bytea": true, "oid": true,
}

// inBuiltinFamily reports whether op, an operator item of a class or
// family of access method am for type typ, is one a built-in family of
// am holds as well: where a statement uses the operator (a merge or hash
// join on it, ORDER BY ... USING it, a row comparison), PostgreSQL takes
// the first family that holds it, in the order of the families' OIDs
// (get_mergejoin_opfamilies, get_ordering_op_properties,
// get_op_hash_functions: a catalog list in index order), and a built-in
// family's OID is below every family a schema creates.
func inBuiltinFamily(am, typ string, op opItem) bool {
	if !builtinOrdered[typ] || slices.ContainsFunc(op.args, func(a string) bool { return a != typ }) {
		return false
	}
	switch am {
	case "btree":
		switch op.sym {
		case "=", "<", "<=", ">=", ">":
			return true
		case "~<~", "~<=~", "~>=~", "~>~":
			return typ == "text" || typ == "varchar" || typ == "bpchar" || typ == "char"
		}
	case "hash":
		return op.sym == "="
	}
	return false
}

// opClassUseLocked reports whether the support functions of h, an
// "operator class" hook, may run in a statement whose names named tells,
// and, when they may run in any statement, says why (any). PostgreSQL
// calls them (PostgreSQL docs 11.10 "Operator Classes and Operator
// Families", 38.16 "Interfacing Extensions to Indexes"):
//   - where an index of the class is built, searched or kept (a btree
//     descent, an insert, CLUSTER's sort, a unique or foreign-key check
//     through it), and where a partition key or an exclusion constraint
//     of the class routes or checks a row: in a statement that names the
//     class, or a relation whose statements name it, or a relation whose
//     statements name such a relation (a view over it, a foreign key to
//     it), followed through views and functions by the callers;
//   - for a btree or hash class, where a statement uses one of its
//     operators that no built-in family holds (inBuiltinFamily): a merge
//     or hash join, a sort, a row comparison picks a family by operator;
//   - for its type's DEFAULT class, wherever a value of the type is
//     sorted, grouped, hashed or compared (record and array comparison,
//     DISTINCT, GROUP BY): any statement.
//
// A family's functions (ALTER OPERATOR FAMILY) run where a class of the
// family does; a family no CREATE OPERATOR CLASS of the schema made (a
// built-in one, or one of a DEFAULT class) counts for any statement, and
// so do a class another schema object names (a range type's
// SUBTYPE_OPCLASS) and text that does not parse. fw.mu must be held.
func (fw *funcWrites) opClassUseLocked(h *catalog.Hook, named func(h *catalog.Hook) bool) (used bool, any string) {
	oc := fw.opClassLocked(h)
	const anyWhy = "whose support functions PostgreSQL may run for any statement"
	if oc == nil || oc.isDefault {
		return true, anyWhy
	}
	classes := []*opClass{oc}
	if oc.name == "" {
		// ALTER OPERATOR FAMILY: the classes of the schema in it.
		classes = nil
		for _, c := range fw.cat.Hooks {
			if c.Kind != "operator class" {
				continue
			}
			if x := fw.opClassLocked(c); x != nil && x.name != "" && x.family == oc.family && x.am == oc.am {
				if x.isDefault {
					return true, anyWhy
				}
				classes = append(classes, x)
			}
		}
		if len(classes) == 0 {
			return true, anyWhy
		}
	}
	words := map[string]bool{oc.family: true}
	for _, c := range classes {
		words[c.name] = true
	}
	for _, c := range fw.cat.Hooks {
		if c.Kind == "operator class" {
			continue // the family's own statements
		}
		if textNamesAny(c.Text, words) {
			// A range type's SUBTYPE_OPCLASS (compared wherever a value
			// of it is built), or another schema object fencegen does
			// not follow to the class.
			return true, anyWhy
		}
	}
	for w := range words {
		if named(&catalog.Hook{Kind: "operator class", Name: w}) {
			return true, ""
		}
	}
	if oc.am == "btree" || oc.am == "hash" {
		for _, c := range append(classes, oc) {
			for _, op := range c.ops {
				if !inBuiltinFamily(c.am, c.typ, op) && named(&catalog.Hook{Kind: "operator", Name: op.sym}) {
					return true, ""
				}
			}
		}
	}
	for _, t := range fw.relationsOfLocked(words) {
		for _, n := range append([]string{t.Name}, t.Former...) {
			if named(&catalog.Hook{Kind: "table", Name: strings.ToLower(n)}) {
				return true, ""
			}
		}
	}
	return false, ""
}

// relationsOfLocked returns the relations whose statements (CREATE TABLE,
// ALTER TABLE, CREATE INDEX, a view's query: catalog.Table.Hooks) name
// one of words, and, closed over them, the relations whose statements
// name one of those. fw.mu must be held.
func (fw *funcWrites) relationsOfLocked(words map[string]bool) []*catalog.Table {
	var out []*catalog.Table
	names := maps.Clone(words)
	for changed := true; changed; {
		changed = false
		for _, s := range fw.cat.Schemas {
			for _, t := range s.Tables {
				if slices.Contains(out, t) {
					continue
				}
				if slices.ContainsFunc(t.Hooks, func(h *catalog.Hook) bool { return textNamesAny(h.Text, names) }) {
					out = append(out, t)
					names[strings.ToLower(t.Name)] = true
					for _, f := range t.Former {
						names[f] = true
					}
					changed = true
				}
			}
		}
	}
	return out
}

// opClassStep says, for messages, how h's support functions are reached.
func opClassStep(h *catalog.Hook, any string) string {
	if any != "" {
		return fmt.Sprintf("operator class or family %s (%s:%d), %s,", h.Name, h.File, h.Line, any)
	}
	return fmt.Sprintf("operator class or family %s (%s:%d), whose support functions PostgreSQL runs where an index, partition key or exclusion constraint of it is used or an operator only it holds is applied,", h.Name, h.File, h.Line)
}
