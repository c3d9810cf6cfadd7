package gen_test

import (
	"regexp"
	"strings"
	"testing"
)

// The note for a type PostgreSQL does not know says the Go type the
// generated code declares, which sqlc's mapping by name (blob is []byte)
// or a db_type override may still give it: the note said interface{}
// for a blob column typed []byte (issue 23, trial x23 F1). Each note's
// type is compared with the field the generated model declares.
func TestUnknownTypeNoteSaysGoType(t *testing.T) {
	for _, sqlPackage := range []string{"pgx/v5", "database/sql"} {
		out := generateDir(t, map[string]string{
			"schema.sql": "CREATE TABLE t (id bigint PRIMARY KEY, h blob NOT NULL, n nope NOT NULL, o other NOT NULL);\n",
			"q.sql":      "-- name: GetT :one\nSELECT * FROM t WHERE id = $1;\n",
			"fencegen.yaml": "version: \"2\"\nsql:\n  - {engine: postgresql, schema: schema.sql, queries: q.sql, gen: {go: {package: x, out: out, sql_package: " + sqlPackage +
				", overrides: [{db_type: other, go_type: string}]}}}\n",
		})
		models := string(out.Files["out/models.go"])
		for col, field := range map[string]string{"h": "H", "n": "N", "o": "O"} {
			m := regexp.MustCompile(`(?m)^\s+` + field + `\s+(\S+)\s`).FindStringSubmatch(models)
			if m == nil {
				t.Fatalf("%s: no field %s in models.go:\n%s", sqlPackage, field, models)
			}
			var note string
			for _, n := range out.Vet {
				if strings.Contains(n, "schema.sql:1:") && strings.Contains(n, `type "`) && strings.Contains(n, "does not exist") && noteColumn(n) == col {
					note = n
				}
			}
			// The NOT NULL type comes first (an override applies to NOT
			// NULL values only unless it says nullable, as in sqlc).
			if got := typedRE.FindStringSubmatch(note); got == nil || got[1] != m[1] {
				t.Errorf("%s: column %s is %s in models.go; note %q", sqlPackage, col, m[1], note)
			}
		}
	}
}

var typedRE = regexp.MustCompile(`its values are typed (\S+)`)

// noteColumn is the column of schema.sql's first line that a note at
// line 1 points into (the type follows the column's name there).
func noteColumn(note string) string {
	const line = "CREATE TABLE t (id bigint PRIMARY KEY, h blob NOT NULL, n nope NOT NULL, o other NOT NULL);"
	rest := note[strings.Index(note, "schema.sql:1:")+len("schema.sql:1:"):]
	col := 0
	for _, r := range rest {
		if r < '0' || r > '9' {
			break
		}
		col = col*10 + int(r-'0')
	}
	if col < 3 || col > len(line) {
		return ""
	}
	return string(line[col-3]) // "h blob": the name sits two columns before the type
}
