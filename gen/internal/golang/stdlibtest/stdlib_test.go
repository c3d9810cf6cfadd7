package stdlibtest_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	pgx4 "github.com/jackc/pgx/v4"
	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgtype"
	_ "github.com/jackc/pgx/v5/stdlib" // database/sql driver "pgx"
	_ "github.com/lib/pq"              // database/sql driver "postgres"

	"github.com/fencegen/fencegen/gen"
	"github.com/fencegen/fencegen/gen/internal/golang/stdlibtest/pgxdb"
	"github.com/fencegen/fencegen/gen/internal/golang/stdlibtest/sqldb"
	"github.com/fencegen/fencegen/gen/internal/golang/stdlibtest/sqlprepdb"
	"github.com/fencegen/fencegen/internal/testenv"
	"github.com/fencegen/fencegen/runtime/fence"
)

// TestGeneratedCodeIsCurrent fails when the generated packages are not what
// the generator makes of fencegen.yaml now (run go generate).
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
		t.Fatalf("generated code is stale; run go generate in gen/internal/golang/stdlibtest:\n%s", diff)
	}
}

// newDatabase returns the URL of a fresh database holding the schema and
// the guard migration (identical in the three packages: one schema).
func newDatabase(t *testing.T) string {
	t.Helper()
	url := testenv.NewDatabase(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	for _, f := range []string{"schema.sql", "sqldb/" + gen.GuardFile} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := conn.Exec(ctx, string(b)); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
	}
	return url
}

func openSQL(t *testing.T, driver, url string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}

// outcome describes a method's result in terms both SQL packages share.
func outcome(v any, err error) string {
	var se *fence.StaleError
	switch {
	case err == nil:
		return fmt.Sprintf("ok %v", v)
	case errors.As(err, &se):
		if !errors.Is(err, fence.ErrStaleToken) {
			return "stale error that is not ErrStaleToken: " + err.Error()
		}
		return fmt.Sprintf("stale presented=%d stored=%d rows=%d mode=%v", se.Presented, se.Stored, se.Rows, se.Mode)
	case errors.Is(err, fence.ErrNotFound):
		var nf *fence.NotFoundError
		if !errors.As(err, &nf) {
			return "not-found error that is not a *fence.NotFoundError: " + err.Error()
		}
		if errors.Is(err, pgx.ErrNoRows) || errors.Is(err, sql.ErrNoRows) || errors.Is(err, pgx4.ErrNoRows) {
			return "notfound norows"
		}
		return "notfound"
	case errors.Is(err, pgx.ErrNoRows) || errors.Is(err, sql.ErrNoRows) || errors.Is(err, pgx4.ErrNoRows):
		return "norows"
	}
	return "error " + err.Error()
}

// api is the generated methods in the types both packages share; owner
// "" is NULL.
type api interface {
	AddJob(ctx context.Context, id int64, status, owner string, tags []string, tok fence.Token) error
	AddJobs(ctx context.Context, ids []int64, status string, tok fence.Token) (int64, error)
	SetStatus(ctx context.Context, id int64, status string, tok fence.Token) error
	SetStatusRows(ctx context.Context, id int64, status string, tok fence.Token) (int64, error)
	SetStatusResult(ctx context.Context, id int64, status string, tok fence.Token) (int64, error)
	SetOwnerStatus(ctx context.Context, owner, status string, tok fence.Token) (int64, error)
	SetOwnerStatusResult(ctx context.Context, owner, status string, tok fence.Token) (int64, error)
	SetStatusIfNew(ctx context.Context, id int64, status string, tok fence.Token) error
	Tag(ctx context.Context, id int64, tags []string, tok fence.Token) (string, error)
	TagOwner(ctx context.Context, owner string, tags []string, tok fence.Token) (string, error)
	RemoveJob(ctx context.Context, id int64, tok fence.Token) error
	RemoveOwnerJobs(ctx context.Context, owner string, tok fence.Token) (int64, error)
	PutJob(ctx context.Context, id int64, status string, tok fence.Token) (string, error)
	PutJobs(ctx context.Context, ids []int64, status string, tok fence.Token) (int64, error)
	CteCount(ctx context.Context, id int64, status string, tok fence.Token) (int64, error)
	CteByOwner(ctx context.Context, owner, status string, tok fence.Token) ([]int64, error)
	CteLog(ctx context.Context, id int64, status string, tok fence.Token) error
	AddStrictJob(ctx context.Context, id int64, status string, tok fence.Token) error
	SetStrictStatus(ctx context.Context, id int64, status string, tok fence.Token) (int64, error)
	RepairExec(ctx context.Context, id int64, status string) error
	RepairOne(ctx context.Context, id int64, status string) (string, error)
	RepairMany(ctx context.Context, minID int64, status string) ([]int64, error)
	ListJobs(ctx context.Context) (string, error)
	Dump(ctx context.Context) (string, error)
	DumpStrict(ctx context.Context) (string, error)
	CountLog(ctx context.Context) (int64, error)
}

type step struct {
	name string
	call func(ctx context.Context, a api) string
	// want is the start of the outcome every backend must give.
	want string
}

func s(name, want string, call func(ctx context.Context, a api) string) step {
	return step{name: name, call: call, want: want}
}

// steps are run in order on one database; after each, the tables' rows
// are part of the transcript.
var steps = []step{
	s("add 1", "ok", func(ctx context.Context, a api) string {
		return outcome(nil, a.AddJob(ctx, 1, "new", "ann", []string{"a"}, 5))
	}),
	s("add 2", "ok", func(ctx context.Context, a api) string {
		return outcome(nil, a.AddJob(ctx, 2, "new", "ann", []string{}, 5))
	}),
	s("add 3 (NULL owner)", "ok", func(ctx context.Context, a api) string {
		return outcome(nil, a.AddJob(ctx, 3, "new", "", []string{"x", "y z"}, 7))
	}),
	s("add 10, 11", "ok 2", func(ctx context.Context, a api) string {
		return outcome(a.AddJobs(ctx, []int64{10, 11}, "bulk", 3))
	}),
	s("add 1 again", "error", func(ctx context.Context, a api) string {
		// A unique violation: reported as the driver's error (its text
		// differs between drivers, so only its SQLSTATE is compared).
		err := a.AddJob(ctx, 1, "dup", "ann", nil, 9)
		var st interface{ SQLState() string }
		if errors.As(err, &st) {
			return "error " + st.SQLState()
		}
		return outcome(nil, err)
	}),
	s("set 1 token 6", "ok", func(ctx context.Context, a api) string {
		return outcome(nil, a.SetStatus(ctx, 1, "run", 6))
	}),
	s("set 1 token 4", "stale presented=4 stored=6 rows=1", func(ctx context.Context, a api) string {
		return outcome(nil, a.SetStatus(ctx, 1, "stale", 4))
	}),
	s("set 99", "notfound", func(ctx context.Context, a api) string {
		return outcome(nil, a.SetStatus(ctx, 99, "x", 9))
	}),
	s("set rows 2 token 5", "ok 1", func(ctx context.Context, a api) string {
		return outcome(a.SetStatusRows(ctx, 2, "run", 5))
	}),
	s("set rows 2 token 1", "stale presented=1 stored=5", func(ctx context.Context, a api) string {
		return outcome(a.SetStatusRows(ctx, 2, "x", 1))
	}),
	s("set result 1 token 6", "ok 1", func(ctx context.Context, a api) string {
		return outcome(a.SetStatusResult(ctx, 1, "res", 6))
	}),
	s("set result 1 token 2", "stale presented=2 stored=6", func(ctx context.Context, a api) string {
		return outcome(a.SetStatusResult(ctx, 1, "x", 2))
	}),
	s("set result 99", "notfound", func(ctx context.Context, a api) string {
		return outcome(a.SetStatusResult(ctx, 99, "x", 9))
	}),
	s("set owner ann token 8", "ok 2", func(ctx context.Context, a api) string {
		return outcome(a.SetOwnerStatus(ctx, "ann", "own", 8))
	}),
	s("set owner ann token 7", "stale presented=7 stored=8 rows=2", func(ctx context.Context, a api) string {
		return outcome(a.SetOwnerStatus(ctx, "ann", "x", 7))
	}),
	s("set owner nobody", "notfound", func(ctx context.Context, a api) string {
		return outcome(a.SetOwnerStatus(ctx, "nobody", "x", 9))
	}),
	s("set owner result ann token 8", "ok 2", func(ctx context.Context, a api) string {
		return outcome(a.SetOwnerStatusResult(ctx, "ann", "own2", 8))
	}),
	s("set owner result ann token 1", "stale presented=1 stored=8 rows=2", func(ctx context.Context, a api) string {
		return outcome(a.SetOwnerStatusResult(ctx, "ann", "x", 1))
	}),
	s("set if new 1 (not new)", "notfound", func(ctx context.Context, a api) string {
		return outcome(nil, a.SetStatusIfNew(ctx, 1, "x", 9))
	}),
	s("set if new 3 token 1", "stale presented=1 stored=7", func(ctx context.Context, a api) string {
		return outcome(nil, a.SetStatusIfNew(ctx, 3, "x", 1))
	}),
	s("tag 1 token 9", "ok 1 own2 ann [p q,r] 9", func(ctx context.Context, a api) string {
		return outcome(a.Tag(ctx, 1, []string{"p", "q,r"}, 9))
	}),
	s("tag 1 token 3", "stale presented=3 stored=9", func(ctx context.Context, a api) string {
		return outcome(a.Tag(ctx, 1, []string{"z"}, 3))
	}),
	s("tag 99", "notfound norows", func(ctx context.Context, a api) string {
		return outcome(a.Tag(ctx, 99, []string{"z"}, 9))
	}),
	s("tag owner ann token 9", "ok [1 [t]] [2 [t]]", func(ctx context.Context, a api) string {
		return outcome(a.TagOwner(ctx, "ann", []string{"t"}, 9))
	}),
	s("tag owner ann token 8", "stale presented=8 stored=9 rows=2", func(ctx context.Context, a api) string {
		return outcome(a.TagOwner(ctx, "ann", []string{"u"}, 8))
	}),
	s("put 4 token 5 (insert)", "ok 4 put", func(ctx context.Context, a api) string {
		return outcome(a.PutJob(ctx, 4, "put", 5))
	}),
	s("put 4 token 3", "stale presented=3 stored=5", func(ctx context.Context, a api) string {
		return outcome(a.PutJob(ctx, 4, "put2", 3))
	}),
	s("put 4 token 6", "ok 4 put3", func(ctx context.Context, a api) string {
		return outcome(a.PutJob(ctx, 4, "put3", 6))
	}),
	s("put 4, 5 token 4", "stale presented=4 stored=6 rows=1", func(ctx context.Context, a api) string {
		return outcome(a.PutJobs(ctx, []int64{4, 5}, "many", 4))
	}),
	s("put 4, 5 token 7", "ok 2", func(ctx context.Context, a api) string {
		return outcome(a.PutJobs(ctx, []int64{4, 5}, "many", 7))
	}),
	s("cte count 1 token 10", "ok 1", func(ctx context.Context, a api) string {
		return outcome(a.CteCount(ctx, 1, "cte", 10))
	}),
	s("cte count 1 token 2", "stale presented=2 stored=10", func(ctx context.Context, a api) string {
		return outcome(a.CteCount(ctx, 1, "x", 2))
	}),
	s("cte count 99", "ok 0", func(ctx context.Context, a api) string {
		return outcome(a.CteCount(ctx, 99, "x", 10))
	}),
	s("cte owner ann token 11", "ok [1 2]", func(ctx context.Context, a api) string {
		return outcome(a.CteByOwner(ctx, "ann", "cteown", 11))
	}),
	s("cte owner ann token 10", "stale presented=10 stored=11", func(ctx context.Context, a api) string {
		return outcome(a.CteByOwner(ctx, "ann", "x", 10))
	}),
	s("cte log 1 token 12", "ok", func(ctx context.Context, a api) string {
		if err := a.CteLog(ctx, 1, "log", 12); err != nil {
			return outcome(nil, err)
		}
		return outcome(a.CountLog(ctx))
	}),
	s("cte log 1 token 1 (nothing logged)", "stale presented=1 stored=12 rows=1 mode=non-strict log rows 1", func(ctx context.Context, a api) string {
		err := a.CteLog(ctx, 1, "x", 1)
		n, cerr := a.CountLog(ctx)
		return outcome(nil, err) + " log rows " + outcome(n, cerr)[len("ok "):]
	}),
	s("remove 10 token 2", "stale presented=2 stored=3", func(ctx context.Context, a api) string {
		return outcome(nil, a.RemoveJob(ctx, 10, 2))
	}),
	s("remove 10 token 3", "ok", func(ctx context.Context, a api) string {
		return outcome(nil, a.RemoveJob(ctx, 10, 3))
	}),
	s("remove 10 again", "notfound", func(ctx context.Context, a api) string {
		return outcome(nil, a.RemoveJob(ctx, 10, 3))
	}),
	s("remove owner ann token 1", "stale presented=1 stored=12 rows=2", func(ctx context.Context, a api) string {
		return outcome(a.RemoveOwnerJobs(ctx, "ann", 1))
	}),
	s("add strict 1", "ok", func(ctx context.Context, a api) string {
		return outcome(nil, a.AddStrictJob(ctx, 1, "s", 5))
	}),
	s("set strict 1 token 5 (strict: not above)", "stale presented=5 stored=5 rows=1 mode=strict", func(ctx context.Context, a api) string {
		return outcome(a.SetStrictStatus(ctx, 1, "x", 5))
	}),
	s("set strict 1 token 6", "ok 1", func(ctx context.Context, a api) string {
		return outcome(a.SetStrictStatus(ctx, 1, "y", 6))
	}),
	s("repair exec (refused by the trigger)", "stale presented=6 stored=6", func(ctx context.Context, a api) string {
		return outcome(nil, a.RepairExec(ctx, 1, "r"))
	}),
	s("repair one (refused by the trigger)", "stale presented=6 stored=6", func(ctx context.Context, a api) string {
		return outcome(a.RepairOne(ctx, 1, "r"))
	}),
	s("repair many (refused by the trigger)", "stale presented=6 stored=6", func(ctx context.Context, a api) string {
		return outcome(a.RepairMany(ctx, 0, "r"))
	}),
	s("list", "ok [1 log ann [t] 12] [2 cteown ann [t] 11] [3 new  [x y z] 7] [4 many  [] 7] [5 many  [] 7] [11 bulk  [] 3]", func(ctx context.Context, a api) string {
		return outcome(a.ListJobs(ctx))
	}),
}

// transcript runs steps on a and returns one line per step with its
// outcome and the rows after it; failures of want are reported.
func transcript(t *testing.T, name string, a api) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	for _, st := range steps {
		got := st.call(ctx, a)
		if !strings.HasPrefix(got, st.want) {
			t.Errorf("%s: %s: %s; want %s...", name, st.name, got, st.want)
		}
		jobs, err := a.Dump(ctx)
		strict, serr := a.DumpStrict(ctx)
		out = append(out, fmt.Sprintf("%s: %s | jobs %s | strict %s", st.name, got, outcome(jobs, err), outcome(strict, serr)))
	}
	return out
}

// TestFencedWritesMatchPgx runs every step on pgx/v5 (pgxdb on a pgx
// connection) and on database/sql (sqldb, and sqlprepdb's prepared
// statements) with lib/pq and with pgx's stdlib: each step's outcome and
// the rows after it must be the same everywhere.
func TestFencedWritesMatchPgx(t *testing.T) {
	ctx := context.Background()
	pgxURL := newDatabase(t)
	conn, err := pgx.Connect(ctx, pgxURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	want := transcript(t, "pgx/v5", pgxAPI{pgxdb.New(conn)})
	for _, driver := range []string{"postgres", "pgx"} {
		db := openSQL(t, driver, newDatabase(t))
		compare(t, "database/sql "+driver, want, transcript(t, "database/sql "+driver, sqlAPI{sqldb.New(db)}))

		db = openSQL(t, driver, newDatabase(t))
		prep, err := sqlprepdb.Prepare(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		compare(t, "prepared "+driver, want, transcript(t, "prepared "+driver, prepAPI{prep}))
		if err := prep.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

func compare(t *testing.T, name string, want, got []string) {
	t.Helper()
	for i := range want {
		if i >= len(got) || got[i] != want[i] {
			t.Errorf("%s differs from pgx/v5 at step %d:\n pgx/v5: %s\n %s: %s", name, i, want[i], name, at(got, i))
		}
	}
}

func at(s []string, i int) string {
	if i < len(s) {
		return s[i]
	}
	return "(missing)"
}

// TestFencedWriteInTxAllOrNothing: a fenced write refused inside a
// database/sql transaction (WithTx) writes nothing and leaves the
// transaction usable; a write accepted in it is kept only on commit. Both
// drivers, plain and prepared.
func TestFencedWriteInTxAllOrNothing(t *testing.T) {
	ctx := context.Background()
	for _, driver := range []string{"postgres", "pgx"} {
		db := openSQL(t, driver, newDatabase(t))
		q := sqldb.New(db)
		prep, err := sqlprepdb.Prepare(ctx, db)
		if err != nil {
			t.Fatal(err)
		}
		defer prep.Close()
		if err := q.AddJob(ctx, sqldb.AddJobParams{ID: 1, Status: "new", Tags: []string{}}, 5); err != nil {
			t.Fatal(err)
		}
		for _, commit := range []bool{false, true} {
			tx, err := db.BeginTx(ctx, nil)
			if err != nil {
				t.Fatal(err)
			}
			qt, pt := q.WithTx(tx), prep.WithTx(tx)
			_, err = qt.SetOwnerStatus(ctx, sqldb.SetOwnerStatusParams{Status: "x", Owner: sql.NullString{}}, 9)
			if !errors.Is(err, fence.ErrNotFound) {
				t.Fatalf("%s: NULL owner matches no row: %v", driver, err)
			}
			if _, err := pt.SetStatusRows(ctx, sqlprepdb.SetStatusRowsParams{ID: 1, Status: "old"}, 4); !errors.Is(err, fence.ErrStaleToken) {
				t.Fatalf("%s: token 4 after 5: %v", driver, err)
			}
			if n, err := pt.SetStatusRows(ctx, sqlprepdb.SetStatusRowsParams{ID: 1, Status: fmt.Sprint("commit=", commit)}, 6); err != nil || n != 1 {
				t.Fatalf("%s: token 6: %d, %v", driver, n, err)
			}
			if commit {
				err = tx.Commit()
			} else {
				err = tx.Rollback()
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		got, err := q.Dump(ctx)
		if err != nil || got != "1:commit=true::{}:6" {
			t.Errorf("%s: rows after rollback then commit: %q, %v", driver, got, err)
		}
	}
}

func text(s string) pgtype.Text       { return pgtype.Text{String: s, Valid: s != ""} }
func nullStr(s string) sql.NullString { return sql.NullString{String: s, Valid: s != ""} }

type pgxAPI struct{ q *pgxdb.Queries }

func (a pgxAPI) AddJob(ctx context.Context, id int64, status, owner string, tags []string, tok fence.Token) error {
	return a.q.AddJob(ctx, pgxdb.AddJobParams{ID: id, Status: status, Owner: text(owner), Tags: tags}, tok)
}
func (a pgxAPI) AddJobs(ctx context.Context, ids []int64, status string, tok fence.Token) (int64, error) {
	return a.q.AddJobs(ctx, pgxdb.AddJobsParams{Ids: ids, Status: status}, tok)
}
func (a pgxAPI) SetStatus(ctx context.Context, id int64, status string, tok fence.Token) error {
	return a.q.SetStatus(ctx, pgxdb.SetStatusParams{ID: id, Status: status}, tok)
}
func (a pgxAPI) SetStatusRows(ctx context.Context, id int64, status string, tok fence.Token) (int64, error) {
	return a.q.SetStatusRows(ctx, pgxdb.SetStatusRowsParams{ID: id, Status: status}, tok)
}
func (a pgxAPI) SetStatusResult(ctx context.Context, id int64, status string, tok fence.Token) (int64, error) {
	tag, err := a.q.SetStatusResult(ctx, pgxdb.SetStatusResultParams{ID: id, Status: status}, tok)
	return tag.RowsAffected(), err
}
func (a pgxAPI) SetOwnerStatus(ctx context.Context, owner, status string, tok fence.Token) (int64, error) {
	return a.q.SetOwnerStatus(ctx, pgxdb.SetOwnerStatusParams{Owner: text(owner), Status: status}, tok)
}
func (a pgxAPI) SetOwnerStatusResult(ctx context.Context, owner, status string, tok fence.Token) (int64, error) {
	tag, err := a.q.SetOwnerStatusResult(ctx, pgxdb.SetOwnerStatusResultParams{Owner: text(owner), Status: status}, tok)
	return tag.RowsAffected(), err
}
func (a pgxAPI) SetStatusIfNew(ctx context.Context, id int64, status string, tok fence.Token) error {
	return a.q.SetStatusIfNew(ctx, pgxdb.SetStatusIfNewParams{ID: id, Status: status}, tok)
}
func (a pgxAPI) Tag(ctx context.Context, id int64, tags []string, tok fence.Token) (string, error) {
	j, err := a.q.Tag(ctx, pgxdb.TagParams{ID: id, Tags: tags}, tok)
	return fmt.Sprint(j.ID, " ", j.Status, " ", j.Owner.String, " ", j.Tags, " ", j.Tok), err
}
func (a pgxAPI) TagOwner(ctx context.Context, owner string, tags []string, tok fence.Token) (string, error) {
	rows, err := a.q.TagOwner(ctx, pgxdb.TagOwnerParams{Owner: text(owner), Tags: tags}, tok)
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprint("[", r.ID, " ", r.Tags, "]"))
	}
	sort.Strings(out) // RETURNING has no order
	return strings.Join(out, " "), err
}
func (a pgxAPI) RemoveJob(ctx context.Context, id int64, tok fence.Token) error {
	return a.q.RemoveJob(ctx, id, tok)
}
func (a pgxAPI) RemoveOwnerJobs(ctx context.Context, owner string, tok fence.Token) (int64, error) {
	return a.q.RemoveOwnerJobs(ctx, text(owner), tok)
}
func (a pgxAPI) PutJob(ctx context.Context, id int64, status string, tok fence.Token) (string, error) {
	r, err := a.q.PutJob(ctx, pgxdb.PutJobParams{ID: id, Status: status}, tok)
	return fmt.Sprint(r.ID, " ", r.Status), err
}
func (a pgxAPI) PutJobs(ctx context.Context, ids []int64, status string, tok fence.Token) (int64, error) {
	return a.q.PutJobs(ctx, pgxdb.PutJobsParams{Ids: ids, Status: status}, tok)
}
func (a pgxAPI) CteCount(ctx context.Context, id int64, status string, tok fence.Token) (int64, error) {
	return a.q.CteCount(ctx, pgxdb.CteCountParams{ID: id, Status: status}, tok)
}
func (a pgxAPI) CteByOwner(ctx context.Context, owner, status string, tok fence.Token) ([]int64, error) {
	return a.q.CteByOwner(ctx, pgxdb.CteByOwnerParams{Owner: text(owner), Status: status}, tok)
}
func (a pgxAPI) CteLog(ctx context.Context, id int64, status string, tok fence.Token) error {
	return a.q.CteLog(ctx, pgxdb.CteLogParams{ID: id, Status: status}, tok)
}
func (a pgxAPI) AddStrictJob(ctx context.Context, id int64, status string, tok fence.Token) error {
	return a.q.AddStrictJob(ctx, pgxdb.AddStrictJobParams{ID: id, Status: status}, tok)
}
func (a pgxAPI) SetStrictStatus(ctx context.Context, id int64, status string, tok fence.Token) (int64, error) {
	return a.q.SetStrictStatus(ctx, pgxdb.SetStrictStatusParams{ID: id, Status: status}, tok)
}
func (a pgxAPI) RepairExec(ctx context.Context, id int64, status string) error {
	return a.q.RepairExec(ctx, pgxdb.RepairExecParams{ID: id, Status: status})
}
func (a pgxAPI) RepairOne(ctx context.Context, id int64, status string) (string, error) {
	return a.q.RepairOne(ctx, pgxdb.RepairOneParams{ID: id, Status: status})
}
func (a pgxAPI) RepairMany(ctx context.Context, minID int64, status string) ([]int64, error) {
	return a.q.RepairMany(ctx, pgxdb.RepairManyParams{MinID: minID, Status: status})
}
func (a pgxAPI) ListJobs(ctx context.Context) (string, error) {
	rows, err := a.q.ListJobs(ctx)
	var out []string
	for _, j := range rows {
		out = append(out, fmt.Sprint("[", j.ID, " ", j.Status, " ", j.Owner.String, " ", j.Tags, " ", j.Tok, "]"))
	}
	return strings.Join(out, " "), err
}
func (a pgxAPI) Dump(ctx context.Context) (string, error)       { return a.q.Dump(ctx) }
func (a pgxAPI) DumpStrict(ctx context.Context) (string, error) { return a.q.DumpStrict(ctx) }
func (a pgxAPI) CountLog(ctx context.Context) (int64, error)    { return a.q.CountLog(ctx) }

type sqlAPI struct{ q *sqldb.Queries }

func (a sqlAPI) AddJob(ctx context.Context, id int64, status, owner string, tags []string, tok fence.Token) error {
	return a.q.AddJob(ctx, sqldb.AddJobParams{ID: id, Status: status, Owner: nullStr(owner), Tags: tags}, tok)
}
func (a sqlAPI) AddJobs(ctx context.Context, ids []int64, status string, tok fence.Token) (int64, error) {
	return a.q.AddJobs(ctx, sqldb.AddJobsParams{Ids: ids, Status: status}, tok)
}
func (a sqlAPI) SetStatus(ctx context.Context, id int64, status string, tok fence.Token) error {
	return a.q.SetStatus(ctx, sqldb.SetStatusParams{ID: id, Status: status}, tok)
}
func (a sqlAPI) SetStatusRows(ctx context.Context, id int64, status string, tok fence.Token) (int64, error) {
	return a.q.SetStatusRows(ctx, sqldb.SetStatusRowsParams{ID: id, Status: status}, tok)
}
func (a sqlAPI) SetStatusResult(ctx context.Context, id int64, status string, tok fence.Token) (int64, error) {
	return rowsAffected(a.q.SetStatusResult(ctx, sqldb.SetStatusResultParams{ID: id, Status: status}, tok))
}
func (a sqlAPI) SetOwnerStatus(ctx context.Context, owner, status string, tok fence.Token) (int64, error) {
	return a.q.SetOwnerStatus(ctx, sqldb.SetOwnerStatusParams{Owner: nullStr(owner), Status: status}, tok)
}
func (a sqlAPI) SetOwnerStatusResult(ctx context.Context, owner, status string, tok fence.Token) (int64, error) {
	return rowsAffected(a.q.SetOwnerStatusResult(ctx, sqldb.SetOwnerStatusResultParams{Owner: nullStr(owner), Status: status}, tok))
}
func (a sqlAPI) SetStatusIfNew(ctx context.Context, id int64, status string, tok fence.Token) error {
	return a.q.SetStatusIfNew(ctx, sqldb.SetStatusIfNewParams{ID: id, Status: status}, tok)
}
func (a sqlAPI) Tag(ctx context.Context, id int64, tags []string, tok fence.Token) (string, error) {
	j, err := a.q.Tag(ctx, sqldb.TagParams{ID: id, Tags: tags}, tok)
	return fmt.Sprint(j.ID, " ", j.Status, " ", j.Owner.String, " ", j.Tags, " ", j.Tok), err
}
func (a sqlAPI) TagOwner(ctx context.Context, owner string, tags []string, tok fence.Token) (string, error) {
	rows, err := a.q.TagOwner(ctx, sqldb.TagOwnerParams{Owner: nullStr(owner), Tags: tags}, tok)
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprint("[", r.ID, " ", r.Tags, "]"))
	}
	sort.Strings(out) // RETURNING has no order
	return strings.Join(out, " "), err
}
func (a sqlAPI) RemoveJob(ctx context.Context, id int64, tok fence.Token) error {
	return a.q.RemoveJob(ctx, id, tok)
}
func (a sqlAPI) RemoveOwnerJobs(ctx context.Context, owner string, tok fence.Token) (int64, error) {
	return a.q.RemoveOwnerJobs(ctx, nullStr(owner), tok)
}
func (a sqlAPI) PutJob(ctx context.Context, id int64, status string, tok fence.Token) (string, error) {
	r, err := a.q.PutJob(ctx, sqldb.PutJobParams{ID: id, Status: status}, tok)
	return fmt.Sprint(r.ID, " ", r.Status), err
}
func (a sqlAPI) PutJobs(ctx context.Context, ids []int64, status string, tok fence.Token) (int64, error) {
	return a.q.PutJobs(ctx, sqldb.PutJobsParams{Ids: ids, Status: status}, tok)
}
func (a sqlAPI) CteCount(ctx context.Context, id int64, status string, tok fence.Token) (int64, error) {
	return a.q.CteCount(ctx, sqldb.CteCountParams{ID: id, Status: status}, tok)
}
func (a sqlAPI) CteByOwner(ctx context.Context, owner, status string, tok fence.Token) ([]int64, error) {
	return a.q.CteByOwner(ctx, sqldb.CteByOwnerParams{Owner: nullStr(owner), Status: status}, tok)
}
func (a sqlAPI) CteLog(ctx context.Context, id int64, status string, tok fence.Token) error {
	return a.q.CteLog(ctx, sqldb.CteLogParams{ID: id, Status: status}, tok)
}
func (a sqlAPI) AddStrictJob(ctx context.Context, id int64, status string, tok fence.Token) error {
	return a.q.AddStrictJob(ctx, sqldb.AddStrictJobParams{ID: id, Status: status}, tok)
}
func (a sqlAPI) SetStrictStatus(ctx context.Context, id int64, status string, tok fence.Token) (int64, error) {
	return a.q.SetStrictStatus(ctx, sqldb.SetStrictStatusParams{ID: id, Status: status}, tok)
}
func (a sqlAPI) RepairExec(ctx context.Context, id int64, status string) error {
	return a.q.RepairExec(ctx, sqldb.RepairExecParams{ID: id, Status: status})
}
func (a sqlAPI) RepairOne(ctx context.Context, id int64, status string) (string, error) {
	return a.q.RepairOne(ctx, sqldb.RepairOneParams{ID: id, Status: status})
}
func (a sqlAPI) RepairMany(ctx context.Context, minID int64, status string) ([]int64, error) {
	return a.q.RepairMany(ctx, sqldb.RepairManyParams{MinID: minID, Status: status})
}
func (a sqlAPI) ListJobs(ctx context.Context) (string, error) {
	rows, err := a.q.ListJobs(ctx)
	var out []string
	for _, j := range rows {
		out = append(out, fmt.Sprint("[", j.ID, " ", j.Status, " ", j.Owner.String, " ", j.Tags, " ", j.Tok, "]"))
	}
	return strings.Join(out, " "), err
}
func (a sqlAPI) Dump(ctx context.Context) (string, error)       { return a.q.Dump(ctx) }
func (a sqlAPI) DumpStrict(ctx context.Context) (string, error) { return a.q.DumpStrict(ctx) }
func (a sqlAPI) CountLog(ctx context.Context) (int64, error)    { return a.q.CountLog(ctx) }

type prepAPI struct{ q *sqlprepdb.Queries }

func (a prepAPI) AddJob(ctx context.Context, id int64, status, owner string, tags []string, tok fence.Token) error {
	return a.q.AddJob(ctx, sqlprepdb.AddJobParams{ID: id, Status: status, Owner: nullStr(owner), Tags: tags}, tok)
}
func (a prepAPI) AddJobs(ctx context.Context, ids []int64, status string, tok fence.Token) (int64, error) {
	return a.q.AddJobs(ctx, sqlprepdb.AddJobsParams{Ids: ids, Status: status}, tok)
}
func (a prepAPI) SetStatus(ctx context.Context, id int64, status string, tok fence.Token) error {
	return a.q.SetStatus(ctx, sqlprepdb.SetStatusParams{ID: id, Status: status}, tok)
}
func (a prepAPI) SetStatusRows(ctx context.Context, id int64, status string, tok fence.Token) (int64, error) {
	return a.q.SetStatusRows(ctx, sqlprepdb.SetStatusRowsParams{ID: id, Status: status}, tok)
}
func (a prepAPI) SetStatusResult(ctx context.Context, id int64, status string, tok fence.Token) (int64, error) {
	return rowsAffected(a.q.SetStatusResult(ctx, sqlprepdb.SetStatusResultParams{ID: id, Status: status}, tok))
}
func (a prepAPI) SetOwnerStatus(ctx context.Context, owner, status string, tok fence.Token) (int64, error) {
	return a.q.SetOwnerStatus(ctx, sqlprepdb.SetOwnerStatusParams{Owner: nullStr(owner), Status: status}, tok)
}
func (a prepAPI) SetOwnerStatusResult(ctx context.Context, owner, status string, tok fence.Token) (int64, error) {
	return rowsAffected(a.q.SetOwnerStatusResult(ctx, sqlprepdb.SetOwnerStatusResultParams{Owner: nullStr(owner), Status: status}, tok))
}
func (a prepAPI) SetStatusIfNew(ctx context.Context, id int64, status string, tok fence.Token) error {
	return a.q.SetStatusIfNew(ctx, sqlprepdb.SetStatusIfNewParams{ID: id, Status: status}, tok)
}
func (a prepAPI) Tag(ctx context.Context, id int64, tags []string, tok fence.Token) (string, error) {
	j, err := a.q.Tag(ctx, sqlprepdb.TagParams{ID: id, Tags: tags}, tok)
	return fmt.Sprint(j.ID, " ", j.Status, " ", j.Owner.String, " ", j.Tags, " ", j.Tok), err
}
func (a prepAPI) TagOwner(ctx context.Context, owner string, tags []string, tok fence.Token) (string, error) {
	rows, err := a.q.TagOwner(ctx, sqlprepdb.TagOwnerParams{Owner: nullStr(owner), Tags: tags}, tok)
	var out []string
	for _, r := range rows {
		out = append(out, fmt.Sprint("[", r.ID, " ", r.Tags, "]"))
	}
	sort.Strings(out) // RETURNING has no order
	return strings.Join(out, " "), err
}
func (a prepAPI) RemoveJob(ctx context.Context, id int64, tok fence.Token) error {
	return a.q.RemoveJob(ctx, id, tok)
}
func (a prepAPI) RemoveOwnerJobs(ctx context.Context, owner string, tok fence.Token) (int64, error) {
	return a.q.RemoveOwnerJobs(ctx, nullStr(owner), tok)
}
func (a prepAPI) PutJob(ctx context.Context, id int64, status string, tok fence.Token) (string, error) {
	r, err := a.q.PutJob(ctx, sqlprepdb.PutJobParams{ID: id, Status: status}, tok)
	return fmt.Sprint(r.ID, " ", r.Status), err
}
func (a prepAPI) PutJobs(ctx context.Context, ids []int64, status string, tok fence.Token) (int64, error) {
	return a.q.PutJobs(ctx, sqlprepdb.PutJobsParams{Ids: ids, Status: status}, tok)
}
func (a prepAPI) CteCount(ctx context.Context, id int64, status string, tok fence.Token) (int64, error) {
	return a.q.CteCount(ctx, sqlprepdb.CteCountParams{ID: id, Status: status}, tok)
}
func (a prepAPI) CteByOwner(ctx context.Context, owner, status string, tok fence.Token) ([]int64, error) {
	return a.q.CteByOwner(ctx, sqlprepdb.CteByOwnerParams{Owner: nullStr(owner), Status: status}, tok)
}
func (a prepAPI) CteLog(ctx context.Context, id int64, status string, tok fence.Token) error {
	return a.q.CteLog(ctx, sqlprepdb.CteLogParams{ID: id, Status: status}, tok)
}
func (a prepAPI) AddStrictJob(ctx context.Context, id int64, status string, tok fence.Token) error {
	return a.q.AddStrictJob(ctx, sqlprepdb.AddStrictJobParams{ID: id, Status: status}, tok)
}
func (a prepAPI) SetStrictStatus(ctx context.Context, id int64, status string, tok fence.Token) (int64, error) {
	return a.q.SetStrictStatus(ctx, sqlprepdb.SetStrictStatusParams{ID: id, Status: status}, tok)
}
func (a prepAPI) RepairExec(ctx context.Context, id int64, status string) error {
	return a.q.RepairExec(ctx, sqlprepdb.RepairExecParams{ID: id, Status: status})
}
func (a prepAPI) RepairOne(ctx context.Context, id int64, status string) (string, error) {
	return a.q.RepairOne(ctx, sqlprepdb.RepairOneParams{ID: id, Status: status})
}
func (a prepAPI) RepairMany(ctx context.Context, minID int64, status string) ([]int64, error) {
	return a.q.RepairMany(ctx, sqlprepdb.RepairManyParams{MinID: minID, Status: status})
}
func (a prepAPI) ListJobs(ctx context.Context) (string, error) {
	rows, err := a.q.ListJobs(ctx)
	var out []string
	for _, j := range rows {
		out = append(out, fmt.Sprint("[", j.ID, " ", j.Status, " ", j.Owner.String, " ", j.Tags, " ", j.Tok, "]"))
	}
	return strings.Join(out, " "), err
}
func (a prepAPI) Dump(ctx context.Context) (string, error)       { return a.q.Dump(ctx) }
func (a prepAPI) DumpStrict(ctx context.Context) (string, error) { return a.q.DumpStrict(ctx) }
func (a prepAPI) CountLog(ctx context.Context) (int64, error)    { return a.q.CountLog(ctx) }

// rowsAffected is a database/sql :execresult's RowsAffected, 0 on error.
func rowsAffected(r sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return r.RowsAffected()
}
