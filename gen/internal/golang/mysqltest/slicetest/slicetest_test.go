package slicetest

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"slices"
	"testing"

	_ "github.com/go-sql-driver/mysql"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/gen/internal/golang/mysqltest/slicetest/slicedb"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
)

// TestGeneratedCodeIsCurrent fails when the checked-in slicedb differs
// from what fencegen generates from fencegen.yaml.
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
		t.Fatalf("generated code is stale; run go generate in gen/internal/golang/mysqltest/slicetest:\n%s", diff)
	}
}

const rows = `INSERT INTO t VALUES (1, 'a', 1), (2, 'a', 2), (3, 'b', 3), (4, 'a', 3), (5, NULL, 1), (6, 'a', 6);
INSERT INTO acct VALUES (1, 10, 'a', 5), (2, 20, 'a', 5), (3, 30, 'b', 5), (4, 40, 'a', 9)`

// fresh returns slicedb on a new MariaDB database holding rows.
func fresh(t *testing.T) (*sql.DB, *slicedb.Queries) {
	t.Helper()
	schema, err := os.ReadFile("schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	db := testenv.MySQL(t, "multiStatements=true", string(schema), rows)
	return db, slicedb.New(db)
}

func ints(t *testing.T, db *sql.DB, q string) []int64 {
	t.Helper()
	rs, err := db.Query(q)
	if err != nil {
		t.Fatal(err)
	}
	defer rs.Close()
	var out []int64
	for rs.Next() {
		var v int64
		if err := rs.Scan(&v); err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	if err := rs.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var a = sql.NullString{String: "a", Valid: true}

// TestRepeatedParamsAndSlicesOnMariaDB (trial t27g): each method of a
// query that uses a named parameter or an IN (sqlc.slice(x)) list more
// than once, in several orders, sends one value per placeholder and
// returns or writes the rows the query selects, with lists of several,
// one and no elements (IN (NULL)). Before, the methods of t's queries
// (sqlc's text) sent each parameter once and expanded a list's first
// marker only: MariaDB refused them (sql: expected 3 arguments, got 2).
func TestRepeatedParamsAndSlicesOnMariaDB(t *testing.T) {
	ctx := context.Background()
	db, q := fresh(t)
	for _, c := range []struct {
		name string
		got  func() ([]int32, error)
		want []int32
	}{
		{"ArgSliceArg", func() ([]int32, error) {
			return q.ArgSliceArg(ctx, slicedb.ArgSliceArgParams{N: a, Evs: []int32{1, 3}})
		}, []int32{1, 4}},
		{"ArgSliceArg/one", func() ([]int32, error) {
			return q.ArgSliceArg(ctx, slicedb.ArgSliceArgParams{N: a, Evs: []int32{3}})
		}, []int32{4}},
		{"ArgSliceArg/empty", func() ([]int32, error) { return q.ArgSliceArg(ctx, slicedb.ArgSliceArgParams{N: a}) }, nil},
		{"SliceTwice", func() ([]int32, error) {
			return q.SliceTwice(ctx, slicedb.SliceTwiceParams{Evs: []int32{2, 5}})
		}, []int32{2, 5}},
		{"SliceTwice/one", func() ([]int32, error) {
			return q.SliceTwice(ctx, slicedb.SliceTwiceParams{Evs: []int32{3}})
		}, []int32{3, 4}},
		{"SliceTwice/empty", func() ([]int32, error) { return q.SliceTwice(ctx, slicedb.SliceTwiceParams{}) }, nil},
		{"SliceArgSlice", func() ([]int32, error) {
			id, err := q.SliceArgSlice(ctx, slicedb.SliceArgSliceParams{Ids: []int32{2, 3, 6, 4}, N: a, Evs: []int32{6, 3}})
			return []int32{id}, err
		}, []int32{4}},
		{"SliceArgSlice/one", func() ([]int32, error) {
			id, err := q.SliceArgSlice(ctx, slicedb.SliceArgSliceParams{Ids: []int32{6}, N: a, Evs: []int32{6}})
			return []int32{id}, err
		}, []int32{6}},
		{"CountArgsFirst", func() ([]int32, error) {
			n, err := q.CountArgsFirst(ctx, slicedb.CountArgsFirstParams{MinEv: 1, N: a, Ids: []int32{1, 2, 4, 6}})
			return []int32{int32(n)}, err
		}, []int32{3}},
		{"CountArgsFirst/empty", func() ([]int32, error) {
			n, err := q.CountArgsFirst(ctx, slicedb.CountArgsFirstParams{MinEv: 1, N: a})
			return []int32{int32(n)}, err
		}, []int32{0}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.got()
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("%s returns %v, want %v", c.name, got, c.want)
			}
		})
	}
	t.Run("SliceArgSlice/none", func(t *testing.T) {
		if _, err := q.SliceArgSlice(ctx, slicedb.SliceArgSliceParams{Ids: []int32{2, 4}, N: a}); !errors.Is(err, sql.ErrNoRows) {
			t.Errorf("SliceArgSlice with no evs: %v, want sql.ErrNoRows", err)
		}
	})
	if got := ints(t, db, "SELECT COUNT(*) FROM t"); !slices.Equal(got, []int64{6}) {
		t.Fatalf("the reads changed t: %v rows", got)
	}

	t.Run("DeleteSliceFirst", func(t *testing.T) {
		db, q := fresh(t)
		if err := q.DeleteSliceFirst(ctx, slicedb.DeleteSliceFirstParams{Evs: []int32{1, 2, 3}, N: a}); err != nil {
			t.Fatal(err)
		}
		if got := ints(t, db, "SELECT id FROM t ORDER BY id"); !slices.Equal(got, []int64{3, 4, 5, 6}) {
			t.Errorf("DeleteSliceFirst left ids %v, want [3 4 5 6]", got)
		}
		if err := q.DeleteSliceFirst(ctx, slicedb.DeleteSliceFirstParams{N: a}); err != nil {
			t.Fatal(err)
		}
		if got := ints(t, db, "SELECT COUNT(*) FROM t"); !slices.Equal(got, []int64{4}) {
			t.Errorf("DeleteSliceFirst with no evs left %v rows, want 4", got)
		}
	})
	t.Run("BumpPlainAndSlice", func(t *testing.T) {
		db, q := fresh(t)
		n, err := q.BumpPlainAndSlice(ctx, slicedb.BumpPlainAndSliceParams{Ids: []int32{3, 5, 6}, Ev: 1})
		if err != nil {
			t.Fatal(err)
		}
		if got := ints(t, db, "SELECT ev FROM t ORDER BY id"); n != 3 || !slices.Equal(got, []int64{1, 2, 13, 3, 11, 16}) {
			t.Errorf("BumpPlainAndSlice changed %d rows, leaving ev %v; want 3, [1 2 13 3 11 16]", n, got)
		}
	})
	t.Run("FencedBumpAll", func(t *testing.T) {
		db, q := fresh(t)
		n, err := q.FencedBumpAll(ctx, slicedb.FencedBumpAllParams{D: 5, Ids: []int64{3, 1, 2}, N: a}, 7)
		if err != nil {
			t.Fatal(err)
		}
		if got := ints(t, db, "SELECT bal * 100 + tok FROM acct ORDER BY id"); n != 2 || !slices.Equal(got, []int64{1507, 2507, 3005, 4009}) {
			t.Errorf("FencedBumpAll changed %d rows, leaving bal*100+tok %v; want 2, [1507 2507 3005 4009]", n, got)
		}
		if _, err := q.FencedBumpAll(ctx, slicedb.FencedBumpAllParams{D: 1, Ids: []int64{4, 1}, N: a}, 8); !errors.Is(err, fence.ErrStaleToken) {
			t.Errorf("FencedBumpAll with token 8 over a row holding 9: %v, want fence.ErrStaleToken", err)
		}
	})
	t.Run("FencedDeleteByKey", func(t *testing.T) {
		db, q := fresh(t)
		if err := q.FencedDeleteByKey(ctx, slicedb.FencedDeleteByKeyParams{ID: 2, Bals: []int64{30, 20}, N: a}, 6); err != nil {
			t.Fatal(err)
		}
		if err := q.FencedDeleteByKey(ctx, slicedb.FencedDeleteByKeyParams{ID: 4, Bals: []int64{40}, N: a}, 6); !errors.Is(err, fence.ErrStaleToken) {
			t.Errorf("FencedDeleteByKey with token 6 over a row holding 9: %v, want fence.ErrStaleToken", err)
		}
		if err := q.FencedDeleteByKey(ctx, slicedb.FencedDeleteByKeyParams{ID: 1, N: a}, 6); !errors.Is(err, fence.ErrNotFound) {
			t.Errorf("FencedDeleteByKey with no bals: %v, want fence.ErrNotFound", err)
		}
		if got := ints(t, db, "SELECT id FROM acct ORDER BY id"); !slices.Equal(got, []int64{1, 3, 4}) {
			t.Errorf("FencedDeleteByKey left ids %v, want [1 3 4]", got)
		}
	})
}
