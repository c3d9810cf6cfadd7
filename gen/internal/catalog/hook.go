package catalog

// Hooks: the schema text whose functions PostgreSQL runs without a query
// naming them. A column DEFAULT, a CHECK constraint, a generated column
// and an index expression or predicate run when their table is written; a
// view's query runs when the view is read; an operator's function runs
// where the operator is written, a cast's function where the cast applies
// (possibly implicitly), and a domain's CHECK wherever a value becomes of
// the domain (PostgreSQL docs, CREATE OPERATOR, CREATE CAST, CREATE
// DOMAIN). The catalog keeps those statements' text; the analyzer parses
// it and finds the functions they call there, conservatively (a name of
// the parse tree that names a function counts as a call), so that a write
// to a fenced table hidden in such a function is refused rather than let
// through.

import (
	"regexp"
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"
	"strings"
	"sync"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// Hook is the text of a schema statement whose functions PostgreSQL may
// run implicitly.
type Hook struct {
	// Kind is "table" (CREATE or ALTER TABLE: defaults, CHECKs, generated
	// columns), "foreign" (CREATE FOREIGN TABLE: its rows live on another
	// server, which may be this database), "index", "policy" (CREATE
	// POLICY: row-level security expressions, run on reads and writes),
	// "view", "operator", "cast", "domain", "type" (CREATE TYPE ... AS
	// (...): a composite type, whose fields may be of domains), "event
	// trigger" (CREATE EVENT TRIGGER: its function runs on DDL),
	// "operator class" (CREATE OPERATOR CLASS, ALTER OPERATOR FAMILY:
	// support functions and operators, run by indexes, sorts and
	// hashes) or "range" (CREATE TYPE ... AS RANGE: canonical and
	// subtype_diff, run where its values are built or indexed) or "base
	// type" (CREATE TYPE name (INPUT = ..., ...): its support functions,
	// run wherever its values are read or written or its name is cast
	// to or given a typmod).
	Kind string
	// Name is the operator's symbol (Kind "operator") or the domain's or
	// type's name (Kind "domain", "type"), lower case; "" otherwise.
	Name string
	// Text is the statement's source text.
	Text string
	// File and Line locate the statement.
	File string
	Line int
	// ExplicitOnly marks a cast without AS IMPLICIT or AS ASSIGNMENT to
	// a type of the schema, whose name is then Name: PostgreSQL applies
	// it only where a statement casts to that type by name.
	ExplicitOnly bool
	// Tags are an event trigger's WHEN TAG IN list, upper case: it fires
	// only for a statement of one of those command tags. nil: for every
	// statement its event fires for.
	Tags []string
}

func (u *updater) newHook(kind, name string) *Hook {
	h := &Hook{Kind: kind, Name: name, Text: u.f.Text(u.s), File: u.f.Name}
	h.Line, _ = u.pos(u.s.Start)
	return h
}

// hook records the statement n as a hook of the relation it defines or
// changes.
func (u *updater) hook(n sqlparse.Node) {
	var kind string
	var name sqlparse.Name
	switch n := n.(type) {
	case *sqlparse.CreateTable:
		kind, name = "table", n.Table
		if createForeignRE().MatchString(u.f.Text(u.s)) {
			kind = "foreign"
		}
	case *sqlparse.AlterTable:
		kind, name = "table", n.Table
	case *sqlparse.CreateIndex:
		kind, name = "index", n.Table
	case *sqlparse.CreateView:
		kind, name = "view", n.View
	case *sqlparse.CreateDomain:
		u.c.Hooks = append(u.c.Hooks, u.newHook("domain", strings.ToLower(n.Type.Name)))
		return
	case *sqlparse.CreateRange:
		// A range type's canonical and subtype_diff functions (and
		// its subtype's operator class's) run wherever a value of it
		// is built or a GiST or SP-GiST index over it is kept or
		// searched (PostgreSQL docs, CREATE TYPE, Range Types): the
		// analyzer counts them for every statement, as an operator
		// class's support functions.
		u.c.Hooks = append(u.c.Hooks, u.newHook("range", strings.ToLower(n.Type.Name)))
		return
	case *sqlparse.CreateComposite:
		// A composite type's fields may be of a domain, whose CHECK runs
		// wherever a value of the composite is built: the analyzer follows
		// the type's text to the domains it names.
		u.c.Hooks = append(u.c.Hooks, u.newHook("type", strings.ToLower(n.Type.Name)))
		return
	default:
		return
	}
	t := u.c.Table(name.Schema, name.Name)
	switch n.(type) {
	case *sqlparse.CreateTable, *sqlparse.CreateView:
		// The relation the statement created, none when it created
		// none (CREATE ... IF NOT EXISTS of one that exists): not
		// another of its name the lookup may find first.
		t = u.created
	}
	if t == nil || t.IsSystem() {
		return
	}
	if cv, ok := n.(*sqlparse.CreateView); ok && !cv.Replace {
		t.Hooks = nil
	}
	if ct, ok := n.(*sqlparse.CreateTable); ok {
		t.Hooks = nil
		// CREATE TABLE ... (LIKE src INCLUDING ...) copies src's
		// defaults, CHECKs, generated columns and indexes.
		for _, like := range ct.LikeTables {
			if src := u.c.Table(like.Schema, like.Name); src != nil && src != t {
				t.Hooks = append(t.Hooks, src.Hooks...)
				// And those src has from its parents (an inheritance
				// child's or a partition's defaults and CHECKs are
				// its own in PostgreSQL).
				t.Hooks = appendHooks(t.Hooks, u.c.inheritedHooks(src))
			}
		}
	}
	t.Hooks = append(t.Hooks, u.newHook(kind, ""))
}

// inheritedHooks returns the hooks of t's ancestors (the tables it is a
// partition or an inheritance child of, at any depth) that PostgreSQL
// copies into t: their defaults, CHECKs and generated columns (Kind
// "table") and, for a partition, their indexes ("index"). The analysis
// reads them on the ancestors while t is attached (Catalog.Relatives);
// they are t's own once it is detached (keepInherited).
func (c *Catalog) inheritedHooks(t *Table) []*Hook {
	var out []*Hook
	seen := map[*Table]bool{t: true}
	var up func(*Table)
	up = func(x *Table) {
		ps := slices.Clone(x.parents)
		if x.partitionOf != nil {
			ps = append(ps, x.partitionOf)
		}
		for _, p := range ps {
			if seen[p] {
				continue
			}
			seen[p] = true
			for _, h := range p.Hooks {
				if h.Kind == "table" || h.Kind == "index" {
					out = appendHooks(out, []*Hook{h})
				}
			}
			up(p)
		}
	}
	up(t)
	return out
}

// keepInherited gives child, which leaves its parent parent (DETACH
// PARTITION, NO INHERIT, DROP TABLE of the parent), the hooks it has
// through it: PostgreSQL copied the parent's defaults and CHECKs into
// the child, which keeps them (issue 24, trial t24f detach, noinh).
// Called before the link is cut.
func (c *Catalog) keepInherited(child, parent *Table) {
	if !slices.Contains(child.parents, parent) && child.partitionOf != parent {
		return
	}
	var hs []*Hook
	for _, h := range parent.Hooks {
		if h.Kind == "table" || h.Kind == "index" {
			hs = append(hs, h)
		}
	}
	child.Hooks = appendHooks(child.Hooks, append(hs, c.inheritedHooks(parent)...))
}

// appendHooks appends to hs those of more it does not hold.
func appendHooks(hs, more []*Hook) []*Hook {
	for _, h := range more {
		if !slices.Contains(hs, h) {
			hs = append(hs, h)
		}
	}
	return hs
}

var createForeignRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)^\s*create\s+foreign\s+table\b`) })

// The regular expressions of statements few schemas hold are compiled on
// first use, not at init.
var (
	createPolicyRE   = lazyRegexp(`(?is)^\s*create\s+policy\s+(?:"(?:[^"]|"")+"|\S+)\s+on\s+((?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)(?:\s*\.\s*(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*))?)`)
	createOperatorRE = lazyRegexp(`(?is)^\s*create\s+operator\s+(?:[A-Za-z_][A-Za-z0-9_]*\s*\.\s*)?([^\s(]+)\s*\(`)
	alterDomainRE    = lazyRegexp(`(?is)^\s*alter\s+domain\s+(?:[A-Za-z_"][A-Za-z0-9_"]*\s*\.\s*)?("?[A-Za-z_][A-Za-z0-9_]*"?)`)
)

// lazyRegexp returns a function that compiles expr on its first call
// and returns the compiled expression.
func lazyRegexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// unknownHook records the hooks among the statements sqlparse does not
// model: CREATE OPERATOR, CREATE CAST and ALTER DOMAIN.
func (u *updater) unknownHook(n *sqlparse.Unknown) {
	text := u.f.Text(u.s)
	switch n.Kind {
	case "DefineStmt":
		if m := createOperatorRE().FindStringSubmatch(text); m != nil {
			u.c.Hooks = append(u.c.Hooks, u.newHook("operator", m[1]))
		}
		if d := u.s.Raw.GetDefineStmt(); d != nil && d.Kind == pg.ObjectType_OBJECT_TYPE && len(d.Defnames) > 0 {
			// A base type (CREATE TYPE name (INPUT = ..., OUTPUT = ...,
			// TYPMOD_IN = ...)): PostgreSQL runs its support functions
			// where a statement names it (a cast, a typmod) and where
			// values of it are read, written, sent, analysed or
			// subscripted, also unnamed: counted for every statement,
			// as an operator class's. A shell type (no definition)
			// runs nothing.
			if len(d.Definition) > 0 {
				u.c.Hooks = append(u.c.Hooks, u.newHook("base type", strings.ToLower(d.Defnames[len(d.Defnames)-1].GetString_().GetSval())))
			}
		}
	case "CreateOpClassStmt", "AlterOpFamilyStmt":
		// An operator class's (or family's) support functions run for
		// the indexes of the class, and a default class's wherever its
		// type is sorted or hashed: the analyzer counts them for every
		// statement, as an implicit cast.
		h := u.newHook("operator class", "")
		if oc := u.s.Raw.GetCreateOpClassStmt(); oc != nil && len(oc.Opclassname) > 0 {
			h.Name = strings.ToLower(oc.Opclassname[len(oc.Opclassname)-1].GetString_().GetSval())
		} else if of := u.s.Raw.GetAlterOpFamilyStmt(); of != nil && len(of.Opfamilyname) > 0 {
			h.Name = strings.ToLower(of.Opfamilyname[len(of.Opfamilyname)-1].GetString_().GetSval())
		}
		u.c.Hooks = append(u.c.Hooks, h)
	case "AlterPolicyStmt":
		// ALTER POLICY may change a policy's expressions: kept as a
		// policy hook too (its functions run as the policy's).
		if ap := u.s.Raw.GetAlterPolicyStmt(); ap != nil && ap.Table != nil {
			if t := u.c.Table(ap.Table.Schemaname, ap.Table.Relname); t != nil {
				t.Hooks = append(t.Hooks, u.newHook("policy", ""))
			}
		}
	case "CreatePolicyStmt":
		if m := createPolicyRE().FindStringSubmatch(text); m != nil {
			name := identParts(m[1])
			if t := u.c.Table(name.Schema, name.Name); t != nil {
				t.Hooks = append(t.Hooks, u.newHook("policy", ""))
			}
		}
	case "CreateCastStmt":
		h := u.newHook("cast", "")
		if cc := u.s.Raw.GetCreateCastStmt(); cc != nil && cc.Context == pg.CoercionContext_COERCION_EXPLICIT && cc.Targettype != nil && len(cc.Targettype.Names) > 0 {
			// An explicit-only cast (no AS IMPLICIT, no AS ASSIGNMENT)
			// applies only where a statement casts to its target type
			// by name (CAST(x AS t), x::t, t(x)): narrowed to those when
			// the target is a type of the schema, which no built-in
			// function casts to unnamed (to_json does cast to json).
			names := cc.Targettype.Names
			schema, name := "", names[len(names)-1].GetString_().GetSval()
			if len(names) > 1 {
				schema = names[len(names)-2].GetString_().GetSval()
			}
			if schema != "pg_catalog" && (u.c.UserType(schema, name) != nil || u.c.Enum(schema, name) != nil || u.c.Table(schema, name) != nil && u.c.Table(schema, name).IsSystem() == false) {
				h.Name, h.ExplicitOnly = name, true
			}
		}
		u.c.Hooks = append(u.c.Hooks, h)
	case "CreateExtensionStmt":
		u.createExtension()
	case "CreateEventTrigStmt":
		h := u.newHook("event trigger", "")
		h.Tags = eventTriggerTags(u.s.Raw.GetCreateEventTrigStmt())
		u.c.Hooks = append(u.c.Hooks, h)
	case "AlterRoleSetStmt", "AlterDatabaseSetStmt", "AlterSystemStmt":
		u.replicationRole(n.Kind)
	case "AlterTableStmt":
		// ALTER VIEW (and ALTER MATERIALIZED VIEW, ALTER SEQUENCE ...
		// spelled with ALTER TABLE's grammar): a view's column DEFAULT
		// runs on an INSERT through the view, as a table's does.
		if at := u.s.Raw.GetAlterTableStmt(); at != nil && at.Relation != nil && at.Objtype == pg.ObjectType_OBJECT_TYPE {
			// ALTER TYPE ... ADD ATTRIBUTE (or ALTER ATTRIBUTE ... TYPE)
			// of a composite type: its new attribute may be of a domain,
			// followed as CREATE TYPE's are.
			u.c.Hooks = append(u.c.Hooks, u.newHook("type", strings.ToLower(at.Relation.Relname)))
		} else if at != nil && at.Relation != nil {
			if t := u.c.Table(at.Relation.Schemaname, at.Relation.Relname); t != nil && !t.IsSystem() {
				t.Hooks = append(t.Hooks, u.newHook("table", ""))
			}
		}
	case "AlterDomainStmt":
		if m := alterDomainRE().FindStringSubmatch(text); m != nil {
			u.c.Hooks = append(u.c.Hooks, u.newHook("domain", strings.ToLower(strings.Trim(m[1], `"`))))
		}
		if ad := u.s.Raw.GetAlterDomainStmt(); ad != nil && ad.Subtype == "T" {
			// SET DEFAULT / DROP DEFAULT: the default of its columns
			// without one of their own (Catalog.defaultAbove1).
			var parts []string
			for _, n := range ad.TypeName {
				parts = append(parts, n.GetString_().GetSval())
			}
			tn := &sqlparse.TypeName{Name: parts[len(parts)-1]}
			if len(parts) > 1 {
				tn.Schema = parts[len(parts)-2]
			}
			if d := u.c.domain(tn); d != nil {
				d.hasDefault, d.defaultAtMost1 = sqlparse.DomainDefault(ad.Def)
			}
		}
	}
}

var identPartRE = lazyRegexp(`"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*`)

// identParts turns schema.name or name, each part plain (folded to lower
// case) or double-quoted, into a Name.
func identParts(s string) sqlparse.Name {
	var parts []string
	for _, p := range identPartRE().FindAllString(s, -1) {
		if strings.HasPrefix(p, `"`) {
			parts = append(parts, strings.ReplaceAll(p[1:len(p)-1], `""`, `"`))
		} else {
			parts = append(parts, strings.ToLower(p))
		}
	}
	switch len(parts) {
	case 0:
		return sqlparse.Name{}
	case 1:
		return sqlparse.Name{Name: parts[0]}
	}
	return sqlparse.Name{Schema: parts[len(parts)-2], Name: parts[len(parts)-1]}
}

// replicationRole records, for Notes, an ALTER ROLE, ALTER DATABASE or
// ALTER SYSTEM statement (kind) that sets session_replication_role: set
// to replica it stops ordinary triggers, the fencing guard's among them,
// in every later session of the role, the database or the server
// (PostgreSQL docs 19.11.1), not only the migration's own.
func (u *updater) replicationRole(kind string) {
	if u.s.Raw == nil {
		return
	}
	var set *pg.VariableSetStmt
	switch kind {
	case "AlterRoleSetStmt":
		set = u.s.Raw.GetAlterRoleSetStmt().GetSetstmt()
	case "AlterDatabaseSetStmt":
		set = u.s.Raw.GetAlterDatabaseSetStmt().GetSetstmt()
	case "AlterSystemStmt":
		set = u.s.Raw.GetAlterSystemStmt().GetSetstmt()
	}
	if set == nil || set.Name != "session_replication_role" || set.Kind != pg.VariableSetKind_VAR_SET_VALUE {
		return
	}
	line, col := u.pos(u.s.Start)
	what := map[string]string{"AlterRoleSetStmt": "every later session of the role", "AlterDatabaseSetStmt": "every later session of the database", "AlterSystemStmt": "every session of the server, once its configuration is reloaded"}[kind]
	u.c.replicationRoleNotes.AddErr(&diag.Error{File: u.f.Name, Line: line, Col: col, Err: ErrFence,
		Msg: "note: sets session_replication_role for " + what + ": set to replica (or local) it stops ordinary triggers there, the database-side guard's trigger on every fenced table among them, so a hand-written write in those sessions goes unchecked; fencegen's generated writes keep their guard in the statement"})
}

// eventTriggerTags returns the command tags of an event trigger's WHEN
// TAG IN (...) filter, upper case with single spaces; nil when it has none
// (or one fencegen does not read), which fires for every tag.
func eventTriggerTags(st *pg.CreateEventTrigStmt) []string {
	if st == nil {
		return nil
	}
	var tags []string
	for _, n := range st.Whenclause {
		d := n.GetDefElem()
		if d == nil || !strings.EqualFold(d.Defname, "tag") {
			continue
		}
		l := d.Arg.GetList()
		if l == nil {
			return nil
		}
		for _, it := range l.Items {
			s := it.GetString_()
			if s == nil {
				return nil
			}
			tags = append(tags, strings.Join(strings.Fields(strings.ToUpper(s.Sval)), " "))
		}
		if len(tags) == 0 {
			return nil
		}
	}
	return tags
}

// createExtension records CREATE EXTENSION name [WITH] [SCHEMA s] in
// Catalog.Extensions: its objects live in s, else in the schema an
// unqualified object is created in. The extension's functions are not
// in the catalog (their bodies are C, which fencegen does not read); the
// analysis knows the behaviour of a few of them (analyze's
// extensionTriggers).
func (u *updater) createExtension() {
	ce := u.s.Raw.GetCreateExtensionStmt()
	if ce == nil {
		return
	}
	schema := ""
	for _, o := range ce.Options {
		if d := o.GetDefElem(); d != nil && d.Defname == "schema" {
			schema = d.Arg.GetString_().GetSval()
		}
	}
	if schema == "" {
		if s := u.c.Schema(""); s != nil {
			schema = s.Name
		}
	}
	if _, ok := u.c.Extensions[ce.Extname]; ok && ce.IfNotExists {
		return
	}
	if u.c.Extensions == nil {
		u.c.Extensions = map[string]string{}
	}
	u.c.Extensions[ce.Extname] = schema
}
