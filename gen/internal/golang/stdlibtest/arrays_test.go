package stdlibtest_test

import (
	"context"
	"os"
	"reflect"
	"testing"

	"github.com/fencegen/fencegen/gen/internal/golang/stdlibtest/arraydb"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestSliceOverridesRoundTrip writes and reads array columns whose Go
// types come from column overrides of every slice form ({type:
// "[]int64"}, {type: "[]float64"}, {type: int64, slice: true}) and the
// default []string, on database/sql through lib/pq and pgx's stdlib
// driver: each goes through pq.Array, as in sqlc's code, so each scans
// back what was written (issue 23: without pq.Array, lib/pq refuses to
// scan []uint8 into *[]int64).
func TestSliceOverridesRoundTrip(t *testing.T) {
	url := testenv.NewDatabase(t)
	b, err := os.ReadFile("arrays_schema.sql")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	for i, driver := range []string{"postgres", "pgx"} {
		db := openSQL(t, driver, url)
		if i == 0 {
			if _, err := db.ExecContext(ctx, string(b)); err != nil {
				t.Fatal(err)
			}
		}
		q := arraydb.New(db)
		want := arraydb.Array{
			ID:   int32(i + 1),
			Ints: []int64{1, 2, 3},
			Fs:   []float64{0.5, -2},
			Bigs: []int64{1 << 40},
			Tags: []string{"a", "b c"},
		}
		if err := q.PutArrays(ctx, arraydb.PutArraysParams(want)); err != nil {
			t.Fatalf("%s: PutArrays: %v", driver, err)
		}
		got, err := q.GetArrays(ctx, want.ID)
		if err != nil {
			t.Fatalf("%s: GetArrays: %v", driver, err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: GetArrays = %+v, want %+v", driver, got, want)
		}
	}
}
