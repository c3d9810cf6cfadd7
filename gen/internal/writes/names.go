package writes

import (
	"strings"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// Names returns every name the parse trees refer to, folded to lower
// case: each identifier (relations, columns, functions, types, domains,
// schemas), operator symbol and option word, wherever it is in the tree,
// but not the values of literals (a string constant that spells a name
// runs nothing). The analysis of what a view's query, a column default, a
// CHECK, an index expression, a policy or a domain's definition sets off
// (analyze/hooks.go) looks the schema's views, functions, operators and
// domains up in it: read from the tree, a name is found however it is
// written (quoted, Unicode-escaped, split over lines or comments) and a
// comment or string that spells one is none. Lower case makes the match a
// superset of PostgreSQL's (a quoted "Jobs" matches jobs too).
func Names(trees ...*pg.Node) map[string]bool {
	out := map[string]bool{}
	var visit func(m protoreflect.Message)
	visit = func(m protoreflect.Message) {
		if _, ok := m.Interface().(*pg.A_Const); ok {
			return
		}
		m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.Kind() == protoreflect.StringKind && fd.IsList():
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					out[strings.ToLower(l.Get(i).String())] = true
				}
			case fd.Kind() == protoreflect.StringKind:
				if s := v.String(); s != "" {
					out[strings.ToLower(s)] = true
				}
			case fd.Kind() != protoreflect.MessageKind:
			case fd.IsList():
				l := v.List()
				for i := 0; i < l.Len(); i++ {
					visit(l.Get(i).Message())
				}
			default:
				visit(v.Message())
			}
			return true
		})
	}
	for _, n := range trees {
		if n != nil {
			visit(n.ProtoReflect())
		}
	}
	return out
}
