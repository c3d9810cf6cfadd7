package guard

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// fencegen guard -into on MySQL and MariaDB (engine: mysql). A MySQL
// trigger names the token column by name and goes with its table: the
// migration that renames or drops the token column breaks the guard
// triggers (every UPDATE and DELETE of the table then fails, Unknown
// column), and the one that drops or renames away a fenced table and
// creates another under its name leaves that table without any. A later
// guard migration mends both, but every state between the two is
// broken or unguarded; -into adds the guard to the changing migration
// itself, as on PostgreSQL (Inline), so that no applied state is.

// mysqlInline is Inline for an entry with engine mysql: into, the newest
// migration and one of the entry's schema files, with the up section of
// the guard migration NextMigration would write (every fenced table's
// DROP TRIGGER IF EXISTS and CREATE TRIGGER, and the removals) added at
// the end of its up section after the inlineHeader line the replay
// reads (replayMySQLGuard), and, for goose and dbmate, the triggers the
// migrations before into installed restored at the end of its down
// section (mysqlInlineDown; golang-migrate: InlineDown). It returns nil
// when the migrations up to into install g's guard already.
func (g *DatabaseGuard) mysqlInline(into string, others []*DatabaseGuard, format string) ([]byte, error) {
	if format == "atlas" {
		// Atlas reads a trigger's body whole only under the file's
		// "-- atlas:delimiter" directive, which would change how the
		// migration's own statements split.
		return nil, fmt.Errorf("-into %s: an Atlas migration on MySQL sends a CREATE TRIGGER whole only under a -- atlas:delimiter directive for the whole file, which would change how its own statements split: run fencegen guard without -into, and apply its migration in the same deployment", filepath.ToSlash(into))
	}
	raw, err := os.ReadFile(into) // as written: the schema reader may drop its down section
	if err != nil {
		return nil, err
	}
	if isMySQLGuardMigration(raw) {
		return nil, fmt.Errorf("-into %s: a guard migration already: run fencegen guard without -into for a new one", filepath.ToSlash(into))
	}
	if off, _ := inlineBlock(raw); off >= 0 {
		return nil, fmt.Errorf("-into %s: holds a guard that fencegen guard -into added already: run fencegen guard without -into for a new migration", filepath.ToSlash(into))
	}
	idx, err := g.schemaIndex(into)
	if err != nil {
		return nil, err
	}
	have := replayMySQLGuard(g.schema[:idx+1])
	if len(have.migrations) > 0 {
		found := g.mysqlFindings(have, others)
		if len(found) == 0 {
			return nil, nil
		}
		if err := g.checkUnfence(found); err != nil {
			return nil, err
		}
	}
	body := mysqlBody(g.mysql, mysqlRemoval{triggers: have.gone(g, others), unfenced: g.unfence}, format, false)
	block := fmt.Sprintf("%s%s migration: the database-side fencing guard (engine mysql), added by\n"+
		"-- \"fencegen guard -into\" to the migration that changes a fenced table (re-creates\n"+
		"-- it, or renames its token column), so that no applied state leaves it unguarded.\n"+
		"-- Keep it as it is once applied.\n", inlineHeader, format) + strings.TrimLeft(body, "\n")
	before := replayMySQLGuard(g.schema[:idx])
	return spliceInline(raw, "", "", block, format, func() (string, error) { return g.mysqlInlineDown(before, format), nil })
}

// schemaIndex is the index of file name among g's schema files.
func (g *DatabaseGuard) schemaIndex(name string) (int, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return 0, err
	}
	for i, f := range g.schema {
		if fa, err := filepath.Abs(filepath.FromSlash(f.Name)); err == nil && fa == abs {
			return i, nil
		}
	}
	return 0, fmt.Errorf("-into %s: not a schema file of the sql entry (out %s): the guard belongs in one of its migrations", filepath.ToSlash(name), g.Out)
}

// mysqlInlineDown is the down part of the guard fencegen guard -into adds
// to a MySQL migration, after the migration's own down statements (which
// undo its change): the triggers of g's fenced tables dropped, and those
// the migrations before it installed (before) created again as they
// were. It starts with its header line and ends with a newline.
func (g *DatabaseGuard) mysqlInlineDown(before *mysqlReplay, format string) string {
	var b strings.Builder
	b.WriteString(mysqlBody(g.mysql, mysqlRemoval{}, format, true))
	dropped := mysqlGuardTriggers([]*DatabaseGuard{g})
	names := make([]string, 0, len(before.triggers))
	for name := range before.triggers {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		text := before.triggers[name].text
		quoted := mysqlCreateTriggerRe().FindStringSubmatch(text)[1]
		if !dropped[name] {
			mysqlStmt(&b, format, "DROP TRIGGER IF EXISTS "+quoted+";", false)
		}
		mysqlStmt(&b, format, text, true)
	}
	if b.Len() == 0 {
		return ""
	}
	return inlineDownHeader + strings.TrimLeft(b.String(), "\n")
}

// mysqlInlineDownFile is InlineDown for an entry with engine mysql: the
// golang-migrate down file name (of into, a .up.sql file) with
// mysqlInlineDown at its end.
func (g *DatabaseGuard) mysqlInlineDownFile(into, name string, raw []byte) (string, []byte, error) {
	idx, err := g.schemaIndex(into)
	if err != nil {
		return "", nil, err
	}
	block := g.mysqlInlineDown(replayMySQLGuard(g.schema[:idx]), "golang-migrate")
	if block == "" {
		return "", nil, nil
	}
	return name, appendDownBlock(raw, block), nil
}
