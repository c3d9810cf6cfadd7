package writes

import (
	"context"
	"testing"
	"time"

	"github.com/fencegen/fencegen/internal/testenv"
)

// TestReadTriggerAgainstPostgreSQL runs each trigger spelling on
// PostgreSQL (the oracle): a BEFORE UPDATE trigger of jobs runs the
// body, an UPDATE that sets only status runs it on a row stored with
// token 5, and the token column tells whether the trigger changed
// NEW.tok. Every spelling that changes it must be read as one that may
// assign it (trial t24 F6: GET [STACKED] DIAGNOSTICS and CALL of an
// INOUT procedure were not), and every one read as not assigning must
// leave it.
func TestReadTriggerAgainstPostgreSQL(t *testing.T) {
	pool := testenv.Database(t, `CREATE TABLE jobs (id bigint PRIMARY KEY, status text NOT NULL DEFAULT 'q', tok bigint NOT NULL DEFAULT 0);
CREATE PROCEDURE setzero(INOUT x bigint) LANGUAGE plpgsql AS $p$ BEGIN x := 0; END $p$;
CREATE PROCEDURE setrow(INOUT r jobs) LANGUAGE plpgsql AS $p$ BEGIN r.tok := 0; END $p$;`)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, tc := range trgSpellings {
		src := trgFunction(tc.body)
		row, err := ReadTrigger(src, "tok")
		mayAssign := err != nil || row.AssignsColumn // the callers' rule
		tx, err := pool.Begin(ctx)
		if err != nil {
			t.Fatal(err)
		}
		var tok int64
		_, err = tx.Exec(ctx, src+"\nCREATE TRIGGER a_reset BEFORE UPDATE ON jobs FOR EACH ROW EXECUTE FUNCTION reset_tok();\n"+
			"INSERT INTO jobs VALUES (1, 'q', 5);\nUPDATE jobs SET status = 'x' WHERE id = 1;")
		if err == nil {
			err = tx.QueryRow(ctx, "SELECT coalesce(tok, -1) FROM jobs").Scan(&tok)
		}
		tx.Rollback(ctx) //nolint:errcheck
		if err != nil {
			t.Errorf("%s: PostgreSQL: %v", tc.name, err)
			continue
		}
		changed := tok != 5
		switch {
		case changed && !mayAssign:
			t.Errorf("%s: PostgreSQL stores token %d (not 5), fencegen reads no assignment of NEW.tok", tc.name, tok)
		case !changed && !tc.assigns && mayAssign:
			t.Errorf("%s: PostgreSQL keeps token 5, fencegen reads an assignment of NEW.tok", tc.name)
		case changed != tc.assigns:
			t.Errorf("%s: PostgreSQL stores token %d; the case says assigns = %v", tc.name, tok, tc.assigns)
		}
	}
}
