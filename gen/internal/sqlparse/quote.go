package sqlparse

import (
	"strings"
	"sync"

	pg "github.com/pganalyze/pg_query_go/v5"

	"github.com/fencegen/fencegen/gen/internal/pgpb"
)

// QuoteIdent quotes a name for SQL unless it is a plain lower-case
// identifier that can stand anywhere a column or table name can: a
// non-keyword, or an unreserved or column-name keyword (PostgreSQL docs,
// Appendix C "SQL Key Words"). Reserved words such as user and order are
// quoted.
func QuoteIdent(s string) string {
	plain := s != ""
	for i, r := range s {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (i > 0 && r >= '0' && r <= '9')) {
			plain = false
		}
	}
	if plain && bareIdent(s) {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// bareIdents caches bareIdent's answers: the generated code spells the
// same few names (tables, columns) once per query, and each answer is a
// cgo call to pg_query's scanner (at a thousand tables, 14,000 calls).
var bareIdents sync.Map // string → bool

// bareIdent reports whether the plain lower-case name s scans as one
// identifier or a keyword that can stand as a column or table name.
func bareIdent(s string) bool {
	if v, ok := bareIdents.Load(s); ok {
		return v.(bool)
	}
	bare := false
	if r, err := pgpb.Scan(s); err == nil && len(r.Tokens) == 1 {
		switch r.Tokens[0].KeywordKind {
		case pg.KeywordKind_NO_KEYWORD, pg.KeywordKind_UNRESERVED_KEYWORD, pg.KeywordKind_COL_NAME_KEYWORD:
			bare = true
		}
	}
	bareIdents.Store(s, bare)
	return bare
}
