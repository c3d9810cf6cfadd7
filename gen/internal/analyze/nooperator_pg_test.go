package analyze

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestNoOperatorIsPostgresRefusal PREPAREs each query: fencegen notes
// "operator does not exist" and "ORDER BY position N is not in select
// list" with PostgreSQL's own message only when
// PostgreSQL refuses the query so, and for every such refusal but those
// of unnoted, and generates every one of them, as sqlc does (issue 23,
// trial t23a F3).
func TestNoOperatorIsPostgresRefusal(t *testing.T) {
	const schema = `CREATE TABLE books (id bigint PRIMARY KEY, title text NOT NULL, code varchar(10), price numeric, n int, r real);`
	pool := testenv.Database(t, schema)
	ctx := context.Background()
	// unnoted are refusals the analysis does not know yet (integer %
	// real; a string literal's unknown type): generated without a note.
	unnoted := map[string]bool{"SELECT n % r AS x FROM books": true, "SELECT title + '1' AS x FROM books": true}
	refused := 0
	for i, query := range []string{
		"SELECT title + 1 AS x FROM books",
		"SELECT id - title AS x FROM books",
		"SELECT code * price AS x FROM books",
		"SELECT title / title AS x FROM books",
		"SELECT id FROM books WHERE title + n > 0",
		"SELECT n % r AS x FROM books",
		"SELECT id + 1 AS x FROM books",
		"SELECT title || 1 AS x FROM books",
		"SELECT title + '1' AS x FROM books",
		"SELECT price * n AS x FROM books",
		"SELECT n + $1 AS x FROM books",
		"SELECT id FROM books ORDER BY 2",
		"SELECT id, title FROM books ORDER BY 2",
		"SELECT id FROM books UNION SELECT n FROM books ORDER BY 3",
		"SELECT * FROM books ORDER BY 6",
		"SELECT * FROM books ORDER BY 7",
	} {
		var want string
		if _, err := pool.Exec(ctx, fmt.Sprintf("PREPARE p%d AS %s", i, query)); err != nil && (strings.Contains(err.Error(), "operator does not exist") || strings.Contains(err.Error(), "ORDER BY position")) {
			refused++
			want = err.Error()[strings.Index(err.Error(), "ERROR: ")+len("ERROR: "):]
			want = want[:strings.Index(want, " (SQLSTATE")]
		}
		files, errs := analyzeSrc(t, schema, fmt.Sprintf("-- name: Q%d :many\n%s;\n", i, query))
		if len(errs) > 0 {
			t.Errorf("%s: errors %q, want the query generated", query, errs)
			continue
		}
		q := files[0].Queries[0]
		var noted []string
		for _, n := range q.Notes {
			if strings.Contains(n, "PostgreSQL refuses this query") {
				noted = append(noted, n)
			}
		}
		switch {
		case want == "" && len(noted) > 0:
			t.Errorf("%s: PostgreSQL prepares it; notes %q", query, noted)
		case want != "" && !unnoted[query] && (len(noted) != 1 || !strings.Contains(noted[0], "PostgreSQL refuses this query: "+want) || q.Refused == ""):
			t.Errorf("%s: PostgreSQL answers %q; notes %q (Refused %q)", query, want, noted, q.Refused)
		}
	}
	if refused != 10 {
		t.Errorf("PostgreSQL refused %d queries with operator does not exist, want 10 (the test's own premise)", refused)
	}
}
