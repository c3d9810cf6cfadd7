package guard

import (
	"fmt"
	"hash/crc32"
	"slices"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/runtime/fenceimpl"
)

// The database-side guard on MySQL and MariaDB (engine: mysql): per fenced
// table, a BEFORE UPDATE trigger that refuses a row whose new token is
// below the stored one or NULL (on strict tables: not above it; on required
// tables also one that leaves it as stored without declaring it, see
// MySQLPresentedVar), a BEFORE
// DELETE trigger that refuses deleting a row whose stored token beats the
// one a writer presents in the session variable @fencegen_token (a DELETE
// carries no token of its own; without the variable, a DELETE passes, as
// on PostgreSQL, whose trigger guards UPDATE only), and, for a table with
// keys, a BEFORE INSERT trigger that refuses a row whose key a stored row
// with a higher token holds (REPLACE, which would delete it, INSERT ...
// ON DUPLICATE KEY UPDATE). Each SIGNALs SQLSTATE
// '45000' (error 1644, fenceimpl.MySQLSignalErrno) with the message
// fenceimpl.MySQLStaleMarker + "presented=N stored=M mode=... table=T",
// which generated code reports as a *fence.StaleError.
//
// Every migration drops and re-creates each trigger (DROP TRIGGER IF
// EXISTS, CREATE TRIGGER): applying the newest one brings any earlier
// state to the current guard, so NextMigration writes one whenever the
// guard migrations do not install the current guard already.

// MySQLPresentedVar is the user variable through which a write generated
// for a fenced table declares, on MySQL, the token it presents to the
// guard's triggers, with MySQLStatementVar, which binds the declaration
// to its statement (MySQLDeclared): an UPDATE or upsert of a table in
// mode required in its token assignment (tok = LAST_INSERT_ID(IF(...,
// @fencegen_presented := ?))), a DELETE in its token comparison. A
// trigger sees the row's new values, not which columns the UPDATE
// assigned: in mode required, an UPDATE that leaves the token as stored
// is one that presents no token unless its statement declared it so, or
// the session set @fencegen_token to it (a hand-written writer's
// declaration, which stays for the session). A DELETE carries no token:
// BEFORE DELETE compares the stored token with the one the statement
// declared, else with @fencegen_token.
//
// A user variable outlives the statement that sets it, and the guard's
// trigger may never run for the row (the team's BEFORE trigger, which
// runs first, refuses it; the guard is not installed yet; a DELETE
// matches no row): the trigger trusts a declaration only when
// @fencegen_statement holds the start of the statement that fires it
// and its table (NOW(6), which a trigger reads as its statement's start),
// so none left by an earlier statement, or by a statement on another
// table that set this one off, is taken for its own (trial t27h F3, F4).
const MySQLPresentedVar = "fencegen_presented"

// MySQLStatementVar is the user variable that binds a declaration in
// MySQLPresentedVar to the statement that made it: MySQLStatementScope.
const MySQLStatementVar = "fencegen_statement"

// MySQLStatementScope is the expression of the statement that runs and
// of fenced table (sqlc's catalog name, as the guard triggers have it):
// the statement's start, NOW(6), which a trigger reads as the start of
// the statement that fires it, and the table's name as a hexadecimal
// literal, which every sql_mode reads alike.
func MySQLStatementScope(table string) string {
	return fmt.Sprintf("CONCAT(NOW(6), ' ', X'%x')", table)
}

// MySQLDeclared is v, the token a generated statement on table presents,
// as the statement declares it to the guard's triggers: v, with
// @fencegen_statement set to the statement's scope (MySQLStatementScope)
// and @fencegen_presented to v.
func MySQLDeclared(v, table string) string {
	return "IF((@" + MySQLStatementVar + " := " + MySQLStatementScope(table) + ") IS NULL, NULL, @" + MySQLPresentedVar + " := " + v + ")"
}

// mysqlGuardTable is one fenced table's guard triggers on MySQL.
type mysqlGuardTable struct {
	Table, Column string
	// Spelled is the table's name as the schema last declared it
	// (CREATE TABLE Accounts, RENAME TABLE ... TO Accounts), "" when
	// unknown: Table is lower case, as sqlc's catalog folds it, while a
	// server with lower_case_table_names=0 (Linux's default) finds the
	// table only by its declared name. The triggers' ON and FROM name it
	// so; their names and messages keep Table.
	Spelled string
	Strict  bool
	// Required is mode required (not with Strict, which refuses an
	// UPDATE without a new token already).
	Required bool
	// Keys are the columns of each primary key, UNIQUE constraint and
	// unique index the catalog knows for the table (a row a REPLACE or
	// INSERT ... ON DUPLICATE KEY UPDATE conflicts with matches one):
	// the BEFORE INSERT trigger looks the stored row up by them. None:
	// no BEFORE INSERT trigger.
	Keys [][]string
	// Prefix maps a column of Keys to the length of the prefix of it a
	// key compares (catalog.Table.KeyPrefix: the shortest of them, which
	// matches no fewer rows than any key): the trigger compares
	// LEFT(c, n), as the key does, in the column's collation (so case
	// and PAD SPACE's trailing spaces are compared as the key compares
	// them).
	Prefix map[string]int
}

// mode is t's mode as the marks spell it and the triggers' messages
// say it: "strict", "required" or "non-strict".
func (t mysqlGuardTable) mode() string {
	switch {
	case t.Strict:
		return "strict"
	case t.Required:
		return "required"
	}
	return "non-strict"
}

// mysqlTriggerEvents are the events of a fenced table's guard triggers,
// each with the name part of its trigger (mysqlTriggerName), in the
// order statements writes them.
var mysqlTriggerEvents = []struct{ event, part string }{{"UPDATE", "bu"}, {"DELETE", "bd"}, {"INSERT", "bi"}}

// NewMySQLDatabaseGuard returns the database-side guard of an sql entry
// with engine mysql whose catalog is cat and whose Go code goes to out:
// the triggers of each fenced table, non-strict for the tables loosened
// names. It returns nil when cat has no fenced table.
func NewMySQLDatabaseGuard(cat *catalog.Catalog, loosened map[string]bool, out string) (*DatabaseGuard, error) {
	var tables []mysqlGuardTable
	for _, t := range cat.FencedTables() {
		strict := t.Fence.Strict && !loosened[MarkedTable(t).QualifiedName()]
		keys, untracked := t.UniqueKeys()
		if d := t.KeysInDoubt(); d != nil {
			// The BEFORE INSERT trigger looks rows up by each unique
			// key: not on keys the server may not have.
			return nil, &diag.Error{File: d.File, Line: d.Line, Col: d.Col, Msg: "fenced table " + t.Name + "'s keys may not be the ones fencegen read: " + d.Msg + "; the guard's BEFORE INSERT trigger looks up the row a REPLACE or upsert conflicts with by each unique key, so fencegen writes no guard; write the key change as MariaDB and MySQL both run it"}
		}
		if untracked {
			// The BEFORE INSERT trigger could not look up the row a
			// REPLACE or an upsert conflicts with on that key: refused
			// rather than written to miss it.
			file, line, col := t.UntrackedUniqueAt()
			if file == "" {
				file, line, col = t.File, t.Line, t.Col
			}
			return nil, &diag.Error{File: file, Line: line, Col: col, Msg: "fenced table " + t.Name + " has a unique key fencegen does not model (a key part on an expression, or a unique index CREATE TABLE ... LIKE copied): the guard's BEFORE INSERT trigger could not look up the row a REPLACE or INSERT ... ON DUPLICATE KEY UPDATE conflicts with on it, so fencegen writes no guard; make the key one of columns, or drop it"}
		}
		prefix := map[string]int{}
		for _, k := range keys {
			for _, c := range k {
				if n := t.KeyPrefix(c); n > 0 {
					prefix[c] = n
				}
			}
		}
		tables = append(tables, mysqlGuardTable{Table: t.Name, Column: t.Fence.Column, Strict: strict, Required: t.Fence.Required && !strict, Keys: keys, Prefix: prefix})
	}
	if len(tables) == 0 {
		return nil, nil
	}
	slices.SortFunc(tables, func(a, b mysqlGuardTable) int { return strings.Compare(a.Table, b.Table) })
	return &DatabaseGuard{Out: out, data: &guardData{}, mysql: tables}, nil
}

// mysqlIdent quotes a MySQL identifier with backquotes.
func mysqlIdent(name string) string { return "`" + strings.ReplaceAll(name, "`", "``") + "`" }

// mysqlString is an expression of string s that every sql_mode reads
// alike: a literal with ' doubled, and a backslash, which
// NO_BACKSLASH_ESCAPES reads as itself and the other modes as an escape,
// as CHAR(92 USING utf8mb4) joined in by CONCAT (the server stores a
// trigger with the sql_mode of the session that creates it, which the
// migration tool chooses).
func mysqlString(s string) string {
	parts := strings.Split(s, `\`)
	for i, p := range parts {
		parts[i] = "'" + strings.ReplaceAll(p, "'", "''") + "'"
	}
	if len(parts) == 1 {
		return parts[0]
	}
	return "CONCAT(" + strings.Join(parts, ", CHAR(92 USING utf8mb4), ") + ")"
}

// mysqlTriggerName is "fencegen_" + event + "_" + table, cut to MySQL's
// 64 characters with a checksum of the table's name when longer.
// MySQLTriggerName is the name of the guard trigger of table (lower
// case, as sqlc's catalog has it) for event part "bu" (BEFORE UPDATE),
// "bd" (BEFORE DELETE) or "bi" (BEFORE INSERT): fencegen_<part>_<table>,
// shortened with a checksum to MySQL's 64 characters.
func MySQLTriggerName(part, table string) string { return mysqlTriggerName(part, table) }

func mysqlTriggerName(event, table string) string {
	name := "fencegen_" + event + "_" + table
	if len(name) <= 64 {
		return name
	}
	sum := fmt.Sprintf("_%08x", crc32.ChecksumIEEE([]byte(table)))
	return name[:64-len(sum)] + sum
}

// statements returns the statements that install t's triggers: the
// DROPs first, then each CREATE TRIGGER (a compound statement).
//
// BEFORE UPDATE refuses, by mode:
//   - non-strict: a new token below the stored one, or NULL (reported
//     as presented=0; UPDATE IGNORE and a non-strict sql_mode would
//     store 0);
//   - strict: a new token not above the stored one (an UPDATE that does
//     not set it included), or NULL;
//   - required: a new token below the stored one or below 1, or NULL, and an
//     UPDATE that leaves the token as stored without declaring it
//     (MySQLPresentedVar, or @fencegen_token in the session), refused as
//     presenting token 0 (no token); it then sets @fencegen_presented back
//     to NULL.
//
// BEFORE DELETE refuses, in every mode, when @fencegen_token is set and
// does not beat the stored token (strict: is not above it).
//
// BEFORE INSERT (a table with Keys only) refuses a row whose key (any of
// Keys) a stored row already holds with a token the new row's does not
// beat as BEFORE UPDATE's mode would (NULL included): REPLACE fires it
// before it deletes the conflicting row, INSERT ... ON DUPLICATE KEY
// UPDATE before its BEFORE UPDATE, and a plain INSERT of a stored key
// gets the refusal instead of its duplicate-key error.
func (t mysqlGuardTable) statements() (drops, creates []string) {
	col := mysqlIdent(t.Column)
	oldTok, newTok := "OLD."+col, "NEW."+col
	// A NULL new token is refused whenever a token is stored: the
	// comparison would be NULL (no SIGNAL), and UPDATE IGNORE or a
	// non-strict sql_mode then stores 0 in a NOT NULL column.
	null := newTok + " IS NULL AND " + oldTok + " IS NOT NULL OR "
	// The token a statement declared for itself (a generated one), else
	// the session's (a hand-written writer's): MySQLPresentedVar.
	thisStatement := "@" + MySQLStatementVar + " <=> " + MySQLStatementScope(t.Table)
	delPresented := "COALESCE(IF(" + thisStatement + ", @" + MySQLPresentedVar + ", NULL), @fencegen_token)"
	mode, refuse := "non-strict", null+newTok+" < "+oldTok
	delRefuse := "NOT (" + oldTok + " <= " + delPresented + ")"
	switch {
	case t.Strict:
		mode, refuse = "strict", null+newTok+" <= "+oldTok
		delRefuse = "NOT (" + oldTok + " < " + delPresented + ")"
	case t.Required:
		mode, refuse = "required", null+newTok+" < "+oldTok+" OR "+newTok+" < 1"
	}
	tail := " mode=" + mode + " table=" + t.Table
	bu, bd, bi := mysqlTriggerName("bu", t.Table), mysqlTriggerName("bd", t.Table), mysqlTriggerName("bi", t.Table)
	drops = []string{
		"DROP TRIGGER IF EXISTS " + mysqlIdent(bu) + ";",
		"DROP TRIGGER IF EXISTS " + mysqlIdent(bd) + ";",
		"DROP TRIGGER IF EXISTS " + mysqlIdent(bi) + ";",
	}
	message := func(presented, stored string) string {
		return "LEFT(CONCAT(" + mysqlString(fenceimpl.MySQLStaleMarker+"presented=") + ", " + presented +
			", ' stored=', " + stored + ", " + mysqlString(tail) + "), 128)"
	}
	signal := "    SIGNAL SQLSTATE '" + fenceimpl.MySQLSQLState + "' SET MESSAGE_TEXT = fencegen_message;\n"
	body := func(cond, presented string) string {
		return "BEGIN\n" +
			"  DECLARE fencegen_message VARCHAR(128);\n" +
			"  IF " + cond + " THEN\n" +
			"    SET fencegen_message = " + message(presented, oldTok) + ";\n" +
			signal +
			"  END IF;\n" +
			"END"
	}
	// A refused NULL new token reads as presented=0 (no token).
	update := body(refuse, "IFNULL("+newTok+", 0)")
	if t.Required {
		presented := "@" + MySQLPresentedVar
		update = "BEGIN\n" +
			"  DECLARE fencegen_message VARCHAR(128);\n" +
			"  DECLARE fencegen_declared BOOLEAN DEFAULT " + newTok + " <=> " + presented + " AND " + thisStatement + " OR " + newTok + " <=> @fencegen_token;\n" +
			"  SET " + presented + " = NULL;\n" +
			"  IF " + refuse + " THEN\n" +
			"    SET fencegen_message = " + message("IFNULL("+newTok+", 0)", oldTok) + ";\n" +
			signal +
			"  ELSEIF " + newTok + " = " + oldTok + " AND NOT fencegen_declared THEN\n" +
			"    SET fencegen_message = " + message("0", oldTok) + ";\n" +
			signal +
			"  END IF;\n" +
			"END"
	}
	creates = []string{
		"CREATE TRIGGER " + mysqlIdent(bu) + " BEFORE UPDATE ON " + mysqlIdent(t.spelled()) + " FOR EACH ROW\n" + update,
		"CREATE TRIGGER " + mysqlIdent(bd) + " BEFORE DELETE ON " + mysqlIdent(t.spelled()) + " FOR EACH ROW\n" + body(delPresented+" IS NOT NULL AND "+delRefuse, delPresented),
	}
	if len(t.Keys) == 0 {
		return drops, creates
	}
	// The stored rows the new one conflicts with: NULL in a unique key
	// conflicts with nothing, as "=" has it.
	var match []string
	for _, k := range t.Keys {
		var eq []string
		for _, c := range k {
			if n := t.Prefix[c]; n > 0 {
				eq = append(eq, fmt.Sprintf("LEFT(%s, %d) = LEFT(NEW.%s, %d)", mysqlIdent(c), n, mysqlIdent(c), n))
				continue
			}
			eq = append(eq, mysqlIdent(c)+" = NEW."+mysqlIdent(c))
		}
		m := strings.Join(eq, " AND ")
		if len(t.Keys) > 1 && len(k) > 1 {
			m = "(" + m + ")"
		}
		match = append(match, m)
	}
	where := strings.Join(match, " OR ")
	if len(t.Keys) > 1 {
		where = "(" + where + ")"
	}
	// refuse of BEFORE UPDATE, with the stored row's column for OLD. (Not
	// IF EXISTS (...): mysqlwrites.SplitStatements reads that as no block,
	// as in DROP ... IF EXISTS.)
	stored := col
	insRefuse := strings.ReplaceAll(refuse, oldTok, stored)
	from := " FROM " + mysqlIdent(t.spelled()) + " WHERE " + where
	insert := "BEGIN\n" +
		"  DECLARE fencegen_message VARCHAR(128);\n" +
		"  IF 0 < (SELECT COUNT(*)" + from + " AND (" + insRefuse + ")) THEN\n" +
		"    SET fencegen_message = " + message("IFNULL("+newTok+", 0)", "(SELECT MAX("+stored+")"+from+")") + ";\n" +
		signal +
		"  END IF;\n" +
		"END"
	creates = append(creates, "CREATE TRIGGER "+mysqlIdent(bi)+" BEFORE INSERT ON "+mysqlIdent(t.spelled())+" FOR EACH ROW\n"+insert)
	return drops, creates
}

// mysqlRemoval is what a MySQL guard migration removes besides
// re-creating the fenced tables' triggers: the guard triggers left on
// tables no longer fenced (by name), and the tables fencegen guard
// -unfence names (a line for each, which the replay reads).
type mysqlRemoval struct {
	triggers, unfenced []string
}

// mysqlSQL renders the MySQL guard: File's SQL (format ""), or one file of
// a migration of format (down: golang-migrate's .down.sql), removing
// remove too (up only).
func mysqlSQL(tables []mysqlGuardTable, remove mysqlRemoval, format string, down bool) []byte {
	var b strings.Builder
	if format == "" {
		// File is generated code, which generate removes once the entry
		// fences no table; a migration is not (isMySQLGuardMigration).
		b.WriteString("-- Code generated by fencegen. DO NOT EDIT.\n")
	}
	b.WriteString("-- fencegen: the database-side fencing guard (engine mysql): for each fenced table, a BEFORE UPDATE\n" +
		"-- trigger refusing a token that does not beat the stored one (mode required: also an UPDATE that leaves\n" +
		"-- the token as stored without declaring it in @fencegen_token or @fencegen_presented, as presented=0),\n" +
		"-- a BEFORE DELETE trigger refusing a DELETE when the session's @fencegen_token does not beat it, and\n" +
		"-- (a table with keys) a BEFORE INSERT trigger refusing a row whose key a row with a token it does not beat\n" +
		"-- holds (REPLACE, INSERT ... ON DUPLICATE KEY UPDATE). A NULL token beats none.\n" +
		"-- Each SIGNALs SQLSTATE '45000' (error 1644), which fencegen's generated code reports as fence.ErrStaleToken.\n" +
		"-- A trigger clears an UPDATE's last-insert id: where the guard's read then cannot compare a column exactly\n" +
		"-- (CHAR, FLOAT, JSON, ...: fencegen vet notes each), connect with clientFoundRows=true (go-sql-driver/mysql DSN).\n")
	switch format {
	case "":
		b.WriteString("-- Apply it with a client that sends each compound statement whole (the mysql client: DELIMITER).\n")
	case "golang-migrate":
		b.WriteString("-- golang-migrate sends the file as one query: its DSN needs multiStatements=true.\n")
	case "goose", "dbmate":
		b.WriteString("\n" + upMark[format] + "\n")
	case "atlas":
		b.WriteString("-- atlas:delimiter -- end\n")
	}
	b.WriteString(mysqlBody(tables, remove, format, down))
	if mark := downMark[format]; mark != "" {
		b.WriteString("\n" + mark + "\n")
		b.WriteString(mysqlBody(tables, mysqlRemoval{}, format, true))
	}
	return []byte(b.String())
}

// mysqlStmt writes statement s (compound: a CREATE TRIGGER, whose body
// holds semicolons) to b as a migration of format sends it whole.
func mysqlStmt(b *strings.Builder, format, s string, compound bool) {
	b.WriteString("\n")
	switch {
	case format == "goose" && compound:
		b.WriteString("-- +goose StatementBegin\n" + s + ";\n-- +goose StatementEnd\n")
	case format == "atlas":
		b.WriteString(strings.TrimSuffix(s, ";") + "\n-- end\n")
	case format == "" && compound:
		b.WriteString("DELIMITER //\n" + s + " //\nDELIMITER ;\n")
	case compound:
		b.WriteString(s + ";\n")
	default:
		b.WriteString(s + "\n")
	}
}

// mysqlBody is the statements of mysqlSQL after its header, without a
// down section: the removals (up only), each fenced table's DROP TRIGGER
// IF EXISTS, then (up only) its CREATE TRIGGERs.
func mysqlBody(tables []mysqlGuardTable, remove mysqlRemoval, format string, down bool) string {
	var b strings.Builder
	stmt := func(s string, compound bool) { mysqlStmt(&b, format, s, compound) }
	var drops, creates []string
	for _, t := range tables {
		d, c := t.statements()
		drops, creates = append(drops, d...), append(creates, c...)
	}
	if !down {
		for _, t := range remove.unfenced {
			// Its triggers went with the table it was; any of their
			// names a rename left on another table go too.
			b.WriteString("\n-- fencegen guard -unfence: table " + t + " is no longer fenced, on purpose.")
			for _, e := range mysqlTriggerEvents {
				stmt("DROP TRIGGER IF EXISTS "+mysqlIdent(mysqlTriggerName(e.part, t))+";", false)
			}
		}
		for _, name := range remove.triggers {
			b.WriteString("\n-- Not a trigger of this guard (its table is no longer fenced, or a RENAME TABLE moved it).")
			stmt("DROP TRIGGER IF EXISTS "+mysqlIdent(name)+";", false)
		}
	}
	for _, d := range drops {
		stmt(d, false)
	}
	if !down {
		for _, c := range creates {
			stmt(c, true)
		}
	}
	return b.String()
}

// spelled is the name the triggers' statements give the table: as
// declared, else Table.
func (t mysqlGuardTable) spelled() string {
	if t.Spelled != "" && strings.EqualFold(t.Spelled, t.Table) {
		return t.Spelled
	}
	return t.Table
}
