package analyze

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/internal/testenv"
)

// refusedSchema is the schema of refusedParamCases.
const refusedSchema = `CREATE TABLE authors (id bigint PRIMARY KEY, name boolean NOT NULL, note text, born date, score numeric, n int, tags text[], at time, made timestamptz);`

// refusedParamCases are queries whose parameters are used in more than
// one place. fencegen generates each (as sqlc does); it notes those whose
// uses need two types, which PostgreSQL refuses.
var refusedParamCases = []string{
	"UPDATE authors SET name = $1 WHERE id = $1",
	"SELECT id FROM authors WHERE id = $1 AND note = $1",
	"SELECT id FROM authors WHERE name = $1 OR note = $1",
	"INSERT INTO authors (id, note) VALUES ($1, $1)",
	"INSERT INTO authors (id, name) VALUES ($1, $1)",
	"SELECT id FROM authors WHERE born = $1 OR id = $1",
	"SELECT id FROM authors WHERE tags = $1 OR note = $1",
	"UPDATE authors SET note = $1, born = $1 WHERE id = $2",
	"SELECT id FROM authors WHERE id = $1 OR n = $1",
	"SELECT id FROM authors WHERE score = $1 OR id = $1",
	"SELECT id FROM authors WHERE id = $1 OR id > $1",
	"SELECT id FROM authors WHERE id = $1::bigint OR note = $1::text",
	"SELECT id FROM authors WHERE note = $1 OR note LIKE $1",
	"UPDATE authors SET note = $1 WHERE note <> $1",
	"SELECT id FROM authors WHERE born = $1 OR born > $1",
	"SELECT id FROM authors WHERE n = $1 OR id = $1",
	// PostgreSQL analyses an UPDATE's WHERE before its SET list: $1 is
	// typed there, and the SET entry is an assignment (trial r23s F2).
	"UPDATE authors SET note = $1 WHERE id = $1",
	"UPDATE authors SET note = $1 WHERE born = $1",
	"UPDATE authors SET born = $1 WHERE id = $1",
	"UPDATE authors SET n = $1 WHERE note = $1",
	"UPDATE authors SET note = coalesce($1, note) WHERE id = $1",
	"UPDATE authors SET at = $1 WHERE made = $1",
	"UPDATE authors SET made = $1 WHERE at = $1",
	"UPDATE authors SET tags[1] = $1 WHERE id = $1",
	"UPDATE authors SET tags = $1 WHERE id = $1",
	"UPDATE authors SET note = $1 WHERE id IN (SELECT n FROM authors WHERE n = $1)",
	"UPDATE authors SET note = $1 WHERE id = 1 RETURNING id = $1",
}

// TestRefusedParamsArePostgresRefusals PREPAREs each of
// refusedParamCases: fencegen notes that PostgreSQL refuses the query
// exactly when PostgreSQL refuses it, and generates every one of them.
func TestRefusedParamsArePostgresRefusals(t *testing.T) {
	pool := testenv.Database(t, refusedSchema)
	ctx := context.Background()
	refused := 0
	for i, query := range refusedParamCases {
		_, pgErr := pool.Exec(ctx, fmt.Sprintf("PREPARE p%d AS %s", i, query))
		if pgErr != nil {
			refused++
		}
		files, errs := analyzeSrc(t, refusedSchema, fmt.Sprintf("-- name: Q%d :exec\n%s;\n", i, query))
		if len(errs) > 0 {
			t.Errorf("%s: errors %q, want the query generated", query, errs)
			continue
		}
		var noted []string
		for _, n := range files[0].Queries[0].Notes {
			if strings.Contains(n, "PostgreSQL refuses this query") {
				noted = append(noted, n)
			}
		}
		switch {
		case pgErr != nil && len(noted) == 0:
			t.Errorf("%s: PostgreSQL refuses it (%v); fencegen does not say so", query, pgErr)
		case pgErr == nil && len(noted) > 0:
			t.Errorf("%s: PostgreSQL accepts it; fencegen says %q", query, noted)
		}
	}
	if refused == 0 || refused == len(refusedParamCases) {
		t.Errorf("PostgreSQL refuses %d of %d cases; the cases must have both kinds", refused, len(refusedParamCases))
	}
	t.Logf("PostgreSQL refuses %d of %d", refused, len(refusedParamCases))
}
