package analyze

import (
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
}

func (a *analyzer) funcCall(sc *scope, f *sqlparse.FuncCall) value {
	name := strings.ToLower(f.Func.Name)
	args := make([]value, len(f.Args))
	// User-defined functions type their parameters.
	var user *catalog.Func
	for _, fn := range a.cat.Funcs(f.Func.Schema, f.Func.Name) {
		if len(fn.ArgTypes) >= len(f.Args) {
			user = fn
			break
		}
	}
	for i, x := range f.Args {
		if p, ok := x.(*sqlparse.Param); ok && user != nil && i < len(user.ArgTypes) {
			hint := ""
			if i < len(user.ArgNames) {
				hint = user.ArgNames[i]
			}
			if f.ArgNames[i] != "" {
				hint = f.ArgNames[i]
			}
			a.typeParam(p.Number, value{Type: user.ArgTypes[i], NotNull: true, Known: true}, hint)
		}
		args[i] = a.expr(sc, x)
	}
	if user != nil {
		if user.ReturnType != nil {
			return value{Name: f.Func.Name, Type: *user.ReturnType, NotNull: false, Known: user.ReturnType.Name != "record"}
		}
		return value{Name: f.Func.Name}
	}
	b, ok := builtinFuncs[name]
	if !ok {
		if f.Func.Schema == "" || f.Func.Schema == "pg_catalog" {
			return value{Name: name}
		}
		a.errorf(f.Loc, "function %s does not exist", f.Func.String())
		return value{}
	}
	out := value{Name: name, NotNull: b.notNull, Known: true}
	switch b.ret {
	case "$1", "$1[]", "$1elem":
		if len(args) == 0 || !args[0].Known {
			return value{Name: name}
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
			return value{Name: name}
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
	// Window functions over a partition may see no row: keep aggregates'
	// nullability; count is never NULL.
	return out
}
