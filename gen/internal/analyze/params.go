package analyze

// Parameters: how a $n or @name is named and typed from its context.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/catalog/pgcatalog"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

func pluralHint(name string) string {
	if name == "" {
		return ""
	}
	return name + "s"
}

// paramSource is what a parameter compared with expression e (of value v)
// takes its name and type from. Like sqlc, when e is a function call or an
// operator expression over a column (lower(name) = $1, data->>'k' = $1),
// the parameter is named and typed after that column.
func (a *analyzer) paramSource(sc *scope, e sqlparse.Node, v value) value {
	if a.opts.MySQL && !a.opts.MySQLTypes && sqlparse.IsSqlcTODO(e) {
		return v // sqlc's ast.TODO has no column
	}
	switch e.(type) {
	case *sqlparse.FuncCall, *sqlparse.AExpr:
	default:
		return v
	}
	var ref *sqlparse.ColumnRef
	walk(e, func(n sqlparse.Node) {
		if cr, ok := n.(*sqlparse.ColumnRef); ok && ref == nil && cr.Fields[len(cr.Fields)-1] != "*" {
			ref = cr
		}
	})
	if ref == nil {
		if a.opts.MySQL && !a.opts.MySQLTypes {
			// sqlc v1.31.1 (resolve.go's ast.A_Expr case) names and
			// types a parameter after the first column either operand
			// holds, and leaves it unnamed and untyped when there is
			// none (HAVING COUNT(*) > ?).
			return value{}
		}
		// PostgreSQL: sqlc leaves it unnamed too (dollar_1 for
		// HAVING count(*) > $1); fencegen keeps its type.
		v.Name = ""
		return v
	}
	saved := len(a.errs)
	c, ok := a.column(sc, ref)
	a.errs = a.errs[:saved]
	if !ok || !c.Known {
		return v
	}
	if !a.opts.MySQL && v.Known {
		// PostgreSQL types the parameter as the expression, as its
		// operator or function resolves (j->>'k' = $1 is text,
		// extract(year FROM ts) = $1 numeric, length(name) = $1 int4);
		// the name stays the column's, as sqlc's, and so does sqlc's
		// typing from that column (sqlcOperandSource: Param.Sqlc).
		v.Name = c.Name
		return v
	}
	return c
}

// numberParams gives every named parameter a number (one number per name,
// after the highest positional $n, in order of first appearance as sqlc
// walks the statement: see paramsInSqlcOrder) and records the edits that
// replace each named parameter by its $n.
func (a *analyzer) numberParams() (string, error) {
	a.prefixAtOperators()
	if len(a.errs) > 0 {
		return "", a.errs
	}
	all := paramsInSqlcOrder(a.stmt.Node)
	if a.opts.MySQL {
		return a.numberMySQLParams(all)
	}
	a.findSwallowed()
	if zero, err := a.dollarZero(all); zero || err != nil {
		return "", err
	}
	byName := map[string]int{}
	// As sqlc's named.ParamSet numbers them: a named parameter takes the
	// lowest number no $n of the query uses and no earlier name took, in
	// order of first appearance (VALUES ($1, @b, $3): @b is $2). Without
	// a database sqlc refuses a gap in the $n before numbering them
	// (validate.ParamRef; see posGap), so there they are numbered after
	// the highest $n.
	used := map[int]bool{}
	for _, p := range all {
		if p.Name == "" && p.Number > 0 {
			used[p.Number] = true
		}
	}
	for i := 1; i <= len(used); i++ {
		if !used[i] {
			a.posGap = i
			break
		}
	}
	positional := len(used) > 0
	next := 1
	for _, p := range all {
		if p.Name == "" {
			continue
		}
		key := p.Name
		if x := a.swallowedBy[p]; x != nil && !a.opts.PGTypes {
			// sqlc names the parameter of @b - 1 after the operand it
			// reads as @(b - 1) (its flatten: -b), not b: another
			// number than @b's elsewhere (sqlcFlattenName).
			if name, ok := sqlcFlattenName(x, p); ok {
				key = name
			}
		}
		n, ok := byName[key]
		if !ok {
			for used[next] {
				next++
			}
			n = next
			used[n] = true
			byName[key] = n
			if key != p.Name {
				if a.sqlcNames == nil {
					a.sqlcNames = map[int]string{}
				}
				a.sqlcNames[n] = key
			}
			if positional && a.namedFrom == 0 {
				a.namedFrom, a.firstNamed = n, p.Loc
			}
		}
		p.Number = n
	}
	for _, p := range all {
		// On PostgreSQL sqlc.slice(x) is one array parameter (compare it
		// with = ANY(...)); there is no list to expand.
		a.useParam(p)
	}
	if len(a.errs) > 0 {
		return "", a.errs
	}
	inList := inListSlices(a.stmt.Node)
	listNames := map[string]bool{}
	for p := range inList {
		listNames[p.Name] = true
	}
	for _, p := range all {
		if listNames[p.Name] && !inList[p] {
			// Its $n carries the list's first element when run.
			a.errorf(p.Loc, "sqlc.slice(%s) is an IN (...) list elsewhere in the query, whose elements are sent one parameter each; give this use another name", p.Name)
		}
	}
	if len(a.errs) > 0 {
		return "", a.errs
	}
	for _, p := range all {
		switch {
		case inList[p]:
			// $n while the guard is built (it parses the text); the
			// marker replaces it in the final text (markInSlices).
			a.param(p.Number).InList = true
			line, col := diag.Position(a.file.Src, p.Loc)
			a.inSlices = append(a.inSlices, InSlice{Name: p.Name, Number: p.Number, Line: line, Col: col})
			a.edits = append(a.edits, edit{p.Loc, p.End, fmt.Sprintf("$%d", p.Number)})
		case p.Name != "":
			a.edits = append(a.edits, edit{p.Loc, p.End, fmt.Sprintf("$%d", p.Number)})
		}
	}
	return "", nil
}

// dollarZero numbers the parameters of a query written with $0 as sqlc
// v1.31.1 numbers them: it reads $0 as an unnumbered placeholder (MySQL's
// ?), so each $0 is a parameter of its own, numbered from 1 in the
// order of the text, and the text keeps $0. PostgreSQL refuses $0 at
// every call ("there is no parameter $0"), which the query's note says
// (or, on a write of a fenced table, its error: see query). $0 mixed with
// $n or a named parameter is refused, as sqlc refuses it. It reports
// whether the query has $0 (then it has numbered its parameters).
func (a *analyzer) dollarZero(all []*sqlparse.Param) (bool, error) {
	var zeros []*sqlparse.Param
	other := -1
	for _, p := range all {
		if p.Name == "" && string(a.file.Src[p.Loc:p.End]) == "$0" {
			zeros = append(zeros, p)
		} else if other < 0 {
			other = p.Loc
		}
	}
	if len(zeros) == 0 {
		return false, nil
	}
	if other >= 0 {
		a.errorf(other, "query %s: $0 with other parameters: PostgreSQL numbers parameters from $1 and refuses $0 (\"there is no parameter $0\"), and sqlc v1.31.1 refuses $0 mixed with $n or named parameters (\"can not mix $1 format with ? format\"); number them from $1", a.ann.Name)
		return true, a.errs
	}
	if len(zeros) > 1 {
		// sqlc v1.31.1 matches a parameter with a LIMIT or OFFSET by
		// its number, which is 0 for every $0: it names and types them
		// all after the LIMIT (limit int32, limit_2 int32, ...), which
		// fencegen does not reproduce.
		limit := -1
		walk(a.stmt.Node, func(n sqlparse.Node) {
			if sel, ok := n.(*sqlparse.Select); ok && limit < 0 {
				for _, e := range []sqlparse.Node{sel.Limit, sel.Offset} {
					if p, ok := e.(*sqlparse.Param); ok && p.Name == "" {
						limit = p.Loc
					}
				}
			}
		})
		if limit >= 0 {
			a.errorf(limit, "query %s: $0 as LIMIT or OFFSET with other $0: PostgreSQL numbers parameters from $1 and refuses $0 (\"there is no parameter $0\"), and sqlc v1.31.1 names and types every $0 of this query after the LIMIT; number the parameters from $1", a.ann.Name)
			return true, a.errs
		}
	}
	slices.SortFunc(zeros, func(x, y *sqlparse.Param) int { return x.Loc - y.Loc })
	for i, p := range zeros {
		p.Number = i + 1
	}
	for _, p := range zeros {
		a.useParam(p)
	}
	a.dollarZeros = true
	if len(a.errs) > 0 {
		return true, a.errs
	}
	return true, nil
}

// inListSlices returns the sqlc.slice(name) parameters of stmt that are
// elements of an IN (...) or NOT IN (...) list.
func inListSlices(stmt sqlparse.Node) map[*sqlparse.Param]bool {
	out := map[*sqlparse.Param]bool{}
	walk(stmt, func(n sqlparse.Node) {
		x, ok := n.(*sqlparse.AExpr)
		if !ok || x.Kind != "in" && x.Kind != "not in" {
			return
		}
		if r, ok := x.Right.(*sqlparse.RowExpr); ok {
			for _, e := range r.Args {
				if p, ok := e.(*sqlparse.Param); ok && p.Slice {
					out[p] = true
				}
			}
		}
	})
	return out
}

// Nullable marks a parameter as sqlc.narg: always nullable.
func (p *Param) Nullable() { p.NotNull = false; p.forceNull = true }

func (a *analyzer) param(n int) *Param {
	p, ok := a.params[n]
	if !ok {
		p = &Param{Number: n}
		a.params[n] = p
	}
	return p
}

// useParam records one use of parameter p.Number in the statement's text:
// its first location, its sqlc.arg/narg/slice name and whether it is
// nullable (sqlc.narg) or a slice (sqlc.slice). It returns the parameter.
func (a *analyzer) useParam(p *sqlparse.Param) *Param {
	pr := a.param(p.Number)
	if pr.loc == 0 {
		pr.loc = p.Loc
	}
	if p.Name != "" {
		pr.Name, pr.Named = p.Name, true
	}
	if p.Nullable {
		pr.Nullable()
	}
	if p.Slice {
		pr.Slice = true
	}
	return pr
}

// typeParam records what the context says about parameter node: its
// type, its nullability and a name hint. PostgreSQL's typing is the first
// use's that the analysis reaches; sqlc's (Param.Sqlc, SqlcUntyped and
// the name of a parameter written without one) is the first use's in
// sqlc's walk (sqlcFirstUse), which may come later in the analysis: a
// WITH entry is analysed first and walked by sqlc last, a select list
// analysed after WHERE and walked before it. That use types it again
// for sqlc (sqlcRetype).
func (a *analyzer) typeParam(node *sqlparse.Param, v value, nameHint string) {
	n := node.Number
	p := a.param(n)
	sqlcFirst := a.sqlcFirstUse[n] == node
	if p.Known && sqlcFirst && !p.sqlcSettled && v.Known {
		a.sqlcRetype(p, v, nameHint)
	}
	if !p.Known && v.Known {
		p.sqlcSettled = sqlcFirst || a.sqlcFirstUse[n] == nil
	}
	if p.Known && a.opts.MySQL && v.Known && (p.Type.Name == "unknown" || p.Type.Name == "any") {
		// A MySQL parameter used again under one name (sqlc's merge of
		// its uses): an untyped use gives way to a typed one.
		p.Known = false
	}
	if p.Known && a.opts.MySQL && p.Named && v.Known && !v.sqlcUntyped {
		// Another use of a MySQL named parameter, which sqlc sends once
		// per use as a field of its own: sqlc refuses the query when
		// the uses' Go types differ (Param.Uses).
		u := &Param{Number: p.Number, Name: p.Name, Named: true, Slice: p.Slice, forceNull: p.forceNull}
		a.setParamType(u, v)
		if len(p.Uses) == 0 {
			p.UseLine, p.UseCol = diag.Position(a.file.Src, p.loc)
		}
		p.Uses = append(p.Uses, u)
	}
	if p.Known {
		if a.strict && p.strictlyTyped && v.Known && p.conflict == nil && typeCategory(v.Type) != typeCategory(p.Type) {
			if p.setValue && a.updateWhere && !a.opts.MySQL && assignable(v.Type, p.Type) {
				// UPDATE t SET name = $1 WHERE id = $1: PostgreSQL types
				// $1 in the WHERE clause, before the SET list, and
				// assigns a bigint to a text column.
				return
			}
			t := v.Type
			p.conflict = &t
		}
		return
	}
	if !v.Known {
		return
	}
	a.setParamType(p, v)
	p.setValue = a.setValue
	if p.Name == "" && nameHint != "" {
		p.Name = nameHint
	}
}

// sqlcRetype types p for sqlc as v, the value of the use sqlc's walk
// reaches first, says (setParamType's sqlc typing of a parameter first
// typed there), where PostgreSQL's typing came from a use the analysis
// reached before; a parameter written without a name takes that use's
// name, as sqlc names it there. A parameter sqlc types by the parent of
// a CASE or by its parent's rule (sqlcCaseParents) is typed so already.
func (a *analyzer) sqlcRetype(p *Param, v value, nameHint string) {
	p.sqlcSettled = true
	if _, ok := a.sqlcCaseParents[p.Number]; ok {
		return
	}
	u := &Param{Number: p.Number, Slice: p.Slice, forceNull: p.forceNull}
	a.setParamType(u, v)
	switch {
	case u.Sqlc != nil:
		p.Sqlc = u.Sqlc
	case u.SqlcUntyped:
		p.Sqlc = &SqlcType{Any: true}
	case u.Type == p.Type && u.NotNull == p.NotNull && u.Column == p.Column && u.DBType == p.DBType:
		p.Sqlc = nil
	default:
		p.Sqlc = &SqlcType{Type: u.Type, NotNull: u.NotNull, Column: spelled(u.Column, u.Type, u.NotNull, u.DBType)}
	}
	p.SqlcUntyped = false
	if !p.Named && nameHint != "" {
		p.Name = nameHint
	}
}

// setParamType types parameter p as the known value v says.
func (a *analyzer) setParamType(p *Param, v value) {
	if v.nulled && v.Column != nil {
		// A column of an outer join's nullable side: the parameter is
		// what the column holds, NOT NULL if the column is.
		v.NotNull = v.Column.NotNull
	}
	p.Type, p.Known, p.Column, p.DBType, p.SqlcUntyped = v.Type, true, v.Column, v.DBType, v.sqlcUntyped
	p.strictlyTyped = a.strict
	p.NotNull = v.NotNull && !p.forceNull
	if p.Slice && p.Type.ArrayDims == 0 {
		p.Type.ArrayDims = 1
		if a.opts.MySQL {
			// sqlc applies the column's overrides to a MySQL list's
			// elements.
			p.ElemColumn = v.Column
		}
		p.Column = nil
	}
	if a.sqlcSlice(p) {
		// sqlc's sqlc.slice: a slice of the element it types the
		// parameter as (v's sqlc typing, or v's own), nullable as that
		// is (SqlcType.Slice).
		sq := SqlcType{Type: v.Type, NotNull: v.NotNull, Column: spelled(v.Column, v.Type, v.NotNull, v.DBType), Any: v.sqlcUntyped}
		if s := v.sqlcParam; s != nil {
			sq = *s
		}
		sq.NotNull = sq.NotNull && !p.forceNull
		sq.Slice = true
		p.Sqlc = &sq
		return
	}
	if s := v.sqlcParam; s != nil {
		sq := *s
		sq.NotNull = sq.NotNull && !p.forceNull
		if p.Slice && sq.Type.ArrayDims == 0 {
			sq.Type.ArrayDims = 1
			sq.Column = nil
		}
		if sq.Any || sq.Type != p.Type || sq.NotNull != p.NotNull || sq.Column != p.Column {
			p.Sqlc = &sq
		}
	}
}

// sqlcSlice reports whether sqlc v1.31.1 reads parameter p as a
// sqlc.slice (its IsSqlcSlice), on PostgreSQL: a sqlc.slice whose first
// use in sqlc's walk is no cast's argument, LIMIT or OFFSET, and has a
// parent sqlc types parameters by (findSqlcCaseParams). sqlc types the
// others as one value: the cast's type (sqlc.slice(ids)::uuid[] is
// []uuid.UUID, sent as one array), integer, interface{}.
func (a *analyzer) sqlcSlice(p *Param) bool {
	return p.Slice && !a.opts.MySQL && !a.sqlcNotSlice[p.Number]
}

// typeCategory groups types the way PostgreSQL's implicit casts connect
// them (PostgreSQL docs, 10.2 "Operators", and pg_type.typcategory): a
// parameter deduced as one category in one place and another elsewhere
// makes PostgreSQL refuse the query ("inconsistent types deduced for
// parameter"). Unknown types never conflict.
func typeCategory(t catalog.Type) string {
	if t.Name == "" || t.Name == "any" || t.Name == "unknown" || t.Name == "anyelement" || t.Name == "anyarray" || t.Name == "record" {
		return ""
	}
	dims := strings.Repeat("[]", t.ArrayDims)
	if t.Schema != "pg_catalog" && t.Schema != "" {
		return "user:" + t.Schema + "." + t.Name + dims
	}
	switch t.Name {
	case "int2", "int4", "int8", "float4", "float8", "numeric", "money", "oid":
		return "numeric" + dims
	case "text", "varchar", "bpchar", "char", "name", "citext":
		return "string" + dims
	case "date", "timestamp", "timestamptz":
		return "datetime" + dims
	case "time", "timetz":
		return "time" + dims
	case "json", "jsonb":
		return "json" + dims
	}
	return t.Name + dims
}

// assignable reports whether PostgreSQL assigns a value of type from to
// a column of type to of another typeCategory: to a string type from
// any type (its I/O conversion in assignment context,
// find_coercion_pathway), else by one of pg_cast's implicit or
// assignment casts between types of two categories (assignCasts).
func assignable(from, to catalog.Type) bool {
	if to.ArrayDims > 0 || from.ArrayDims > 0 || (to.Schema != "" && to.Schema != "pg_catalog") || (from.Schema != "" && from.Schema != "pg_catalog") {
		return false
	}
	switch to.Name {
	case "text", "varchar", "bpchar", "name":
		return true
	}
	return assignCasts[from.Name+">"+to.Name]
}

// assignCasts are pg_cast's casts of castcontext 'i' or 'a' (PostgreSQL
// 15's catalog) between types of two typeCategory groups, as
// "source>target", but those to a string type.
var assignCasts = map[string]bool{
	"bit>varbit": true, "box>polygon": true, "cidr>inet": true,
	"inet>cidr": true, "int2>regclass": true, "int2>regcollation": true,
	"int2>regconfig": true, "int2>regdictionary": true,
	"int2>regnamespace": true, "int2>regoper": true, "int2>regoperator": true,
	"int2>regproc": true, "int2>regprocedure": true, "int2>regrole": true,
	"int2>regtype": true, "int4>regclass": true, "int4>regcollation": true,
	"int4>regconfig": true, "int4>regdictionary": true,
	"int4>regnamespace": true, "int4>regoper": true, "int4>regoperator": true,
	"int4>regproc": true, "int4>regprocedure": true, "int4>regrole": true,
	"int4>regtype": true, "int8>regclass": true, "int8>regcollation": true,
	"int8>regconfig": true, "int8>regdictionary": true,
	"int8>regnamespace": true, "int8>regoper": true, "int8>regoperator": true,
	"int8>regproc": true, "int8>regprocedure": true, "int8>regrole": true,
	"int8>regtype": true, "interval>time": true, "macaddr8>macaddr": true,
	"macaddr>macaddr8": true, "oid>regclass": true, "oid>regcollation": true,
	"oid>regconfig": true, "oid>regdictionary": true,
	"oid>regnamespace": true, "oid>regoper": true, "oid>regoperator": true,
	"oid>regproc": true, "oid>regprocedure": true, "oid>regrole": true,
	"oid>regtype": true, "path>polygon": true, "pg_dependencies>bytea": true,
	"pg_mcv_list>bytea": true, "pg_ndistinct>bytea": true, "point>box": true,
	"polygon>path": true, "regclass>int4": true, "regclass>int8": true,
	"regclass>oid": true, "regcollation>int4": true,
	"regcollation>int8": true, "regcollation>oid": true,
	"regconfig>int4": true, "regconfig>int8": true, "regconfig>oid": true,
	"regdictionary>int4": true, "regdictionary>int8": true,
	"regdictionary>oid": true, "regnamespace>int4": true,
	"regnamespace>int8": true, "regnamespace>oid": true, "regoper>int4": true,
	"regoper>int8": true, "regoper>oid": true, "regoper>regoperator": true,
	"regoperator>int4": true, "regoperator>int8": true,
	"regoperator>oid": true, "regoperator>regoper": true,
	"regproc>int4": true, "regproc>int8": true, "regproc>oid": true,
	"regproc>regprocedure": true, "regprocedure>int4": true,
	"regprocedure>int8": true, "regprocedure>oid": true,
	"regprocedure>regproc": true, "regrole>int4": true, "regrole>int8": true,
	"regrole>oid": true, "regtype>int4": true, "regtype>int8": true,
	"regtype>oid": true, "text>regclass": true, "time>interval": true,
	"timestamp>time": true, "timestamptz>time": true,
	"timestamptz>timetz": true, "varbit>bit": true, "varchar>regclass": true,
}

// strictly runs f with strict deduction on (see analyzer.strict).
func (a *analyzer) strictly(f func()) {
	old := a.strict
	a.strict = true
	f()
	a.strict = old
}

// markInSlices replaces, in sql (the statement as sent, its guard
// included), every $n of an IN (sqlc.slice(name)) parameter by
// SliceMarker(name). Only that list uses $n (numberParams refuses other
// uses of the name), so every occurrence is one, wherever the guard
// copied it; string literals, quoted identifiers and comments are left
// as they are.
func (a *analyzer) markInSlices(sql string) string {
	if len(a.inSlices) == 0 {
		return sql
	}
	names := map[int]string{}
	for _, s := range a.inSlices {
		names[s.Number] = s.Name
	}
	var b strings.Builder
	for i := 0; i < len(sql); {
		c := sql[i]
		switch {
		case c == '\'' || c == '"':
			j := i + 1
			backslash := c == '\'' && i > 0 && (sql[i-1] == 'E' || sql[i-1] == 'e')
			for j < len(sql) {
				if backslash && sql[j] == '\\' {
					j += 2
					continue
				}
				if sql[j] == c {
					if j+1 < len(sql) && sql[j+1] == c {
						j += 2
						continue
					}
					break
				}
				j++
			}
			j = min(j+1, len(sql))
			b.WriteString(sql[i:j])
			i = j
		case c == '-' && strings.HasPrefix(sql[i:], "--"):
			j := strings.IndexByte(sql[i:], '\n')
			if j < 0 {
				j = len(sql) - i
			}
			b.WriteString(sql[i : i+j])
			i += j
		case c == '/' && strings.HasPrefix(sql[i:], "/*"):
			j := strings.Index(sql[i+2:], "*/")
			end := len(sql)
			if j >= 0 {
				end = i + 2 + j + 2
			}
			b.WriteString(sql[i:end])
			i = end
		case c == '$' && i+1 < len(sql) && sql[i+1] >= '0' && sql[i+1] <= '9':
			j := i + 1
			n := 0
			for j < len(sql) && sql[j] >= '0' && sql[j] <= '9' {
				n = n*10 + int(sql[j]-'0')
				j++
			}
			if name, ok := names[n]; ok {
				b.WriteString(SliceMarker(name))
			} else {
				b.WriteString(sql[i:j])
			}
			i = j
		case c == '$':
			// A dollar-quoted string: $tag$ ... $tag$.
			j := i + 1
			for j < len(sql) && (sql[j] == '_' || sql[j] >= 'a' && sql[j] <= 'z' || sql[j] >= 'A' && sql[j] <= 'Z' || sql[j] >= '0' && sql[j] <= '9' || sql[j] >= 0x80) {
				j++
			}
			if j < len(sql) && sql[j] == '$' {
				tag := sql[i : j+1]
				k := strings.Index(sql[j+1:], tag)
				end := len(sql)
				if k >= 0 {
					end = j + 1 + k + len(tag)
				}
				b.WriteString(sql[i:end])
				i = end
				continue
			}
			b.WriteByte(c)
			i++
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String()
}

// prefixAtOperators reports each prefix @ that is no named parameter: sqlc
// takes every prefix @ for one, and the parser makes "@name" one wherever a
// single name follows the @ (also in "@n::int + 1", which PostgreSQL would
// group as @(n::int + 1): see sqlparse). An @ followed by anything else
// (a parenthesis, a number, a qualified name) would be sent as
// PostgreSQL's absolute-value operator, which sqlc never does.
func (a *analyzer) prefixAtOperators() {
	walk(a.stmt.Node, func(n sqlparse.Node) {
		x, ok := n.(*sqlparse.AExpr)
		if !ok || x.Kind != "op" {
			return
		}
		if x.Op == "@" && x.Left == nil {
			a.errorf(x.Loc, "@ is sqlc's named-parameter sign and must be followed by a parameter name (one identifier, as in @id or @id::bigint); for an absolute value write abs(...)")
			return
		}
		// data->>@key: PostgreSQL's lexer takes ->>@ for one operator
		// (docs 4.1.3: an operator is the longest run of operator
		// characters), which does not exist.
		if op, ok := strings.CutSuffix(x.Op, "@"); ok && op != "" && len(pgcatalog.Operators(x.Op)) == 0 && len(pgcatalog.Operators(op)) > 0 {
			name := identAfter(a.file.Src, x.Loc+len(x.Op))
			if a.swallowing == nil {
				a.swallowing = map[*sqlparse.AExpr]bool{}
			}
			a.swallowing[x] = true
			// sqlc v1.31.1 generates it, the parameter left in the
			// text: a note, or an error in a fenced write (refusedf).
			a.refusedHowf(x.Loc, "with "+x.Op+" left in the text and no parameter", "PostgreSQL reads %s as one operator (the longest run of operator characters), which does not exist, not %s followed by the named parameter @%s: put a space before the @ (%s @%s)", x.Op, op, name, op, name)
		}
	})
}

// identAfter returns the identifier that starts at src[i], after blanks,
// or "".
func identAfter(src []byte, i int) string {
	for i < len(src) && (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r') {
		i++
	}
	j := i
	for j < len(src) && (src[j] == '_' || src[j] >= 'a' && src[j] <= 'z' || src[j] >= 'A' && src[j] <= 'Z' || j > i && src[j] >= '0' && src[j] <= '9' || src[j] >= 0x80) {
		j++
	}
	return string(src[i:j])
}

// findSwallowed records, on PostgreSQL, each operand sqlc's parser reads
// as the prefix operator @ over it (@b - 1 is @(b - 1): prefix
// operators bind less tightly than + - * / % ^, PostgreSQL docs 4.1.6),
// wherever it stands (a BETWEEN bound, an IN list, a call's argument, a
// cast, LIMIT, a comparison): the outermost such operand of each @name
// parameter (swallowedParam), and sqlc's text of the parameter
// (sqlcSwallowedText: $2- 1). sqlc puts the parameter in place of that
// whole operand: it is numbered by sqlc's name of it (numberParams) and
// typed as the operand's parent types a parameter (findSqlcCaseParams).
func (a *analyzer) findSwallowed() {
	walk(a.stmt.Node, func(n sqlparse.Node) {
		x, ok := n.(*sqlparse.AExpr)
		if !ok {
			return
		}
		p := a.swallowedParam(x)
		if p == nil || a.swallowedBy[p] != nil {
			return // none, or an operand inside the outermost one
		}
		if a.swallowedBy == nil {
			a.swallowedBy = map[*sqlparse.Param]*sqlparse.AExpr{}
			a.swallowers = map[*sqlparse.AExpr]*sqlparse.Param{}
		}
		a.swallowedBy[p], a.swallowers[x] = x, p
		a.sqlcSwallowedText(p, x)
	})
}

// sqlcFlattenName is sqlc's name of the parameter @p that starts operand
// x, which it reads as @(x): the names and operators of x joined in the
// order its walk visits them (operator, left, right; internal/sql/rewrite
// flatten), so -b for @b - 1 and +*w for @w * 2 + 1; false where x
// holds anything that sqlcFlattenLen does not model.
func sqlcFlattenName(x sqlparse.Node, p *sqlparse.Param) (string, bool) {
	switch n := x.(type) {
	case *sqlparse.AExpr:
		if n.Kind != "op" || !swallowedOps[n.Op] {
			return "", false
		}
		out := n.Op
		for _, side := range []sqlparse.Node{n.Left, n.Right} {
			if side == nil {
				continue
			}
			s, ok := sqlcFlattenName(side, p)
			if !ok {
				return "", false
			}
			out += s
		}
		return out, true
	case *sqlparse.Param:
		if n != p {
			return "", false
		}
		return n.Name, true
	case *sqlparse.ColumnRef:
		return strings.Join(n.Fields, ""), true
	case *sqlparse.Const:
		return "", n.Kind == "int" || n.Kind == "float"
	}
	return "", false
}
