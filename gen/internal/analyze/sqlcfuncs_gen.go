//go:build ignore

// Command sqlcfuncs_gen writes sqlcfuncs.go (sqlcFuncTable) from sqlc v1.31.1's source:
//
//	go run sqlcfuncs_gen.go SQLC/internal/engine/postgresql/pg_catalog.go \
//	    SQLC/internal/codegen/golang/postgresql_type.go > sqlcfuncs.go && gofmt -w sqlcfuncs.go
//
// where SQLC is a checkout of github.com/sqlc-dev/sqlc at v1.31.1. It
// replays sqlc's ResolveFuncCall (internal/sql/catalog/public.go: the
// first overload, in pg_catalog.go's order, whose input arguments take
// the call's number of arguments) for 0 to 16 arguments, and records
// whether sqlc's Go type for that overload's return type is interface{}
// (a type name no case of postgresType lists) and, when it is not, the
// return type's name, and, per argument, the type that overload declares
// (sqlc types a parameter passed to the function from it).
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

type arg struct {
	variadic, def, out bool
	typ                string
}
type fn struct {
	name string
	args []arg
	ret  string
}

func str(e ast.Expr) string {
	if b, ok := e.(*ast.BasicLit); ok {
		s, _ := strconv.Unquote(b.Value)
		return s
	}
	return ""
}

func main() {
	fs := token.NewFileSet()
	f, err := parser.ParseFile(fs, os.Args[1], nil, 0)
	if err != nil {
		panic(err)
	}
	var fns []fn
	ast.Inspect(f, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "funcsgenPGCatalog" {
			return true
		}
		cl := vs.Values[0].(*ast.CompositeLit)
		for _, el := range cl.Elts {
			var x fn
			for _, kv := range el.(*ast.CompositeLit).Elts {
				kv := kv.(*ast.KeyValueExpr)
				switch kv.Key.(*ast.Ident).Name {
				case "Name":
					x.name = str(kv.Value)
				case "ReturnType":
					for _, e := range kv.Value.(*ast.UnaryExpr).X.(*ast.CompositeLit).Elts {
						e := e.(*ast.KeyValueExpr)
						if e.Key.(*ast.Ident).Name == "Name" {
							x.ret = str(e.Value)
						}
					}
				case "Args":
					for _, a := range kv.Value.(*ast.CompositeLit).Elts {
						var y arg
						for _, e := range a.(*ast.CompositeLit).Elts {
							e := e.(*ast.KeyValueExpr)
							switch e.Key.(*ast.Ident).Name {
							case "Type":
								for _, t := range e.Value.(*ast.UnaryExpr).X.(*ast.CompositeLit).Elts {
									t := t.(*ast.KeyValueExpr)
									if t.Key.(*ast.Ident).Name == "Name" {
										y.typ = str(t.Value)
									}
								}
							case "HasDefault":
								y.def = true
							case "Mode":
								s := fmt.Sprint(e.Value.(*ast.SelectorExpr).Sel.Name)
								y.variadic = s == "FuncParamVariadic"
								y.out = s == "FuncParamOut" || s == "FuncParamTable"
							}
						}
						x.args = append(x.args, y)
					}
				}
			}
			fns = append(fns, x)
		}
		return false
	})
	byName := map[string][]fn{}
	var names []string
	for _, x := range fns {
		if byName[x.name] == nil {
			names = append(names, x.name)
		}
		byName[x.name] = append(byName[x.name], x)
	}
	sort.Strings(names)
	mapped := map[string]bool{}
	pt, err := os.ReadFile(os.Args[2])
	if err != nil {
		panic(err)
	}
	caseRE := regexp.MustCompile(`(?m)^\s*case (.*):$`)
	litRE := regexp.MustCompile(`"([^"]*)"`)
	for _, m := range caseRE.FindAllStringSubmatch(string(pt), -1) {
		for _, l := range litRE.FindAllStringSubmatch(m[1], -1) {
			mapped[l[1]] = true
		}
	}
	const max = 16
	rets := map[string][]string{}
	params := map[string]string{}
	codes := map[string]string{}
	for _, name := range names {
		code := make([]byte, max+1)
		ret := make([]string, max+1)
		par := make([]string, max+1)
		for n := 0; n <= max; n++ {
			code[n] = '.'
			for _, x := range byName[name] {
				var in []arg
				for _, a := range x.args {
					if !a.out {
						in = append(in, a)
					}
				}
				defs, variadic := 0, false
				for _, a := range in {
					if a.def {
						defs++
					}
					if a.variadic {
						variadic = true
						defs++
					}
				}
				if variadic {
					if n < len(in)-defs {
						continue
					}
				} else if n > len(in) || n < len(in)-defs {
					continue
				}
				if mapped[x.ret] {
					code[n] = 't'
					ret[n] = x.ret
				} else {
					code[n] = 'a'
				}
				// sqlc types the argument at position i from Args[i]
				// (out arguments included): its name when postgresType
				// maps it, "?" for interface{}.
				var ts []string
				for i := 0; i < n; i++ {
					if i < len(x.args) && mapped[x.args[i].typ] {
						ts = append(ts, x.args[i].typ)
					} else {
						ts = append(ts, "?")
					}
				}
				par[n] = strings.Join(ts, ",")
				break
			}
		}
		s := string(code)
		if code[max] == '.' {
			s = strings.TrimRight(s, ".")
		} else {
			k := max
			for k > 0 && code[k-1] == code[max] {
				k--
			}
			s = s[:k+1] + "+"
		}
		if _, dup := codes[strings.ToLower(name)]; dup {
			panic("two functions named " + strings.ToLower(name) + " in any case")
		}
		codes[strings.ToLower(name)] = s
		if code[max] == '.' {
			k := max
			for k > 0 && code[k] == '.' {
				k--
			}
			par = par[:k+1]
		}
		params[strings.ToLower(name)] = strings.Join(par, "|")
		if strings.Contains(s, "t") {
			// The same compression for the return types.
			k := max
			for k > 0 && ret[k-1] == ret[max] {
				k--
			}
			r := ret[:k+1]
			if ret[max] != "" {
				r = append(r, "+")
			} else {
				for len(r) > 0 && r[len(r)-1] == "" {
					r = r[:len(r)-1]
				}
			}
			rets[strings.ToLower(name)] = r
		}
	}
	froms := map[string]string{}
	for _, name := range names {
		if first := byName[name][0]; mapped[first.ret] {
			froms[strings.ToLower(name)] = first.ret
		}
	}
	lower := make([]string, 0, len(codes))
	for name := range codes {
		lower = append(lower, name)
	}
	sort.Strings(lower)
	fmt.Println("// Code generated by sqlcfuncs_gen.go from sqlc v1.31.1; DO NOT EDIT.")
	fmt.Println()
	fmt.Println("package analyze")
	fmt.Println()
	fmt.Println("// sqlcFuncTable is every function of sqlc v1.31.1's pg_catalog")
	fmt.Println("// (internal/engine/postgresql/pg_catalog.go), one entry per lower-case")
	fmt.Println("// name, sorted by it (sqlcFunc gives the fields). An array of constants,")
	fmt.Println("// laid out by the linker: no code runs to build it when the program starts.")
	fmt.Println("var sqlcFuncTable = [...]sqlcFunc{")
	for _, name := range lower {
		var types strings.Builder
		if r := rets[name]; r != nil {
			types.WriteString("[]string{")
			for i, x := range r {
				if i > 0 {
					types.WriteString(", ")
				}
				fmt.Fprintf(&types, "%q", x)
			}
			types.WriteString("}")
		} else {
			types.WriteString("nil")
		}
		fmt.Printf("\t{%q, %q, %s, %q, %q},\n", name, codes[name], types.String(), params[name], froms[name])
	}
	fmt.Println("}")
}
