package writeoracle

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/fencegen/fencegen/gen/internal/migrations"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// TokenColumn is the fencing-token column the oracle adds to every table
// that has no parent (its inheritance children and partitions get it from
// the parent), so that any table can be marked: bigint NOT NULL DEFAULT 0.
const TokenColumn = "fence_tok"

// staleStored is the token every seeded row stores; a stale run presents
// staleToken, which it does not beat.
const (
	staleStored = 1000000
	staleToken  = 1
)

var psqlMeta = regexp.MustCompile(`(?m)^\\[a-zA-Z].*$`)

// schemaFiles lists the files of schema entries (files, directories,
// globs; relative to dir) in the order the migration tools apply them:
// a directory's *.sql files without *.down.sql, by numeric version
// prefix when every name has one, lexically otherwise.
func schemaFiles(dir string, entries []string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	sqlFile := func(name string) bool {
		return strings.HasSuffix(name, ".sql") && !strings.HasPrefix(name, ".") && !strings.HasSuffix(name, ".down.sql")
	}
	for _, e := range entries {
		p := filepath.FromSlash(e)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		matches := []string{p}
		if strings.ContainsAny(e, "*?[") {
			matches, _ = filepath.Glob(p)
			sort.Strings(matches)
		}
		for _, m := range matches {
			info, err := os.Stat(m)
			if err != nil {
				continue
			}
			if !info.IsDir() {
				if sqlFile(filepath.Base(m)) {
					add(m)
				}
				continue
			}
			ents, _ := os.ReadDir(m)
			var names []string
			for _, de := range ents {
				if !de.IsDir() && sqlFile(de.Name()) {
					names = append(names, de.Name())
				}
			}
			for _, n := range byVersion(names) {
				add(filepath.Join(m, n))
			}
		}
	}
	return out
}

// byVersion orders migration file names by their numeric prefix as a
// number (9_a before 10_b), lexically when a name has none.
func byVersion(names []string) []string {
	out := append([]string(nil), names...)
	version := func(n string) (string, bool) {
		i := 0
		for i < len(n) && n[i] >= '0' && n[i] <= '9' {
			i++
		}
		return strings.TrimLeft(n[:i], "0"), i > 0
	}
	for _, n := range out {
		if _, ok := version(n); !ok {
			sort.Strings(out)
			return out
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, _ := version(out[i])
		b, _ := version(out[j])
		if len(a) != len(b) {
			return len(a) < len(b)
		}
		if a != b {
			return a < b
		}
		return out[i] < out[j]
	})
	return out
}

// schemaStatements reads a schema file's up migration and splits it into
// statements with PostgreSQL's parser (those that do not parse are left
// out: PostgreSQL would reject them too).
func schemaStatements(name string) ([]string, error) {
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	src = []byte(strings.TrimPrefix(string(src), "\ufeff"))
	// The down migration is not applied (migrations.DownStart: where the
	// tool, or sqlc, stops reading).
	if loc := migrations.DownStart(src); loc >= 0 {
		src = src[:loc]
	}
	src = psqlMeta.ReplaceAll(src, nil)
	f, _ := sqlparse.Parse(filepath.Base(name), src)
	if f == nil {
		return nil, nil
	}
	var out []string
	for _, s := range f.Stmts {
		out = append(out, string(src[s.Start:s.End]))
	}
	return out, nil
}

// typeAliases are types that schemas written for several engines use and
// PostgreSQL lacks (lnd's migrations declare BLOB columns and replace the
// word with BYTEA when they run on PostgreSQL): the oracle creates each as
// a domain over the PostgreSQL type when a statement needs it.
var typeAliases = map[string]string{"blob": "bytea"}

var undefinedType = regexp.MustCompile(`type "([^"]+)" does not exist`)

// applySchema runs each statement of the files on its own, outside a
// transaction (CREATE INDEX CONCURRENTLY needs that). The statements that
// fail are tried again after the others, in passes, while a pass makes
// progress (a table declared after the foreign key that refers to it);
// it returns how many PostgreSQL still rejected.
func applySchema(ctx context.Context, conn *pgx.Conn, files []string) (applied, rejected int, err error) {
	var pending []string
	for _, f := range files {
		stmts, err := schemaStatements(f)
		if err != nil {
			return applied, rejected, err
		}
		pending = append(pending, stmts...)
	}
	for {
		var failed []string
		for _, s := range pending {
			_, err := conn.Exec(ctx, s)
			if err != nil && ctx.Err() == nil {
				if m := undefinedType.FindStringSubmatch(err.Error()); m != nil && typeAliases[m[1]] != "" {
					if _, derr := conn.Exec(ctx, fmt.Sprintf("CREATE DOMAIN %s AS %s", pgx.Identifier{m[1]}.Sanitize(), typeAliases[m[1]])); derr == nil {
						_, err = conn.Exec(ctx, s)
					}
				}
			}
			if err != nil {
				if ctx.Err() != nil {
					return applied, len(pending), ctx.Err()
				}
				failed = append(failed, s)
				continue
			}
			applied++
		}
		if len(failed) == 0 || len(failed) == len(pending) {
			return applied, len(failed), nil
		}
		pending = failed
	}
}

// Table is a table of the scratch database: an ordinary or partitioned
// table outside the system schemas.
type Table struct {
	OID    uint32
	Schema string
	Name   string
	// Parents are the direct parents' qualified names (INHERITS or
	// PARTITION OF).
	Parents []string
	// Partitioned is a partitioned table (relkind p).
	Partitioned bool
	// Partition is a partition of a partitioned table.
	Partition bool
}

// Qualified is schema.name as the audit records it.
func (t *Table) Qualified() string { return t.Schema + "." + t.Name }

// Ident is the table's quoted, schema-qualified name.
func (t *Table) Ident() string { return pgx.Identifier{t.Schema, t.Name}.Sanitize() }

func listTables(ctx context.Context, conn *pgx.Conn) ([]*Table, error) {
	rows, err := conn.Query(ctx, `
SELECT c.oid, n.nspname, c.relname, c.relkind = 'p', c.relispartition,
       coalesce(array(SELECT pn.nspname || '.' || p.relname
                      FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent
                      JOIN pg_namespace pn ON pn.oid = p.relnamespace
                      WHERE i.inhrelid = c.oid ORDER BY i.inhseqno), '{}')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relkind IN ('r', 'p') AND c.relpersistence <> 't'
  AND n.nspname NOT IN ('pg_catalog', 'information_schema') AND n.nspname NOT LIKE 'pg\_%'
  AND c.relname <> 'oracle_audit'
ORDER BY n.nspname, c.relname`)
	if err != nil {
		return nil, err
	}
	var out []*Table
	for rows.Next() {
		t := &Table{}
		if err := rows.Scan(&t.OID, &t.Schema, &t.Name, &t.Partitioned, &t.Partition, &t.Parents); err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

// columnComments returns the column comments of every table (schema.name)
// by column: where a project's own mark is.
func columnComments(ctx context.Context, conn *pgx.Conn) (map[string]map[string]string, error) {
	rows, err := conn.Query(ctx, `
SELECT n.nspname || '.' || c.relname, a.attname, d.description
FROM pg_description d
JOIN pg_class c ON c.oid = d.objoid AND d.classoid = 'pg_class'::regclass
JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum = d.objsubid AND d.objsubid > 0
JOIN pg_namespace n ON n.oid = c.relnamespace`)
	if err != nil {
		return nil, err
	}
	out := map[string]map[string]string{}
	for rows.Next() {
		var t, col, c string
		if err := rows.Scan(&t, &col, &c); err != nil {
			return nil, err
		}
		if out[t] == nil {
			out[t] = map[string]string{}
		}
		out[t][col] = c
	}
	return out, rows.Err()
}

// addTokenColumns adds TokenColumn to every table without a parent (the
// children inherit it) and returns the statements, which the generator
// reads as an extra schema file.
func addTokenColumns(ctx context.Context, conn *pgx.Conn, tables []*Table) (string, error) {
	var b strings.Builder
	for _, t := range tables {
		if len(t.Parents) > 0 {
			continue
		}
		// A schema may give a table the column itself (one whose row
		// type another table's column is of, which PostgreSQL lets no
		// ALTER TABLE ADD COLUMN change).
		var has bool
		if err := conn.QueryRow(ctx, `SELECT EXISTS (SELECT FROM pg_attribute WHERE attrelid = $1 AND attname = $2 AND NOT attisdropped)`, t.OID, TokenColumn).Scan(&has); err != nil {
			return "", fmt.Errorf("look up the token column of %s: %w", t.Qualified(), err)
		}
		if has {
			continue
		}
		s := columnStatement(t)
		if _, err := conn.Exec(ctx, s); err != nil {
			return "", fmt.Errorf("add the token column to %s: %w", t.Qualified(), err)
		}
		b.WriteString(s)
	}
	return b.String(), nil
}

// columnStatement adds TokenColumn to a table, one line.
func columnStatement(t *Table) string {
	return fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s bigint NOT NULL DEFAULT 0;\n", t.Ident(), TokenColumn)
}

// markStatements marks TokenColumn of the tables as the fencing token, as
// a schema's COMMENT ON COLUMN mark (docs/guard.md).
func markStatements(tables []*Table) string {
	var b strings.Builder
	for _, t := range tables {
		fmt.Fprintf(&b, "COMMENT ON COLUMN %s.%s IS 'fencegen:token';\n", t.Ident(), TokenColumn)
	}
	return b.String()
}

// auditSQL creates the audit table and the recording trigger function.
// The function records the table, the operation, the level, and for a row
// the token (the column its argument names) stored before (OLD) and after
// (NEW) the write.
const auditSQL = `
CREATE TABLE oracle_audit (
    id bigserial PRIMARY KEY,
    tbl text NOT NULL,
    op text NOT NULL,
    level text NOT NULL,
    old_tok bigint,
    new_tok bigint
);
CREATE FUNCTION oracle_record() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_LEVEL = 'ROW' THEN
        INSERT INTO oracle_audit (tbl, op, level, old_tok, new_tok) VALUES (
            TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, TG_OP, TG_LEVEL,
            CASE WHEN TG_OP IN ('UPDATE', 'DELETE') THEN (to_jsonb(OLD) ->> TG_ARGV[0])::bigint END,
            CASE WHEN TG_OP IN ('INSERT', 'UPDATE') THEN (to_jsonb(NEW) ->> TG_ARGV[0])::bigint END);
    ELSE
        INSERT INTO oracle_audit (tbl, op, level) VALUES (TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME, TG_OP, TG_LEVEL);
    END IF;
    RETURN NULL;
END
$$;
`

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// ddlAuditSQL records schema changes as writes of level DDL: an event
// trigger at ddl_command_end records each command, as a write of the
// table it changes (a table, or its index, trigger, rule or policy:
// ALTER TABLE ... TYPE ... USING rewrites every stored token without a row
// trigger) or else of the object's identity (a command on a type also
// as a write of each table with a column of it: ALTER TYPE ... RENAME
// VALUE changes their values), and one at sql_drop each object dropped,
// a table's column, default, trigger, rule, constraint or policy that
// CASCADE drops as a write of the table. A statement that changes the schema writes something,
// so it is never an over-refusal.
const ddlAuditSQL = `
CREATE FUNCTION oracle_record_ddl() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO oracle_audit (tbl, op, level)
    SELECT coalesce((
        SELECT n.nspname || '.' || t.relname
        FROM pg_class t JOIN pg_namespace n ON n.oid = t.relnamespace
        WHERE t.relkind IN ('r', 'p') AND t.oid = CASE d.classid
            WHEN 'pg_class'::regclass THEN coalesce((SELECT indrelid FROM pg_index WHERE indexrelid = d.objid), d.objid)
            WHEN 'pg_trigger'::regclass THEN (SELECT tgrelid FROM pg_trigger WHERE oid = d.objid)
            WHEN 'pg_rewrite'::regclass THEN (SELECT ev_class FROM pg_rewrite WHERE oid = d.objid)
            WHEN 'pg_policy'::regclass THEN (SELECT polrelid FROM pg_policy WHERE oid = d.objid)
            END), d.object_identity, d.command_tag), d.command_tag, 'DDL'
    FROM pg_event_trigger_ddl_commands() d;
    -- A command on a type (ALTER TYPE ... RENAME VALUE) changes the
    -- values of the tables whose columns are of it, an array of it or a
    -- domain over it.
    INSERT INTO oracle_audit (tbl, op, level)
    SELECT DISTINCT n.nspname || '.' || t.relname, d.command_tag, 'DDL'
    FROM pg_event_trigger_ddl_commands() d
    JOIN pg_type ty ON d.classid = 'pg_type'::regclass AND (ty.oid = d.objid OR ty.typelem = d.objid OR ty.typbasetype = d.objid)
    JOIN pg_attribute a ON a.atttypid = ty.oid AND a.attnum > 0 AND NOT a.attisdropped
    JOIN pg_class t ON t.oid = a.attrelid AND t.relkind IN ('r', 'p')
    JOIN pg_namespace n ON n.oid = t.relnamespace;
END
$$;
CREATE EVENT TRIGGER oracle_ddl ON ddl_command_end EXECUTE FUNCTION oracle_record_ddl();
CREATE FUNCTION oracle_record_drop() RETURNS event_trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO oracle_audit (tbl, op, level)
    SELECT CASE WHEN object_type = 'table' THEN schema_name || '.' || object_name
                WHEN object_type IN ('table column', 'default value', 'trigger', 'rule', 'table constraint', 'policy')
                    THEN address_names[1] || '.' || address_names[2]
                ELSE object_identity END,
           'DROP ' || upper(object_type), 'DDL'
    FROM pg_event_trigger_dropped_objects()
    -- What CASCADE drops with the object: a table's columns, defaults,
    -- triggers, rules, constraints and policies count as its writes.
    -- A foreign key's own triggers on the table it references
    -- (RI_ConstraintTrigger_*, internal to the constraint) go with the
    -- referencing table or constraint: the referenced table's rows and
    -- its guard stay as they were.
    WHERE (original OR object_type IN ('table', 'table column', 'default value', 'trigger', 'rule', 'table constraint', 'policy'))
      AND NOT (object_type = 'trigger' AND NOT original AND address_names[3] LIKE 'RI\_ConstraintTrigger\_%');
END
$$;
CREATE EVENT TRIGGER oracle_drop ON sql_drop EXECUTE FUNCTION oracle_record_drop();
`

// installTriggers installs the recording triggers on every table: one
// statement-level trigger for INSERT, UPDATE, DELETE and TRUNCATE and one
// row-level trigger for INSERT, UPDATE and DELETE (a row trigger on a
// partitioned table is cloned to its partitions by PostgreSQL, so a
// partition gets only its statement-level one), and the event triggers of
// ddlAuditSQL.
func installTriggers(ctx context.Context, conn *pgx.Conn, tables []*Table, tokenOf func(*Table) string) error {
	if _, err := conn.Exec(ctx, auditSQL); err != nil {
		return fmt.Errorf("install the audit table: %w", err)
	}
	for _, t := range tables {
		s := fmt.Sprintf("CREATE TRIGGER oracle_stmt AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON %s FOR EACH STATEMENT EXECUTE FUNCTION oracle_record('')", t.Ident())
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("install the statement trigger on %s: %w", t.Qualified(), err)
		}
		if t.Partition {
			continue
		}
		s = fmt.Sprintf("CREATE TRIGGER oracle_row AFTER INSERT OR UPDATE OR DELETE ON %s FOR EACH ROW EXECUTE FUNCTION oracle_record(%s)", t.Ident(), quoteLiteral(tokenOf(t)))
		if _, err := conn.Exec(ctx, s); err != nil {
			return fmt.Errorf("install the row trigger on %s: %w", t.Qualified(), err)
		}
	}
	if _, err := conn.Exec(ctx, ddlAuditSQL); err != nil {
		return fmt.Errorf("install the event triggers: %w", err)
	}
	// The event triggers saw their own installation.
	if _, err := conn.Exec(ctx, "TRUNCATE oracle_audit"); err != nil {
		return err
	}
	return nil
}

// seed inserts two rows into every table (and each partition directly),
// the k-th holding the k-th candidate value of every column's type and
// staleStored as its token (TokenColumn, and the project's own token
// columns, by name), with session_replication_role = replica so
// that foreign keys and the schema's own triggers do not stand in the way.
// A row PostgreSQL refuses (a CHECK, a unique key) is left out; seed
// returns how many rows went in.
func seed(ctx context.Context, conn *pgx.Conn, tables []*Table, types typeCache, tokens map[string]bool) (int, error) {
	if _, err := conn.Exec(ctx, "SET session_replication_role = replica"); err != nil {
		return 0, err
	}
	defer conn.Exec(context.WithoutCancel(ctx), "RESET session_replication_role") //nolint:errcheck
	n := 0
	for _, t := range tables {
		rows, err := conn.Query(ctx, `
SELECT a.attname, a.atttypid
FROM pg_attribute a
WHERE a.attrelid = $1 AND a.attnum > 0 AND NOT a.attisdropped
  AND a.attgenerated = '' AND a.attidentity <> 'a'
ORDER BY a.attnum`, t.OID)
		if err != nil {
			return n, err
		}
		var cols []string
		var oids []uint32
		for rows.Next() {
			var c string
			var o uint32
			if err := rows.Scan(&c, &o); err != nil {
				return n, err
			}
			cols = append(cols, c)
			oids = append(oids, o)
		}
		if err := rows.Err(); err != nil {
			return n, err
		}
		if len(cols) == 0 {
			continue
		}
		for k := 1; k <= 2; k++ {
			idents := make([]string, len(cols))
			vals := make([]string, len(cols))
			for i, c := range cols {
				idents[i] = pgx.Identifier{c}.Sanitize()
				ti, err := types.get(ctx, conn, oids[i])
				if err != nil {
					return n, err
				}
				if c == TokenColumn || tokens[c] && ti.category == "N" {
					vals[i] = fmt.Sprint(staleStored)
					continue
				}
				vals[i] = ti.literal(k) + "::" + ti.format
			}
			s := fmt.Sprintf("INSERT INTO %s (%s) VALUES (%s)", t.Ident(), strings.Join(idents, ", "), strings.Join(vals, ", "))
			if _, err := conn.Exec(ctx, s); err == nil {
				n++
			} else if ctx.Err() != nil {
				return n, ctx.Err()
			}
		}
	}
	// Rows the schema itself inserted (a migration's INSERT) store the
	// stale token's betters too.
	for _, t := range tables {
		if len(t.Parents) > 0 {
			continue
		}
		for _, c := range tokenColumns(tokens) {
			if _, err := conn.Exec(ctx, fmt.Sprintf("UPDATE %s SET %s = %d", t.Ident(), pgx.Identifier{c}.Sanitize(), staleStored)); err != nil && ctx.Err() != nil {
				return n, ctx.Err()
			}
		}
	}
	return n, nil
}

// tokenColumns are TokenColumn and the project's token columns, by name
// (a table that lacks one refuses its UPDATE, which seed ignores).
func tokenColumns(tokens map[string]bool) []string {
	out := []string{TokenColumn}
	for c := range tokens {
		if c != TokenColumn {
			out = append(out, c)
		}
	}
	sort.Strings(out)
	return out
}
