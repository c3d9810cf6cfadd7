package gen

// fencegen vet's check that PostgreSQL prepares each query (issue 23):
// sqlc v1.31.1, analysing without a database, generates queries that
// PostgreSQL refuses (a column missing from GROUP BY, DISTINCT with an
// ORDER BY expression not selected, 'abc'::int, an aggregate in WHERE,
// GROUP BY 2 past the select list, ...), and fencegen generates them as
// sqlc does. The analysis knows a few such refusals itself (analyze's
// refusals: "operator does not exist", ORDER BY position); for the rest
// vet asks a server: the entry's schema is applied to a scratch database
// and every query is prepared there, each refusal a note with
// PostgreSQL's own message. generate never connects.

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/internal/pgscratch"
)

// VetDatabaseEnv names the environment variable whose PostgreSQL
// connection string fencegen vet uses for its prepare check (Vet).
const VetDatabaseEnv = "DATABASE_URL"

// vetPrepare applies schema, statement by statement, to a new scratch
// database created through the server at uri (dropped WITH (FORCE)
// before it returns), and prepares each query of files there (its text
// as generated, unnamed, never run). It returns a note per query
// PostgreSQL refuses, at the query, with PostgreSQL's message, and marks
// the query Refused; queries the analysis already found refused are
// skipped (their note says so), as are those with an IN (sqlc.slice(x))
// list, whose text is completed when the method runs. When the check
// cannot run (no connection, no CREATE DATABASE privilege, a schema
// statement the server refuses), it returns no query note and one note
// saying why, at where (the entry in the configuration file) or at the
// schema statement. The whole check is bounded by dbTimeout.
func vetPrepare(ctx context.Context, uri, where string, schema []*sqlparse.File, files []*analyze.File) []string {
	ctx, cancel := context.WithTimeout(ctx, dbTimeout)
	defer cancel()
	skipped := func(format string, args ...any) []string {
		return []string{fmt.Sprintf("%s: note: vet did not check that PostgreSQL prepares this entry's queries: %s", where, fmt.Sprintf(format, args...))}
	}
	oneLine := func(err error) string {
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return pe.Message
		}
		return errLine(err)
	}
	pc, err := pgx.ParseConfig(uri)
	if err != nil {
		return skipped("%s: %s", VetDatabaseEnv, oneLine(err))
	}
	admin, err := pgconn.ConnectConfig(ctx, &pc.Config)
	if err != nil {
		return skipped("cannot connect to %s: %s", VetDatabaseEnv, oneLine(err))
	}
	defer admin.Close(context.Background())
	name, drop, err := pgscratch.Create(ctx, admin, "fencegen_vet_", dbTimeout)
	if err != nil {
		return skipped("creating a scratch database at %s: %s", VetDatabaseEnv, oneLine(err))
	}
	defer drop() // even when ctx has ended
	sc := pc.Config.Copy()
	sc.Database = name
	conn, err := pgconn.ConnectConfig(ctx, sc)
	if err != nil {
		return skipped("cannot connect to the scratch database: %s", oneLine(err))
	}
	defer conn.Close(context.Background())
	for _, f := range schema {
		for _, st := range f.Stmts {
			text := string(f.Src[st.Start:st.End])
			if _, err := conn.Exec(ctx, text).ReadAll(); err != nil {
				line, col := diag.Position(f.Src, st.Start)
				return []string{fmt.Sprintf("%s:%d:%d: note: vet did not check that PostgreSQL prepares this entry's queries: PostgreSQL refuses this schema statement: %s", f.Name, line, col, oneLine(err))}
			}
		}
	}
	if conn.TxStatus() != 'I' {
		// A migration's BEGIN without its COMMIT.
		if _, err := conn.Exec(ctx, "COMMIT").ReadAll(); err != nil {
			return skipped("ending the schema's transaction: %s", oneLine(err))
		}
	}
	var notes []string
	for _, f := range files {
		for _, q := range f.Queries {
			if q.Refused != "" || len(q.InSlices) > 0 {
				continue
			}
			_, err := conn.Prepare(ctx, "", q.SQL, nil)
			if err == nil {
				continue
			}
			var pe *pgconn.PgError
			if !errors.As(err, &pe) {
				// Not the server's answer (the connection broke, ctx
				// ended): no claim about the rest either.
				return append(notes, skipped("preparing query %s: %s", q.Name, oneLine(err))...)
			}
			q.Refused = pe.Message
			notes = append(notes, fmt.Sprintf("%s:%d:%d: note: query %s: PostgreSQL refuses this query: %s; generated as sqlc generates it", q.File, q.Line, q.Col, q.Name, pe.Message))
		}
	}
	return notes
}
