package gen

import (
	"fmt"
	"slices"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/config"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/pgpb"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// The sql entries of a configuration share one database (trial r24s N11
// to N20): a name one entry's statement uses may resolve, in that
// database, to an object another entry's schema defines (a same-named
// function with another body, an overload of a builtin or an operator
// that PostgreSQL prefers, a view where this entry has a table, a
// policy, a rule, an event trigger), which this entry's analysis never
// sees. So each schema statement is filed under the names of the objects
// it defines or changes (defNames), and a query of a PostgreSQL entry
// that uses a name (an identifier or operator token) that another
// entry's schema files differently is refused, as is a statement running
// DDL when another entry's event triggers differ; a schema statement
// that another entry's schema does not have is filed under allNames and
// refuses every query. Entries with the same schema statements compare
// equal and keep their analysis alone.

const (
	// allNames files a schema statement whose effect no name bounds (a
	// cast, an extension, an operator class, any kind not read below).
	allNames = "\x00all"
	// ddlNames files an event trigger, which any DDL statement may fire.
	ddlNames = "\x00ddl"
)

// schemaDef is one schema statement filed under a name.
type schemaDef struct {
	text      string // whitespace collapsed
	file      string
	line, col int
	// schema qualifies the name in the statement ("" when it does not).
	schema string
	// uses are the names the statement's text uses, its string
	// constants' (a function's body) too (nameTokens).
	uses []string
}

// fileSchemaDefs files st (of f, with its parse tree) into defs.
func fileSchemaDefs(defs map[string][]schemaDef, f *sqlparse.File, st *sqlparse.Stmt) {
	if st.Raw == nil {
		return
	}
	names, ok := defNames(st.Raw)
	if !ok {
		return
	}
	line, col := diag.Position(f.Src, st.Start)
	d := schemaDef{text: strings.Join(strings.Fields(f.Text(st)), " "), file: f.Name, line: line, col: col}
	for _, t := range nameTokens(f.Text(st), true) {
		d.uses = append(d.uses, t.name)
	}
	seen := map[objName]bool{}
	for _, n := range names {
		if n.name == "" || seen[n] {
			continue
		}
		seen[n] = true
		d.schema = n.schema
		defs[n.name] = append(defs[n.name], d)
	}
}

// defNames returns the names of the objects schema statement n defines
// or changes (allNames for one no name bounds); ok is false for a
// statement that changes nothing another entry's statement can reach
// (a setting, a grant, a comment, a schema).
func defNames(n *pg.Node) (names []objName, ok bool) {
	last := func(l []*pg.Node) objName {
		if len(l) == 0 {
			return objName{name: allNames}
		}
		o := objName{name: l[len(l)-1].GetString_().GetSval()}
		if len(l) > 1 {
			o.schema = l[len(l)-2].GetString_().GetSval()
		}
		return o
	}
	rel := func(r *pg.RangeVar) objName {
		if r == nil {
			return objName{name: allNames}
		}
		return objName{schema: r.Schemaname, name: r.Relname}
	}
	typ := func(t *pg.TypeName) objName {
		if t == nil {
			return objName{name: allNames}
		}
		return last(t.Names)
	}
	switch s := n.Node.(type) {
	case *pg.Node_CreateTrigStmt:
		// A trigger fires on writes of its relation alone, which every
		// entry judges by every entry's schema (shareReaches); its
		// function is filed under its own name.
		return nil, false
	case *pg.Node_CommentStmt:
		// A comment changes no statement's meaning; a fencegen mark
		// in one entry's schema fences the table of that name in every
		// entry's (spreadSchemaMarks).
		return nil, false
	case *pg.Node_VariableSetStmt, *pg.Node_TransactionStmt, *pg.Node_GrantStmt, *pg.Node_GrantRoleStmt,
		*pg.Node_CreateSchemaStmt, *pg.Node_AlterDefaultPrivilegesStmt, *pg.Node_AlterOwnerStmt:
		return nil, false
	case *pg.Node_CreateStmt:
		names = append(names, rel(s.CreateStmt.Relation))
		for _, p := range s.CreateStmt.InhRelations {
			names = append(names, rel(p.GetRangeVar()))
		}
		if b := s.CreateStmt.Partbound; b != nil || s.CreateStmt.OfTypename != nil {
			names = append(names, typ(s.CreateStmt.OfTypename))
		}
		return names, true
	case *pg.Node_ViewStmt:
		return []objName{rel(s.ViewStmt.View)}, true
	case *pg.Node_CreateTableAsStmt:
		return []objName{rel(s.CreateTableAsStmt.GetInto().GetRel())}, true
	case *pg.Node_CreateFunctionStmt:
		return []objName{last(s.CreateFunctionStmt.Funcname)}, true
	case *pg.Node_AlterFunctionStmt:
		return []objName{last(s.AlterFunctionStmt.GetFunc().GetObjname())}, true
	case *pg.Node_DefineStmt:
		return []objName{last(s.DefineStmt.Defnames)}, true
	case *pg.Node_CreatePolicyStmt:
		return []objName{rel(s.CreatePolicyStmt.Table)}, true
	case *pg.Node_AlterPolicyStmt:
		return []objName{rel(s.AlterPolicyStmt.Table)}, true
	case *pg.Node_RuleStmt:
		return []objName{rel(s.RuleStmt.Relation)}, true
	case *pg.Node_IndexStmt:
		return []objName{rel(s.IndexStmt.Relation)}, true
	case *pg.Node_AlterTableStmt:
		return []objName{rel(s.AlterTableStmt.Relation)}, true
	case *pg.Node_CreateSeqStmt:
		return []objName{rel(s.CreateSeqStmt.Sequence)}, true
	case *pg.Node_AlterSeqStmt:
		return []objName{rel(s.AlterSeqStmt.Sequence)}, true
	case *pg.Node_CreateDomainStmt:
		return []objName{last(s.CreateDomainStmt.Domainname)}, true
	case *pg.Node_AlterDomainStmt:
		return []objName{last(s.AlterDomainStmt.TypeName)}, true
	case *pg.Node_CreateEnumStmt:
		return []objName{last(s.CreateEnumStmt.TypeName)}, true
	case *pg.Node_AlterEnumStmt:
		return []objName{last(s.AlterEnumStmt.TypeName)}, true
	case *pg.Node_CompositeTypeStmt:
		return []objName{rel(s.CompositeTypeStmt.Typevar)}, true
	case *pg.Node_CreateRangeStmt:
		return []objName{last(s.CreateRangeStmt.TypeName)}, true
	case *pg.Node_CreateEventTrigStmt, *pg.Node_AlterEventTrigStmt:
		return []objName{{name: ddlNames}}, true
	case *pg.Node_RenameStmt:
		r := s.RenameStmt
		names = append(names, objName{name: r.Newname})
		if r.Relation != nil {
			return append(names, rel(r.Relation)), true
		}
		return append(names, objectNames(r.Object)...), true
	case *pg.Node_DropStmt:
		for _, o := range s.DropStmt.Objects {
			names = append(names, objectNames(o)...)
		}
		return names, true
	}
	return []objName{{name: allNames}}, true
}

// objName is an object's name, qualified by schema ("" when it is not).
type objName struct{ schema, name string }

// objectNames returns the name an object reference of a DROP or RENAME
// ends in (a list of names, a type name, a function with arguments).
func objectNames(o *pg.Node) []objName {
	if o == nil {
		return []objName{{name: allNames}}
	}
	var l []*pg.Node
	switch {
	case o.GetList() != nil:
		l = o.GetList().Items
	case o.GetTypeName() != nil:
		l = o.GetTypeName().Names
	case o.GetObjectWithArgs() != nil:
		l = o.GetObjectWithArgs().Objname
	case o.GetString_() != nil:
		return []objName{{name: o.GetString_().Sval}}
	}
	if len(l) == 0 {
		return []objName{{name: allNames}}
	}
	// DROP TRIGGER/RULE/POLICY name ON table: [schema.]table, name.
	names := []objName{{name: l[len(l)-1].GetString_().GetSval()}}
	if len(l) > 1 {
		names = append(names, last2(l[:len(l)-1]))
	}
	return names
}

// differingName is a name another entry's schema files differently.
type differingName struct {
	// via is the differing name this one's statements use ("": it
	// differs itself).
	via   string
	entry string
	def   *schemaDef // the other entry's first statement not in this one's
}

// sharedDefDiffs returns, for each PostgreSQL entry of runs, the names
// some other PostgreSQL entry's schema files differently (fileSchemaDefs),
// when some entry has a fenced table; nil entries have none.
func sharedDefDiffs(runs []*pkgRun) []map[string][]differingName {
	fenced := false
	pgRun := func(r *pkgRun) bool {
		return r != nil && !r.schemaBroken && r.pkg.Engine != config.EngineMySQL
	}
	n := 0
	for _, r := range runs {
		if pgRun(r) {
			n++
			fenced = fenced || len(r.cat.FencedTables()) > 0
		}
	}
	out := make([]map[string][]differingName, len(runs))
	if n < 2 || !fenced {
		return out
	}
	for i, b := range runs {
		if !pgRun(b) {
			continue
		}
		for j, a := range runs {
			if i == j || !pgRun(a) {
				continue
			}
			for name, ad := range a.defs {
				bd := b.defs[name]
				for k := range ad {
					if !slices.ContainsFunc(bd, func(d schemaDef) bool { return d.text == ad[k].text }) {
						if out[i] == nil {
							out[i] = map[string][]differingName{}
						}
						out[i][name] = append(out[i][name], differingName{entry: config.EntryName(&a.pkg), def: &ad[k]})
					}
				}
			}
		}
		// A name whose statements (in either schema) use a differing name
		// differs too: a view or policy calling a function, an operator
		// over a function, defined alike in both schemas.
		for changed := len(out[i]) > 0; changed; {
			changed = false
			for _, r := range runs {
				if !pgRun(r) {
					continue
				}
				for name, ds := range r.defs {
					if _, ok := out[i][name]; ok || name == allNames || name == ddlNames {
						continue
					}
				uses:
					for _, d := range ds {
						for _, u := range d.uses {
							if x, ok := out[i][u]; ok && u != name {
								out[i][name] = []differingName{{via: u, entry: x[0].entry, def: x[0].def}}
								changed = true
								break uses
							}
						}
					}
				}
			}
		}
	}
	return out
}

// nameToken is a name a statement uses: an identifier (folded as
// PostgreSQL folds it) or keyword, or an operator, at offset off of
// the text, qualified by schema qual ("" when it is not).
type nameToken struct {
	name, qual string
	off        int
}

// nameTokens returns the names text uses (nil when PostgreSQL's scanner
// cannot read it); with deep, the names in its string constants too.
func nameTokens(text string, deep bool) []nameToken {
	scan, err := pgpb.Scan(text)
	if err != nil {
		return nil
	}
	word := func(raw string) string {
		if raw != "" && raw[0] == '"' {
			return strings.ReplaceAll(strings.Trim(raw, `"`), `""`, `"`)
		}
		return strings.ToLower(raw)
	}
	var out []nameToken
	for i, t := range scan.Tokens {
		s, e := int(t.Start), int(t.End)
		if s < 0 || e > len(text) || s >= e {
			continue
		}
		raw := text[s:e]
		var name string
		switch {
		case t.Token == pg.Token_SCONST && deep:
			inner := raw
			if raw[0] == '$' {
				if open := strings.Index(raw[1:], "$"); open >= 0 && len(raw) >= 2*(open+2) {
					inner = raw[open+2 : len(raw)-open-2]
				}
			} else {
				inner = strings.Trim(raw, "'")
			}
			for _, n := range nameTokens(inner, true) {
				n.off += s
				out = append(out, n)
			}
			continue
		case t.Token == pg.Token_IDENT || t.KeywordKind != pg.KeywordKind_NO_KEYWORD:
			name = word(raw)
		case t.Token == pg.Token_Op || len(raw) == 1 && strings.ContainsAny(raw, "=<>+-*/%^|&~!#@"):
			name = raw
		default:
			continue
		}
		n := nameToken{name: name, off: s}
		if i >= 2 && scan.Tokens[i-1].Token == pg.Token_ASCII_46 {
			q := scan.Tokens[i-2]
			n.qual = word(text[q.Start:q.End])
		}
		out = append(out, n)
	}
	return out
}

// refuseSharedNames refuses each statement of the query files that uses
// a name diffs holds (sharedDefDiffs), at the name.
func refuseSharedNames(diffs map[string][]differingName, files []*sqlparse.File) diag.List {
	var errs diag.List
	if len(diffs) == 0 {
		return nil
	}
	for _, f := range files {
		for _, st := range f.Stmts {
			if e := sharedNameUse(diffs, f, st); e != nil {
				errs.AddErr(e)
			}
		}
	}
	return errs
}

// sharedNameUse returns the error of the first name of st that diffs
// holds, nil when none.
func sharedNameUse(diffs map[string][]differingName, f *sqlparse.File, st *sqlparse.Stmt) *diag.Error {
	at := func(off int, format string, args ...any) *diag.Error {
		line, col := diag.Position(f.Src, off)
		var l diag.List
		l.Add(f.Name, line, col, format, args...)
		return l[0]
	}
	where := func(d differingName) string {
		return fmt.Sprintf("%s:%d:%d", d.def.file, d.def.line, d.def.col)
	}
	if ds, ok := diffs[allNames]; ok {
		d := ds[0]
		return at(st.Start, "the schema of %s, which shares this entry's database, has a statement (%s) this entry's schema does not, whose effect fencegen does not bound to names; so this entry's queries may reach a fenced table through it unseen: give both entries the same schema files", d.entry, where(d))
	}
	for _, n := range implicitNames {
		if ds, ok := diffs[n]; ok {
			d := ds[0]
			return at(st.Start, "the schema of %s, which shares this entry's database, defines or changes %s at %s as this entry's schema does not, and PostgreSQL calls %s for SQL constructs that do not name it (IN, BETWEEN, CASE, DISTINCT, ORDER BY, joins, LIKE, EXTRACT, TRIM, AT TIME ZONE ...): this entry's queries may reach it unseen; give both entries the same schema files", d.entry, n, where(d), n)
		}
	}
	if ds, ok := diffs[ddlNames]; ok && !dml(st.Raw) {
		d := ds[0]
		return at(st.Start, "this statement is DDL and the schema of %s, which shares this entry's database, has an event trigger (%s) this entry's schema does not: it fires for this statement unseen; give both entries the same schema files", d.entry, where(d))
	}
	text := string(f.Src[st.Start:st.End])
	if _, err := pgpb.Scan(text); err != nil {
		return at(st.Start, "fencegen cannot read this statement's names to compare them with the schema of the other sql entries sharing the database")
	}
	for _, t := range nameTokens(text, false) {
		name, qual := t.name, t.qual
		// A name qualified by a schema is that schema's object; an
		// object the other schema files without one may be anywhere.
		k := slices.IndexFunc(diffs[name], func(d differingName) bool {
			return qual == "" || d.def.schema == "" || d.def.schema == qual || d.via != ""
		})
		if k < 0 {
			continue
		}
		d := diffs[name][k]
		if d.via != "" {
			name += ", whose definition uses " + d.via
		}
		return at(st.Start+t.off, "%s names %s, which the schema of %s, which shares this entry's database, defines or changes at %s as this entry's schema does not: PostgreSQL may resolve the name to that object (a function or operator overload, a view, a policy, a rule, a table of the other entry), whose writes fencegen does not see from this entry; give both entries the same schema files or use a name only this entry defines", "this statement", name, d.entry, where(d))
	}
	return nil
}

// implicitNames are the operators and functions PostgreSQL's grammar
// calls for constructs that do not name them (x IN (...) and CASE x WHEN
// compare with =, BETWEEN with >= and <=, ORDER BY, DISTINCT, GROUP BY,
// UNION and joins with the type's btree operators, LIKE with ~~,
// EXTRACT, TRIM, AT TIME ZONE, SUBSTRING ... FROM, OVERLAY, POSITION,
// NORMALIZE, IS NORMALIZED, COLLATION FOR and OVERLAPS with functions
// of their own names): another entry's overload of one may be picked by
// any query, so it refuses every query.
var implicitNames = []string{"=", "<>", "<", ">", "<=", ">=", "~~", "~~*", "!~~", "!~~*", "~", "||",
	"date_part", "extract", "btrim", "ltrim", "rtrim", "timezone", "similar_to_escape", "substring",
	"overlay", "position", "normalize", "is_normalized", "pg_collation_for", "overlaps"}

// dml reports whether n is a query, a data write or a session statement,
// which fire no event trigger (PostgreSQL's event trigger firing matrix).
func dml(n *pg.Node) bool {
	if n == nil {
		return false
	}
	switch s := n.Node.(type) {
	case *pg.Node_SelectStmt, *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt, *pg.Node_MergeStmt,
		*pg.Node_VariableSetStmt, *pg.Node_VariableShowStmt, *pg.Node_TransactionStmt, *pg.Node_LockStmt:
		return true
	case *pg.Node_ExplainStmt:
		return dml(s.ExplainStmt.Query)
	}
	return false
}

// last2 is the name list l ends in, with its qualifier.
func last2(l []*pg.Node) objName {
	o := objName{name: l[len(l)-1].GetString_().GetSval()}
	if len(l) > 1 {
		o.schema = l[len(l)-2].GetString_().GetSval()
	}
	return o
}

// sharedSchemaChanges returns, for each PostgreSQL entry of runs, the
// errors of its schema statements that define or change a table another
// entry fences (a view or a table of its name, a DROP, a re-creation, a
// disabled trigger) where that entry's schema has no such statement
// (trial r24s N15, N20): the entries share one database, so the
// statement changes the other entry's fenced table (dropping its guard
// trigger with it) though that entry's guard check never sees it.
func sharedSchemaChanges(runs []*pkgRun) []diag.List {
	out := make([]diag.List, len(runs))
	pgRun := func(r *pkgRun) bool {
		return r != nil && !r.schemaBroken && r.pkg.Engine != config.EngineMySQL
	}
	for i, b := range runs {
		if !pgRun(b) {
			continue
		}
		for j, a := range runs {
			if i == j || !pgRun(a) {
				continue
			}
			for _, t := range a.cat.FencedTables() {
				ad := a.defs[t.Name]
				for _, d := range b.defs[t.Name] {
					schema := d.schema
					if schema == "" {
						schema = "public"
					}
					if schema != t.Schema || slices.ContainsFunc(ad, func(x schemaDef) bool { return x.text == d.text }) {
						continue
					}
					out[i].Add(d.file, d.line, d.col, "this statement defines or changes %s, which %s fences (%s:%d), as the schema of %s does not, and the entries share one database: it changes the fenced table (or its guard) unseen by that entry's guard check; put the statement in that entry's schema or give both entries the same schema files", t.QualifiedName(), config.EntryName(&a.pkg), t.File, t.Line, config.EntryName(&a.pkg))
					break
				}
			}
		}
	}
	return out
}
