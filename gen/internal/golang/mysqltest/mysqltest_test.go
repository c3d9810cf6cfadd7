package mysqltest

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/gen/internal/golang/mysqltest/mytypesdb"
	"github.com/fencegen/fencegen/gen/internal/golang/mysqltest/sqldb"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestGeneratedCodeIsCurrent fails when the checked-in sqldb or
// mytypesdb differ from what fencegen generates from fencegen.yaml.
func TestGeneratedCodeIsCurrent(t *testing.T) {
	cfg, err := gen.LoadConfig("fencegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.Generate(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	diff, err := out.Check(".")
	if err != nil {
		t.Fatal(err)
	}
	if diff != "" {
		t.Fatalf("generated code is stale; run go generate in gen/internal/golang/mysqltest:\n%s", diff)
	}
}

const rows = "INSERT INTO t VALUES (1, 'alpha', 1, 10, NULL), (2, 'beta', 2, 20, 'x'), (3, 'gamma', 3, 30, 'y'), (4, 'Alpha', 2, 20, NULL), (5, 'delta', 10, 1, 'z')"

// TestUnreadParamsOnMariaDB (issues 23 and 27): each query of unread.sql
// has a parameter sqlc v1.31.1 does not read. The sqldb method, which
// leaves it out as sqlc's does, fails on every call with the error its
// vet note quotes, and writes nothing; the mytypesdb method (mysql_types)
// returns what MariaDB returns for the query with the values written into
// its text (the oracle: no placeholder, no binding), and its UPDATE
// changes the rows the oracle's changes.
func TestUnreadParamsOnMariaDB(t *testing.T) {
	ctx := context.Background()
	cfg, err := gen.LoadConfig("fencegen.yaml")
	if err != nil {
		t.Fatal(err)
	}
	out, err := gen.Generate(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	queries := queryTexts(t, "unread.sql")
	schema, err := os.ReadFile("schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	fresh := func() *sql.DB { return testenv.MySQL(t, "", string(schema), rows) }
	db := fresh()
	sq, my := sqldb.New(db), mytypesdb.New(db)
	ids := func(v []int64, err error) ([][]string, error) {
		var out [][]string
		for _, id := range v {
			out = append(out, []string{fmt.Sprint(id)})
		}
		return out, err
	}
	for _, c := range []struct {
		name string
		args []any // the values of the placeholders, in order
		sqlc func() error
		mine func() ([][]string, error)
	}{
		{"Regexp", []any{"^a", 0},
			func() error { _, err := sq.Regexp(ctx, 0); return err },
			func() ([][]string, error) { return ids(my.Regexp(ctx, mytypesdb.RegexpParams{Name: "^a", ID: 0})) }},
		{"NotNullSafeEqual", []any{"x", 0},
			func() error { _, err := sq.NotNullSafeEqual(ctx, 0); return err },
			func() ([][]string, error) {
				return ids(my.NotNullSafeEqual(ctx, mytypesdb.NotNullSafeEqualParams{Note: sql.NullString{String: "x", Valid: true}, ID: 0}))
			}},
		{"Collate", []any{"alpha", 0},
			func() error { _, err := sq.Collate(ctx, 0); return err },
			func() ([][]string, error) {
				return ids(my.Collate(ctx, mytypesdb.CollateParams{Column1: "alpha", ID: 0}))
			}},
		{"RowIn", []any{2, 20, 0},
			func() error { _, err := sq.RowIn(ctx, 0); return err },
			func() ([][]string, error) { return ids(my.RowIn(ctx, mytypesdb.RowInParams{Row: 2, Row_2: 20, ID: 0})) }},
		{"RowEqual", []any{2, 20, 1},
			func() error { _, err := sq.RowEqual(ctx, 1); return err },
			func() ([][]string, error) { return ids(my.RowEqual(ctx, mytypesdb.RowEqualParams{A: 2, B: 20, ID: 1})) }},
		{"Negated", []any{-2, 0},
			func() error { _, err := sq.Negated(ctx, 0); return err },
			func() ([][]string, error) { return ids(my.Negated(ctx, mytypesdb.NegatedParams{Column1: -2, ID: 0})) }},
		{"IsTrue", []any{1, 0},
			func() error { _, err := sq.IsTrue(ctx, 0); return err },
			func() ([][]string, error) { return ids(my.IsTrue(ctx, mytypesdb.IsTrueParams{A: 1, ID: 0})) }},
		{"AnySubquery", []any{1, 0},
			func() error { _, err := sq.AnySubquery(ctx, 0); return err },
			func() ([][]string, error) {
				return ids(my.AnySubquery(ctx, mytypesdb.AnySubqueryParams{ID: 1, ID_2: 0}))
			}},
		{"GroupByExpr", []any{1, 0, 1},
			func() error {
				_, err := sq.GroupByExpr(ctx, sqldb.GroupByExprParams{A: 1, ID: 0})
				return err
			},
			func() ([][]string, error) {
				rs, err := my.GroupByExpr(ctx, mytypesdb.GroupByExprParams{A: 1, ID: 0, A_2: 1})
				var out [][]string
				for _, r := range rs {
					b := "0"
					if r.Big {
						b = "1"
					}
					out = append(out, []string{b, fmt.Sprint(r.N)})
				}
				return out, err
			}},
		{"WindowOrder", []any{2, 0},
			func() error { _, err := sq.WindowOrder(ctx, 0); return err },
			func() ([][]string, error) {
				rs, err := my.WindowOrder(ctx, mytypesdb.WindowOrderParams{A: 2, ID: 0})
				var out [][]string
				for _, r := range rs {
					out = append(out, []string{fmt.Sprint(r.ID), text(r.R)})
				}
				return out, err
			}},
		{"GroupConcatOrder", []any{2, 0},
			func() error { _, err := sq.GroupConcatOrder(ctx, 0); return err },
			func() ([][]string, error) {
				s, err := my.GroupConcatOrder(ctx, mytypesdb.GroupConcatOrderParams{A: 2, ID: 0})
				return [][]string{{text(s)}}, err
			}},
		{"NamedRegexp", []any{"^a", 0},
			func() error { _, err := sq.NamedRegexp(ctx, 0); return err },
			func() ([][]string, error) {
				return ids(my.NamedRegexp(ctx, mytypesdb.NamedRegexpParams{Pattern: "^a", MinID: 0}))
			}},
		{"LowerIn", []any{"alpha", "gamma", 0},
			func() error { _, err := sq.LowerIn(ctx, 0); return err },
			func() ([][]string, error) {
				return ids(my.LowerIn(ctx, mytypesdb.LowerInParams{Lower: "alpha", Lower_2: "gamma", ID: 0}))
			}},
		{"CountBetween", []any{0, 2, 5},
			func() error {
				_, err := sq.CountBetween(ctx, 0)
				return err
			},
			func() ([][]string, error) {
				rs, err := my.CountBetween(ctx, mytypesdb.CountBetweenParams{ID: 0, FromCount: 2, ToCount: 5})
				var out [][]string
				for _, r := range rs {
					out = append(out, []string{fmt.Sprint(r.A), fmt.Sprint(r.N)})
				}
				return out, err
			}},
		{"OnlyUnread", []any{2},
			func() error { _, err := sq.OnlyUnread(ctx); return err },
			func() ([][]string, error) { return ids(my.OnlyUnread(ctx, 2)) }},
	} {
		t.Run(c.name, func(t *testing.T) {
			want := oracle(t, db, queries[c.name], c.args)
			if len(want) == 0 {
				t.Fatalf("MariaDB returns no row for %s with %v: the comparison would show nothing; choose other values", c.name, c.args)
			}
			got, err := c.mine()
			if err != nil {
				t.Fatalf("mytypesdb.%s: %v", c.name, err)
			}
			if !slices.EqualFunc(got, want, slices.Equal) {
				t.Errorf("mytypesdb.%s returns %q; MariaDB returns %q for the query with its values written in", c.name, got, want)
			}
			checkNote(t, out.Vet, c.name, c.sqlc())
		})
	}
	t.Run("UpdateOrder", func(t *testing.T) {
		// A write: the oracle runs on a database of its own.
		args := []any{"n", 0, 20}
		odb := fresh()
		res, err := odb.Exec(literal(t, queries["UpdateOrder"], args))
		if err != nil {
			t.Fatal(err)
		}
		wantN, _ := res.RowsAffected()
		wantRows := oracle(t, odb, "SELECT id, note FROM t ORDER BY id", nil)

		db := fresh()
		_, err = sqldb.New(db).UpdateOrder(ctx, sqldb.UpdateOrderParams{Note: sql.NullString{String: "n", Valid: true}, ID: 0})
		checkNote(t, out.Vet, "UpdateOrder", err)
		if got := oracle(t, db, "SELECT id, note FROM t ORDER BY id", nil); slices.EqualFunc(got, wantRows, slices.Equal) {
			t.Errorf("sqldb.UpdateOrder failed but the rows are the oracle's UPDATE's: %q", got)
		}
		n, err := mytypesdb.New(db).UpdateOrder(ctx, mytypesdb.UpdateOrderParams{Note: sql.NullString{String: "n", Valid: true}, ID: 0, B: 20})
		if err != nil {
			t.Fatalf("mytypesdb.UpdateOrder: %v", err)
		}
		if got := oracle(t, db, "SELECT id, note FROM t ORDER BY id", nil); n != wantN || !slices.EqualFunc(got, wantRows, slices.Equal) {
			t.Errorf("mytypesdb.UpdateOrder changed %d rows, leaving %q; the oracle's UPDATE changed %d, leaving %q", n, got, wantN, wantRows)
		}
	})
}

// checkNote requires that the sqldb call failed, that vet notes query
// name, and that the error is the one each of its notes quotes.
func checkNote(t *testing.T, vet []string, name string, err error) {
	t.Helper()
	if err == nil {
		t.Errorf("sqldb.%s succeeded; its vet note says every call fails", name)
		return
	}
	var notes []string
	for _, n := range vet {
		if strings.Contains(n, "note: query "+name+": sqlc v1.31.1 ") && strings.Contains(n, "its method takes no argument for it") {
			notes = append(notes, n)
		}
	}
	if len(notes) == 0 {
		t.Errorf("no vet note on query %s; its sqldb method fails with %v:\n%s", name, err, strings.Join(vet, "\n"))
	}
	for _, n := range notes {
		quoted := regexp.MustCompile(`"([^"]+)"`).FindAllStringSubmatch(n, -1)
		if strings.Contains(n, "Error 1064") {
			quoted = append(quoted, []string{"", "Error 1064"})
		}
		ok := false
		for _, q := range quoted {
			ok = ok || strings.Contains(err.Error(), q[1])
		}
		if !ok || !strings.Contains(n, "mysql_types: true sends it") {
			t.Errorf("sqldb.%s fails with %q, which its note does not say:\n%s", name, err, n)
		}
	}
}

// queryTexts returns the statements of a query file by query name.
func queryTexts(t *testing.T, file string) map[string]string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, part := range strings.Split(string(b), "-- name: ")[1:] {
		head, body, _ := strings.Cut(part, "\n")
		out[strings.Fields(head)[0]] = strings.TrimSuffix(strings.TrimSpace(body), ";")
	}
	return out
}

// literal is q with each placeholder (? or sqlc.arg(x)) replaced by its
// value from args, in order, as a literal.
func literal(t *testing.T, q string, args []any) string {
	t.Helper()
	i := 0
	s := regexp.MustCompile(`\?|sqlc\.arg\(\w+\)`).ReplaceAllStringFunc(q, func(string) string {
		if i >= len(args) {
			t.Fatalf("more placeholders than values in %s", q)
		}
		a := args[i]
		i++
		if s, ok := a.(string); ok {
			return "'" + strings.ReplaceAll(s, "'", "''") + "'"
		}
		return fmt.Sprint(a)
	})
	if i != len(args) {
		t.Fatalf("%d placeholders, %d values in %s", i, len(args), q)
	}
	return s
}

// oracle runs q with args written in and returns its rows as text.
func oracle(t *testing.T, db *sql.DB, q string, args []any) [][]string {
	t.Helper()
	rs, err := db.Query(literal(t, q, args))
	if err != nil {
		t.Fatalf("oracle %s: %v", q, err)
	}
	defer rs.Close()
	cols, _ := rs.Columns()
	var out [][]string
	for rs.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			t.Fatal(err)
		}
		row := make([]string, len(vals))
		for i, v := range vals {
			row[i] = text(v)
		}
		out = append(out, row)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// text is a scanned value as MariaDB's text protocol spells it.
func text(v any) string {
	switch v := v.(type) {
	case nil:
		return "NULL"
	case []byte:
		return string(v)
	case sql.NullString:
		if !v.Valid {
			return "NULL"
		}
		return v.String
	}
	return fmt.Sprint(v)
}
