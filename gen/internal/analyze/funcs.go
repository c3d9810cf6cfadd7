package analyze

import (
	"slices"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// builtinFuncs gives the result type of common PostgreSQL functions
// (PostgreSQL docs, chapter 9 "Functions and Operators"). "$1" means the
// type of the first argument.
var builtinFuncs = map[string]struct {
	ret     string
	notNull bool
}{
	"count": {"int8", true}, "now": {"timestamptz", true}, "lower": {"text", true}, "upper": {"text", true},
	"length": {"int4", true}, "char_length": {"int4", true}, "concat": {"text", true}, "concat_ws": {"text", true},
	"substring": {"text", true}, "substr": {"text", true}, "trim": {"text", true}, "btrim": {"text", true},
	"replace": {"text", true}, "md5": {"text", true}, "random": {"float8", true}, "gen_random_uuid": {"uuid", true},
	"uuid_generate_v4": {"uuid", true}, "to_char": {"text", true}, "date_trunc": {"timestamptz", true},
	"abs": {"$1", true}, "round": {"numeric", true}, "floor": {"$1", true}, "ceil": {"$1", true},
	"min": {"$1", false}, "max": {"$1", false}, "sum": {"sum", false}, "avg": {"numeric", false},
	"array_agg": {"$1[]", false}, "string_agg": {"text", false}, "bool_and": {"bool", false}, "bool_or": {"bool", false},
	"json_agg": {"json", false}, "jsonb_agg": {"jsonb", false}, "json_build_object": {"json", true},
	"jsonb_build_object": {"jsonb", true}, "to_jsonb": {"jsonb", true}, "to_json": {"json", true},
	"row_number": {"int8", true}, "rank": {"int8", true}, "dense_rank": {"int8", true},
	"lag": {"$1", false}, "lead": {"$1", false}, "first_value": {"$1", false}, "last_value": {"$1", false},
	"unnest": {"$1elem", true}, "array_length": {"int4", false}, "cardinality": {"int4", true},
	"nextval": {"int8", true}, "currval": {"int8", true}, "setval": {"int8", true},
	"extract": {"numeric", true}, "date_part": {"float8", true}, "age": {"interval", true},
	"clock_timestamp": {"timestamptz", true}, "statement_timestamp": {"timestamptz", true},
	"pg_advisory_lock": {"void", true}, "pg_try_advisory_lock": {"bool", true},
	"pg_advisory_xact_lock": {"void", true}, "pg_try_advisory_xact_lock": {"bool", true},
	"generate_series": {"$1", true}, "greatest": {"$1", true}, "least": {"$1", true},
	"to_tsvector": {"tsvector", true}, "to_tsquery": {"tsquery", true}, "plainto_tsquery": {"tsquery", true},
	"ts_rank": {"float4", true}, "split_part": {"text", true}, "position": {"int4", true},
	"make_interval": {"interval", true}, "to_timestamp": {"timestamptz", true}, "left": {"text", true}, "right": {"text", true},
	"pg_advisory_unlock": {"bool", true}, "pg_advisory_unlock_shared": {"bool", true}, "pg_advisory_lock_shared": {"void", true},
	"pg_advisory_unlock_all": {"void", true}, "pg_try_advisory_lock_shared": {"bool", true},
	"json_build_array": {"json", true}, "jsonb_build_array": {"jsonb", true}, "json_object": {"json", true},
	"jsonb_object": {"jsonb", true}, "jsonb_extract_path": {"jsonb", true}, "json_extract_path": {"json", true},
	"jsonb_extract_path_text": {"text", true}, "json_extract_path_text": {"text", true}, "jsonb_set": {"jsonb", true},
	"jsonb_insert": {"jsonb", true}, "jsonb_strip_nulls": {"jsonb", true}, "json_strip_nulls": {"json", true},
	"jsonb_pretty": {"text", true}, "jsonb_typeof": {"text", true}, "json_typeof": {"text", true},
	"jsonb_array_length": {"int4", true}, "json_array_length": {"int4", true}, "jsonb_object_agg": {"jsonb", false},
	"json_object_agg": {"json", false}, "row_to_json": {"json", true}, "array_to_json": {"json", true},
	"jsonb_path_query_first": {"jsonb", true}, "jsonb_path_exists": {"bool", true}, "jsonb_path_match": {"bool", true},
	"uuid_generate_v5": {"uuid", true}, "uuid_generate_v1": {"uuid", true}, "uuid_generate_v3": {"uuid", true},
	"initcap": {"text", true}, "ltrim": {"text", true}, "rtrim": {"text", true}, "reverse": {"text", true},
	"repeat": {"text", true}, "lpad": {"text", true}, "rpad": {"text", true}, "strpos": {"int4", true},
	"octet_length": {"int4", true}, "regexp_replace": {"text", true}, "array_to_string": {"text", true},
	"string_to_array": {"text[]", true}, "array_position": {"int4", false}, "array_remove": {"$1", true},
	"array_append": {"$1", true}, "array_cat": {"$1", true}, "websearch_to_tsquery": {"tsquery", true},
	"phraseto_tsquery": {"tsquery", true}, "ts_rank_cd": {"float4", true}, "current_schema": {"name", true},
	"current_database": {"name", true}, "txid_current": {"int8", true}, "pg_backend_pid": {"int4", true},
	"timezone": {"timestamp", true}, "date": {"date", true}, "trunc": {"$1", true}, "sqrt": {"float8", true},
	"power": {"float8", true}, "mod": {"$1", true}, "sign": {"$1", true}, "ln": {"float8", true}, "exp": {"float8", true},
	"percentile_cont": {"float8", false}, "percentile_disc": {"$1", false}, "stddev": {"numeric", false},
	"variance": {"numeric", false}, "every": {"bool", false}, "ntile": {"int4", true}, "percent_rank": {"float8", true},
	"cume_dist": {"float8", true}, "nth_value": {"$1", false}, "pg_notify": {"void", true},
	"to_regclass": {"regclass", false}, "to_regtype": {"regtype", false}, "to_regproc": {"regproc", false},
}

// builtinArity lists, for built-in functions whose every form fencegen
// knows, the accepted argument counts: a call with another count does not
// exist.
var builtinArity = map[string][]int{
	"random": {0}, "now": {0}, "gen_random_uuid": {0}, "clock_timestamp": {0}, "statement_timestamp": {0},
	"pg_backend_pid": {0}, "txid_current": {0}, "current_database": {0}, "current_schema": {0},
	"lower": {1}, "upper": {1}, "md5": {1}, "initcap": {1}, "reverse": {1},
	"pg_advisory_lock": {1, 2}, "pg_advisory_xact_lock": {1, 2}, "pg_try_advisory_lock": {1, 2},
	"pg_try_advisory_xact_lock": {1, 2}, "pg_advisory_unlock": {1, 2}, "pg_advisory_lock_shared": {1, 2},
	"pg_advisory_unlock_shared": {1, 2}, "pg_try_advisory_lock_shared": {1, 2}, "pg_advisory_unlock_all": {0},
	"count": {0, 1}, "date_trunc": {2, 3}, "split_part": {3}, "replace": {3}, "left": {2}, "right": {2},
}

// builtinSigs gives the argument types of built-in functions by argument
// count (the usual form when PostgreSQL has several), so that parameters
// passed to them are typed (PostgreSQL docs, chapter 9).
var builtinSigs = map[string]map[int][]string{
	"pg_advisory_lock": {1: {"int8"}, 2: {"int4", "int4"}}, "pg_advisory_xact_lock": {1: {"int8"}, 2: {"int4", "int4"}},
	"pg_try_advisory_lock": {1: {"int8"}, 2: {"int4", "int4"}}, "pg_try_advisory_xact_lock": {1: {"int8"}, 2: {"int4", "int4"}},
	"pg_advisory_unlock": {1: {"int8"}, 2: {"int4", "int4"}}, "pg_advisory_lock_shared": {1: {"int8"}, 2: {"int4", "int4"}},
	"pg_advisory_unlock_shared": {1: {"int8"}, 2: {"int4", "int4"}}, "pg_try_advisory_lock_shared": {1: {"int8"}, 2: {"int4", "int4"}},
	"lower": {1: {"text"}}, "upper": {1: {"text"}}, "initcap": {1: {"text"}}, "reverse": {1: {"text"}},
	"length": {1: {"text"}}, "char_length": {1: {"text"}}, "octet_length": {1: {"text"}},
	"btrim": {1: {"text"}, 2: {"text", "text"}}, "ltrim": {1: {"text"}, 2: {"text", "text"}}, "rtrim": {1: {"text"}, 2: {"text", "text"}},
	"date_trunc": {2: {"text", "timestamptz"}, 3: {"text", "timestamptz", "text"}},
	"date_part":  {2: {"text", "timestamptz"}},
	"split_part": {3: {"text", "text", "int4"}}, "replace": {3: {"text", "text", "text"}},
	"left": {2: {"text", "int4"}}, "right": {2: {"text", "int4"}}, "repeat": {2: {"text", "int4"}},
	"substr": {2: {"text", "int4"}, 3: {"text", "int4", "int4"}}, "strpos": {2: {"text", "text"}},
	"lpad": {2: {"text", "int4"}, 3: {"text", "int4", "text"}}, "rpad": {2: {"text", "int4"}, 3: {"text", "int4", "text"}},
	"regexp_replace": {3: {"text", "text", "text"}, 4: {"text", "text", "text", "text"}},
	"to_tsquery":     {1: {"text"}}, "plainto_tsquery": {1: {"text"}}, "websearch_to_tsquery": {1: {"text"}},
	"phraseto_tsquery": {1: {"text"}}, "to_tsvector": {1: {"text"}},
	"to_timestamp": {1: {"float8"}, 2: {"text", "text"}}, "to_char": {2: {"", "text"}},
	"nextval": {1: {"text"}}, "currval": {1: {"text"}}, "setval": {2: {"text", "int8"}},
	"uuid_generate_v5": {2: {"uuid", "text"}}, "uuid_generate_v3": {2: {"uuid", "text"}},
	"make_interval": {1: {"int4"}, 2: {"int4", "int4"}, 3: {"int4", "int4", "int4"}, 4: {"int4", "int4", "int4", "int4"},
		5: {"int4", "int4", "int4", "int4", "int4"}, 6: {"int4", "int4", "int4", "int4", "int4", "int4"},
		7: {"int4", "int4", "int4", "int4", "int4", "int4", "float8"}},
	"string_to_array": {2: {"text", "text"}}, "array_to_string": {2: {"", "text"}},
	"jsonb_extract_path": {}, "pg_notify": {2: {"text", "text"}}, "md5": {1: {"text"}},
	"to_regclass": {1: {"text"}}, "to_regtype": {1: {"text"}}, "to_regproc": {1: {"text"}},
}

// builtinNamedArgs types parameters passed by name (name => $1).
var builtinNamedArgs = map[string]map[string]string{
	"make_interval": {"years": "int4", "months": "int4", "weeks": "int4", "days": "int4", "hours": "int4", "mins": "int4", "secs": "float8"},
}

// builtinArgTypes returns the argument types of built-in function name
// called with n arguments, and whether the function is known.
func builtinArgTypes(name string, n int) ([]string, bool) {
	sigs, ok := builtinSigs[name]
	if !ok {
		return nil, false
	}
	return sigs[n], true
}

func (a *analyzer) funcCall(sc *scope, f *sqlparse.FuncCall) value {
	v, _ := a.funcCallArgs(sc, f)
	return v
}

// funcCallArgs types a function call and returns its arguments' values too.
func (a *analyzer) funcCallArgs(sc *scope, f *sqlparse.FuncCall) (value, []value) {
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
	builtinArgs, isBuiltin := builtinArgTypes(name, len(f.Args))
	if user == nil && (f.Func.Schema == "" || f.Func.Schema == "pg_catalog") {
		if arities, ok := builtinArity[name]; ok && !slices.Contains(arities, len(f.Args)) {
			var types []string
			for _, x := range f.Args {
				types = append(types, a.argTypeName(sc, x))
			}
			a.errorf(f.Loc, "function %s(%s) does not exist", name, strings.Join(types, ", "))
			return value{}, args
		}
	}
	for i, x := range f.Args {
		if p, ok := unwrapParam(x); ok {
			switch {
			case user != nil:
				// name => value picks the parameter by name.
				idx := i
				if f.ArgNames[i] != "" {
					if k := slices.Index(user.ArgNames, f.ArgNames[i]); k >= 0 {
						idx = k
					}
				}
				if idx < len(user.ArgTypes) {
					hint := ""
					if idx < len(user.ArgNames) {
						hint = user.ArgNames[idx]
					}
					a.typeParam(p.Number, value{Type: user.ArgTypes[idx], NotNull: true, Known: true}, hint)
				}
			case isBuiltin:
				t, hint := "", name
				if f.ArgNames[i] != "" {
					hint = f.ArgNames[i]
					t = builtinNamedArgs[name][f.ArgNames[i]]
				} else if i < len(builtinArgs) {
					t = builtinArgs[i]
				}
				if t != "" {
					a.typeParam(p.Number, known(t, true), hint)
				}
			}
		}
		args[i] = a.expr(sc, x)
	}
	if user != nil {
		// sqlc treats a user-defined function's result as NOT NULL.
		if user.ReturnType != nil {
			return value{Name: f.Func.Name, Type: *user.ReturnType, NotNull: true, Known: user.ReturnType.Name != "record"}, args
		}
		if len(user.ReturnsTable) == 1 {
			c := user.ReturnsTable[0]
			return value{Name: f.Func.Name, Type: c.Type, NotNull: true, Known: true}, args
		}
		return value{Name: f.Func.Name}, args
	}
	b, ok := builtinFuncs[name]
	if !ok {
		if f.Func.Schema == "" || f.Func.Schema == "pg_catalog" {
			// A function fencegen does not know (a built-in it has no
			// signature for, or one created outside the schema it was given,
			// as real projects' migrations often do): its result type is
			// unknown, as in sqlc.
			return value{Name: name}, args
		}
		a.errorf(f.Loc, "function %s does not exist", f.Func.String())
		return value{}, args
	}
	out := value{Name: name, NotNull: b.notNull, Known: true}
	switch b.ret {
	case "$1", "$1[]", "$1elem":
		if len(args) == 0 || !args[0].Known {
			return value{Name: name}, args
		}
		out.Type = args[0].Type
		if b.ret == "$1[]" {
			out.Type.ArrayDims++
		}
		if b.ret == "$1elem" && out.Type.ArrayDims > 0 {
			out.Type.ArrayDims--
		}
		if b.ret == "$1" && b.notNull {
			out.NotNull = args[0].NotNull
		}
	case "sum":
		if len(args) == 0 || !args[0].Known {
			return value{Name: name}, args
		}
		switch args[0].Type.Name {
		case "int2", "int4":
			out.Type = builtin("int8")
		case "int8", "numeric":
			out.Type = builtin("numeric")
		default:
			out.Type = args[0].Type
		}
	default:
		out.Type = builtin(b.ret)
	}
	return out, args
}

// unwrapParam returns the parameter x is, possibly under a cast-free
// COLLATE.
func unwrapParam(x sqlparse.Node) (*sqlparse.Param, bool) {
	p, ok := x.(*sqlparse.Param)
	return p, ok
}

// argTypeName is how PostgreSQL names an argument's type in "function
// f(...) does not exist": unknown for untyped literals and parameters.
func (a *analyzer) argTypeName(sc *scope, x sqlparse.Node) string {
	switch n := x.(type) {
	case *sqlparse.Const:
		switch n.Kind {
		case "int":
			return "integer"
		case "float":
			return "numeric"
		case "bool":
			return "boolean"
		}
		return "unknown"
	case *sqlparse.Param:
		return "unknown"
	}
	v := a.expr(sc, x)
	if !v.Known {
		return "unknown"
	}
	return v.Type.String()
}

// tableFuncs are built-in set-returning functions with named output
// columns (PostgreSQL docs, 9.16 "JSON Functions and Operators").
var tableFuncs = map[string][][2]string{
	"json_each":                 {{"key", "text"}, {"value", "json"}},
	"jsonb_each":                {{"key", "text"}, {"value", "jsonb"}},
	"json_each_text":            {{"key", "text"}, {"value", "text"}},
	"jsonb_each_text":           {{"key", "text"}, {"value", "text"}},
	"json_array_elements":       {{"value", "json"}},
	"jsonb_array_elements":      {{"value", "jsonb"}},
	"json_array_elements_text":  {{"value", "text"}},
	"jsonb_array_elements_text": {{"value", "text"}},
}

// rangeFuncCols returns the columns a function call (or CURRENT_DATE and
// the like) contributes to FROM. A function returning a scalar gives one
// column named after the alias (when nameByAlias) or the function.
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
	v, args := a.funcCallArgs(sc, f)
	if fs := a.cat.Funcs(f.Func.Schema, f.Func.Name); len(fs) > 0 && len(fs[0].ReturnsTable) > 0 {
		var out []value
		for _, c := range fs[0].ReturnsTable {
			out = append(out, value{Name: c.Name, Type: c.Type, NotNull: false, Known: true})
		}
		return out
	}
	if t := a.cat.Table(v.Type.Schema, v.Type.Name); v.Known && t != nil && !v.Type.IsArray() {
		var out []value
		for _, c := range t.Columns {
			// Like sqlc, a function returning SETOF a table keeps the
			// table's NOT NULL.
			out = append(out, value{Name: c.Name, Type: c.Type, NotNull: c.NotNull, Known: true})
		}
		return out
	}
	name := strings.ToLower(f.Func.Name)
	if cols, ok := tableFuncs[name]; ok && (f.Func.Schema == "" || f.Func.Schema == "pg_catalog") {
		var out []value
		for _, c := range cols {
			out = append(out, value{Name: c[0], Type: builtin(c[1]), Known: true})
		}
		return out
	}
	if name == "unnest" && len(args) > 1 {
		// unnest(a, b, ...) zips its arrays: one column per array.
		var out []value
		for _, x := range args {
			c := value{Name: "unnest", Known: x.Known, Type: x.Type.Elem()}
			out = append(out, c)
		}
		return out
	}
	v.Name = f.Func.Name
	if alias != "" && nameByAlias {
		v.Name = alias
	}
	v.Column = nil
	return []value{v}
}
