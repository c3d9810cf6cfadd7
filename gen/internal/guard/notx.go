package guard

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	pg "github.com/pganalyze/pg_query_go/v5"
)

// outsideTransaction returns how the migration tool of format runs the
// migration raw (f, its up section as the schema reader parsed it) other
// than as one transaction, "" when it runs it as one:
//   - goose: a "-- +goose NO TRANSACTION" annotation anywhere in the file,
//     read as goose v3 reads annotations (internal/sqlparser: a line
//     starting "--", without leading blanks, holding "+goose"; every
//     "--" and the first "+goose" removed and white space trimmed, "NO
//     TRANSACTION" in any case);
//   - dbmate: the option transaction:false on the "-- migrate:up" line
//     (pkg/dbmate/migration.go: options are key:value fields after the
//     directive);
//   - Atlas: the file directive "-- atlas:txmode none", in the comments
//     before the first statement;
//   - any tool: a COMMIT or ROLLBACK (or PREPARE TRANSACTION) among the
//     up section's statements, which ends the tool's transaction there.
//
// golang-migrate sends a file as one query string, which PostgreSQL runs
// as one implicit transaction (unless the driver splits it, which its
// x-multi-statement option asks for, in the database URL only).
func outsideTransaction(raw []byte, format string, f *sqlparse.File) string {
	lines := strings.Split(strings.ReplaceAll(string(raw), "\r\n", "\n"), "\n")
	switch format {
	case "goose":
		for i, line := range lines {
			if !strings.HasPrefix(strings.TrimSpace(line), "--") || !strings.Contains(line, "+goose") || strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
				continue
			}
			cmd := strings.Replace(strings.ReplaceAll(line, "--", ""), "+goose", "", 1)
			if strings.EqualFold(strings.TrimSpace(cmd), "NO TRANSACTION") {
				return fmt.Sprintf("goose runs it outside a transaction (line %d: %s)", i+1, strings.TrimSpace(line))
			}
		}
	case "dbmate":
		for i, line := range lines {
			if loc := dbmateUp().FindStringIndex(line); loc != nil {
				for _, field := range strings.Fields(line[loc[1]:]) {
					if k, v, ok := strings.Cut(field, ":"); ok && k == "transaction" && v == "false" && !strings.Contains(v, ":") {
						return fmt.Sprintf("dbmate runs its up section outside a transaction (line %d: %s)", i+1, strings.TrimSpace(line))
					}
				}
				break
			}
		}
	case "atlas":
		for i, line := range lines {
			t := strings.TrimSpace(line)
			if t != "" && !strings.HasPrefix(t, "--") {
				break
			}
			if atlasTxNone().MatchString(t) {
				return fmt.Sprintf("Atlas runs it outside a transaction (line %d: %s)", i+1, t)
			}
		}
	}
	if f != nil {
		for _, st := range f.Stmts {
			ts := st.Raw.GetTransactionStmt()
			if ts == nil {
				continue
			}
			switch ts.GetKind() {
			case pg.TransactionStmtKind_TRANS_STMT_COMMIT, pg.TransactionStmtKind_TRANS_STMT_ROLLBACK, pg.TransactionStmtKind_TRANS_STMT_PREPARE:
				line, _ := diag.Position(f.Src, st.Start)
				return fmt.Sprintf("its statement at line %d ends the transaction the tool runs it in, and the statements after it run outside one", line)
			}
		}
	}
	return ""
}

// dbmateUp matches dbmate's up directive (pkg/dbmate/migration.go).
var dbmateUp = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^--\s*migrate:up(\s|$)`) })

// atlasTxNone matches Atlas's file directive that runs a file outside a
// transaction.
var atlasTxNone = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^--\s*atlas:txmode\s+none\s*$`) })
