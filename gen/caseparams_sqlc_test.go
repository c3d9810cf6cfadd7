package gen_test

import (
	"strings"
	"testing"
)

// TestCaseParamsAsSqlc (issue 23): a parameter inside a CASE (its
// operand, a WHEN, a THEN or the ELSE) is named and typed as sqlc
// v1.31.1 names and types it: by the nearest operator, cast, function
// call or select-list entry that encloses the CASE (sqlc's find_params
// parent; a CASE, AND, OR, NOT, IS NULL, EXISTS are none), or, with
// none, interface{} and unnamed (WHERE CASE $1 WHEN ... END). The file
// is compared with sqlc's, text for text, below its header: every shape
// below differed before but CaseTest's, CaseUpdate's and CaseUpsert's.
// PostgreSQL's typing stays the parameter's where sqlc's differs, noted
// for postgresql_types.
func TestCaseParamsAsSqlc(t *testing.T) {
	got, want, out := sqlcBody(t, "CREATE TABLE notes (id bigint PRIMARY KEY, body text, n int NOT NULL, flag boolean NOT NULL);\n", `-- name: CaseTest :many
SELECT id FROM notes WHERE CASE $1 WHEN 'a' THEN n > 0 ELSE false END;

-- name: CaseTestCol :many
SELECT id FROM notes WHERE CASE $1 WHEN n THEN true ELSE false END;

-- name: CaseWhenParam :many
SELECT id FROM notes WHERE CASE n WHEN $1 THEN true ELSE false END;

-- name: CaseThenParam :many
SELECT id FROM notes WHERE CASE n WHEN 1 THEN $1 ELSE $2 END;

-- name: CaseSearched :many
SELECT id FROM notes WHERE CASE WHEN $1 THEN n > 0 ELSE false END;

-- name: CaseNamed :many
SELECT id FROM notes WHERE CASE @kind::text WHEN 'a' THEN n > 0 ELSE false END;

-- name: CaseNamedUntyped :many
SELECT id FROM notes WHERE CASE @kind WHEN 'a' THEN n > 0 ELSE false END;

-- name: CaseCmp :many
SELECT id FROM notes WHERE n = CASE $1 WHEN 'a' THEN 1 ELSE 2 END;

-- name: CaseTwo :many
SELECT id FROM notes WHERE CASE $1 WHEN $2 THEN n > 0 ELSE false END;

-- name: CaseThenCol :many
SELECT id FROM notes WHERE body = CASE WHEN flag THEN $1 ELSE $2 END;

-- name: CaseCast :many
SELECT id FROM notes WHERE n = CASE $1 WHEN 'a' THEN 1 ELSE 2 END::int;

-- name: CaseCastNoCol :many
SELECT id FROM notes WHERE CASE $1 WHEN 'a' THEN true ELSE false END::bool;

-- name: CaseFunc :many
SELECT id FROM notes WHERE body = lower(CASE WHEN flag THEN $1 ELSE 'x' END);

-- name: CaseConcat :many
SELECT id FROM notes WHERE 'a' || CASE WHEN $1 THEN 'b' ELSE 'c' END = 'ab';

-- name: CaseUpdate :exec
UPDATE notes SET body = CASE WHEN $1 THEN 'b' ELSE $2 END WHERE id = $3;

-- name: CaseInsert :exec
INSERT INTO notes (id, body, n, flag) VALUES ($1, CASE WHEN $2 THEN 'b' ELSE 'c' END, 1, true);

-- name: CaseUpsert :exec
INSERT INTO notes (id, body, n, flag) VALUES ($1, 'x', 1, true) ON CONFLICT (id) DO UPDATE SET body = CASE WHEN $2 THEN 'b' ELSE $3 END;

-- name: CaseAlias :many
SELECT CASE WHEN $1 THEN body ELSE 'x' END AS body FROM notes;

-- name: CaseNot :many
SELECT id FROM notes WHERE NOT CASE $1 WHEN 1 THEN flag ELSE false END;

-- name: CaseNullTest :many
SELECT id FROM notes WHERE CASE WHEN flag THEN $1 END IS NULL;

-- name: CaseSubq :many
SELECT id FROM notes WHERE EXISTS (SELECT 1 FROM notes n2 WHERE CASE $1 WHEN 1 THEN true ELSE false END);

-- name: CaseNamedCmp :many
SELECT id FROM notes WHERE n = CASE @k WHEN 'a' THEN 1 ELSE 2 END;

-- name: CaseBoth :many
SELECT id FROM notes WHERE CASE $1 WHEN 'a' THEN n ELSE 0 END = n;

-- name: CaseIn :many
SELECT id FROM notes WHERE n IN (CASE WHEN $1 THEN 1 ELSE 2 END, 3);

-- name: CaseDistinct :many
SELECT id FROM notes WHERE body IS DISTINCT FROM CASE WHEN $1 THEN 'a' END;

-- name: CaseWhenCond :many
SELECT id FROM notes WHERE CASE WHEN n > $1 THEN true ELSE false END;

-- name: CaseReuse :many
SELECT id FROM notes WHERE CASE $1 WHEN 'a' THEN true ELSE false END AND body = $1;
`)
	if got != want {
		t.Errorf("q.sql.go differs from sqlc's below the header:\n--- fencegen\n%s\n--- sqlc\n%s", got, want)
	}
	vet := strings.Join(out.Vet, "\n")
	for _, w := range []string{
		"query CaseCmp: parameter n is int32, as sqlc declares it; postgresql_types: true declares string",
		"query CaseConcat: parameter $1 is pgtype.Text, as sqlc declares it; postgresql_types: true declares bool",
		"query CaseCast: parameter $1 is int32, as sqlc declares it; postgresql_types: true declares string",
	} {
		if !strings.Contains(vet, w) {
			t.Errorf("vet has no note %q:\n%s", w, vet)
		}
	}
}

// TestMySQLCaseShapesAsSqlc (issue 23): TestCaseParamsAsSqlc on MySQL, whose sqlc
// reading has IN and BETWEEN nodes of their own (left to their rules).
func TestMySQLCaseShapesAsSqlc(t *testing.T) {
	got, want, _ := sqlcBodyOf(t, "mysql", "CREATE TABLE notes (id bigint PRIMARY KEY, body text, n int NOT NULL, flag boolean NOT NULL);\n", `-- name: CaseTest :many
SELECT id FROM notes WHERE CASE ? WHEN 'a' THEN n > 0 ELSE false END;

-- name: CaseWhenParam :many
SELECT id FROM notes WHERE CASE n WHEN ? THEN true ELSE false END;

-- name: CaseThenParam :many
SELECT id FROM notes WHERE CASE n WHEN 1 THEN ? ELSE ? END;

-- name: CaseCmp :many
SELECT id FROM notes WHERE n = CASE ? WHEN 'a' THEN 1 ELSE 2 END;

-- name: CaseThenCol :many
SELECT id FROM notes WHERE body = CASE WHEN flag THEN ? ELSE ? END;

-- name: CaseFunc :many
SELECT id FROM notes WHERE body = lower(CASE WHEN flag THEN ? ELSE 'x' END);

-- name: CaseCast :many
SELECT id FROM notes WHERE n = CAST(CASE ? WHEN 'a' THEN 1 ELSE 2 END AS SIGNED);

-- name: CaseUpdate :exec
UPDATE notes SET body = CASE WHEN ? THEN 'b' ELSE ? END WHERE id = ?;

-- name: CaseInsert :exec
INSERT INTO notes (id, body, n, flag) VALUES (?, CASE WHEN ? THEN 'b' ELSE 'c' END, 1, true);

-- name: CaseIn :many
SELECT id FROM notes WHERE n IN (CASE WHEN ? THEN 1 ELSE 2 END, 3);

-- name: CaseWhenCond :many
SELECT id FROM notes WHERE CASE WHEN n > ? THEN true ELSE false END;
`)
	if got != want {
		t.Errorf("q.sql.go differs from sqlc's below the header:\n--- fencegen\n%s\n--- sqlc\n%s", got, want)
	}
}
