package catalog_test

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/fencegen/fencegen/gen/internal/analyze"
	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/internal/testenv"
)

// ddlCases are schemas PostgreSQL accepts. For each, the catalog built
// from it must describe the same tables, columns (type, NOT NULL,
// default, identity, generated), keys, foreign keys, enums and composite
// types as PostgreSQL's own catalogs after applying it. A new case is one
// line.
var ddlCases = []struct{ name, ddl string }{
	{"create keys", `CREATE TABLE p (id bigserial PRIMARY KEY, code text UNIQUE); CREATE TABLE c (id int GENERATED ALWAYS AS IDENTITY PRIMARY KEY, p_id bigint REFERENCES p ON DELETE CASCADE, code text REFERENCES p (code) ON UPDATE SET NULL)`},
	{"table-level named", `CREATE TABLE p (id int, CONSTRAINT p_pk PRIMARY KEY (id)); CREATE TABLE t (id int, p_id int, CONSTRAINT t_p FOREIGN KEY (p_id) REFERENCES p (id) ON DELETE RESTRICT ON UPDATE CASCADE)`},
	{"multi-column", `CREATE TABLE p (a int, b int, PRIMARY KEY (a, b)); CREATE TABLE t (x int, y int, FOREIGN KEY (x, y) REFERENCES p ON DELETE SET DEFAULT)`},
	{"pk and unique merged", `CREATE TABLE t (id int PRIMARY KEY UNIQUE, u int UNIQUE, UNIQUE (u))`},
	{"self reference", `CREATE TABLE t (id int PRIMARY KEY, parent int REFERENCES t ON DELETE CASCADE)`},
	{"long names", `CREATE TABLE aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa (id int PRIMARY KEY, bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb int UNIQUE REFERENCES aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa)`},
	{"add column bigserial pk", `CREATE TABLE t (a int); ALTER TABLE t ADD COLUMN id BIGSERIAL PRIMARY KEY`},
	{"add column unique references", `CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE t (a int); ALTER TABLE t ADD COLUMN p_id int UNIQUE REFERENCES p ON DELETE SET NULL`},
	{"add column and constraint together", `CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE t (a int); ALTER TABLE t ADD COLUMN p_id int NOT NULL, ADD CONSTRAINT t_p_fk FOREIGN KEY (p_id) REFERENCES p ON DELETE CASCADE, ADD PRIMARY KEY (p_id)`},
	{"add constraint", `CREATE TABLE p (id int PRIMARY KEY, x int, y int); CREATE TABLE t (a int NOT NULL, b int, x int, y int); ALTER TABLE t ADD PRIMARY KEY (a); ALTER TABLE t ADD CONSTRAINT t_b_uq UNIQUE (b); ALTER TABLE t ADD UNIQUE (x, y); ALTER TABLE p ADD UNIQUE (x, y); ALTER TABLE t ADD FOREIGN KEY (x, y) REFERENCES p (x, y) ON DELETE CASCADE`},
	{"add primary key sets not null", `CREATE TABLE t (a int, b int); ALTER TABLE t ADD PRIMARY KEY (a, b)`},
	{"drop constraint default names", `CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE t (id int PRIMARY KEY, p_id int REFERENCES p, code text UNIQUE); ALTER TABLE t DROP CONSTRAINT t_pkey; ALTER TABLE t DROP CONSTRAINT t_p_id_fkey; ALTER TABLE t DROP CONSTRAINT t_code_key`},
	{"drop constraint if exists", `CREATE TABLE t (id int, CHECK (id > 0)); ALTER TABLE t DROP CONSTRAINT IF EXISTS nope, DROP CONSTRAINT t_id_check`},
	{"numbered names", `CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE t (a int REFERENCES p, b int); ALTER TABLE t ADD FOREIGN KEY (a) REFERENCES p; ALTER TABLE t ADD UNIQUE (b); ALTER TABLE t ADD UNIQUE (b)`},
	{"pkey name taken by a table", `CREATE TABLE t_pkey (x int); CREATE TABLE t (id int PRIMARY KEY)`},
	{"renamed table keeps names", `CREATE TABLE t (id int PRIMARY KEY, u int UNIQUE); ALTER TABLE t RENAME TO old; CREATE TABLE t (id int PRIMARY KEY, u int UNIQUE)`},
	{"fk dropped and re-added", `CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE t (p_id int REFERENCES p); ALTER TABLE t DROP CONSTRAINT t_p_id_fkey, ADD CONSTRAINT t_p_id_fkey FOREIGN KEY (p_id) REFERENCES p ON DELETE CASCADE; ALTER TABLE t DROP CONSTRAINT t_p_id_fkey; ALTER TABLE t ADD FOREIGN KEY (p_id) REFERENCES p ON DELETE SET NULL ON UPDATE CASCADE`},
	{"rename column", `CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE t (id int PRIMARY KEY, p_id int REFERENCES p, u text UNIQUE); ALTER TABLE t RENAME COLUMN p_id TO parent_id; ALTER TABLE p RENAME COLUMN id TO pid; ALTER TABLE t RENAME u TO v`},
	{"rename constraint and index", `CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE t (id int PRIMARY KEY, p_id int REFERENCES p, u text UNIQUE); ALTER TABLE t RENAME CONSTRAINT t_p_id_fkey TO t_parent_fk; ALTER TABLE t RENAME CONSTRAINT t_pkey TO t_pk; ALTER INDEX t_u_key RENAME TO t_u_uq`},
	{"not null", `CREATE TABLE t (a int, b int NOT NULL); ALTER TABLE t ALTER COLUMN a SET NOT NULL, ALTER COLUMN b DROP NOT NULL`},
	{"column type", `CREATE TABLE t (a int, b text[], c int); ALTER TABLE t ALTER COLUMN a TYPE bigint, ALTER COLUMN b TYPE varchar(10)[]; ALTER TABLE t ALTER c SET DATA TYPE numeric(10, 2)`},
	// A serial column is NOT NULL in PostgreSQL and, as in sqlc,
	// nullable in the catalog unless declared so: c is declared NOT NULL.
	{"defaults", `CREATE TABLE t (a int DEFAULT 1, b int, c serial NOT NULL); ALTER TABLE t ALTER a DROP DEFAULT, ALTER b SET DEFAULT 2, ALTER c DROP DEFAULT`},
	{"not null domains", `CREATE DOMAIN st AS varchar(20) NOT NULL; CREATE DOMAIN st2 AS st; CREATE DOMAIN free AS text; CREATE TABLE t (id int PRIMARY KEY, a st, b st NOT NULL, c st, d st, e st2, f text, g free); ALTER TABLE t ALTER COLUMN a TYPE text; ALTER TABLE t ALTER COLUMN b TYPE text; ALTER TABLE t ALTER COLUMN c DROP NOT NULL; ALTER TABLE t ALTER COLUMN f TYPE st; ALTER TABLE t ALTER COLUMN d SET NOT NULL; ALTER TABLE t ALTER COLUMN d TYPE free; ALTER TABLE t ADD COLUMN h st2`},
	{"default null", `CREATE DOMAIN d AS int DEFAULT 1; CREATE TABLE t (a int DEFAULT NULL, b text DEFAULT NULL::text, c d DEFAULT NULL, e int DEFAULT 2, g varchar(50) DEFAULT NULL, h numeric(10, 2) DEFAULT 1); ALTER TABLE t ALTER COLUMN e SET DEFAULT NULL, ADD COLUMN f int DEFAULT NULL, ALTER COLUMN h SET DEFAULT NULL`},
	{"identity", `CREATE TABLE t (a int NOT NULL, b int GENERATED BY DEFAULT AS IDENTITY, c bigint NOT NULL, d int GENERATED ALWAYS AS IDENTITY); ALTER TABLE t ALTER COLUMN a ADD GENERATED ALWAYS AS IDENTITY; ALTER TABLE t ALTER COLUMN b DROP IDENTITY; ALTER TABLE t ALTER c ADD GENERATED BY DEFAULT AS IDENTITY; ALTER TABLE t ALTER d DROP IDENTITY IF EXISTS`},
	{"generated", `CREATE TABLE t (a int, b int GENERATED ALWAYS AS (a * 2) STORED, d int GENERATED ALWAYS AS (a + 1) STORED); ALTER TABLE t ADD COLUMN c text GENERATED ALWAYS AS (a::text) STORED; ALTER TABLE t ALTER COLUMN d DROP EXPRESSION`},
	{"drop column drops keys", `CREATE TABLE p (id int PRIMARY KEY, k int UNIQUE); CREATE TABLE t (id int, a int, b int UNIQUE, p_k int REFERENCES p (k), PRIMARY KEY (id, a)); CREATE TABLE q (k int REFERENCES p (k)); ALTER TABLE t DROP COLUMN a; ALTER TABLE t DROP COLUMN p_k; ALTER TABLE p DROP COLUMN k CASCADE`},
	{"drop referenced key cascade", `CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE t (p_id int REFERENCES p); ALTER TABLE p DROP CONSTRAINT p_pkey CASCADE`},
	{"drop table cascade", `CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE t (p_id int REFERENCES p); DROP TABLE p CASCADE`},
	{"drop partitioned table", `CREATE TABLE m (id int, k int, PRIMARY KEY (id, k)) PARTITION BY RANGE (k); CREATE TABLE m1 PARTITION OF m FOR VALUES FROM (0) TO (10); CREATE TABLE keep (a int); DROP TABLE m`},
	{"drop parent cascade", `CREATE TABLE p (id int); CREATE TABLE c (x int) INHERITS (p); CREATE TABLE g () INHERITS (c); DROP TABLE p CASCADE`},
	{"drop schema cascade", `CREATE SCHEMA s; CREATE TABLE s.p (id int PRIMARY KEY); CREATE TABLE t (p_id int REFERENCES s.p); DROP SCHEMA s CASCADE`},
	{"drop type cascade", `CREATE TYPE mood AS ENUM ('a'); CREATE TABLE t (id int, m mood UNIQUE, ms mood[]); DROP TYPE mood CASCADE`},
	// DROP DOMAIN ... CASCADE drops the columns declared with it, an
	// array of it or a domain over it, and the domains over it; a column
	// of its name added after is new (issue 24, trial-pg3 finding 17).
	{"drop domain cascade", `CREATE DOMAIN tok_t AS bigint; CREATE DOMAIN tok2 AS tok_t; CREATE TABLE t (id int PRIMARY KEY, tok tok_t NOT NULL DEFAULT 0, toks tok_t[], t2 tok2, n bigint); DROP DOMAIN tok_t CASCADE; ALTER TABLE t ADD COLUMN tok bigint NOT NULL DEFAULT 0; CREATE DOMAIN tok2 AS int`},
	{"drop extension cascade", `CREATE EXTENSION IF NOT EXISTS citext; CREATE DOMAIN email AS citext; CREATE TABLE t (id int PRIMARY KEY, a citext, b citext[], c email, d text); DROP EXTENSION citext CASCADE; ALTER TABLE t ADD COLUMN a text; CREATE DOMAIN email AS text`},
	{"drop type under domain cascade", `CREATE TYPE mood AS ENUM ('a'); CREATE DOMAIN m2 AS mood; CREATE TABLE t (id int, m m2, k int); DROP TYPE mood CASCADE; DROP DOMAIN IF EXISTS m2`},
	{"set schema", `CREATE SCHEMA s; CREATE TABLE s.p (id int PRIMARY KEY); CREATE TABLE t (p_id int REFERENCES s.p); ALTER TABLE s.p SET SCHEMA public; CREATE TYPE s.e AS ENUM ('x'); ALTER TYPE s.e SET SCHEMA public; CREATE TABLE u (e e)`},
	{"schema rename", `CREATE SCHEMA s; CREATE TABLE s.p (id int PRIMARY KEY); CREATE TABLE s.c (p_id int REFERENCES s.p); ALTER SCHEMA s RENAME TO r`},
	{"inherits", `CREATE TABLE p (id int PRIMARY KEY, a text NOT NULL); CREATE TABLE c (b int) INHERITS (p); ALTER TABLE p ADD COLUMN x int UNIQUE; ALTER TABLE p ALTER COLUMN a DROP NOT NULL`},
	{"partitions", `CREATE TABLE m (id int, k int, PRIMARY KEY (id, k)) PARTITION BY RANGE (k); CREATE TABLE m1 PARTITION OF m FOR VALUES FROM (0) TO (10); ALTER TABLE m ADD UNIQUE (k, id); CREATE TABLE m2 (id int NOT NULL, k int NOT NULL); ALTER TABLE m ATTACH PARTITION m2 FOR VALUES FROM (10) TO (20)`},
	{"partition foreign keys", `CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE m (id int, k int, p_id int REFERENCES p ON DELETE CASCADE) PARTITION BY RANGE (k); CREATE TABLE m1 PARTITION OF m FOR VALUES FROM (0) TO (10); ALTER TABLE m ADD FOREIGN KEY (id) REFERENCES p; CREATE TABLE m2 (id int, k int, p_id int); ALTER TABLE m ATTACH PARTITION m2 FOR VALUES FROM (10) TO (20); CREATE TABLE m3 PARTITION OF m FOR VALUES FROM (20) TO (30) PARTITION BY RANGE (k); CREATE TABLE m31 PARTITION OF m3 FOR VALUES FROM (20) TO (25)`},
	{"partition foreign keys dropped", `CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE m (id int, k int, p_id int REFERENCES p) PARTITION BY RANGE (k); CREATE TABLE m1 PARTITION OF m FOR VALUES FROM (0) TO (10); CREATE TABLE m2 PARTITION OF m FOR VALUES FROM (10) TO (20); ALTER TABLE m ADD FOREIGN KEY (id) REFERENCES p ON DELETE CASCADE; ALTER TABLE m DETACH PARTITION m2; ALTER TABLE m DROP CONSTRAINT m_id_fkey; ALTER TABLE m RENAME COLUMN p_id TO parent_id`},
	{"rename column in children", `CREATE TABLE p (id int PRIMARY KEY, a int UNIQUE); CREATE TABLE c (b int) INHERITS (p); CREATE TABLE m (id int, k int) PARTITION BY LIST (k); CREATE TABLE m1 PARTITION OF m FOR VALUES IN (1); ALTER TABLE p RENAME COLUMN a TO aa; ALTER TABLE m RENAME k TO kk`},
	{"pg_dump partitions", `CREATE TABLE m (id int NOT NULL, k int NOT NULL) PARTITION BY RANGE (k); CREATE TABLE m1 (id int NOT NULL, k int NOT NULL); ALTER TABLE ONLY m ATTACH PARTITION m1 FOR VALUES FROM (0) TO (10); ALTER TABLE ONLY m ADD CONSTRAINT m_pkey PRIMARY KEY (id, k); ALTER TABLE ONLY m1 ADD CONSTRAINT m1_pkey PRIMARY KEY (id, k); ALTER INDEX m_pkey ATTACH PARTITION m1_pkey`},
	{"only leaves children", `CREATE TABLE p (a int, b int); CREATE TABLE c () INHERITS (p); ALTER TABLE ONLY p ALTER COLUMN a SET DEFAULT 1; ALTER TABLE p ALTER COLUMN b SET DEFAULT 2; ALTER TABLE p ALTER COLUMN b SET NOT NULL`},
	{"like including all", `CREATE TABLE p (id int PRIMARY KEY, a text NOT NULL DEFAULT 'x', u int UNIQUE, g int GENERATED ALWAYS AS (id + 1) STORED, i int GENERATED ALWAYS AS IDENTITY); CREATE TABLE t (LIKE p INCLUDING ALL)`},
	{"like plain", `CREATE TABLE p (id int PRIMARY KEY, a text NOT NULL DEFAULT 'x', u int UNIQUE, g int GENERATED ALWAYS AS (id + 1) STORED, i int GENERATED ALWAYS AS IDENTITY); CREATE TABLE t (LIKE p)`},
	{"types", `CREATE TYPE mood AS ENUM ('a', 'c'); ALTER TYPE mood ADD VALUE 'b' BEFORE 'c'; ALTER TYPE mood ADD VALUE 'z' AFTER 'a'; ALTER TYPE mood ADD VALUE IF NOT EXISTS 'a'; ALTER TYPE mood RENAME VALUE 'c' TO 'cc'; CREATE DOMAIN posint AS int CHECK (VALUE > 0); CREATE TYPE pair AS (x int, y text); CREATE TABLE t (m mood, p posint, q pair, ms mood[]); ALTER TYPE mood RENAME TO feeling`},
	{"extension types", `CREATE EXTENSION IF NOT EXISTS citext; CREATE EXTENSION IF NOT EXISTS hstore; CREATE TABLE t (a citext, b hstore, c citext[])`},
	{"column sequences", `CREATE TABLE t_id_seq (x int); CREATE TABLE t (id serial NOT NULL, b bigserial, i int GENERATED ALWAYS AS IDENTITY, n int NOT NULL); ALTER SEQUENCE t_b_seq RESTART WITH 10; ALTER TABLE t ALTER n ADD GENERATED BY DEFAULT AS IDENTITY; ALTER TABLE t ALTER i DROP IDENTITY; ALTER TABLE t ADD COLUMN s smallserial NOT NULL; ALTER SEQUENCE t_s_seq OWNED BY NONE; CREATE SEQUENCE own OWNED BY t.n; ALTER TABLE t DROP COLUMN b; CREATE SEQUENCE gone; DROP SEQUENCE gone`},
	{"identity sequence name", `CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME t_ids START WITH 5), n int NOT NULL); ALTER TABLE t ALTER COLUMN n ADD GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME public.n_seq INCREMENT BY 1)`},
	{"temporary tables", `CREATE TEMP TABLE tmp (id serial NOT NULL, a int); CREATE TEMP TABLE tmp2 AS SELECT a FROM tmp; CREATE TABLE kept (id int)`},
	// An unqualified name finds the temporary relation first (pg_temp
	// comes first in the search for relations): DROP, ALTER and a later
	// CREATE ... AS reach it, not the permanent table of the same name.
	{"temporary tables dropped and altered", `CREATE TABLE d (id bigint, title text); CREATE TEMP TABLE tmp_d AS SELECT id, title FROM d; ALTER TABLE tmp_d ADD COLUMN note text; CREATE TABLE d_copy AS SELECT * FROM tmp_d; DROP TABLE tmp_d; CREATE TEMPORARY TABLE tt (a int); DROP TABLE tt; CREATE TEMP VIEW tv AS SELECT id FROM d; DROP VIEW tv`},
	{"temporary table shadows permanent", `CREATE TABLE s (a int); CREATE TEMP TABLE s (b text); ALTER TABLE s ADD COLUMN c int; CREATE TABLE s2 AS SELECT * FROM s; DROP TABLE s; ALTER TABLE s ADD COLUMN d int`},
	{"using index", `CREATE TABLE t (id int PRIMARY KEY, u uuid NOT NULL, v int, w int); CREATE UNIQUE INDEX IF NOT EXISTS t_u_idx ON t (u); CREATE UNIQUE INDEX ON t (v); CREATE UNIQUE INDEX t_w_key ON t (w); ALTER TABLE t DROP CONSTRAINT t_pkey, ADD CONSTRAINT t_pkey PRIMARY KEY USING INDEX t_u_idx; ALTER TABLE t ADD UNIQUE USING INDEX t_v_idx; ALTER TABLE t ADD UNIQUE (w); ALTER INDEX t_w_key RENAME TO t_w_uq; DROP INDEX t_w_uq; ALTER TABLE t ADD UNIQUE (w)`},
	{"utility ignored", `CREATE TABLE t (id int); DO $$ BEGIN RAISE NOTICE 'x'; END $$; CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$; CREATE TRIGGER tg BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION f(); CREATE INDEX ON t (id); GRANT SELECT ON t TO PUBLIC; COMMENT ON TABLE t IS 'x'; COMMENT ON COLUMN t.id IS 'y'; COMMENT ON SCHEMA public IS 'z'; COMMENT ON FUNCTION f() IS 'w'`},
	{"add column if not exists keeps constraints", `CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE t (a int); ALTER TABLE t ADD COLUMN IF NOT EXISTS a int UNIQUE REFERENCES p`},
	{"comments on types and fields", `CREATE TYPE pair AS (x int, y text); COMMENT ON COLUMN pair.x IS 'c'; COMMENT ON TYPE pair IS 't'; CREATE DOMAIN d AS text; COMMENT ON DOMAIN d IS 'd'; CREATE SEQUENCE s; COMMENT ON SEQUENCE s IS 's'`},
	{"create table as", `CREATE TABLE t (a int, b text); CREATE TABLE u AS SELECT a, b FROM t; CREATE TABLE IF NOT EXISTS u AS SELECT 1 AS x; CREATE MATERIALIZED VIEW m AS SELECT a FROM u; ALTER MATERIALIZED VIEW m RENAME TO m2; CREATE VIEW v AS SELECT b FROM u; ALTER VIEW v RENAME TO v2; ALTER VIEW v2 RENAME COLUMN b TO c; DROP MATERIALIZED VIEW m2; ALTER TABLE u ADD PRIMARY KEY (a)`},
	{"alter if exists", `ALTER TABLE IF EXISTS nope ADD COLUMN a int; DROP TABLE IF EXISTS nope CASCADE; DROP TYPE IF EXISTS nope; DROP VIEW IF EXISTS nope; DROP SCHEMA IF EXISTS nope CASCADE`},
}

// ddlErrorCases are schemas PostgreSQL rejects: the catalog must report
// an error in the statement PostgreSQL fails at, or, where sqlc does not
// check what PostgreSQL refuses (constraints, identity), a note there.
var ddlErrorCases = []struct{ name, ddl string }{
	{"two primary keys in create table", `CREATE TABLE t (a int PRIMARY KEY, b int PRIMARY KEY)`},
	{"second primary key", `CREATE TABLE t (id int PRIMARY KEY, b int); ALTER TABLE t ADD PRIMARY KEY (b)`},
	{"second primary key by add column", `CREATE TABLE t (id int PRIMARY KEY); ALTER TABLE t ADD COLUMN k bigserial PRIMARY KEY`},
	{"drop not null of key", `CREATE TABLE t (id int PRIMARY KEY); ALTER TABLE t ALTER COLUMN id DROP NOT NULL`},
	{"drop not null of identity", `CREATE TABLE t (id int GENERATED ALWAYS AS IDENTITY); ALTER TABLE t ALTER COLUMN id DROP NOT NULL`},
	{"identity on nullable", `CREATE TABLE t (a int); ALTER TABLE t ALTER COLUMN a ADD GENERATED ALWAYS AS IDENTITY`},
	{"identity twice", `CREATE TABLE t (a int GENERATED ALWAYS AS IDENTITY); ALTER TABLE t ALTER COLUMN a ADD GENERATED ALWAYS AS IDENTITY`},
	{"drop identity of plain column", `CREATE TABLE t (a int); ALTER TABLE t ALTER COLUMN a DROP IDENTITY`},
	{"rename onto a column", `CREATE TABLE t (a int, b int); ALTER TABLE t RENAME COLUMN a TO b`},
	{"rename only of an inherited column", `CREATE TABLE q (x int); CREATE TABLE qc () INHERITS (q); ALTER TABLE ONLY q RENAME COLUMN x TO y`},
	{"add existing column", `CREATE TABLE t (a int); ALTER TABLE t ADD COLUMN a int`},
	{"drop missing column", `CREATE TABLE t (a int); ALTER TABLE t DROP COLUMN b`},
	{"alter missing column", `CREATE TABLE t (a int); ALTER TABLE t ALTER COLUMN b SET NOT NULL`},
	{"key on missing column", `CREATE TABLE t (a int); ALTER TABLE t ADD UNIQUE (b)`},
	{"table key on missing column", `CREATE TABLE t (a int, PRIMARY KEY (b))`},
	{"foreign key from missing column", `CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE t (a int); ALTER TABLE t ADD FOREIGN KEY (b) REFERENCES p`},
	{"foreign key to missing column", `CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE t (a int REFERENCES p (nope))`},
	{"key name taken", `CREATE TABLE t (a int PRIMARY KEY, b int); ALTER TABLE t ADD CONSTRAINT t_pkey UNIQUE (b)`},
	// Actions sqlc does not apply, so does not check: a note each.
	{"set default of a missing table", `CREATE TABLE t (a int); ALTER TABLE nope ALTER COLUMN a SET DEFAULT 1`},
	{"set default of a missing column", `CREATE TABLE t (a int); ALTER TABLE t ALTER COLUMN b SET DEFAULT 1`},
	{"drop a missing sequence", `CREATE TABLE t (a int); DROP SEQUENCE nope`},
	{"alter a missing sequence", `CREATE TABLE t (a int); ALTER SEQUENCE nope RESTART WITH 1`},
	{"foreign key name taken", `CREATE TABLE p (id int PRIMARY KEY); CREATE TABLE t (a int CONSTRAINT fk REFERENCES p, b int); ALTER TABLE t ADD CONSTRAINT fk FOREIGN KEY (b) REFERENCES p`},
}

func TestDDLMatchesPostgreSQL(t *testing.T) {
	pool := testenv.Database(t)
	ctx := context.Background()
	for _, tc := range ddlCases {
		t.Run(tc.name, func(t *testing.T) {
			f, stmts := parseDDL(t, tc.ddl)
			tx, err := pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			for i, s := range stmts {
				if _, err := tx.Exec(ctx, s); err != nil {
					t.Fatalf("PostgreSQL rejects statement %d (%s): %v", i+1, s, err)
				}
			}
			want := describePG(t, tx)
			c := catalog.New(catalog.WithColumnGenerator(analyze.ColumnGenerator{}))
			for _, s := range f.Stmts {
				c.Update(f, s)
			}
			if errs := c.Validate(); len(errs) > 0 {
				t.Fatalf("catalog errors where PostgreSQL has none:\n%v", errs.Sort())
			}
			got := describeCatalog(c)
			if !slices.Equal(got, want) {
				t.Errorf("catalog differs from PostgreSQL for\n%s\n%s", tc.ddl, lineDiff(want, got))
			}
		})
	}
}

func TestDDLErrorsAtPostgreSQLStatement(t *testing.T) {
	pool := testenv.Database(t)
	ctx := context.Background()
	for _, tc := range ddlErrorCases {
		t.Run(tc.name, func(t *testing.T) {
			f, stmts := parseDDL(t, tc.ddl)
			tx, err := pool.Begin(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer tx.Rollback(ctx)
			failed := -1
			var pgErr error
			for i, s := range stmts {
				if _, pgErr = tx.Exec(ctx, s); pgErr != nil {
					failed = i
					break
				}
			}
			if failed < 0 {
				t.Fatalf("PostgreSQL accepts %s", tc.ddl)
			}
			c := catalog.New()
			for _, s := range f.Stmts {
				c.Update(f, s)
			}
			// An error, or a note where sqlc goes on (see refusef).
			errs := append(c.Validate(), c.Notes()...)
			if len(errs) == 0 {
				t.Fatalf("no catalog error or note; PostgreSQL says: %v", pgErr)
			}
			st := f.Stmts[failed]
			first, _ := diag.Position(f.Src, st.Start)
			last, _ := diag.Position(f.Src, st.End)
			for _, e := range errs {
				if e.Line < first || e.Line > last {
					t.Errorf("error %v is outside statement %d (lines %d-%d), where PostgreSQL fails: %v", e, failed+1, first, last, pgErr)
				}
			}
		})
	}
}

// parseDDL parses ddl, one statement per line so that errors have a line
// to point at, and returns the statements' texts.
func parseDDL(t *testing.T, ddl string) (*sqlparse.File, []string) {
	t.Helper()
	src := strings.ReplaceAll(ddl, "; ", ";\n")
	f, err := sqlparse.Parse("schema.sql", []byte(src))
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	var stmts []string
	for _, s := range f.Stmts {
		stmts = append(stmts, f.Text(s))
	}
	return f, stmts
}

// describeCatalog describes c in describePG's lines.
func describeCatalog(c *catalog.Catalog) []string {
	var out []string
	for _, s := range c.Schemas {
		if s.Name == "pg_catalog" {
			continue
		}
		out = append(out, "schema "+s.Name)
		for _, t := range s.Tables {
			if t.IsSequence {
				owner := ""
				if o := t.OwnedBy; o != nil {
					owner = o.Table.Name + "." + o.Name
				}
				out = append(out, fmt.Sprintf("sequence %s.%s owned by %s", s.Name, t.Name, owner))
			}
			if t.IsView || t.IsSequence {
				continue
			}
			rel := s.Name + "." + t.Name
			out = append(out, "table "+rel)
			var names []string
			for _, col := range t.Columns {
				names = append(names, col.Name)
				identity := ""
				if col.Identity {
					identity = "d"
					if col.IdentityAlways {
						identity = "a"
					}
				}
				out = append(out, columnLine(rel, col.Name, typeString(col.Type), col.NotNull, col.HasDefault && !col.Generated, identity, col.Generated))
			}
			out = append(out, "order "+rel+" ("+strings.Join(names, ", ")+")")
			for _, k := range t.ConstraintLines() {
				out = append(out, "constraint "+rel+" "+k)
			}
		}
		for _, e := range s.Enums {
			out = append(out, fmt.Sprintf("enum %s.%s (%s)", s.Name, e.Name, strings.Join(e.Values, ", ")))
		}
		for _, ut := range s.Types {
			if ut.Kind != "composite" {
				continue
			}
			var cols []string
			for _, col := range ut.Columns {
				cols = append(cols, col.Name+" "+typeString(col.Type))
			}
			out = append(out, fmt.Sprintf("composite %s.%s (%s)", s.Name, ut.Name, strings.Join(cols, ", ")))
		}
	}
	slices.Sort(out)
	return out
}

func columnLine(rel, name, typ string, notNull, hasDefault bool, identity string, generated bool) string {
	return fmt.Sprintf("column %s.%s %s notnull=%t default=%t identity=%q generated=%t", rel, name, typ, notNull, hasDefault, identity, generated)
}

// typeString spells a type as describePG does: schema-qualified outside
// pg_catalog and public, [] per array dimension.
func typeString(t catalog.Type) string {
	s := t.Name
	if t.Schema != "" && t.Schema != "pg_catalog" && t.Schema != "public" {
		s = t.Schema + "." + s
	}
	return s + strings.Repeat("[]", t.ArrayDims)
}

// describePG describes the user objects of the database tx sees: schemas,
// tables with their columns and PRIMARY KEY, UNIQUE and FOREIGN KEY
// constraints, enums and composite types. A domain column has its base
// type, as in the catalog.
func describePG(t *testing.T, tx pgx.Tx) []string {
	t.Helper()
	ctx := context.Background()
	var out []string
	query := func(sql string, scan func(pgx.Rows) string) {
		rows, err := tx.Query(ctx, sql)
		if err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
		defer rows.Close()
		for rows.Next() {
			out = append(out, scan(rows))
		}
		if err := rows.Err(); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// The session's temporary schema (pg_temp_N) is pg_temp, as it is
	// written; the catalog keeps no sequence of a temporary table.
	const userSchemas = `(n.nspname NOT LIKE 'pg\_%' OR n.nspname ~ '^pg_temp_[0-9]+$') AND n.nspname <> 'information_schema'`
	query(`SELECT n.nspname FROM pg_namespace n WHERE `+userSchemas, func(r pgx.Rows) string {
		var s string
		must(t, r.Scan(&s))
		return "schema " + s
	})
	query(`SELECT n.nspname, c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'p') AND `+userSchemas, func(r pgx.Rows) string {
		var s, name string
		must(t, r.Scan(&s, &name))
		return "table " + s + "." + name
	})
	query(`SELECT n.nspname || '.' || c.relname, coalesce(o.relname || '.' || a.attname, '')
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = c.oid AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')
		LEFT JOIN pg_class o ON o.oid = d.refobjid LEFT JOIN pg_attribute a ON a.attrelid = d.refobjid AND a.attnum = d.refobjsubid
		WHERE c.relkind = 'S' AND n.nspname !~ '^pg_temp' AND `+userSchemas, func(r pgx.Rows) string {
		var name, owner string
		must(t, r.Scan(&name, &owner))
		return "sequence " + name + " owned by " + owner
	})
	// typeName spells the base type of a column's (or field's) type.
	const typeName = `(WITH RECURSIVE base(oid, depth) AS (
			SELECT a.atttypid, 0 UNION ALL
			SELECT ty.typbasetype, depth + 1 FROM base JOIN pg_type ty ON ty.oid = base.oid WHERE ty.typtype = 'd')
		SELECT CASE WHEN tn.nspname IN ('pg_catalog', 'public') THEN '' ELSE tn.nspname || '.' END ||
			CASE WHEN el.oid IS NOT NULL THEN el.typname ELSE ty.typname END ||
			repeat('[]', CASE WHEN el.oid IS NOT NULL THEN greatest(a.attndims, 1) ELSE 0 END)
		FROM base JOIN pg_type ty ON ty.oid = base.oid
		LEFT JOIN pg_type el ON el.oid = ty.typelem AND ty.typcategory = 'A'
		JOIN pg_namespace tn ON tn.oid = coalesce(el.typnamespace, ty.typnamespace)
		ORDER BY depth DESC LIMIT 1)`
	query(`SELECT 'order ' || n.nspname || '.' || c.relname || ' (' || string_agg(a.attname, ', ' ORDER BY a.attnum) || ')'
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped AND `+userSchemas+` GROUP BY n.nspname, c.relname`,
		func(r pgx.Rows) string {
			var s string
			must(t, r.Scan(&s))
			return s
		})
	// NOT NULL: declared (attnotnull), or of a domain declared NOT NULL
	// anywhere down its chain of base types: the column cannot hold NULL.
	const notNull = `(a.attnotnull OR EXISTS (WITH RECURSIVE base(oid) AS (
			SELECT a.atttypid UNION ALL
			SELECT ty.typbasetype FROM base JOIN pg_type ty ON ty.oid = base.oid WHERE ty.typtype = 'd')
		SELECT FROM base JOIN pg_type ty ON ty.oid = base.oid WHERE ty.typtype = 'd' AND ty.typnotnull))`
	query(`SELECT n.nspname || '.' || c.relname, a.attname, `+typeName+`, `+notNull+`,
			a.atthasdef AND a.attgenerated = '', a.attidentity::text, a.attgenerated = 's'
		FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		WHERE c.relkind IN ('r', 'p') AND a.attnum > 0 AND NOT a.attisdropped AND `+userSchemas,
		func(r pgx.Rows) string {
			var rel, name, typ, identity string
			var notNull, hasDefault, generated bool
			must(t, r.Scan(&rel, &name, &typ, &notNull, &hasDefault, &identity, &generated))
			return columnLine(rel, name, typ, notNull, hasDefault, identity, generated)
		})
	query(`SELECT n.nspname || '.' || c.relname, k.conname, k.contype::text,
			(SELECT string_agg(a.attname, ', ' ORDER BY x.i) FROM unnest(k.conkey) WITH ORDINALITY x(n, i)
				JOIN pg_attribute a ON a.attrelid = k.conrelid AND a.attnum = x.n),
			coalesce(pn.nspname || '.' || p.relname, ''),
			coalesce((SELECT string_agg(a.attname, ', ' ORDER BY x.i) FROM unnest(k.confkey) WITH ORDINALITY x(n, i)
				JOIN pg_attribute a ON a.attrelid = k.confrelid AND a.attnum = x.n), ''),
			k.confdeltype::text, k.confupdtype::text
		FROM pg_constraint k JOIN pg_class c ON c.oid = k.conrelid JOIN pg_namespace n ON n.oid = c.relnamespace
		LEFT JOIN pg_class p ON p.oid = k.confrelid LEFT JOIN pg_namespace pn ON pn.oid = p.relnamespace
		WHERE k.contype IN ('p', 'u', 'f') AND `+userSchemas,
		func(r pgx.Rows) string {
			var rel, name, kind, cols, parent, refs, del, upd string
			must(t, r.Scan(&rel, &name, &kind, &cols, &parent, &refs, &del, &upd))
			if kind != "f" {
				return fmt.Sprintf("constraint %s %s %s (%s)", rel, name, kind, cols)
			}
			return fmt.Sprintf("constraint %s %s f (%s) -> %s (%s) del=%s upd=%s", rel, name, cols, parent, refs, del, upd)
		})
	query(`SELECT n.nspname || '.' || t.typname, string_agg(e.enumlabel, ', ' ORDER BY e.enumsortorder)
		FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace JOIN pg_enum e ON e.enumtypid = t.oid
		WHERE `+userSchemas+` GROUP BY 1`, func(r pgx.Rows) string {
		var name, labels string
		must(t, r.Scan(&name, &labels))
		return fmt.Sprintf("enum %s (%s)", name, labels)
	})
	query(`SELECT n.nspname || '.' || c.relname,
			string_agg(a.attname || ' ' || `+typeName+`, ', ' ORDER BY a.attnum)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid
		WHERE c.relkind = 'c' AND a.attnum > 0 AND NOT a.attisdropped AND `+userSchemas+` GROUP BY 1`,
		func(r pgx.Rows) string {
			var name, cols string
			must(t, r.Scan(&name, &cols))
			return fmt.Sprintf("composite %s (%s)", name, cols)
		})
	for i, l := range out {
		out[i] = tempSchema.ReplaceAllString(l, "pg_temp")
	}
	slices.Sort(out)
	return out
}

// tempSchema matches the name of a session's temporary schema.
var tempSchema = regexp.MustCompile(`\bpg_temp_[0-9]+\b`)

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// lineDiff lists the lines only in want (-) and only in got (+).
func lineDiff(want, got []string) string {
	var b strings.Builder
	for _, w := range want {
		if !slices.Contains(got, w) {
			fmt.Fprintf(&b, "- %s (PostgreSQL)\n", w)
		}
	}
	for _, g := range got {
		if !slices.Contains(want, g) {
			fmt.Fprintf(&b, "+ %s (catalog)\n", g)
		}
	}
	return b.String()
}
