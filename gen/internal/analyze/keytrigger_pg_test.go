package analyze

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestKeyTriggerCascadeAgainstPostgreSQL: a BEFORE UPDATE trigger of an
// unfenced table that a fenced table references ON UPDATE CASCADE may
// change the key whatever the UPDATE assigns, and the cascade then
// rewrites fenced rows without their token (trial t24 F7). The trigger's
// PL/pgSQL is read by the same target analysis as a fenced table's own
// triggers (writes.ReadTrigger): GET DIAGNOSTICS NEW.id and CALL of an
// INOUT procedure with NEW.id were not read, so UPDATE parents SET v was
// generated plain. PostgreSQL is the oracle: the plain UPDATE, run, moves
// jobs.parent_id for each refused case, and leaves it for the accepted
// one.
func TestKeyTriggerCascadeAgainstPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	const schema = "create table parents (id bigint primary key, v int);\ninsert into parents values (1, 1);\n" +
		"create table jobs (id bigint primary key, k int, parent_id bigint references parents (id) on update cascade, tok bigint not null default 0);\n" +
		"comment on column jobs.tok is 'fencegen:token';\n" +
		"create procedure setzero(inout x bigint) language plpgsql as $p$ begin x := 0; end $p$;\n" +
		"create function kt() returns trigger language plpgsql as $f$ declare v bigint; begin %s return new; end $f$;\n" +
		"create trigger kt before update on parents for each row execute function kt();\n"
	const query = "update parents set v = 2 where id = 1"
	for _, tc := range []struct {
		name, body string
		refused    bool
	}{
		{"GET DIAGNOSTICS NEW.id", "get diagnostics new.id = row_count;", true},
		{"CALL setzero(NEW.id)", "call setzero(new.id);", true},
		{"NEW.id := 0", "new.id := 0;", true},
		{"GET DIAGNOSTICS into a variable", "get diagnostics v = row_count; new.v := v;", false},
		{"CALL setzero of a variable", "call setzero(v);", false},
	} {
		s := strings.Replace(schema, "%s", tc.body, 1)
		files, msgs := analyzeSrc(t, s, "-- name: Q :exec\n"+query+";\n")
		refused := len(msgs) > 0
		if refused != tc.refused {
			t.Errorf("%s: refused = %v (%q), want %v", tc.name, refused, msgs, tc.refused)
		}
		if refused && !strings.Contains(msgs[0], "through foreign keys") {
			t.Errorf("%s: %q, want the foreign key named", tc.name, msgs)
		}
		if !refused && files[0].Queries[0].Fence != nil {
			t.Errorf("%s: guarded, want plain", tc.name)
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var pid int64
		_, err = tx.Exec(ctx, s+"insert into jobs (id, k, parent_id, tok) values (1, 1, 1, 5);\n"+query)
		if err == nil {
			err = tx.QueryRow(ctx, "select coalesce(parent_id, -1) from jobs where id = 1").Scan(&pid)
		}
		tx.Rollback(ctx) //nolint:errcheck
		cancel()
		if err != nil {
			t.Errorf("%s: PostgreSQL: %v", tc.name, err)
			continue
		}
		if moved := pid != 1; moved != tc.refused {
			t.Errorf("%s: PostgreSQL leaves jobs.parent_id %d; refused = %v", tc.name, pid, tc.refused)
		}
	}
}
