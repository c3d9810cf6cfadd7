package analyze

import (
	"cmp"
	"slices"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/catalog/pgcatalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// Built-in functions come from pgcatalog, generated from a real server's
// pg_proc; a call is resolved against them as PostgreSQL does (PostgreSQL
// docs, 10.3 "Functions"), see resolveBuiltin.

// extensionEnabled reports whether the objects of extension ext are
// visible. The catalog does not record CREATE EXTENSION yet, so every
// extension's functions are (as fencegen always made uuid-ossp's).
func (a *analyzer) extensionEnabled(ext string) bool { return true }

// mayReturnNull lists built-in functions documented to return NULL for
// non-NULL arguments (PostgreSQL docs, 9.19 "Array Functions and
// Operators", 9.26 "System Information Functions"): their result is never
// NOT NULL.
var mayReturnNull = map[string]bool{
	"array_length": true, "array_lower": true, "array_upper": true, "array_position": true, "array_ndims": true,
	"to_regclass": true, "to_regtype": true, "to_regproc": true, "to_regprocedure": true, "to_regoper": true,
	"to_regoperator": true, "to_regrole": true, "to_regnamespace": true, "to_regcollation": true,
}

// argInfo is what function resolution knows of an argument.
type argInfo struct {
	value
	// unknown is set for a string literal, NULL or an untyped parameter:
	// PostgreSQL's "unknown" type, coercible to anything.
	unknown bool
	name    string
}

// candidate is a built-in function with its argument list expanded to
// the call: one declared type per actual argument.
type candidate struct {
	fn    *pgcatalog.Func
	types []string
	// pos maps each actual argument to the function's argument index.
	pos []int
}

// builtinCandidates returns the built-in functions that can take the
// call's arguments by number and names (PostgreSQL docs, 10.3 step 1, and
// 4.3 "Calling Functions"), in pgcatalog's order.
func (a *analyzer) builtinCandidates(schema, name string, args []argInfo, variadicCall bool) (byName []*pgcatalog.Func, out []candidate) {
	for _, fn := range pgcatalog.Funcs(name) {
		if fn.Kind == 'p' {
			continue
		}
		// pg_catalog's functions are found under any schema name, as sqlc
		// finds them (it searches pg_catalog for every call,
		// internal/sql/catalog/public.go), where PostgreSQL would refuse
		// public.now(): fencegen accepts what sqlc accepts.
		if fn.Extension != "" && (schema == "pg_catalog" || !a.extensionEnabled(fn.Extension)) {
			continue
		}
		byName = append(byName, fn)
		if c, ok := expand(fn, args, variadicCall); ok {
			out = append(out, c)
		}
	}
	// sqlc searches pg_catalog before the schema CREATE EXTENSION adds
	// functions to (sqlc internal/sql/catalog/public.go, extension.go):
	// where resolution falls back to the first candidate, that order holds.
	slices.SortStableFunc(out, func(x, y candidate) int {
		return cmp.Compare(boolInt(x.fn.Extension != ""), boolInt(y.fn.Extension != ""))
	})
	return byName, out
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// A call with VARIADIC before its last argument passes the array itself
// (PostgreSQL docs, 38.5.6 "SQL Functions with Variable Numbers of
// Arguments").
func expand(fn *pgcatalog.Func, args []argInfo, variadicCall bool) (candidate, bool) {
	n := len(fn.Args)
	c := candidate{fn: fn}
	if variadicCall && (!fn.Variadic || len(args) != n) {
		return c, false
	}
	spread := fn.Variadic && !variadicCall
	if len(args) < n-fn.Defaults || (!spread && len(args) > n) {
		return c, false
	}
	filled := make([]bool, n)
	for i, x := range args {
		k := i
		if x.name != "" {
			k = slices.Index(fn.ArgNames, x.name)
			if k < 0 {
				return c, false
			}
		}
		t := ""
		switch {
		case k < n-1 || !spread:
			t = fn.Args[k]
		default:
			// The variadic argument's elements.
			k = n - 1
			t = variadicElem(fn.Args[k])
		}
		if k < n {
			filled[k] = true
		}
		c.types = append(c.types, t)
		c.pos = append(c.pos, k)
	}
	for k := range n - fn.Defaults {
		if !filled[k] && !(spread && k == n-1) {
			return c, false
		}
	}
	return c, true
}

func variadicElem(t string) string {
	switch t {
	case "any":
		return "any"
	case "anyarray":
		return "anyelement"
	case "anycompatiblearray":
		return "anycompatible"
	}
	return strings.TrimSuffix(t, "[]")
}

// polymorphic pseudo-types (PostgreSQL docs, 38.2.5 "Polymorphic Types").
var polyElem = map[string]bool{"anyelement": true, "anynonarray": true, "anyenum": true, "anycompatible": true, "anycompatiblenonarray": true}
var polyArray = map[string]bool{"anyarray": true, "anycompatiblearray": true}

func isPoly(t string) bool {
	return t == "any" || polyElem[t] || polyArray[t] || strings.HasPrefix(t, "anyrange") || strings.HasPrefix(t, "anymultirange") ||
		t == "anycompatiblerange" || t == "anycompatiblemultirange"
}

// typeKey is how pgcatalog spells a fencegen type: "int4", "text[]".
func typeKey(t catalog.Type) string {
	if t.Schema != "pg_catalog" && t.Schema != "" {
		return ""
	}
	return t.Name + strings.Repeat("[]", t.ArrayDims)
}

// accepts reports whether an argument of type x can be passed where a
// function declares type decl, and whether it is an exact match.
func (a *analyzer) accepts(x argInfo, decl string) (ok, exact bool) {
	if x.unknown {
		return true, false
	}
	key := typeKey(x.Type)
	switch {
	case key != "" && key == decl:
		return true, true
	case decl == "any" || decl == "anyelement" || decl == "anycompatible":
		return true, false
	case decl == "anynonarray" || decl == "anycompatiblenonarray":
		return !x.Type.IsArray(), false
	case polyArray[decl]:
		return x.Type.IsArray(), false
	case decl == "anyenum":
		return !x.Type.IsArray() && a.cat.Enum(x.Type.Schema, x.Type.Name) != nil, false
	case isPoly(decl):
		if t := pgcatalog.LookupType(x.Type.Name); t != nil && !x.Type.IsArray() {
			return strings.HasPrefix(decl, "anyrange") == (t.Kind == 'r') && strings.HasPrefix(decl, "anymultirange") == (t.Kind == 'm'), false
		}
		return false, false
	case key == "":
		// A user type: a composite goes where record does.
		return decl == "record" && !x.Type.IsArray() && a.cat.Enum(x.Type.Schema, x.Type.Name) == nil, false
	}
	if x.Type.IsArray() != strings.HasSuffix(decl, "[]") {
		return false, false
	}
	src, dst := x.Type.Name, strings.TrimSuffix(decl, "[]")
	if src == dst {
		return true, true
	}
	c, ok := pgcatalog.Cast(src, dst)
	return ok && c == 'i', false
}

func declCategory(decl string) (byte, bool) {
	if strings.HasSuffix(decl, "[]") {
		return 'A', false
	}
	t := pgcatalog.LookupType(decl)
	if t == nil {
		return 0, false
	}
	return t.Category, t.Preferred
}

// resolveBuiltin picks the function PostgreSQL would call among the
// candidates (PostgreSQL docs, 10.3 "Functions", steps 2 and 4): an exact
// match; else those that every argument can be implicitly cast to, then
// those with the most exact matches, then those taking preferred types
// where a conversion is needed, then, for unknown arguments, the string
// category or the one category all accept, with its preferred type. Where
// PostgreSQL would find the call ambiguous, or none of the candidates fits
// the argument types fencegen knows, it is lenient like sqlc and takes the
// first remaining candidate in sqlc's catalog order.
func (a *analyzer) resolveBuiltin(cands []candidate, args []argInfo) candidate {
	type scored struct {
		candidate
		exact, preferred int
	}
	var ok []scored
	for _, c := range cands {
		s := scored{candidate: c}
		fits := true
		for i, x := range args {
			fit, exact := a.accepts(x, c.types[i])
			if !fit {
				fits = false
				break
			}
			if exact {
				s.exact++
			} else if !x.unknown {
				if _, pref := declCategory(c.types[i]); pref {
					s.preferred++
				}
			}
		}
		if fits {
			if s.exact == len(args) && len(args) > 0 {
				return c
			}
			ok = append(ok, s)
		}
	}
	if len(ok) == 0 {
		return cands[0]
	}
	best := func(score func(scored) int) {
		m := -1
		for _, s := range ok {
			m = max(m, score(s))
		}
		ok = slices.DeleteFunc(ok, func(s scored) bool { return score(s) < m })
	}
	best(func(s scored) int { return s.exact })
	if len(ok) > 1 {
		best(func(s scored) int { return s.preferred })
	}
	for i, x := range args {
		if len(ok) <= 1 || !x.unknown {
			continue
		}
		var cat byte
		same := true
		for _, s := range ok {
			c, _ := declCategory(s.types[i])
			if c == 'S' {
				cat = 'S'
				break
			}
			if cat == 0 {
				cat = c
			} else if c != cat {
				same = false
			}
		}
		if cat != 'S' && !same {
			continue
		}
		kept := slices.DeleteFunc(slices.Clone(ok), func(s scored) bool {
			c, _ := declCategory(s.types[i])
			return c != cat
		})
		if slices.ContainsFunc(kept, func(s scored) bool { _, p := declCategory(s.types[i]); return p }) {
			kept = slices.DeleteFunc(kept, func(s scored) bool { _, p := declCategory(s.types[i]); return !p })
		}
		if len(kept) > 0 {
			ok = kept
		}
	}
	if len(ok) > 1 {
		// Step 4.f: unknown arguments are taken as the one type the known
		// arguments all have.
		var common string
		for _, x := range args {
			if !x.unknown {
				k := typeKey(x.Type)
				if common == "" {
					common = k
				} else if k != common {
					common = "-"
				}
			}
		}
		if common != "" && common != "-" {
			var kept []scored
			for _, s := range ok {
				all := true
				for i, x := range args {
					if x.unknown {
						if fit, _ := a.accepts(argInfo{value: value{Type: typeOf(common), Known: true}}, s.types[i]); !fit {
							all = false
						}
					}
				}
				if all {
					kept = append(kept, s)
				}
			}
			if len(kept) == 1 {
				ok = kept
			}
		}
	}
	return ok[0].candidate
}

// typeOf turns a pgcatalog type name into a Type.
func typeOf(name string) catalog.Type {
	dims := strings.Count(name, "[]")
	return catalog.Type{Schema: "pg_catalog", Name: strings.TrimSuffix(name, strings.Repeat("[]", dims)), ArrayDims: dims}
}

// polyType deduces the element type that the call's polymorphic
// arguments bind (PostgreSQL docs, 38.2.5), and the argument it came from.
func polyType(c candidate, args []argInfo) (catalog.Type, int, bool) {
	if t, i, ok := compatibleType(c, args); ok {
		return t, i, true
	}
	for i, x := range args {
		if x.unknown || !x.Known {
			continue
		}
		switch d := c.types[i]; {
		case polyElem[d]:
			return x.Type, i, true
		case polyArray[d] && x.Type.IsArray():
			return x.Type.Elem(), i, true
		}
	}
	return catalog.Type{}, -1, false
}

// compatibleType is the common type of the arguments declared
// anycompatible or anycompatiblearray (their elements), when they have
// different types: PostgreSQL resolves it as for UNION (docs 38.2.5,
// 10.5; commonOf). i is the argument it came from.
func compatibleType(c candidate, args []argInfo) (catalog.Type, int, bool) {
	var ts []catalog.Type
	var from []int
	for i, x := range args {
		if x.unknown || !x.Known {
			continue
		}
		switch d := c.types[i]; {
		case d == "anycompatible" || d == "anycompatiblenonarray":
			ts, from = append(ts, x.Type), append(from, i)
		case d == "anycompatiblearray" && x.Type.IsArray():
			ts, from = append(ts, x.Type.Elem()), append(from, i)
		}
	}
	if len(ts) < 2 {
		return catalog.Type{}, -1, false
	}
	for _, t := range ts {
		if typeKey(t) == "" || t.IsArray() {
			return catalog.Type{}, -1, false
		}
	}
	t, ok := commonOf(ts)
	if !ok {
		return catalog.Type{}, -1, false
	}
	return t, from[slices.Index(ts, t)], true
}

// builtinResult is the value a call of the resolved built-in returns.
// Nullability: count and window functions with a concrete result are NOT
// NULL, other aggregates and window functions may be NULL (no rows, no
// such row in the frame); a normal function is NOT NULL as in sqlc (whose
// catalog marks no PostgreSQL function nullable), except those documented
// to return NULL, those whose polymorphic result comes from an argument,
// which follow it, and the strict numeric functions returning their first
// argument's type (abs, floor, mod, generate_series, ...), which follow
// that argument.
// formatType is the name PostgreSQL's format_type gives the built-in
// type named name (pg_type.typname), which is how sqlc's catalog of
// built-in functions spells their result types: "bigint" for int8,
// "timestamp with time zone" for timestamptz (PostgreSQL docs, 8.1
// "Numeric Types", table 8.1 "Data Types", the aliases column).
func formatType(name string) string {
	if f, ok := formatTypeNames[name]; ok {
		return f
	}
	return name
}

var formatTypeNames = map[string]string{
	"int2": "smallint", "int4": "integer", "int8": "bigint",
	"float4": "real", "float8": "double precision", "bool": "boolean",
	"varchar": "character varying", "bpchar": "character", "varbit": "bit varying",
	"timestamp": "timestamp without time zone", "timestamptz": "timestamp with time zone",
	"time": "time without time zone", "timetz": "time with time zone",
}

func builtinResult(name string, c candidate, args []argInfo) value {
	fn := c.fn
	out := value{Name: name, NotNull: true, Known: true}
	res := fn.Result
	elem, from, found := polyType(c, args)
	switch {
	case polyElem[res]:
		if !found {
			return value{Name: name}
		}
		out.Type = elem
	case polyArray[res]:
		if !found {
			return value{Name: name}
		}
		out.Type = elem
		out.Type.ArrayDims++
	case isPoly(res) || res == "record" || res == "unknown":
		return value{Name: name}
	default:
		out.Type = typeOf(res)
		if out.Type.ArrayDims == 0 {
			out.DBType = formatType(res)
		}
	}
	switch fn.Kind {
	case 'a':
		out.NotNull = name == "count"
	case 'w':
		out.NotNull = !isPoly(res)
	default:
		switch {
		case mayReturnNull[name]:
			out.NotNull = false
		case isPoly(res) && found && fn.Strict:
			out.NotNull = args[from].NotNull
		case fn.Strict && len(args) > 0 && !args[0].unknown && len(fn.Args) > 0 && fn.Args[0] == res:
			if t := pgcatalog.LookupType(res); t != nil && t.Category == 'N' {
				out.NotNull = args[0].NotNull
			}
		}
	}
	return out
}

func (a *analyzer) funcCall(sc *scope, f *sqlparse.FuncCall) value {
	v, _, _ := a.funcCallArgs(sc, f)
	return v
}

// funcCallArgs types a function call and returns its arguments' values
// and, for a built-in, the function it resolved to.
func (a *analyzer) funcCallArgs(sc *scope, f *sqlparse.FuncCall) (value, []value, *pgcatalog.Func) {
	if a.opts.MySQL && len(a.cat.Funcs(f.Func.Schema, f.Func.Name)) == 0 {
		return a.mysqlFuncCall(sc, f)
	}
	if !a.opts.MySQL {
		defer func(cs []*sqlparse.Coalesce) { a.callCoalesces = cs }(a.callCoalesces)
		a.callCoalesces = nil
		for _, x := range f.Args {
			if co, ok := x.(*sqlparse.Coalesce); ok {
				a.callCoalesces = append(a.callCoalesces, co)
			}
		}
	}
	name := strings.ToLower(f.Func.Name)
	args := make([]value, len(f.Args))
	// User-defined functions and procedures type their parameters.
	var user *catalog.Func
	for _, fn := range a.cat.Funcs(f.Func.Schema, f.Func.Name) {
		if len(fn.ArgTypes) >= len(f.Args) {
			user = fn
			break
		}
	}
	if user != nil {
		for i, x := range f.Args {
			// name => value picks the parameter by name.
			idx := i
			if f.ArgNames[i] != "" {
				if k := slices.Index(user.ArgNames, f.ArgNames[i]); k >= 0 {
					idx = k
				}
			}
			if op, ok := x.(*sqlparse.AExpr); ok && a.swallowers[op] != nil && idx < len(user.ArgTypes) {
				// addone(@a - 1): sqlc's parameter is the whole argument
				// (sqlcSwallowed), typed as a direct argument is.
				args[i] = a.expr(sc, x)
				a.sqlcSwallowedAs(a.swallowers[op], userArgValue(user, idx))
				continue
			}
			if p, ok := unwrapParam(x); ok {
				if idx < len(user.ArgTypes) {
					// Like sqlc, an argument without a name is named after
					// the function (plains_of($1): plainsOf).
					hint := f.Func.Name
					if idx < len(user.ArgNames) && user.ArgNames[idx] != "" {
						hint = user.ArgNames[idx]
					}
					// sqlc spells it as the declaration does, and matches
					// db_type overrides with that spelling only.
					a.typeParam(p, userArgValue(user, idx), hint)
				}
			}
			args[i] = a.expr(sc, x)
		}
		// sqlc treats a user-defined function's result as NOT NULL.
		if user.ReturnType != nil {
			out := value{Name: f.Func.Name, Type: *user.ReturnType, NotNull: true, Known: user.ReturnType.Name != "record"}
			if user.ReturnType.ArrayDims == 0 {
				out.DBType = user.ReturnDBType
			}
			return out, args, nil
		}
		if len(user.ReturnsTable) == 1 {
			c := user.ReturnsTable[0]
			return value{Name: f.Func.Name, Type: c.Type, NotNull: true, Known: true}, args, nil
		}
		return value{Name: f.Func.Name}, args, nil
	}
	// Arguments other than parameters are typed first: the function is
	// resolved from them, and then types the parameters. An ordered-set
	// aggregate's WITHIN GROUP expressions are its last arguments.
	callArgs := append(slices.Clone(f.Args), f.WithinGroup...)
	argNames := append(slices.Clone(f.ArgNames), make([]string, len(f.WithinGroup))...)
	args = make([]value, len(callArgs))
	infos := make([]argInfo, len(callArgs))
	for i, x := range callArgs {
		infos[i].name = argNames[i]
		if p, ok := unwrapParam(x); ok {
			if pr := a.param(p.Number); pr.Known {
				infos[i].value = value{Type: pr.Type, NotNull: pr.NotNull, Known: true}
			} else {
				infos[i].unknown = true
			}
			continue
		}
		args[i] = a.expr(sc, x)
		infos[i].value = args[i]
		if c, ok := x.(*sqlparse.Const); ok && (c.Kind == "string" || c.Kind == "null") || !args[i].Known {
			infos[i].unknown = true
		}
	}
	byName, cands := a.builtinCandidates(f.Func.Schema, name, infos, f.Variadic)
	if name == "unnest" && len(f.Args) > 1 {
		// unnest(a, b, ...) in FROM zips its arrays (PostgreSQL docs,
		// 7.2.1.4 "Table Functions"); rangeFuncCols gives its columns.
		byName = nil
	}
	if len(byName) == 0 {
		for i, x := range callArgs {
			if p, ok := unwrapParam(x); ok {
				args[i] = a.expr(sc, x)
				// Like sqlc, a parameter passed to a function it does not
				// know is named after the function (frobnicate($1)).
				if pr := a.param(p.Number); pr.Name == "" && !a.opts.StrictFunctionChecks {
					pr.Name = f.Func.Name
				}
			}
		}
		if a.opts.StrictFunctionChecks {
			// sqlc's wording (strict_function_checks), at the call.
			a.errorf(f.Loc, "function %q does not exist", f.Func.String())
			return value{}, args, nil
		}
		if f.Func.Schema == "" || f.Func.Schema == "pg_catalog" {
			// A function fencegen does not know (one created outside the
			// schema it was given, as real projects' migrations often do):
			// its result type is unknown, as in sqlc.
			return value{Name: name}, args, nil
		}
		a.errorf(f.Loc, "function %s does not exist", f.Func.String())
		return value{}, args, nil
	}
	if len(cands) == 0 {
		var types []string
		for i, x := range callArgs {
			types = append(types, a.argTypeName(infos[i], x))
		}
		a.errorf(f.Loc, "function %s(%s) does not exist", name, strings.Join(types, ", "))
		return value{}, args, nil
	}
	c := a.resolveBuiltin(cands, infos)
	elem, _, found := polyType(c, infos)
	for i, x := range callArgs {
		p, ok := unwrapParam(x)
		if !ok {
			if x, isOp := x.(*sqlparse.AExpr); isOp && a.swallowers[x] != nil && i < len(f.Args) && argNames[i] == "" && (f.Func.Schema == "" || f.Func.Schema == "pg_catalog") {
				// abs(@a - 1): sqlc's parameter is the whole argument
				// (sqlcSwallowed), typed as a direct argument is, below.
				if st, ok := a.sqlcFuncParam(name, len(f.Args), i); ok {
					a.sqlcSwallowedAsType(a.swallowers[x], &st)
				}
			}
			continue
		}
		t, hint := c.types[i], name
		if argNames[i] != "" {
			hint = argNames[i]
		} else if k := c.pos[i]; k < len(c.fn.ArgNames) && c.fn.ArgNames[k] != "" {
			hint = c.fn.ArgNames[k]
		}
		// sqlc types a parameter from the argument's declared type,
		// which for a polymorphic one (anyelement, anycompatiblearray)
		// its Go mapping lacks: interface{} (array_append(tags, @tag)).
		// sqlc types it from its catalog's first overload taking the
		// call's number of arguments, which may be another than
		// PostgreSQL's (upper(@s): anymultirange, so interface{}).
		var sqlcParam *SqlcType
		if i < len(f.Args) && argNames[i] == "" && (f.Func.Schema == "" || f.Func.Schema == "pg_catalog") {
			if st, ok := a.sqlcFuncParam(name, len(f.Args), i); ok {
				sqlcParam = &st
			}
		}
		switch {
		case polyElem[t] && found:
			a.typeParam(p, value{Type: elem, NotNull: true, Known: true, sqlcUntyped: true, sqlcParam: sqlcParam}, hint)
		case polyArray[t] && found:
			arr := elem
			arr.ArrayDims++
			a.typeParam(p, value{Type: arr, NotNull: true, Known: true, sqlcUntyped: true, sqlcParam: sqlcParam}, hint)
		case !isPoly(t) && t != "record":
			// sqlc spells the parameter's type as the function's
			// declared argument ("text" for lower(@email)), so a
			// db_type override for a domain over text does not apply.
			a.typeParam(p, value{Type: typeOf(t), NotNull: true, Known: true, DBType: strings.TrimRight(t, "[]"), sqlcParam: sqlcParam}, hint)
		}
		args[i] = a.expr(sc, x)
		infos[i].value, infos[i].unknown = args[i], false
	}
	out := builtinResult(name, c, infos)
	if c.fn.Kind == 'a' && sc.grouped && !f.Over && f.Filter == nil && len(f.WithinGroup) == 0 {
		// A group of GROUP BY has a row at least: these aggregates are
		// NULL over no rows only, or, for the strict ones, when every
		// input is NULL.
		notNull := true
		for _, x := range infos {
			notNull = notNull && x.Known && x.NotNull
		}
		if nonNullOnRows[name] || strictOnRows[name] && notNull {
			out.NotNull = true
		}
	}
	return out, args, c.fn
}

// strictOnRows are the aggregates that return a value, never NULL, for
// any non-empty input without NULLs: they skip NULL inputs, and are NULL
// when no input is left (PostgreSQL docs, 9.21 "Aggregate Functions";
// not stddev and the like, NULL for one row).
var strictOnRows = map[string]bool{
	"sum": true, "min": true, "max": true, "avg": true, "bool_and": true, "bool_or": true, "every": true,
	"bit_and": true, "bit_or": true, "bit_xor": true, "string_agg": true, "any_value": true,
}

// nonNullOnRows are the aggregates that return a value, never NULL, for
// any non-empty input, NULL inputs included (PostgreSQL docs, 9.21
// "Aggregate Functions": count counts, the array and JSON aggregates keep
// NULLs as elements or JSON nulls).
var nonNullOnRows = map[string]bool{
	"count": true, "array_agg": true, "json_agg": true, "jsonb_agg": true,
	"json_object_agg": true, "jsonb_object_agg": true,
}

// unwrapParam returns the parameter x is, possibly under a cast-free
// COLLATE.
func unwrapParam(x sqlparse.Node) (*sqlparse.Param, bool) {
	p, ok := x.(*sqlparse.Param)
	return p, ok
}

// argTypeName is how PostgreSQL names an argument's type in "function
// f(...) does not exist": unknown for untyped literals and parameters.
func (a *analyzer) argTypeName(x argInfo, n sqlparse.Node) string {
	if c, ok := n.(*sqlparse.Const); ok {
		switch c.Kind {
		case "int":
			return "integer"
		case "float":
			return "numeric"
		case "bool":
			return "boolean"
		}
	}
	if x.unknown || !x.Known {
		return "unknown"
	}
	return x.Type.String()
}

// rangeFuncCols returns the columns a function call (or CURRENT_DATE and
// the like) contributes to FROM. A function returning a scalar gives one
// column named after the alias (when nameByAlias) or the function.
// compositeCols returns the columns a function result v of a row type
// has in FROM, where PostgreSQL expands a composite result into its
// fields (SELECT * FROM pairs(3), unnest($1::pair[]),
// jsonb_populate_recordset(NULL::pair, $1) return columns a and b), and
// false for any other type. A table's row type has the table's columns:
// like sqlc, a function returning SETOF a table keeps the table's NOT
// NULL, and its rows are the table's model, with the columns' overrides
// (SELECT * FROM users_of($1) returns []User). A composite type's fields
// may be NULL. sqlc v1.31.1 reads a composite type's result as one
// column, and the scan of the row's two or more fields into it fails
// when the query runs.
func (a *analyzer) compositeCols(v value) ([]value, bool) {
	if !v.Known || v.Type.IsArray() {
		return nil, false
	}
	if t := a.cat.Table(v.Type.Schema, v.Type.Name); t != nil {
		var out []value
		for _, c := range t.Columns {
			out = append(out, value{Name: c.Name, Type: c.Type, NotNull: c.NotNull, Known: true, Column: c, DBType: c.DBType})
		}
		return out, true
	}
	if ut := a.cat.UserType(v.Type.Schema, v.Type.Name); ut != nil && ut.Kind == "composite" && len(ut.Columns) > 0 {
		var out []value
		for _, c := range ut.Columns {
			out = append(out, value{Name: c.Name, Type: c.Type, Known: true, DBType: c.DBType})
		}
		return out, true
	}
	return nil, false
}

func (a *analyzer) rangeFuncCols(sc *scope, fe sqlparse.Node, alias string, nameByAlias bool) []value {
	f, ok := fe.(*sqlparse.FuncCall)
	if !ok {
		v := a.expr(sc, fe)
		if svf, ok := fe.(*sqlparse.SQLValueFunction); ok {
			v.Name = svf.Name
		}
		if alias != "" && nameByAlias {
			v.Name = alias
		}
		v.Column = nil
		return []value{v}
	}
	v, args, fn := a.funcCallArgs(sc, f)
	fs := a.cat.Funcs(f.Func.Schema, f.Func.Name) // the schema's functions of the name
	if len(fs) > 0 && len(fs[0].ReturnsTable) > 0 {
		var out []value
		for _, c := range fs[0].ReturnsTable {
			out = append(out, value{Name: c.Name, Type: c.Type, NotNull: false, Known: true})
		}
		if len(out) == 1 && fs[0].TableReturn {
			out[0].oneOut = true
		}
		return out
	}
	if out, ok := a.compositeCols(v); ok {
		return out
	}
	name := strings.ToLower(f.Func.Name)
	if fn != nil && len(fn.Columns) > 0 {
		// OUT parameters or RETURNS TABLE (jsonb_each's key and value,
		// jsonb_array_elements' value).
		var out []value
		for _, c := range fn.Columns {
			col := value{Name: c.Name, Type: typeOf(c.Type), Known: !isPoly(c.Type) && c.Type != "record"}
			if len(fn.Columns) == 1 {
				col.Type, col.Known = v.Type, v.Known
			}
			out = append(out, col)
		}
		return out
	}
	if name == "unnest" && len(args) > 1 {
		// unnest(a, b, ...) zips its arrays: one column per array.
		var out []value
		for _, x := range args {
			c := value{Name: "unnest", Known: x.Known, Type: x.Type.Elem()}
			if cols, ok := a.compositeCols(c); ok {
				// An array of a composite type: its fields, as for
				// unnest of the one array.
				out = append(out, cols...)
				continue
			}
			out = append(out, c)
		}
		return out
	}
	v.Name = f.Func.Name
	if alias != "" && nameByAlias {
		v.Name = alias
	}
	v.Column = nil
	if fn == nil && len(fs) > 0 {
		// Like sqlc (sourceTables), the one column of a user-defined
		// function returning a base type may be NULL in FROM, although
		// the same call in a select list is NOT NULL.
		v.NotNull = false
	}
	return []value{v}
}

// userArgValue is the value of argument idx of user function fn as sqlc
// types a parameter there: the declared type, NOT NULL, spelled as the
// declaration spells it (db_type overrides match that spelling only).
func userArgValue(fn *catalog.Func, idx int) value {
	v := value{Type: fn.ArgTypes[idx], NotNull: true, Known: true}
	if idx < len(fn.ArgDBTypes) && fn.ArgTypes[idx].ArrayDims == 0 {
		v.DBType = fn.ArgDBTypes[idx]
	}
	return v
}
