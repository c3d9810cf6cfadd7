package sqlparse

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
)

type converter struct {
	src []byte
	// namedAt holds sqlc's named parameters by the position of their @,
	// where the text parsed has $1 (see namedParams).
	namedAt map[int]namedParam
}

func strs(nodes []*pg.Node) []string {
	var out []string
	for _, n := range nodes {
		if s := n.GetString_(); s != nil {
			out = append(out, s.Sval)
		} else if n.GetAStar() != nil {
			out = append(out, "*")
		}
	}
	return out
}

func nameOf(parts []string, loc int) Name {
	switch len(parts) {
	case 0:
		return Name{Loc: loc}
	case 1:
		return Name{Name: parts[0], Loc: loc}
	default:
		return Name{Schema: parts[len(parts)-2], Name: parts[len(parts)-1], Loc: loc}
	}
}

// viewBase returns the one relation of the FROM list of a view's query s
// when s can make an automatically updatable view (PostgreSQL docs,
// CREATE VIEW, "Updatable Views"; rewriteHandler.c's
// view_query_is_auto_updatable): a SELECT with no WITH, DISTINCT, GROUP
// BY, HAVING or set operation at its top level and one RangeVar in FROM.
// LIMIT and OFFSET (whose LIMIT ALL and OFFSET NULL spell none), whether
// that relation is a table or an updatable view, and the select list's
// aggregates, window and set-returning functions are not checked: a view
// they make read-only is taken to write the relation, which can refuse a
// write PostgreSQL would refuse too, never miss one.
func viewBase(s *pg.SelectStmt) *pg.RangeVar {
	if s == nil || s.Op != pg.SetOperation_SETOP_NONE || s.WithClause != nil || len(s.DistinctClause) > 0 ||
		len(s.GroupClause) > 0 || s.HavingClause != nil || len(s.FromClause) != 1 {
		return nil
	}
	return s.FromClause[0].GetRangeVar()
}

func rangeVarName(rv *pg.RangeVar) Name {
	if rv == nil {
		return Name{Loc: -1}
	}
	return Name{Schema: rv.Schemaname, Name: rv.Relname, Loc: int(rv.Location)}
}

func aliasOf(a *pg.Alias) (string, []string) {
	if a == nil {
		return "", nil
	}
	return a.Aliasname, strs(a.Colnames)
}

func (c *converter) typeName(tn *pg.TypeName) *TypeName {
	if tn == nil {
		return nil
	}
	parts := strs(tn.Names)
	t := &TypeName{ArrayDims: len(tn.ArrayBounds), Setof: tn.Setof, Typmod: len(tn.Typmods) > 0, Loc: int(tn.Location)}
	switch len(parts) {
	case 0:
	case 1:
		t.Name = parts[0]
		if t.Name == "json" && t.Loc >= 0 && t.Loc < len(c.src) && c.src[t.Loc] != '"' {
			t.SqlcSchema = "pg_catalog"
		}
	default:
		t.Schema, t.Name = parts[len(parts)-2], parts[len(parts)-1]
	}
	if tn.PctType {
		// col%TYPE: keep the referenced column as the name.
		t.Name = strings.Join(parts, ".") + "%type"
		t.Schema = ""
	}
	return t
}

func nodeKind(n *pg.Node) string {
	if n == nil || n.Node == nil {
		return "nil"
	}
	s := fmt.Sprintf("%T", n.Node)
	s = strings.TrimPrefix(s, "*pg_query.Node_")
	return s
}

func (c *converter) stmt(n *pg.Node) Node {
	switch s := n.Node.(type) {
	case *pg.Node_CreateStmt:
		return c.createTable(s.CreateStmt)
	case *pg.Node_IndexStmt:
		x := s.IndexStmt
		ci := &CreateIndex{Name: x.Idxname, Table: rangeVarName(x.Relation), Unique: x.Unique, Partial: x.WhereClause != nil, IfNotExists: x.IfNotExists}
		for _, p := range x.IndexParams {
			e := p.GetIndexElem()
			if e == nil || e.Name == "" {
				ci.Columns = nil
				break
			}
			ci.Columns = append(ci.Columns, e.Name)
		}
		return ci
	case *pg.Node_CreateForeignTableStmt:
		// A foreign table is a relation with columns, like a table.
		if s.CreateForeignTableStmt.BaseStmt != nil {
			return c.createTable(s.CreateForeignTableStmt.BaseStmt)
		}
	case *pg.Node_AlterTableStmt:
		return c.alterTable(s.AlterTableStmt)
	case *pg.Node_RenameStmt:
		return c.rename(s.RenameStmt)
	case *pg.Node_CommentStmt:
		return c.comment(s.CommentStmt)
	case *pg.Node_CreateEnumStmt:
		return &CreateEnum{Type: nameOf(strs(s.CreateEnumStmt.TypeName), -1), Values: strs(s.CreateEnumStmt.Vals)}
	case *pg.Node_AlterEnumStmt:
		a := s.AlterEnumStmt
		ae := &AlterEnum{Type: nameOf(strs(a.TypeName), -1), NewValue: a.NewVal, OldValue: a.OldVal, IfNotExists: a.SkipIfNewValExists}
		if a.NewValNeighbor != "" {
			if a.NewValIsAfter {
				ae.After = a.NewValNeighbor
			} else {
				ae.Before = a.NewValNeighbor
			}
		}
		return ae
	case *pg.Node_CompositeTypeStmt:
		ct := &CreateComposite{Type: rangeVarName(s.CompositeTypeStmt.Typevar)}
		for _, e := range s.CompositeTypeStmt.Coldeflist {
			if cd := e.GetColumnDef(); cd != nil {
				ct.Columns = append(ct.Columns, c.columnDef(cd))
			}
		}
		return ct
	case *pg.Node_CreateDomainStmt:
		d := s.CreateDomainStmt
		cd := &CreateDomain{Type: nameOf(strs(d.Domainname), -1), Base: c.typeName(d.TypeName)}
		for _, cn := range d.Constraints {
			con := cn.GetConstraint()
			switch {
			case con == nil:
			case con.Contype == pg.ConstrType_CONSTR_NOTNULL:
				cd.NotNull = true
			case con.Contype == pg.ConstrType_CONSTR_DEFAULT && con.RawExpr != nil:
				cd.HasDefault, cd.DefaultAtMost1 = true, atMost1(con.RawExpr)
			}
		}
		if cd.Base != nil {
			cd.Type.Loc = cd.Base.Loc
		}
		return cd
	case *pg.Node_CreateRangeStmt:
		return &CreateRange{Type: nameOf(strs(s.CreateRangeStmt.TypeName), -1)}
	case *pg.Node_AlterObjectSchemaStmt:
		a := s.AlterObjectSchemaStmt
		ao := &AlterObjectSchema{Kind: objectKind(a.ObjectType), NewSchema: a.Newschema, MissingOK: a.MissingOk, Loc: -1}
		if a.Relation != nil {
			ao.Target = rangeVarName(a.Relation)
			ao.Loc = ao.Target.Loc
		} else if a.Object != nil {
			switch o := a.Object.Node.(type) {
			case *pg.Node_List:
				ao.Target = nameOf(strs(o.List.Items), -1)
			case *pg.Node_String_:
				ao.Target = Name{Name: o.String_.Sval, Loc: -1}
			case *pg.Node_ObjectWithArgs:
				ao.Target, ao.Args = objectWithArgs(o.ObjectWithArgs)
				ao.ArgTypes = c.argTypes(o.ObjectWithArgs, a.ObjectType == pg.ObjectType_OBJECT_PROCEDURE)
			case *pg.Node_TypeName:
				t := c.typeName(o.TypeName)
				ao.Target = Name{Schema: t.Schema, Name: t.Name, Loc: t.Loc}
				ao.Loc = t.Loc
			}
		}
		return ao
	case *pg.Node_CreateSeqStmt:
		q := s.CreateSeqStmt
		return c.sequence(&Sequence{Create: true, Name: createdName(q.Sequence), IfNotExists: q.IfNotExists}, q.Options)
	case *pg.Node_AlterSeqStmt:
		q := s.AlterSeqStmt
		return c.sequence(&Sequence{Name: rangeVarName(q.Sequence), MissingOK: q.MissingOk}, q.Options)
	case *pg.Node_CreateSchemaStmt:
		return &CreateSchema{Name: s.CreateSchemaStmt.Schemaname, IfNotExists: s.CreateSchemaStmt.IfNotExists, Loc: -1}
	case *pg.Node_DropStmt:
		return c.drop(s.DropStmt)
	case *pg.Node_ViewStmt:
		v := s.ViewStmt
		sel, _ := c.dml(v.Query).(*Select)
		cv := &CreateView{View: createdName(v.View), Columns: strs(v.Aliases), Query: sel, Replace: v.Replace, Temp: unqualifiedTemp(v.View), Refs: queryRelations(v.Query)}
		if rv := viewBase(v.Query.GetSelectStmt()); rv != nil {
			n := rangeVarName(rv)
			cv.Base, cv.BaseOnly = &n, !rv.Inh
		}
		return cv
	case *pg.Node_CreateTableAsStmt:
		v := s.CreateTableAsStmt
		sel, _ := c.dml(v.Query).(*Select)
		if v.Into == nil {
			return &Unknown{Kind: "CreateTableAsStmt", Loc: -1}
		}
		cv := &CreateView{View: createdName(v.Into.Rel), Columns: strs(v.Into.ColNames), Query: sel,
			AsTable: v.Objtype == pg.ObjectType_OBJECT_TABLE, IfNotExists: v.IfNotExists, Temp: unqualifiedTemp(v.Into.Rel),
			OnCommitDrop: v.Into.OnCommit == pg.OnCommitAction_ONCOMMIT_DROP}
		if !cv.AsTable {
			cv.Refs = queryRelations(v.Query)
		}
		return cv
	case *pg.Node_CreateFunctionStmt:
		return c.createFunction(s.CreateFunctionStmt)
	case *pg.Node_DefineStmt:
		if s.DefineStmt.Kind == pg.ObjectType_OBJECT_AGGREGATE {
			return c.createAggregate(s.DefineStmt)
		}
	case *pg.Node_TruncateStmt:
		t := &Truncate{Loc: -1, Cascade: s.TruncateStmt.Behavior == pg.DropBehavior_DROP_CASCADE}
		for _, r := range s.TruncateStmt.Relations {
			if rv := r.GetRangeVar(); rv != nil {
				t.Tables = append(t.Tables, rangeVarName(rv))
				if t.Loc < 0 {
					t.Loc = int(rv.Location)
				}
			}
		}
		return t
	case *pg.Node_SelectStmt, *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt:
		return c.dml(n)
	case *pg.Node_ExplainStmt:
		switch s.ExplainStmt.Query.GetNode().(type) {
		case *pg.Node_SelectStmt, *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt:
			return &Explain{Query: c.dml(s.ExplainStmt.Query), Loc: -1}
		}
	case *pg.Node_DeclareCursorStmt:
		if _, ok := s.DeclareCursorStmt.Query.GetNode().(*pg.Node_SelectStmt); ok {
			return &Wrapped{Verb: "DECLARE CURSOR", Query: c.dml(s.DeclareCursorStmt.Query), Loc: -1}
		}
	case *pg.Node_PrepareStmt:
		switch s.PrepareStmt.Query.GetNode().(type) {
		case *pg.Node_SelectStmt, *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt:
			return &Wrapped{Verb: "PREPARE", Query: c.dml(s.PrepareStmt.Query), Loc: -1}
		}
	case *pg.Node_CallStmt:
		if fc := s.CallStmt.Funccall; fc != nil {
			if f, ok := c.funcCall(fc).(*FuncCall); ok {
				return &Call{Func: f, Loc: f.Loc}
			}
		}
		return &Unknown{Kind: "CallStmt", Loc: -1}
	case *pg.Node_MergeStmt:
		name := rangeVarName(s.MergeStmt.Relation)
		return &Merge{Table: name, Loc: name.Loc}
	case *pg.Node_CreateTrigStmt:
		ts := s.CreateTrigStmt
		name := rangeVarName(ts.Relation)
		tr := &CreateTrigger{Name: ts.Trigname, Table: name, Func: nameOf(strs(ts.Funcname), -1), Replace: ts.Replace, Loc: name.Loc,
			Instead: ts.Timing&(1<<6) != 0} // TRIGGER_TYPE_INSTEAD
		// The event bits of PostgreSQL's trigger.h (TRIGGER_TYPE_INSERT ...).
		for _, e := range []struct {
			bit  int32
			name string
		}{{1 << 2, "INSERT"}, {1 << 3, "DELETE"}, {1 << 4, "UPDATE"}, {1 << 5, "TRUNCATE"}} {
			if ts.Events&e.bit != 0 {
				tr.Events = append(tr.Events, e.name)
			}
		}
		return tr
	case *pg.Node_RuleStmt:
		rs := s.RuleStmt
		name := rangeVarName(rs.Relation)
		r := &CreateRule{Name: rs.Rulename, Table: name, Instead: rs.Instead, Cond: rs.WhereClause != nil, Replace: rs.Replace, Loc: name.Loc}
		switch rs.Event {
		case pg.CmdType_CMD_SELECT:
			r.Event = "SELECT"
		case pg.CmdType_CMD_INSERT:
			r.Event = "INSERT"
		case pg.CmdType_CMD_UPDATE:
			r.Event = "UPDATE"
		case pg.CmdType_CMD_DELETE:
			r.Event = "DELETE"
		}
		for _, a := range rs.Actions {
			r.Actions = append(r.Actions, c.stmt(a))
		}
		return r
	case *pg.Node_VariableSetStmt:
		v := s.VariableSetStmt
		if v.Name != "search_path" {
			break
		}
		sp := &SetSearchPath{Local: v.IsLocal, Loc: -1}
		switch v.Kind {
		case pg.VariableSetKind_VAR_SET_VALUE:
			for _, a := range v.Args {
				sp.Schemas = append(sp.Schemas, a.GetAConst().GetSval().GetSval())
			}
		case pg.VariableSetKind_VAR_SET_DEFAULT, pg.VariableSetKind_VAR_RESET:
			sp.Default = true
		}
		return sp
	case *pg.Node_CopyStmt:
		if s.CopyStmt.Relation == nil {
			switch s.CopyStmt.Query.GetNode().(type) {
			case *pg.Node_SelectStmt, *pg.Node_InsertStmt, *pg.Node_UpdateStmt, *pg.Node_DeleteStmt:
				return &Wrapped{Verb: "COPY", Query: c.dml(s.CopyStmt.Query), Loc: -1}
			}
			return &Unknown{Kind: "CopyStmt", Loc: -1}
		}
		name := rangeVarName(s.CopyStmt.Relation)
		return &Copy{Table: name, From: s.CopyStmt.IsFrom, Loc: name.Loc}
	}
	return &Unknown{Kind: nodeKind(n), Loc: -1}
}

func (c *converter) sequence(seq *Sequence, opts []*pg.Node) Node {
	for _, o := range opts {
		if de := o.GetDefElem(); de != nil && de.Defname == "owned_by" {
			if l := de.Arg.GetList(); l != nil {
				seq.OwnedBy = strs(l.Items)
				if len(seq.OwnedBy) == 1 && seq.OwnedBy[0] == "none" {
					seq.OwnedBy, seq.OwnedByNone = nil, true
				}
			}
		}
	}
	return seq
}

func (c *converter) columnDef(cd *pg.ColumnDef) *ColumnDef {
	d := &ColumnDef{Name: cd.Colname, Type: c.typeName(cd.TypeName), NotNull: cd.IsNotNull, Loc: int(cd.Location)}
	explicitNotNull := cd.IsNotNull
	if cd.RawDefault != nil {
		d.HasDefault = true
		d.DefaultNull = isNullConst(cd.RawDefault)
		d.DefaultAtMost1 = atMost1(cd.RawDefault)
	}
	if cd.Identity != "" {
		d.Identity = true
	}
	if cd.Generated != "" {
		d.Generated = true
	}
	for _, cn := range cd.Constraints {
		con := cn.GetConstraint()
		if con == nil {
			continue
		}
		switch con.Contype {
		case pg.ConstrType_CONSTR_NOTNULL:
			d.NotNull, explicitNotNull = true, true
		case pg.ConstrType_CONSTR_PRIMARY:
			d.NotNull, explicitNotNull = true, true
			d.PrimaryKey = true
		case pg.ConstrType_CONSTR_DEFAULT:
			d.HasDefault = true
			d.DefaultNull = isNullConst(con.RawExpr)
			d.DefaultAtMost1 = atMost1(con.RawExpr)
		case pg.ConstrType_CONSTR_IDENTITY:
			d.Identity = true
			d.NotNull = true
			d.IdentityAlways = con.GeneratedWhen == "a"
			d.SequenceName = sequenceName(con.Options)
		case pg.ConstrType_CONSTR_GENERATED:
			d.Generated = true
		}
		switch con.Contype {
		case pg.ConstrType_CONSTR_PRIMARY, pg.ConstrType_CONSTR_UNIQUE:
			d.Keys = append(d.Keys, &KeyConstraint{Name: con.Conname, Columns: []string{cd.Colname}, Primary: con.Contype == pg.ConstrType_CONSTR_PRIMARY})
		case pg.ConstrType_CONSTR_FOREIGN:
			if fk := foreignKey(con, []string{cd.Colname}); fk != nil {
				d.ForeignKeys = append(d.ForeignKeys, fk)
			}
		}
	}
	if d.Type != nil && d.Type.ArrayDims == 0 {
		switch d.Type.Name {
		case "serial", "serial4", "bigserial", "serial8", "smallserial", "serial2":
			// PostgreSQL adds NOT NULL, but sqlc does not: a serial column
			// without PRIMARY KEY or NOT NULL is nullable in its models.
			d.HasDefault = true
			d.Serial = true
		}
	}
	d.IdentityNotNull = d.Identity && !explicitNotNull
	return d
}

func (c *converter) createTable(s *pg.CreateStmt) Node {
	t := &CreateTable{Table: createdName(s.Relation), IfNotExists: s.IfNotExists, PartitionOf: s.Partbound != nil, PartitionBy: s.Partspec != nil,
		OnCommitDrop: s.Oncommit == pg.OnCommitAction_ONCOMMIT_DROP, Temp: unqualifiedTemp(s.Relation)}
	for _, e := range s.TableElts {
		switch x := e.Node.(type) {
		case *pg.Node_ColumnDef:
			t.Columns = append(t.Columns, c.columnDef(x.ColumnDef))
			for _, cn := range x.ColumnDef.Constraints {
				if con := cn.GetConstraint(); con != nil && (con.Contype == pg.ConstrType_CONSTR_PRIMARY || con.Contype == pg.ConstrType_CONSTR_UNIQUE) {
					t.Keys = append(t.Keys, &KeyConstraint{Name: con.Conname, Columns: []string{x.ColumnDef.Colname}, Primary: con.Contype == pg.ConstrType_CONSTR_PRIMARY})
				} else if fk := foreignKey(cn.GetConstraint(), []string{x.ColumnDef.Colname}); fk != nil {
					t.ForeignKeys = append(t.ForeignKeys, fk)
				}
			}
		case *pg.Node_Constraint:
			if x.Constraint.Contype == pg.ConstrType_CONSTR_PRIMARY {
				t.PrimaryKey = append(t.PrimaryKey, strs(x.Constraint.Keys)...)
			}
			if ct := x.Constraint.Contype; (ct == pg.ConstrType_CONSTR_PRIMARY || ct == pg.ConstrType_CONSTR_UNIQUE) && len(x.Constraint.Keys) > 0 {
				t.Keys = append(t.Keys, &KeyConstraint{Name: x.Constraint.Conname, Columns: strs(x.Constraint.Keys), Primary: ct == pg.ConstrType_CONSTR_PRIMARY})
			}
			if fk := foreignKey(x.Constraint, nil); fk != nil {
				t.ForeignKeys = append(t.ForeignKeys, fk)
			}
		case *pg.Node_TableLikeClause:
			t.LikeTables = append(t.LikeTables, rangeVarName(x.TableLikeClause.Relation))
			t.LikeOptions = append(t.LikeOptions, x.TableLikeClause.Options)
		}
	}
	for _, con := range s.Constraints {
		if x := con.GetConstraint(); x != nil && x.Contype == pg.ConstrType_CONSTR_PRIMARY {
			t.PrimaryKey = append(t.PrimaryKey, strs(x.Keys)...)
		}
	}
	for _, inh := range s.InhRelations {
		if rv := inh.GetRangeVar(); rv != nil {
			t.Inherits = append(t.Inherits, rangeVarName(rv))
		}
	}
	return t
}

// isNullConst reports whether n is NULL or a cast of NULL (NULL::text).
// atMost1 reports whether n is an integer constant at or below 1 (the
// first token a lease mints), perhaps cast or in parentheses (-1 is folded
// into the constant by PostgreSQL's grammar).
// DomainDefault is what ALTER DOMAIN ... SET DEFAULT def (nil: DROP
// DEFAULT) leaves: whether the domain has a default (PostgreSQL takes a
// NULL constant for none, AlterDomainDefault), and whether it is an
// integer constant at or below 1.
func DomainDefault(def *pg.Node) (has, atMost1Const bool) {
	if def == nil || isNullConst(def) {
		return false, false
	}
	return true, atMost1(def)
}

func atMost1(n *pg.Node) bool {
	for n.GetTypeCast() != nil {
		n = n.GetTypeCast().Arg
	}
	ac := n.GetAConst()
	if ac == nil || ac.Isnull {
		return false
	}
	if iv := ac.GetIval(); iv != nil {
		return iv.Ival <= 1
	}
	if sv := ac.GetSval(); sv != nil {
		v, err := strconv.ParseInt(strings.TrimSpace(sv.Sval), 10, 64)
		return err == nil && v <= 1
	}
	if ac.GetIval() == nil && ac.GetFval() == nil && ac.GetSval() == nil && ac.GetBoolval() == nil && ac.GetBsval() == nil {
		return true // Ival 0: the zero value has no field set
	}
	return false
}

func isNullConst(n *pg.Node) bool {
	if tc := n.GetTypeCast(); tc != nil {
		n = tc.Arg
	}
	ac := n.GetAConst()
	return ac != nil && ac.Isnull
}

// createdName is the name of a relation CREATE makes: a temporary one
// (CREATE TEMP TABLE) goes in the session's schema pg_temp.
func createdName(rv *pg.RangeVar) Name {
	n := rangeVarName(rv)
	if rv != nil && rv.Relpersistence == "t" && n.Schema == "" {
		n.Schema = "pg_temp"
	}
	return n
}

// unqualifiedTemp reports whether CREATE TEMP names its relation without
// a schema (CREATE TEMP TABLE t, not CREATE TABLE pg_temp.t).
func unqualifiedTemp(rv *pg.RangeVar) bool {
	return rv != nil && rv.Relpersistence == "t" && rv.Schemaname == ""
}

// objectWithArgs is a function or procedure named with its argument
// types, name(args), and the number of argument types named (-1: none
// given, the name alone).
func objectWithArgs(o *pg.ObjectWithArgs) (Name, int) {
	if o.ArgsUnspecified {
		return nameOf(strs(o.Objname), -1), -1
	}
	return nameOf(strs(o.Objname), -1), len(o.Objargs)
}

// argTypes are the argument types an ObjectWithArgs names as PostgreSQL
// identifies a function by them: its input arguments, and a procedure's
// (procedure set) OUT arguments too; nil when it names none (the name
// alone), non-nil and empty for f().
func (c *converter) argTypes(o *pg.ObjectWithArgs, procedure bool) []*TypeName {
	if o.ArgsUnspecified {
		return nil
	}
	out := []*TypeName{}
	if len(o.Objfuncargs) == 0 {
		for _, a := range o.Objargs {
			out = append(out, c.typeName(a.GetTypeName()))
		}
		return out
	}
	for _, a := range o.Objfuncargs {
		fp := a.GetFunctionParameter()
		if fp == nil || fp.Mode == pg.FunctionParameterMode_FUNC_PARAM_TABLE ||
			fp.Mode == pg.FunctionParameterMode_FUNC_PARAM_OUT && !procedure {
			continue
		}
		out = append(out, c.typeName(fp.ArgType))
	}
	return out
}

// sequenceName is the SEQUENCE NAME option among an identity column's
// sequence options, or the zero Name.
func sequenceName(opts []*pg.Node) Name {
	for _, o := range opts {
		if de := o.GetDefElem(); de != nil && de.Defname == "sequence_name" {
			if l := de.Arg.GetList(); l != nil {
				return nameOf(strs(l.Items), -1)
			}
		}
	}
	return Name{Loc: -1}
}

// foreignKey converts a FOREIGN KEY constraint (columns, for a
// column-level REFERENCES, is the column), or returns nil.
func foreignKey(con *pg.Constraint, columns []string) *ForeignKey {
	if con == nil || con.Contype != pg.ConstrType_CONSTR_FOREIGN || con.Pktable == nil {
		return nil
	}
	if len(con.FkAttrs) > 0 {
		columns = strs(con.FkAttrs)
	}
	action := func(s string) byte {
		if s == "" {
			return 'a'
		}
		return s[0]
	}
	return &ForeignKey{Name: con.Conname, Columns: columns, Parent: rangeVarName(con.Pktable), Refs: strs(con.PkAttrs), OnDelete: action(con.FkDelAction), OnUpdate: action(con.FkUpdAction)}
}

func (c *converter) alterTable(s *pg.AlterTableStmt) Node {
	if s.Objtype != pg.ObjectType_OBJECT_TABLE && s.Objtype != pg.ObjectType_OBJECT_FOREIGN_TABLE {
		return &Unknown{Kind: "AlterTableStmt", Loc: rangeVarName(s.Relation).Loc}
	}
	a := &AlterTable{Table: rangeVarName(s.Relation), MissingOK: s.MissingOk, Only: s.Relation != nil && !s.Relation.Inh}
	for _, cn := range s.Cmds {
		cmd := cn.GetAlterTableCmd()
		if cmd == nil {
			continue
		}
		ac := &AlterCmd{Column: cmd.Name, MissingOK: cmd.MissingOk, Loc: a.Table.Loc}
		switch cmd.Subtype {
		case pg.AlterTableType_AT_AddColumn:
			ac.Kind = AlterAddColumn
			if cd := cmd.Def.GetColumnDef(); cd != nil {
				ac.Def = c.columnDef(cd)
				ac.Column = cd.Colname
				ac.Loc = ac.Def.Loc
			}
		case pg.AlterTableType_AT_DropColumn:
			ac.Kind = AlterDropColumn
		case pg.AlterTableType_AT_AlterColumnType:
			ac.Kind = AlterColumnType
			if cd := cmd.Def.GetColumnDef(); cd != nil {
				ac.Type = c.typeName(cd.TypeName)
			}
		case pg.AlterTableType_AT_SetNotNull:
			ac.Kind = AlterSetNotNull
		case pg.AlterTableType_AT_DropNotNull:
			ac.Kind = AlterDropNotNull
		case pg.AlterTableType_AT_AttachPartition, pg.AlterTableType_AT_DetachPartition:
			if pc := cmd.Def.GetPartitionCmd(); pc != nil && pc.Name != nil {
				ac.Kind = AlterAttachPartition
				if cmd.Subtype == pg.AlterTableType_AT_DetachPartition {
					ac.Kind = AlterDetachPartition
				}
				ac.Other = rangeVarName(pc.Name)
			}
		case pg.AlterTableType_AT_AddInherit, pg.AlterTableType_AT_DropInherit:
			if rv := cmd.Def.GetRangeVar(); rv != nil {
				ac.Kind = AlterInherit
				if cmd.Subtype == pg.AlterTableType_AT_DropInherit {
					ac.Kind = AlterNoInherit
				}
				ac.Other = rangeVarName(rv)
			}
		case pg.AlterTableType_AT_AddConstraint:
			if con := cmd.Def.GetConstraint(); con != nil && con.Contype == pg.ConstrType_CONSTR_PRIMARY {
				ac.Kind = AlterAddPrimaryKey
				ac.Keys = strs(con.Keys)
				ac.Key = &KeyConstraint{Name: con.Conname, Columns: ac.Keys, Primary: true, Index: con.Indexname}
			} else if con != nil && con.Contype == pg.ConstrType_CONSTR_UNIQUE && (len(con.Keys) > 0 || con.Indexname != "") {
				ac.Kind = AlterAddUnique
				ac.Key = &KeyConstraint{Name: con.Conname, Columns: strs(con.Keys), Index: con.Indexname}
			} else if fk := foreignKey(con, nil); fk != nil {
				ac.Kind = AlterAddForeignKey
				ac.FK = fk
			}
		case pg.AlterTableType_AT_DropConstraint:
			ac.Kind = AlterDropConstraint
			ac.Constraint, ac.Column = cmd.Name, ""
		case pg.AlterTableType_AT_ColumnDefault:
			ac.Kind = AlterDropDefault
			if cmd.Def != nil {
				ac.Kind = AlterSetDefault
				ac.DefaultNull = isNullConst(cmd.Def)
				ac.DefaultAtMost1 = atMost1(cmd.Def)
				if fc := cmd.Def.GetFuncCall(); fc != nil {
					name := strs(fc.Funcname)
					ac.Nextval = len(name) > 0 && name[len(name)-1] == "nextval"
				}
			}
		case pg.AlterTableType_AT_AddIdentity:
			ac.Kind = AlterAddIdentity
			if con := cmd.Def.GetConstraint(); con != nil {
				ac.Always = con.GeneratedWhen == "a"
				ac.SequenceName = sequenceName(con.Options)
			}
		case pg.AlterTableType_AT_DropIdentity:
			ac.Kind = AlterDropIdentity
		case pg.AlterTableType_AT_DropExpression:
			ac.Kind = AlterDropExpression
		}
		a.Cmds = append(a.Cmds, ac)
	}
	return a
}

func objectKind(t pg.ObjectType) string {
	switch t {
	case pg.ObjectType_OBJECT_TABLE:
		return "table"
	case pg.ObjectType_OBJECT_COLUMN:
		return "column"
	case pg.ObjectType_OBJECT_TYPE, pg.ObjectType_OBJECT_DOMAIN:
		return "type"
	case pg.ObjectType_OBJECT_VIEW:
		return "view"
	case pg.ObjectType_OBJECT_MATVIEW:
		return "materialized view"
	case pg.ObjectType_OBJECT_SCHEMA:
		return "schema"
	case pg.ObjectType_OBJECT_FUNCTION, pg.ObjectType_OBJECT_PROCEDURE:
		return "function"
	}
	return strings.ToLower(strings.TrimPrefix(t.String(), "OBJECT_"))
}

func (c *converter) rename(s *pg.RenameStmt) Node {
	r := &Rename{Kind: objectKind(s.RenameType), Subname: s.Subname, NewName: s.Newname, MissingOK: s.MissingOk, Loc: -1}
	if s.Relation != nil {
		r.Target = rangeVarName(s.Relation)
		r.Loc = r.Target.Loc
		r.Only = !s.Relation.Inh
	} else if s.Object != nil {
		switch o := s.Object.Node.(type) {
		case *pg.Node_List:
			r.Target = nameOf(strs(o.List.Items), -1)
		case *pg.Node_String_:
			r.Target = Name{Name: o.String_.Sval, Loc: -1}
		case *pg.Node_ObjectWithArgs:
			// ALTER FUNCTION / PROCEDURE / ROUTINE name(args) RENAME TO.
			r.Target, r.Args = objectWithArgs(o.ObjectWithArgs)
			r.ArgTypes = c.argTypes(o.ObjectWithArgs, s.RenameType == pg.ObjectType_OBJECT_PROCEDURE)
		}
	}
	if s.RenameType == pg.ObjectType_OBJECT_TABCONSTRAINT {
		r.Kind = "constraint"
	}
	return r
}

func (c *converter) comment(s *pg.CommentStmt) Node {
	cm := &Comment{Kind: objectKind(s.Objtype), Text: s.Comment, Loc: -1}
	if l := s.Object.GetList(); l != nil {
		parts := strs(l.Items)
		if s.Objtype == pg.ObjectType_OBJECT_COLUMN && len(parts) >= 2 {
			cm.Column = parts[len(parts)-1]
			parts = parts[:len(parts)-1]
		}
		cm.Target = nameOf(parts, -1)
	} else if s.Object.GetString_() != nil {
		cm.Target = Name{Name: s.Object.GetString_().Sval, Loc: -1}
	} else if tn := s.Object.GetTypeName(); tn != nil {
		t := c.typeName(tn)
		cm.Target = Name{Schema: t.Schema, Name: t.Name, Loc: t.Loc}
	}
	return cm
}

func (c *converter) drop(s *pg.DropStmt) Node {
	d := &Drop{Kind: objectKind(s.RemoveType), MissingOK: s.MissingOk, Cascade: s.Behavior == pg.DropBehavior_DROP_CASCADE, Loc: -1}
	for _, o := range s.Objects {
		switch x := o.Node.(type) {
		case *pg.Node_List:
			parts := strs(x.List.Items)
			if (s.RemoveType == pg.ObjectType_OBJECT_TRIGGER || s.RemoveType == pg.ObjectType_OBJECT_RULE) && len(parts) >= 2 {
				d.On = append(d.On, nameOf(parts[:len(parts)-1], -1))
				d.Names = append(d.Names, Name{Name: parts[len(parts)-1], Loc: -1})
				continue
			}
			d.Names = append(d.Names, nameOf(parts, -1))
		case *pg.Node_String_:
			d.Names = append(d.Names, Name{Name: x.String_.Sval, Loc: -1})
		case *pg.Node_TypeName:
			t := c.typeName(x.TypeName)
			d.Names = append(d.Names, Name{Schema: t.Schema, Name: t.Name, Loc: t.Loc})
		case *pg.Node_ObjectWithArgs:
			d.Names = append(d.Names, nameOf(strs(x.ObjectWithArgs.Objname), -1))
			for len(d.Sigs) < len(d.Names)-1 {
				d.Sigs = append(d.Sigs, nil)
			}
			d.Sigs = append(d.Sigs, c.argTypes(x.ObjectWithArgs, s.RemoveType == pg.ObjectType_OBJECT_PROCEDURE))
		}
	}
	return d
}

func (c *converter) createFunction(s *pg.CreateFunctionStmt) Node {
	f := &CreateFunction{Func: nameOf(strs(s.Funcname), -1), Procedure: s.IsProcedure, OrReplace: s.Replace, Loc: -1}
	for _, p := range s.Parameters {
		fp := p.GetFunctionParameter()
		if fp == nil {
			continue
		}
		switch fp.Mode {
		case pg.FunctionParameterMode_FUNC_PARAM_TABLE:
			f.ReturnsTable = append(f.ReturnsTable, &ColumnDef{Name: fp.Name, Type: c.typeName(fp.ArgType), Loc: -1})
			continue
		case pg.FunctionParameterMode_FUNC_PARAM_OUT, pg.FunctionParameterMode_FUNC_PARAM_INOUT:
			f.OutParams = append(f.OutParams, &ColumnDef{Name: fp.Name, Type: c.typeName(fp.ArgType), Loc: -1})
			// A function's OUT parameter is a result only; a procedure's
			// is passed in CALL too (PostgreSQL 14 and later).
			if fp.Mode == pg.FunctionParameterMode_FUNC_PARAM_OUT && !s.IsProcedure {
				continue
			}
		}
		if fp.Mode == pg.FunctionParameterMode_FUNC_PARAM_VARIADIC {
			f.Variadic = true
		}
		if fp.Defexpr != nil {
			if text, err := deparseExpr(fp.Defexpr); err == nil {
				f.Defaults = append(f.Defaults, text)
			} else {
				f.Defaults = append(f.Defaults, "?")
			}
		}
		f.ArgTypes = append(f.ArgTypes, c.typeName(fp.ArgType))
		f.ArgNames = append(f.ArgNames, fp.Name)
	}
	if !s.IsProcedure {
		f.ReturnType = c.typeName(s.ReturnType)
	}
	if s.SqlBody != nil {
		// A SQL-standard body (BEGIN ATOMIC ... END, or RETURN expr): kept
		// as SQL text, like an AS string, so that the analyzer can read
		// the statements it runs.
		f.Body = sqlBody(s.SqlBody)
		f.Language = "sql"
		f.Standard = true
	}
	for _, o := range s.Options {
		de := o.GetDefElem()
		if de == nil {
			continue
		}
		switch de.Defname {
		case "volatility":
			if sv := de.Arg.GetString_(); sv != nil {
				f.Volatility = strings.ToLower(sv.Sval)
			}
		case "language":
			if sv := de.Arg.GetString_(); sv != nil {
				f.Language = sv.Sval
			}
		case "as":
			if l := de.Arg.GetList(); l != nil && len(l.Items) > 0 {
				if sv := l.Items[0].GetString_(); sv != nil {
					f.Body = sv.Sval
				}
			}
		}
	}
	return f
}

// sqlBody deparses a function's SQL-standard body into statements
// separated by semicolons; RETURN expr becomes SELECT expr.
func sqlBody(body *pg.Node) string {
	var out []string
	var collect func(n *pg.Node)
	collect = func(n *pg.Node) {
		if n == nil || n.Node == nil {
			return
		}
		if l := n.GetList(); l != nil {
			for _, x := range l.Items {
				collect(x)
			}
			return
		}
		if r := n.GetReturnStmt(); r != nil {
			n = &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{
				TargetList: []*pg.Node{pg.MakeResTargetNodeWithVal(r.Returnval, -1)},
				Op:         pg.SetOperation_SETOP_NONE,
			}}}
		}
		if text, err := pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: n}}}); err == nil {
			out = append(out, text)
		}
	}
	collect(body)
	return strings.Join(out, ";\n")
}

// ---- DML ----

func (c *converter) with(w *pg.WithClause) *With {
	if w == nil {
		return nil
	}
	out := &With{Recursive: w.Recursive}
	for _, n := range w.Ctes {
		cte := n.GetCommonTableExpr()
		if cte == nil {
			continue
		}
		x := &CTE{Name: cte.Ctename, Columns: strs(cte.Aliascolnames), Query: c.dml(cte.Ctequery), Loc: int(cte.Location)}
		if sc := cte.SearchClause; sc != nil {
			x.Search = &CTESearch{Column: sc.SearchSeqColumn, BreadthFirst: sc.SearchBreadthFirst}
		}
		if cc := cte.CycleClause; cc != nil {
			x.Cycle = &CTECycle{Mark: cc.CycleMarkColumn, Path: cc.CyclePathColumn}
			if cc.CycleMarkValue != nil {
				x.Cycle.MarkValue = c.expr(cc.CycleMarkValue)
			}
			if cc.CycleMarkDefault != nil {
				x.Cycle.MarkDefault = c.expr(cc.CycleMarkDefault)
			}
		}
		out.CTEs = append(out.CTEs, x)
	}
	return out
}

func (c *converter) dml(n *pg.Node) Node {
	if n == nil {
		return nil
	}
	switch s := n.Node.(type) {
	case *pg.Node_SelectStmt:
		return c.selectStmt(s.SelectStmt)
	case *pg.Node_InsertStmt:
		return c.insert(s.InsertStmt)
	case *pg.Node_UpdateStmt:
		return c.update(s.UpdateStmt)
	case *pg.Node_DeleteStmt:
		return c.delete(s.DeleteStmt)
	}
	return &Unknown{Kind: nodeKind(n), Loc: -1}
}

func (c *converter) targets(nodes []*pg.Node) []*Target {
	var out []*Target
	for _, n := range nodes {
		rt := n.GetResTarget()
		if rt == nil {
			continue
		}
		t := &Target{Name: rt.Name, Expr: c.expr(rt.Val), Loc: int(rt.Location)}
		if len(rt.Indirection) > 0 && rt.Val != nil {
			t.Expr = &Indirection{Arg: t.Expr, Fields: strs(rt.Indirection), Loc: t.Loc}
		}
		out = append(out, t)
	}
	return out
}

// setTargets converts UPDATE SET / ON CONFLICT DO UPDATE SET lists,
// expanding (a, b) = (x, y) into one target per column.
func (c *converter) setTargets(nodes []*pg.Node) []*Target {
	var out []*Target
	var multi Node // the source of the current (a, b) = ... assignment
	for _, n := range nodes {
		rt := n.GetResTarget()
		if rt == nil {
			continue
		}
		t := &Target{Name: rt.Name, Loc: int(rt.Location)}
		for _, x := range rt.Indirection {
			switch y := x.Node.(type) {
			case *pg.Node_String_:
				t.Fields = append(t.Fields, y.String_.Sval)
			case *pg.Node_AIndices:
				for _, b := range []*pg.Node{y.AIndices.Lidx, y.AIndices.Uidx} {
					if e := c.expr(b); e != nil {
						t.Subscripts = append(t.Subscripts, e)
					}
				}
			}
		}
		if mr := rt.Val.GetMultiAssignRef(); mr != nil {
			if mr.Colno == 1 {
				multi = c.expr(mr.Source)
			}
			switch src := multi.(type) {
			case *RowExpr:
				if int(mr.Colno-1) < len(src.Args) {
					t.Expr = src.Args[mr.Colno-1]
				}
			case *SubLink:
				m := &MultiColumn{Column: int(mr.Colno), Loc: t.Loc, source: src}
				if mr.Colno == 1 {
					m.Sub = src
				}
				t.Expr = m
			}
			if t.Expr == nil {
				t.Expr = &Unknown{Kind: "MultiAssignRef", Loc: t.Loc}
			}
		} else {
			t.Expr = c.expr(rt.Val)
		}
		out = append(out, t)
	}
	return out
}

func (c *converter) selectStmt(s *pg.SelectStmt) *Select {
	if s == nil {
		return nil
	}
	out := &Select{With: c.with(s.WithClause), Distinct: len(s.DistinctClause) > 0, Loc: -1}
	if s.Op != pg.SetOperation_SETOP_NONE && s.Op != pg.SetOperation_SET_OPERATION_UNDEFINED {
		out.SetOp = strings.TrimPrefix(s.Op.String(), "SETOP_")
		out.Left = c.selectStmt(s.Larg)
		out.Right = c.selectStmt(s.Rarg)
	}
	out.Targets = c.targets(s.TargetList)
	for _, f := range s.FromClause {
		out.From = append(out.From, c.fromItem(f))
	}
	out.Where = c.expr(s.WhereClause)
	for _, g := range s.GroupClause {
		out.GroupBy = append(out.GroupBy, c.expr(g))
	}
	out.Having = c.expr(s.HavingClause)
	for _, o := range s.SortClause {
		out.OrderBy = append(out.OrderBy, c.expr(o))
	}
	out.Limit = c.expr(s.LimitCount)
	out.Offset = c.expr(s.LimitOffset)
	for _, v := range s.ValuesLists {
		if l := v.GetList(); l != nil {
			var row []Node
			for _, e := range l.Items {
				row = append(row, c.expr(e))
			}
			out.Values = append(out.Values, row)
		}
	}
	out.Locking = len(s.LockingClause) > 0
	for _, d := range s.DistinctClause {
		if d != nil && d.Node != nil {
			out.DistinctOn = append(out.DistinctOn, c.expr(d))
		}
	}
	for _, w := range s.WindowClause {
		if wd := c.windowDef(w.GetWindowDef()); wd != nil {
			out.Windows = append(out.Windows, wd)
		}
	}
	return out
}

func (c *converter) windowDef(w *pg.WindowDef) *WindowDef {
	if w == nil {
		return nil
	}
	out := &WindowDef{Name: w.Name, Start: c.expr(w.StartOffset), End: c.expr(w.EndOffset)}
	if out.Name == "" {
		out.Name = w.Refname
	}
	for _, p := range w.PartitionClause {
		out.PartitionBy = append(out.PartitionBy, c.expr(p))
	}
	for _, o := range w.OrderClause {
		out.OrderBy = append(out.OrderBy, c.expr(o))
	}
	return out
}

func (c *converter) fromItem(n *pg.Node) Node {
	switch f := n.Node.(type) {
	case *pg.Node_RangeVar:
		alias, cols := aliasOf(f.RangeVar.Alias)
		return &RangeVar{Name: rangeVarName(f.RangeVar), Alias: alias, ColAliases: cols}
	case *pg.Node_RangeTableSample:
		// FROM t TABLESAMPLE method (args) [REPEATABLE (seed)]: the
		// table, with the sampling arguments.
		ts := f.RangeTableSample
		in, ok := c.fromItem(ts.Relation).(*RangeVar)
		if !ok {
			return &Unknown{Kind: nodeKind(n), Loc: int(ts.Location)}
		}
		for _, a := range ts.Args {
			in.Sample = append(in.Sample, c.expr(a))
		}
		if ts.Repeatable != nil {
			in.Seed = c.expr(ts.Repeatable)
		}
		return in
	case *pg.Node_JoinExpr:
		j := f.JoinExpr
		jt := "INNER"
		switch j.Jointype {
		case pg.JoinType_JOIN_LEFT:
			jt = "LEFT"
		case pg.JoinType_JOIN_RIGHT:
			jt = "RIGHT"
		case pg.JoinType_JOIN_FULL:
			jt = "FULL"
		}
		if j.Quals == nil && len(j.UsingClause) == 0 && !j.IsNatural && jt == "INNER" {
			jt = "CROSS"
		}
		alias, _ := aliasOf(j.Alias)
		return &Join{Type: jt, Natural: j.IsNatural, Left: c.fromItem(j.Larg), Right: c.fromItem(j.Rarg), On: c.expr(j.Quals), Using: strs(j.UsingClause), Alias: alias, Loc: -1}
	case *pg.Node_RangeSubselect:
		alias, cols := aliasOf(f.RangeSubselect.Alias)
		q, _ := c.dml(f.RangeSubselect.Subquery).(*Select)
		return &RangeSubselect{Lateral: f.RangeSubselect.Lateral, Query: q, Alias: alias, ColAliases: cols, Loc: -1}
	case *pg.Node_RangeFunction:
		rf := &RangeFunction{Lateral: f.RangeFunction.Lateral, Ordinality: f.RangeFunction.Ordinality, Loc: -1}
		rf.Alias, rf.ColAliases = aliasOf(f.RangeFunction.Alias)
		for _, fn := range f.RangeFunction.Functions {
			l := fn.GetList()
			if l == nil || len(l.Items) == 0 {
				continue
			}
			e := c.expr(l.Items[0])
			if e == nil {
				continue
			}
			rf.Funcs = append(rf.Funcs, e)
			if rf.Loc < 0 {
				rf.Loc = e.Pos()
			}
			// ROWS FROM (f() AS (a int, ...)) keeps each list with its call.
			if len(l.Items) > 1 {
				if cl := l.Items[1].GetList(); cl != nil {
					rf.ColDefs = append(rf.ColDefs, c.colDefs(cl.Items)...)
				}
			}
		}
		rf.ColDefs = append(rf.ColDefs, c.colDefs(f.RangeFunction.Coldeflist)...)
		return rf
	}
	return &Unknown{Kind: nodeKind(n), Loc: -1}
}

func (c *converter) colDefs(nodes []*pg.Node) []*ColumnDef {
	var out []*ColumnDef
	for _, n := range nodes {
		if cd := n.GetColumnDef(); cd != nil {
			out = append(out, c.columnDef(cd))
		}
	}
	return out
}

func (c *converter) insert(s *pg.InsertStmt) *Insert {
	in := &Insert{With: c.with(s.WithClause), Table: rangeVarName(s.Relation), Loc: rangeVarName(s.Relation).Loc}
	if s.Relation != nil && s.Relation.Alias != nil {
		in.Alias = s.Relation.Alias.Aliasname
	}
	for _, col := range s.Cols {
		if rt := col.GetResTarget(); rt != nil {
			in.Columns = append(in.Columns, &Target{Name: rt.Name, Loc: int(rt.Location)})
		}
	}
	if s.SelectStmt != nil {
		in.Select, _ = c.dml(s.SelectStmt).(*Select)
	}
	if oc := s.OnConflictClause; oc != nil {
		in.OnConflict = &OnConflict{DoUpdate: oc.Action == pg.OnConflictAction_ONCONFLICT_UPDATE, Set: c.setTargets(oc.TargetList), Where: c.expr(oc.WhereClause), Loc: int(oc.Location), TargetLoc: -1}
		if inf := oc.Infer; inf != nil {
			in.OnConflict.TargetLoc = int(inf.Location)
			in.OnConflict.Constraint = inf.Conname
			for _, e := range inf.IndexElems {
				if ie := e.GetIndexElem(); ie != nil && ie.Name != "" {
					in.OnConflict.Columns = append(in.OnConflict.Columns, ie.Name)
				} else {
					in.OnConflict.TargetExprs = true
				}
			}
		}
	}
	in.Returning = c.targets(s.ReturningList)
	return in
}

func (c *converter) update(s *pg.UpdateStmt) *Update {
	u := &Update{With: c.with(s.WithClause), Table: rangeVarName(s.Relation), Loc: rangeVarName(s.Relation).Loc}
	if s.Relation != nil && s.Relation.Alias != nil {
		u.Alias = s.Relation.Alias.Aliasname
	}
	u.Set = c.setTargets(s.TargetList)
	for _, f := range s.FromClause {
		u.From = append(u.From, c.fromItem(f))
	}
	u.Where = c.expr(s.WhereClause)
	u.Returning = c.targets(s.ReturningList)
	return u
}

func (c *converter) delete(s *pg.DeleteStmt) *Delete {
	d := &Delete{With: c.with(s.WithClause), Table: rangeVarName(s.Relation), Loc: rangeVarName(s.Relation).Loc}
	if s.Relation != nil && s.Relation.Alias != nil {
		d.Alias = s.Relation.Alias.Aliasname
	}
	for _, f := range s.UsingClause {
		d.Using = append(d.Using, c.fromItem(f))
	}
	d.Where = c.expr(s.WhereClause)
	d.Returning = c.targets(s.ReturningList)
	return d
}

// ---- expressions ----

// closingParen returns the offset just past the parenthesis that closes the
// first '(' at or after start, skipping quoted text.
func (c *converter) closingParen(start int) int {
	depth := 0
	for i := start; i < len(c.src); i++ {
		switch c.src[i] {
		case '\'', '"':
			q := c.src[i]
			for i++; i < len(c.src) && c.src[i] != q; i++ {
			}
		case '(':
			depth++
		case ')':
			depth--
			if depth == 0 {
				return i + 1
			}
		}
	}
	return len(c.src)
}

func (c *converter) expr(n *pg.Node) Node {
	if n == nil || n.Node == nil {
		return nil
	}
	switch e := n.Node.(type) {
	case *pg.Node_ColumnRef:
		cr := e.ColumnRef
		return &ColumnRef{Fields: strs(cr.Fields), Loc: int(cr.Location)}
	case *pg.Node_ParamRef:
		loc := int(e.ParamRef.Location)
		if p, ok := c.namedAt[loc]; ok {
			return &Param{Name: p.name, Loc: loc, End: p.end}
		}
		end := loc + 1
		for end < len(c.src) && c.src[end] >= '0' && c.src[end] <= '9' {
			end++
		}
		return &Param{Number: int(e.ParamRef.Number), Loc: loc, End: end}
	case *pg.Node_AConst:
		return c.aconst(e.AConst)
	case *pg.Node_TypeCast:
		return &TypeCast{Arg: c.expr(e.TypeCast.Arg), Type: c.typeName(e.TypeCast.TypeName), Loc: int(e.TypeCast.Location)}
	case *pg.Node_AExpr:
		return c.aexpr(e.AExpr)
	case *pg.Node_BoolExpr:
		b := &BoolExpr{Loc: int(e.BoolExpr.Location)}
		switch e.BoolExpr.Boolop {
		case pg.BoolExprType_AND_EXPR:
			b.Op = "AND"
		case pg.BoolExprType_OR_EXPR:
			b.Op = "OR"
		default:
			b.Op = "NOT"
		}
		for _, a := range e.BoolExpr.Args {
			b.Args = append(b.Args, c.expr(a))
		}
		return b
	case *pg.Node_FuncCall:
		return c.funcCall(e.FuncCall)
	case *pg.Node_SubLink:
		sl := e.SubLink
		q, _ := c.dml(sl.Subselect).(*Select)
		kind := "EXPR"
		switch sl.SubLinkType {
		case pg.SubLinkType_EXISTS_SUBLINK:
			kind = "EXISTS"
		case pg.SubLinkType_ANY_SUBLINK:
			kind = "ANY"
		case pg.SubLinkType_ALL_SUBLINK:
			kind = "ALL"
		case pg.SubLinkType_ARRAY_SUBLINK:
			kind = "ARRAY"
		}
		op := strings.Join(strs(sl.OperName), ".")
		return &SubLink{Kind: kind, Test: c.expr(sl.Testexpr), Op: op, Query: q, Loc: int(sl.Location)}
	case *pg.Node_NullTest:
		return &NullTest{Arg: c.expr(e.NullTest.Arg), Not: e.NullTest.Nulltesttype == pg.NullTestType_IS_NOT_NULL, Loc: int(e.NullTest.Location)}
	case *pg.Node_BooleanTest:
		return &BooleanTest{Arg: c.expr(e.BooleanTest.Arg), Loc: int(e.BooleanTest.Location)}
	case *pg.Node_CaseExpr:
		ce := &Case{Arg: c.expr(e.CaseExpr.Arg), Else: c.expr(e.CaseExpr.Defresult), Loc: int(e.CaseExpr.Location)}
		for _, w := range e.CaseExpr.Args {
			if cw := w.GetCaseWhen(); cw != nil {
				ce.Whens = append(ce.Whens, &When{Cond: c.expr(cw.Expr), Result: c.expr(cw.Result)})
			}
		}
		return ce
	case *pg.Node_CoalesceExpr:
		co := &Coalesce{Loc: int(e.CoalesceExpr.Location)}
		for _, a := range e.CoalesceExpr.Args {
			co.Args = append(co.Args, c.expr(a))
		}
		return co
	case *pg.Node_MinMaxExpr:
		m := &MinMax{Op: "GREATEST", Loc: int(e.MinMaxExpr.Location)}
		if e.MinMaxExpr.Op == pg.MinMaxOp_IS_LEAST {
			m.Op = "LEAST"
		}
		for _, a := range e.MinMaxExpr.Args {
			m.Args = append(m.Args, c.expr(a))
		}
		return m
	case *pg.Node_AArrayExpr:
		a := &ArrayExpr{Loc: int(e.AArrayExpr.Location)}
		for _, x := range e.AArrayExpr.Elements {
			a.Elems = append(a.Elems, c.expr(x))
		}
		return a
	case *pg.Node_RowExpr:
		r := &RowExpr{Loc: int(e.RowExpr.Location)}
		for _, x := range e.RowExpr.Args {
			r.Args = append(r.Args, c.expr(x))
		}
		return r
	case *pg.Node_AIndirection:
		ind := &Indirection{Arg: c.expr(e.AIndirection.Arg), Loc: c.expr(e.AIndirection.Arg).Pos()}
		for _, x := range e.AIndirection.Indirection {
			switch y := x.Node.(type) {
			case *pg.Node_String_:
				ind.Fields = append(ind.Fields, y.String_.Sval)
			case *pg.Node_AStar:
				ind.Fields = append(ind.Fields, "*")
			case *pg.Node_AIndices:
				ind.Fields = append(ind.Fields, "")
				ind.Slice = ind.Slice || y.AIndices.IsSlice
				for _, b := range []*pg.Node{y.AIndices.Lidx, y.AIndices.Uidx} {
					if e := c.expr(b); e != nil {
						ind.Subscripts = append(ind.Subscripts, e)
					}
				}
			}
		}
		return ind
	case *pg.Node_SqlvalueFunction:
		op := e.SqlvalueFunction.Op
		name := strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(op.String(), "SVFOP_"), "_N"))
		return &SQLValueFunction{Type: sqlValueFunctionType(op), Name: name, Loc: int(e.SqlvalueFunction.Location)}
	case *pg.Node_CollateClause:
		return &Collate{Arg: c.expr(e.CollateClause.Arg), Loc: int(e.CollateClause.Location)}
	case *pg.Node_CurrentOfExpr:
		// PostgreSQL keeps no location: the statement's WHERE clause is
		// the first "CURRENT OF" after the cursor name's own statement
		// start, found by the analyzer.
		return &CurrentOf{Cursor: e.CurrentOfExpr.CursorName, Loc: -1}
	case *pg.Node_SetToDefault:
		return &Default{Loc: int(e.SetToDefault.Location)}
	case *pg.Node_SortBy:
		return &SortBy{Expr: c.expr(e.SortBy.Node), Loc: int(e.SortBy.Location)}
	case *pg.Node_NamedArgExpr:
		return c.expr(e.NamedArgExpr.Arg)
	case *pg.Node_SelectStmt:
		q, _ := c.dml(n).(*Select)
		return &SubLink{Kind: "EXPR", Query: q, Loc: -1}
	}
	return &Unknown{Kind: nodeKind(n), Loc: -1}
}

func sqlValueFunctionType(op pg.SQLValueFunctionOp) string {
	switch op {
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_DATE:
		return "date"
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIME, pg.SQLValueFunctionOp_SVFOP_CURRENT_TIME_N:
		return "timetz"
	case pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP, pg.SQLValueFunctionOp_SVFOP_CURRENT_TIMESTAMP_N:
		return "timestamptz"
	case pg.SQLValueFunctionOp_SVFOP_LOCALTIME, pg.SQLValueFunctionOp_SVFOP_LOCALTIME_N:
		return "time"
	case pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP, pg.SQLValueFunctionOp_SVFOP_LOCALTIMESTAMP_N:
		return "timestamp"
	}
	return "text" // CURRENT_USER, SESSION_USER, CURRENT_CATALOG, ...: name
}

func (c *converter) aconst(a *pg.A_Const) Node {
	k := &Const{Loc: int(a.Location)}
	if a.Isnull {
		k.Kind = "null"
		return k
	}
	switch v := a.Val.(type) {
	case *pg.A_Const_Ival:
		k.Kind, k.Value = "int", fmt.Sprint(v.Ival.Ival)
	case *pg.A_Const_Fval:
		k.Kind, k.Value = "float", v.Fval.Fval
	case *pg.A_Const_Sval:
		k.Kind, k.Value = "string", v.Sval.Sval
	case *pg.A_Const_Boolval:
		k.Kind, k.Value = "bool", fmt.Sprint(v.Boolval.Boolval)
	case *pg.A_Const_Bsval:
		k.Kind, k.Value = "bitstring", v.Bsval.Bsval
	}
	return k
}

func (c *converter) aexpr(a *pg.A_Expr) Node {
	op := strings.Join(strs(a.Name), ".")
	loc := int(a.Location)
	// sqlc's named parameters (@name) were read by parseNamed: a prefix @
	// left here is PostgreSQL's absolute-value operator, which the
	// analyzer refuses.
	e := &AExpr{Op: op, Left: c.expr(a.Lexpr), Right: c.expr(a.Rexpr), Loc: loc}
	switch a.Kind {
	case pg.A_Expr_Kind_AEXPR_OP:
		e.Kind = "op"
	case pg.A_Expr_Kind_AEXPR_OP_ANY:
		e.Kind = "any"
	case pg.A_Expr_Kind_AEXPR_OP_ALL:
		e.Kind = "all"
	case pg.A_Expr_Kind_AEXPR_IN:
		e.Kind = "in"
		if op == "<>" {
			e.Kind = "not in"
		}
	case pg.A_Expr_Kind_AEXPR_LIKE:
		e.Kind = "like"
	case pg.A_Expr_Kind_AEXPR_ILIKE:
		e.Kind = "ilike"
	case pg.A_Expr_Kind_AEXPR_SIMILAR:
		e.Kind = "similar"
	case pg.A_Expr_Kind_AEXPR_BETWEEN, pg.A_Expr_Kind_AEXPR_BETWEEN_SYM:
		e.Kind = "between"
	case pg.A_Expr_Kind_AEXPR_NOT_BETWEEN, pg.A_Expr_Kind_AEXPR_NOT_BETWEEN_SYM:
		e.Kind = "not between"
	case pg.A_Expr_Kind_AEXPR_DISTINCT:
		e.Kind = "distinct"
	case pg.A_Expr_Kind_AEXPR_NOT_DISTINCT:
		e.Kind = "not distinct"
	case pg.A_Expr_Kind_AEXPR_NULLIF:
		e.Kind = "nullif"
	default:
		e.Kind = "op"
	}
	// IN lists and BETWEEN bounds arrive as a List node.
	if l := a.Rexpr.GetList(); l != nil {
		r := &RowExpr{Loc: loc}
		for _, x := range l.Items {
			r.Args = append(r.Args, c.expr(x))
		}
		e.Right = r
	}
	return e
}

func (c *converter) funcCall(f *pg.FuncCall) Node {
	parts := strs(f.Funcname)
	loc := int(f.Location)
	// sqlc.arg(name), sqlc.narg(name), sqlc.slice(name): named parameters.
	if len(parts) == 2 && parts[0] == "sqlc" && parts[1] == "embed" && len(f.Args) == 1 {
		if cr := f.Args[0].GetColumnRef(); cr != nil {
			if ss := strs(cr.Fields); len(ss) == 1 {
				return &Embed{Table: ss[0], Loc: loc, End: c.closingParen(loc)}
			}
		}
	}
	if len(parts) == 2 && parts[0] == "sqlc" {
		switch parts[1] {
		case "arg", "narg", "slice":
			p := &Param{Nullable: parts[1] == "narg", Slice: parts[1] == "slice", Loc: loc, End: c.closingParen(loc)}
			if len(f.Args) == 1 {
				switch a := f.Args[0].Node.(type) {
				case *pg.Node_ColumnRef:
					if ss := strs(a.ColumnRef.Fields); len(ss) == 1 {
						p.Name = ss[0]
					}
				case *pg.Node_AConst:
					if sv := a.AConst.GetSval(); sv != nil {
						p.Name = sv.Sval
					}
				}
			}
			return p
		}
	}
	fc := &FuncCall{Func: nameOf(parts, loc), Star: f.AggStar, Distinct: f.AggDistinct, Over: f.Over != nil, Variadic: f.FuncVariadic, Loc: loc}
	for _, a := range f.Args {
		name := ""
		if na := a.GetNamedArgExpr(); na != nil {
			name = na.Name
		}
		fc.Args = append(fc.Args, c.expr(a))
		fc.ArgNames = append(fc.ArgNames, name)
	}
	if f.AggWithinGroup {
		for _, o := range f.AggOrder {
			if sb := o.GetSortBy(); sb != nil {
				fc.WithinGroup = append(fc.WithinGroup, c.expr(sb.Node))
			}
		}
	} else {
		for _, o := range f.AggOrder {
			fc.AggOrder = append(fc.AggOrder, c.expr(o))
		}
	}
	fc.Filter = c.expr(f.AggFilter)
	fc.Window = c.windowDef(f.Over)
	return fc
}

// Text returns the source text of a statement, without the semicolon.
func (f *File) Text(s *Stmt) string { return string(bytes.TrimSpace(f.Src[s.Start:s.End])) }

// createAggregate converts CREATE AGGREGATE into a CreateFunction: its
// arguments, and its result type, the state type STYPE, unless a FINALFUNC
// makes the result another type (then it is left unknown).
func (c *converter) createAggregate(d *pg.DefineStmt) Node {
	f := &CreateFunction{Func: nameOf(strs(d.Defnames), -1), Loc: -1, Language: "aggregate", OrReplace: d.Replace}
	if len(d.Args) > 0 {
		if l := d.Args[0].GetList(); l != nil {
			for _, a := range l.Items {
				if fp := a.GetFunctionParameter(); fp != nil {
					f.ArgTypes = append(f.ArgTypes, c.typeName(fp.ArgType))
					f.ArgNames = append(f.ArgNames, fp.Name)
				}
			}
		}
	}
	final := false
	var stype *TypeName
	for _, o := range d.Definition {
		de := o.GetDefElem()
		if de == nil {
			continue
		}
		switch strings.ToLower(de.Defname) {
		case "stype", "stype1":
			if tn := de.Arg.GetTypeName(); tn != nil {
				stype = c.typeName(tn)
			}
		case "finalfunc", "finalfunc1":
			final = true
		}
	}
	if !final {
		f.ReturnType = stype
	}
	return f
}

// deparseExpr deparses expression n as the text of SELECT n.
func deparseExpr(n *pg.Node) (string, error) {
	sel := &pg.Node{Node: &pg.Node_SelectStmt{SelectStmt: &pg.SelectStmt{
		TargetList: []*pg.Node{pg.MakeResTargetNodeWithVal(n, -1)},
		Op:         pg.SetOperation_SETOP_NONE,
	}}}
	return pg.Deparse(&pg.ParseResult{Stmts: []*pg.RawStmt{{Stmt: sel}}})
}
