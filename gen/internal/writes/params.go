package writes

import (
	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// ParamLocs returns the offsets, in tree order, of the parameters in
// the parse tree n: every $n (a named parameter @name is one too, as
// sqlparse parses it) and every sqlc.arg, sqlc.narg and sqlc.slice call.
// It lets a caller find the parameters of a statement its own model does
// not read (MERGE), so that none is lost silently.
func ParamLocs(n *pg.Node) []int {
	var out []int
	if n == nil {
		return out
	}
	sqlparse.EachMessage(n.ProtoReflect(), func(m protoreflect.Message) bool {
		switch x := m.Interface().(type) {
		case *pg.ParamRef:
			out = append(out, int(x.Location))
			return false
		case *pg.FuncCall:
			if len(x.Funcname) == 2 && x.Funcname[0].GetString_().GetSval() == "sqlc" {
				switch x.Funcname[1].GetString_().GetSval() {
				case "arg", "narg", "slice":
					out = append(out, int(x.Location))
					return false
				}
			}
		}
		return true
	})
	return out
}
