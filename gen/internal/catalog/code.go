package catalog

// Schema statements that other schema statements run (issue 24, "unknown
// means refuse"): the statements of a DO block, the elements of CREATE
// SCHEMA, and what a function or procedure the schema calls runs.
// PostgreSQL runs them as the schema's own, so a trigger, rule or view
// they create writes as one written as a statement of its own would.
//   - CREATE SCHEMA's elements are read as statements of that schema.
//   - A DO block is read with writes.DoBlock (the reader the guard's
//     replay of migrations uses), both branches of an IF alike: the
//     objects it may create are taken as created. Of its statements, the
//     ones that add what runs implicitly (triggers, rules, indexes,
//     functions, constraints, defaults, policies, operators, casts, event
//     triggers) are applied; one that would change the types sqlc reads
//     (sqlc does not read DO blocks) is left out when it creates nothing
//     new, and otherwise is an error while a table is fenced.
//   - Code fencegen cannot read there (EXECUTE of text built at run time,
//     a block in another language, a called function whose body runs a
//     schema statement or is not read) is an error while a table is
//     fenced, at the schema statement.

import (
	"fmt"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/writes"
)

// How a statement reached Update: written in a schema file, as an
// element of CREATE SCHEMA, or run by a DO block.
const (
	stmtFile = iota
	stmtElement
	stmtCode
)

// codeErrorf records, for Validate while a table is fenced, a schema
// statement whose code fencegen does not read.
func (u *updater) codeErrorf(format string, args ...any) {
	line, col := u.pos(u.s.Start)
	u.c.codeErrors.AddErr(&diag.Error{File: u.f.Name, Line: line, Col: col, Err: ErrFence, Msg: fmt.Sprintf(format, args...)})
}

const codeAdvice = "; fencegen reads a schema's own statements (a DO block's too, and its EXECUTE of constant text) for the triggers, rules and views through which a query writes a fenced table, not what code builds or runs at run time: write those statements in the schema itself"

// nested applies statement text, which statement u.s runs, as a statement
// written where u.s is (its messages are located there): an element of
// CREATE SCHEMA (how stmtElement) or a statement of a DO block
// (stmtCode).
func (u *updater) nested(text string, how int) {
	// The file's text before u.s, blanked but for its line breaks, keeps
	// every position of the nested statement at u.s's.
	src := make([]byte, u.s.Start, u.s.Start+len(text))
	for i, b := range u.f.Src[:u.s.Start] {
		if b == '\n' {
			src[i] = '\n'
		} else {
			src[i] = ' '
		}
	}
	src = append(src, text...)
	f, err := sqlparse.Parse(u.f.Name, src)
	if err != nil || len(f.Stmts) != 1 {
		u.codeErrorf("runs a statement fencegen does not read (%v)%s", err, codeAdvice)
		return
	}
	u.c.apply(f, f.Stmts[0], how)
}

// doBlock reads the DO block u.s.
func (u *updater) doBlock(x *pg.DoStmt) {
	lang, b, err := writes.DoBlock(x)
	switch {
	case lang != "plpgsql":
		u.codeErrorf("runs a DO block in LANGUAGE %s, which fencegen does not read%s", lang, codeAdvice)
		return
	case err != nil:
		u.codeErrorf("runs a DO block fencegen does not read (%v)%s", err, codeAdvice)
		return
	case b.Dynamic != "":
		u.codeErrorf("runs a DO block that %s%s", strings.TrimPrefix(b.Dynamic, "its body "), codeAdvice)
	}
	for _, s := range b.Stmts {
		text, err := pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: s}}})
		if err != nil {
			u.codeErrorf("runs a DO block whose %s fencegen does not read (%v)%s", nodeKindName(s), err, codeAdvice)
			continue
		}
		u.nested(text, stmtCode)
	}
}

// codeStatement reports whether statement node n, run by a DO block, is
// applied to the catalog; one left out that creates what the catalog does
// not have is an error while a table is fenced.
func (u *updater) codeStatement(n sqlparse.Node) bool {
	what := ""
	switch n := n.(type) {
	case *sqlparse.CreateTrigger, *sqlparse.CreateRule, *sqlparse.CreateIndex, *sqlparse.CreateFunction, *sqlparse.Unknown:
		return true
	case *sqlparse.AlterTable:
		// What runs implicitly (constraints, defaults, a foreign key's
		// actions) is applied; the columns, which sqlc types, are not.
		var keep []*sqlparse.AlterCmd
		for _, c := range n.Cmds {
			switch c.Kind {
			case sqlparse.AlterAddForeignKey, sqlparse.AlterSetDefault, sqlparse.AlterOther:
				keep = append(keep, c)
			}
		}
		cp := *n
		cp.Cmds = keep
		u.alterTable(&cp)
		u.hook(n)
		return false
	case *sqlparse.CreateDomain, *sqlparse.CreateComposite, *sqlparse.CreateRange:
		u.hook(n) // their CHECKs and support functions, as hooks
		return false
	case *sqlparse.CreateTable:
		if u.c.Table(n.Table.Schema, n.Table.Name) != nil {
			return false
		}
		what = "creates table " + n.Table.String()
	case *sqlparse.CreateView:
		if u.c.Table(n.View.Schema, n.View.Name) != nil && !n.Replace {
			return false
		}
		what = "creates view " + n.View.String()
	case *sqlparse.Sequence:
		return false
	case *sqlparse.Rename:
		what = "renames " + n.Target.String()
	case *sqlparse.AlterObjectSchema:
		what = "moves " + n.Target.String() + " to another schema"
	case *sqlparse.CreateSchema:
		what = "creates a schema"
	case *sqlparse.Comment:
		what = "sets a comment (a fence mark is one)"
	default:
		// Types, enums, drops, queries, settings: nothing that runs.
		return false
	}
	u.codeErrorf("runs a DO block that %s, which neither sqlc nor fencegen's schema model reads there (sqlc does not read DO blocks): write that statement in the schema itself", what)
	return false
}

// schemaElements applies the elements of CREATE SCHEMA (CREATE TABLE,
// VIEW, INDEX, SEQUENCE, TRIGGER, GRANT) as statements of schema name:
// PostgreSQL creates them there, and looks names up there first.
func (u *updater) schemaElements(name string) {
	cs := u.s.Raw.GetCreateSchemaStmt()
	if cs == nil || len(cs.SchemaElts) == 0 {
		return
	}
	saved := u.c.searchPath
	u.c.searchPath = append([]string{name}, saved...)
	defer func() { u.c.searchPath = saved }()
	for _, e := range cs.SchemaElts {
		text, err := pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: e}}})
		if err != nil {
			u.codeErrorf("creates schema %s with an element (%s) fencegen does not read (%v): write it as a statement of its own", name, nodeKindName(e), err)
			continue
		}
		u.nested(text, stmtElement)
	}
}

// createSchemaName is the name of the schema CREATE SCHEMA u.s creates:
// the role's with AUTHORIZATION and no name. ok is false for a role
// fencegen cannot know (CURRENT_USER, SESSION_USER).
func (u *updater) createSchemaName(n *sqlparse.CreateSchema) (string, bool) {
	if n.Name != "" || u.s.Raw == nil {
		return n.Name, true
	}
	cs := u.s.Raw.GetCreateSchemaStmt()
	if r := cs.GetAuthrole(); r != nil && r.Roletype == pg.RoleSpecType_ROLESPEC_CSTRING {
		return r.Rolename, true
	}
	return "", false
}

// calls checks the functions and procedures schema statement u.s calls
// (SELECT setup(), CALL p(), a function called in an INSERT): one whose
// body runs a schema statement, or that fencegen does not read, is an
// error while a table is fenced.
func (u *updater) calls() {
	if u.s.Raw == nil {
		return
	}
	switch u.s.Raw.Node.(type) {
	case *pg.Node_SelectStmt, *pg.Node_CallStmt, *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt,
		*pg.Node_MergeStmt, *pg.Node_CreateTableAsStmt:
	default:
		return
	}
	seen := map[*Func]bool{}
	for _, name := range calledNames(u.s.Raw) {
		for _, f := range u.c.Funcs(name.Schema, name.Name) {
			if why := u.c.runsSchemaCode(f, seen); why != "" {
				kind := "function"
				if f.Procedure {
					kind = "procedure"
				}
				u.codeErrorf("calls %s %s, which %s%s", kind, f.Name, why, codeAdvice)
				return
			}
		}
	}
}

// runsSchemaCode says why function f (or one it calls) may run a schema
// statement fencegen does not read: its body has one, runs SQL built at
// run time, or is not read. "" when none.
func (c *Catalog) runsSchemaCode(f *Func, seen map[*Func]bool) string {
	if seen[f] {
		return ""
	}
	seen[f] = true
	lang := f.Language
	if lang == "" {
		lang = "sql" // a SQL-standard body (BEGIN ATOMIC)
	}
	switch lang {
	case "sql", "plpgsql":
	case "internal", "aggregate":
		return ""
	default:
		return fmt.Sprintf("is in LANGUAGE %s, which fencegen does not read", f.Language)
	}
	b, err := writes.Body(lang, f.Body, f.Source)
	if err != nil {
		return fmt.Sprintf("fencegen does not read (%v)", err)
	}
	if b.Dynamic != "" {
		return "in " + b.Dynamic
	}
	for _, s := range b.Stmts {
		k := nodeKindName(s)
		if cl := writes.Classes[k]; cl == writes.Schema || cl == writes.Refused {
			return fmt.Sprintf("runs a schema statement (PostgreSQL's %s) in its body", k)
		}
		for _, name := range calledNames(s) {
			for _, g := range c.Funcs(name.Schema, name.Name) {
				if why := c.runsSchemaCode(g, seen); why != "" {
					return fmt.Sprintf("calls %s, which %s", g.Name, why)
				}
			}
		}
	}
	return ""
}

// calledNames are the names of the functions tree n calls (FuncCall,
// CALL's too).
func calledNames(n *pg.Node) []sqlparse.Name {
	var out []sqlparse.Name
	sqlparse.EachMessage(n.ProtoReflect(), func(m protoreflect.Message) bool {
		if fc, ok := m.Interface().(*pg.FuncCall); ok {
			var parts []string
			for _, p := range fc.GetFuncname() {
				parts = append(parts, p.GetString_().GetSval())
			}
			switch len(parts) {
			case 0:
			case 1:
				out = append(out, sqlparse.Name{Name: parts[0]})
			default:
				out = append(out, sqlparse.Name{Schema: parts[len(parts)-2], Name: parts[len(parts)-1]})
			}
		}
		return true
	})
	return out
}

// nodeKindName is the name of n's node kind (CreateTrigStmt).
func nodeKindName(n *pg.Node) string {
	fd := n.ProtoReflect().WhichOneof(n.ProtoReflect().Descriptor().Oneofs().ByName("node"))
	if fd == nil {
		return "statement"
	}
	return string(fd.Message().Name())
}
