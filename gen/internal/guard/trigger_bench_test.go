package guard

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/fencegen/fencegen/internal/testenv"
)

// template2Function is the non-strict trigger function of guard template
// 2, which named the token column (a rename, drop or retype of it made
// every UPDATE fail): the baseline of BenchmarkGuardTrigger.
const template2Function = `CREATE FUNCTION t2_guard() RETURNS trigger
LANGUAGE plpgsql AS $fencegen$
BEGIN
    IF NEW.tok < OLD.tok THEN
        RAISE EXCEPTION 'fencegen: stale token: presented %, stored % (t2.tok)',
            NEW.tok, OLD.tok
            USING ERRCODE = 'FN001',
                DETAIL = format('presented=%s stored=%s mode=non-strict', NEW.tok, OLD.tok),
                SCHEMA = 'public', TABLE = 't2', COLUMN = 'tok';
    END IF;
    RETURN NEW;
END
$fencegen$;
CREATE TRIGGER fencegen_guard BEFORE UPDATE ON t2 FOR EACH ROW EXECUTE FUNCTION t2_guard();
`

// BenchmarkGuardTrigger measures what the guard trigger costs per row: one
// op is one UPDATE of benchRows rows that raises each row's token, on a
// table without a trigger (none), with template 2's function (template2),
// with this fencegen's (template3), and with it after a RENAME COLUMN of
// the token column, before the fix (template3-renamed: it finds the
// column by its mark on every row). Compare the variants of one run
// (BENCHMARKS.md).
func BenchmarkGuardTrigger(b *testing.B) {
	const benchRows = 1000
	var schema strings.Builder
	for _, t := range []string{"none", "t2", "t3", "t3r"} {
		fmt.Fprintf(&schema, "CREATE TABLE %s (id bigint PRIMARY KEY, n bigint NOT NULL DEFAULT 0, tok bigint NOT NULL DEFAULT 1);\n", t)
		fmt.Fprintf(&schema, "INSERT INTO %s (id) SELECT g FROM generate_series(1, %d) g;\n", t, benchRows)
	}
	fenced := "CREATE TABLE t3 (id bigint PRIMARY KEY, tok bigint NOT NULL);\nCOMMENT ON COLUMN t3.tok IS 'fencegen:token';\n" +
		"CREATE TABLE t3r (id bigint PRIMARY KEY, tok bigint NOT NULL);\nCOMMENT ON COLUMN t3r.tok IS 'fencegen:token';\n"
	g := guardOf(b, b.TempDir(), fenced)
	guardSQL, err := g.SQL()
	if err != nil {
		b.Fatal(err)
	}
	pool := testenv.Database(b, schema.String(),
		"COMMENT ON COLUMN t3.tok IS 'fencegen:token';\nCOMMENT ON COLUMN t3r.tok IS 'fencegen:token';\n",
		template2Function, string(guardSQL), "ALTER TABLE t3r RENAME COLUMN tok TO fence;")
	ctx := context.Background()
	for _, v := range []struct{ name, table, column string }{
		{"none", "none", "tok"}, {"template2", "t2", "tok"}, {"template3", "t3", "tok"}, {"template3-renamed", "t3r", "fence"},
	} {
		b.Run(v.name, func(b *testing.B) {
			update := fmt.Sprintf("UPDATE %s SET n = n + 1, %s = %[2]s + 1", v.table, v.column)
			if _, err := pool.Exec(ctx, update); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for b.Loop() {
				if _, err := pool.Exec(ctx, update); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchRows), "ns/row")
		})
	}
	// The trigger still refuses a lower token after the rename.
	if _, err := pool.Exec(ctx, "UPDATE t3r SET fence = 0 WHERE id = 1"); err == nil || !strings.Contains(err.Error(), "FN001") {
		b.Errorf("stale UPDATE of t3r after the rename: %v; want FN001", err)
	}
}
