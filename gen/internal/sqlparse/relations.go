package sqlparse

import (
	"slices"

	pg "github.com/pganalyze/pg_query_go/v5"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// queryRelations returns the relations that query (a view's) names
// anywhere in its tree (FROM lists, joins, subqueries, WITH entries), in
// tree order, each once: every RangeVar but an unqualified one spelt like
// a WITH entry in whose statement it is (it names that entry).
func queryRelations(query *pg.Node) []Name {
	if query == nil {
		return nil
	}
	var out []Name
	WalkMessages(query.ProtoReflect(), []string(nil), func(m protoreflect.Message, ctes []string) ([]string, bool) {
		if n, ok := m.Interface().(*pg.RangeVar); ok {
			if n.Schemaname == "" && slices.Contains(ctes, n.Relname) {
				return ctes, false
			}
			name := rangeVarName(n)
			if !slices.ContainsFunc(out, func(o Name) bool { return o.Schema == name.Schema && o.Name == name.Name }) {
				out = append(out, name)
			}
			return ctes, false
		}
		// A statement's WITH entries are in scope in all of it (its
		// entries included, as under WITH RECURSIVE).
		if fd := m.Descriptor().Fields().ByName("with_clause"); fd != nil && m.Has(fd) {
			if w, ok := m.Get(fd).Message().Interface().(*pg.WithClause); ok {
				ctes = slices.Clone(ctes)
				for _, c := range w.Ctes {
					if cte := c.GetCommonTableExpr(); cte != nil {
						ctes = append(ctes, cte.Ctename)
					}
				}
			}
		}
		return ctes, true
	})
	return out
}
