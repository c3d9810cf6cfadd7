package guard_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/fencegen/fencegen/gen/internal/guard"
	"github.com/fencegen/fencegen/internal/testenv"
)

// TestGuardComparisonIsPostgreSQLs is trial t24h F_domop: the guard's
// comparison of the stored token with the presented one binds to
// pg_catalog's operator whatever operators the schema defines. A plain
// <= on a column of domain tokd binds to an operator the schema declares
// for (tokd, tokd), an exact fit that wins over pg_catalog's bigint one;
// and a session whose search_path names a schema before pg_catalog binds
// to that schema's <= (bigint, bigint). Both hijackers here say every
// token beats every other: each guarded form, given a stale token, must
// still write nothing.
func TestGuardComparisonIsPostgreSQLs(t *testing.T) {
	const schema = `
CREATE DOMAIN tokd AS bigint;
CREATE FUNCTION yes(tokd, tokd) RETURNS bool LANGUAGE sql IMMUTABLE AS $$ SELECT true $$;
CREATE OPERATOR <= (LEFTARG = tokd, RIGHTARG = tokd, FUNCTION = yes);
CREATE OPERATOR < (LEFTARG = tokd, RIGHTARG = tokd, FUNCTION = yes);
CREATE SCHEMA hijack;
CREATE FUNCTION hijack.yes(bigint, bigint) RETURNS bool LANGUAGE sql IMMUTABLE AS $$ SELECT true $$;
CREATE OPERATOR hijack.<= (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = hijack.yes);
CREATE OPERATOR hijack.< (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = hijack.yes);
CREATE TABLE gizmos (id bigint PRIMARY KEY, grp int NOT NULL, v text, tok tokd NOT NULL DEFAULT 0);
CREATE TABLE plain (id bigint PRIMARY KEY, grp int NOT NULL, v text, tok bigint NOT NULL DEFAULT 0);
`
	pool := testenv.Database(t, schema)
	ctx := context.Background()
	const stored, stale = 1000000, 5
	for _, table := range []string{"gizmos", "plain"} {
		for _, tc := range []struct {
			name string
			sql  string
			// args are the statement's arguments before the token.
			args []any
			// byKey takes Rewrite's two-statement form (else FenceWrite's).
			byKey, strict bool
		}{
			{name: "delete by key", sql: "DELETE FROM T WHERE id = $1", args: []any{int64(1)}, byKey: true},
			{name: "update by key", sql: "UPDATE T SET v = 'x' WHERE id = $1", args: []any{int64(1)}, byKey: true},
			{name: "update by key strict", sql: "UPDATE T SET v = 'x' WHERE id = $1", args: []any{int64(1)}, byKey: true, strict: true},
			{name: "delete one row", sql: "DELETE FROM T WHERE id = $1", args: []any{int64(1)}},
			{name: "update one row", sql: "UPDATE T SET v = 'x' WHERE id = $1", args: []any{int64(1)}},
			{name: "delete locking", sql: "DELETE FROM T WHERE grp = $1", args: []any{int32(1)}},
			{name: "update locking strict", sql: "UPDATE T SET v = 'x' WHERE grp = $1", args: []any{int32(1)}, strict: true},
			{name: "upsert", sql: "INSERT INTO T (id, grp, v) VALUES ($1, 1, 'x') ON CONFLICT (id) DO UPDATE SET v = excluded.v", args: []any{int64(1)}},
			{name: "upsert of many rows", sql: "INSERT INTO T (id, grp, v) SELECT i, 1, 'x' FROM unnest($1::bigint[]) i ON CONFLICT (id) DO UPDATE SET v = excluded.v", args: []any{[]int64{1, 2}}},
		} {
			sql := strings.Replace(tc.sql, " T ", " "+table+" ", 1)
			spec := guard.Spec{Column: "tok", Key: []string{"id"}, Param: len(tc.args) + 1, Strict: tc.strict, Table: table, Name: table}
			if strings.HasPrefix(sql, "INSERT") {
				spec.InsertTypes = []string{"bigint", "integer", "text"}
			}
			var guarded string
			if tc.byKey {
				g, err := guard.Rewrite(sql, spec)
				if err != nil || g.Form != guard.ByKey {
					t.Fatalf("%s %s: Rewrite: %v, form %v", table, tc.name, err, g)
				}
				guarded = g.SQL
			} else {
				guarded = fenceWrite(t, sql, spec)
			}
			if !strings.Contains(guarded, "OPERATOR(pg_catalog.") {
				t.Errorf("%s %s: the guard's comparison is not pg_catalog's:\n%s", table, tc.name, guarded)
			}
			for _, path := range []string{"", "hijack, pg_catalog, public"} {
				domopState(t, pool)
				if err := domopRun(ctx, pool, path, guarded, append(tc.args, int64(stale))...); err != nil {
					t.Errorf("%s %s (search_path %q): %v\n%s", table, tc.name, path, err, guarded)
					continue
				}
				if got := domopRows(t, pool, table); got != "1:v1:1000000,2:v2:1000000" {
					t.Errorf("%s %s (search_path %q): a stale token (%d, stored %d) wrote: rows %s\n%s", table, tc.name, path, stale, stored, got, guarded)
				}
			}
		}
	}
	// The hijackers do bind where the comparison is written plainly: the
	// test would see an escape without the qualified operator.
	domopState(t, pool)
	if err := domopRun(ctx, pool, "", "DELETE FROM gizmos WHERE id = $1 AND gizmos.tok <= $2", int64(1), int64(stale)); err != nil {
		t.Fatal(err)
	}
	if got := domopRows(t, pool, "gizmos"); got != "2:v2:1000000" {
		t.Errorf("a plain <= on the domain: rows %s, want row 1 deleted by the domain's operator", got)
	}
	domopState(t, pool)
	if err := domopRun(ctx, pool, "hijack, pg_catalog, public", "DELETE FROM plain WHERE id = $1 AND plain.tok <= $2", int64(1), int64(stale)); err != nil {
		t.Fatal(err)
	}
	if got := domopRows(t, pool, "plain"); got != "2:v2:1000000" {
		t.Errorf("a plain <= under search_path hijack: rows %s, want row 1 deleted by hijack.<=", got)
	}
}

// domopState stores rows 1 and 2, token 1000000, in both tables.
func domopState(t *testing.T, pool *pgxpool.Pool) {
	t.Helper()
	for _, table := range []string{"gizmos", "plain"} {
		if _, err := pool.Exec(context.Background(), "DELETE FROM "+table+"; INSERT INTO "+table+" VALUES (1, 1, 'v1', 1000000), (2, 1, 'v2', 1000000)"); err != nil {
			t.Fatal(err)
		}
	}
}

// domopRun runs sql on one connection whose search_path is path ("": the
// default), reading every row it returns.
func domopRun(ctx context.Context, pool *pgxpool.Pool, path, sql string, args ...any) error {
	conn, err := pool.Acquire(ctx)
	if err != nil {
		return err
	}
	defer conn.Release()
	if path != "" {
		if _, err := conn.Exec(ctx, "SET search_path = "+path); err != nil {
			return err
		}
		defer conn.Exec(ctx, "RESET search_path") //nolint:errcheck
	}
	rows, err := conn.Query(ctx, sql, args...)
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	rows.Close()
	return rows.Err()
}

// domopRows renders table's rows: id:v:tok, by id.
func domopRows(t *testing.T, pool *pgxpool.Pool, table string) string {
	t.Helper()
	var s string
	if err := pool.QueryRow(context.Background(), "SELECT coalesce(string_agg(id || ':' || v || ':' || tok, ',' ORDER BY id), '') FROM "+table).Scan(&s); err != nil {
		t.Fatal(err)
	}
	return s
}
