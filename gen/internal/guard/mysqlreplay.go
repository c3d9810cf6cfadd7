package guard

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/pingcap/tidb/pkg/parser/ast"
	driver "github.com/pingcap/tidb/pkg/parser/test_driver"

	"github.com/fencegen/fencegen/gen/internal/catalog"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/writes/mysqlwrites"
)

// The replay of MySQL guard migrations (engine: mysql), which fencegen
// check and generate run as on PostgreSQL: the guard migrations among
// the entry's schema files (the files whose first line is mysqlSQL's) and
// the team's migrations between them are replayed in the order the tool
// applies them, and the triggers they leave are compared with the ones
// this fencegen writes for the schema.
//
// MySQL keeps a trigger with its table: DROP TABLE drops it, RENAME TABLE
// moves it (under its old name, its message still naming the old table),
// and a column it reads can be renamed or dropped under it, after which
// every UPDATE or DELETE of the table fails ("Unknown column ... in
// 'NEW'"). A guard migration drops and re-creates the triggers of the
// tables fenced when it was written, and no others.

// whyMySQLColumn is the Why of a MySQL finding with Into for a statement
// that renames or drops a column a guard trigger reads.
const whyMySQLColumn = "renames or drops the token column of a fenced table (a MySQL trigger reads it by name)"

// mysqlGuardHeader starts the first line of every MySQL guard file and
// migration (mysqlSQL).
const mysqlGuardHeader = "-- fencegen: the database-side fencing guard (engine mysql)"

// isMySQLGuardMigration reports whether b is a MySQL guard migration.
func isMySQLGuardMigration(b []byte) bool {
	return strings.HasPrefix(strings.TrimPrefix(string(b), "\uFEFF"), mysqlGuardHeader)
}

var (
	// mysqlIdentRe is a backquoted or bare identifier.
	mysqlIdentRe = "(`(?:[^`]|``)+`|[A-Za-z0-9_$]+)"
	// mysqlCreateTriggerRe is a guard migration's CREATE TRIGGER, up to the
	// END of its BEGIN ... END body (the first line that is END alone).
	mysqlCreateTriggerRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("(?s)CREATE TRIGGER " + mysqlIdentRe + " BEFORE (?:UPDATE|DELETE|INSERT) ON " + mysqlIdentRe + " FOR EACH ROW\nBEGIN\n.*?\nEND(?:\\b|$)")
	})
)

// unquoteMySQL is a backquoted identifier's name (others as written),
// lower case: MySQL's table and trigger names compare so on the servers
// fencegen is tested on (lower_case_table_names=0 compares them as
// written; the guard writes them as the catalog has them).
func unquoteMySQL(s string) string {
	if strings.HasPrefix(s, "`") {
		s = strings.ReplaceAll(s[1:len(s)-1], "``", "`")
	}
	return strings.ToLower(s)
}

// mysqlTrigger is one trigger a replay finds installed.
type mysqlTrigger struct {
	table string // lower case
	text  string // its CREATE TRIGGER statement
	file  string
	line  int
	// moved is the RENAME TABLE that moved it to table, broken the
	// statement that renamed or dropped a column it reads.
	moved, broken *cause
}

// mysqlReplay is the state a sequence of migrations leaves.
type mysqlReplay struct {
	triggers map[string]*mysqlTrigger // by trigger name, lower case
	// dropped holds, by table, the DROP TABLE that took its guard
	// triggers with it.
	dropped    map[string]*cause
	migrations []string // the guard migrations replayed, in order
	lastFormat string
	// vacated holds, by table, the statement after which a table that
	// had guard triggers no longer has its name: DROP TABLE, or a rename
	// that took its triggers along. recreated holds the tables that took
	// such a name since (CREATE TABLE, also LIKE and AS, or RENAME TABLE /
	// ALTER TABLE ... RENAME of another table), which have no trigger,
	// until a guard migration installs one or records -unfence.
	vacated   map[string]*cause
	recreated map[string]mysqlRecreated
	// droppedTrigger holds, by trigger name, the team's DROP TRIGGER that
	// dropped a guard trigger (until a guard migration installs it
	// again); unread are the statements that may drop one but that
	// fencegen cannot read (mysqlwrites.TriggerDrops).
	droppedTrigger map[string]*cause
	unread         []*cause
	// reset holds, by table and column, the ALTER TABLE that dropped the
	// column and added it again in one statement: every row's value is
	// then the new column's default.
	reset map[string]map[string]*cause
	// keyAdded holds, by table, the team's first statement that gave a
	// table with a guard BEFORE INSERT trigger a primary or unique key
	// since that trigger was installed: the trigger does not look rows
	// up by it (issue 27, trial t27s F3).
	keyAdded map[string]*cause
	// remarked holds, by table, the team's newest statement that marks
	// the token column the table's guard triggers read again (ALTER
	// TABLE ... MODIFY ... COMMENT 'fencegen:token strict'): the cause of
	// a change of mode. unmarked holds the newest that removes that
	// mark, and marked the newest that marks another column of the
	// table (markedColumn, lower case) for fencing (trial tnew F10).
	remarked, unmarked, marked map[string]*cause
	markedColumn               map[string]string
}

// mysqlRecreated is a table that took the name of one that had guard
// triggers: at is the statement that gave it the name, after the one
// that took the guarded table away.
type mysqlRecreated struct {
	at, after *cause
}

// mysqlUnfenceRe is the line a guard migration written with fencegen
// guard -unfence holds for each such table (mysqlSQL).
var mysqlUnfenceRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?m)^-- fencegen guard -unfence: table (\S+) is no longer fenced, on purpose\.$`)
})

// arrives records that table (lower case) takes a name by c: when a
// table with guard triggers left that name, it is a re-created table.
func (r *mysqlReplay) arrives(table string, c *cause) {
	if v := r.vacated[table]; v != nil {
		r.recreated[table] = mysqlRecreated{at: c, after: v}
	}
}

// leaves records that table (lower case) no longer has its name by c
// (dropped, or renamed away): the triggers it had (guarded) leave with
// it.
func (r *mysqlReplay) leaves(table string, guarded bool, c *cause) {
	if guarded {
		r.vacated[table] = c
	}
	delete(r.recreated, table)
}

// replayMySQLGuard replays files in the order given.
func replayMySQLGuard(files []*sqlparse.File) *mysqlReplay {
	r := &mysqlReplay{triggers: map[string]*mysqlTrigger{}, dropped: map[string]*cause{}, vacated: map[string]*cause{}, recreated: map[string]mysqlRecreated{},
		droppedTrigger: map[string]*cause{}, reset: map[string]map[string]*cause{}, keyAdded: map[string]*cause{},
		remarked: map[string]*cause{}, unmarked: map[string]*cause{}, marked: map[string]*cause{}, markedColumn: map[string]string{}}
	for _, f := range files {
		if isMySQLGuardMigration(f.Src) {
			r.applyGuard(f)
			continue
		}
		// The guard fencegen guard -into added to a team's migration
		// (mysqlInline) runs after the migration's own statements, up to
		// its down section (goose, dbmate).
		inline, format := inlineBlock(f.Src)
		if inline < 0 {
			r.applyTeam(f, len(f.Src))
			continue
		}
		r.applyTeam(f, inline)
		end := len(f.Src)
		if down := downMark[format]; down != "" {
			if i := strings.Index(string(f.Src[inline:]), "\n"+down+"\n"); i >= 0 {
				end = inline + i + 1
			}
		}
		r.applyGuardText(f, inline, end, format)
	}
	return r
}

// applyGuard replays the up section of guard migration f: its DROP
// TRIGGERs and CREATE TRIGGERs in order.
func (r *mysqlReplay) applyGuard(f *sqlparse.File) {
	src := string(f.Src)
	format := "golang-migrate"
	end := len(src)
	for _, ft := range []string{"goose", "dbmate"} {
		if strings.Contains(src, "\n"+upMark[ft]+"\n") {
			format = ft
			if i := strings.Index(src, "\n"+downMark[ft]+"\n"); i >= 0 {
				end = i
			}
		}
	}
	if strings.Contains(src, "\n-- atlas:delimiter") {
		format = "atlas"
	}
	r.applyGuardText(f, 0, end, format)
}

// applyGuardText replays the guard statements of f between offsets start
// and end (a guard migration's up section, or the guard fencegen guard
// -into added to a team's migration), written in format.
func (r *mysqlReplay) applyGuardText(f *sqlparse.File, start, end int, format string) {
	src := string(f.Src[:end])
	r.migrations = append(r.migrations, f.Name)
	r.lastFormat = format
	type op struct {
		at     int
		drop   string
		create []int
	}
	var ops []op
	for _, st := range mysqlwrites.SplitStatements(src[start:]) {
		names, pos, unread := mysqlwrites.TriggerDrops(st.Text)
		at := start + st.Pos + max(pos, 0)
		if unread != "" {
			r.unreadDrop(f, at, unread)
		}
		for _, name := range names {
			ops = append(ops, op{at: at, drop: name})
		}
	}
	for _, m := range mysqlCreateTriggerRe().FindAllStringSubmatchIndex(src, -1) {
		if m[0] >= start {
			ops = append(ops, op{at: m[0], create: m})
		}
	}
	slices.SortFunc(ops, func(a, b op) int { return a.at - b.at })
	for _, o := range ops {
		if o.drop != "" {
			delete(r.triggers, o.drop)
			continue
		}
		m := o.create
		line, _ := diag.Position(f.Src, m[0])
		table := unquoteMySQL(src[m[4]:m[5]])
		name := unquoteMySQL(src[m[2]:m[3]])
		r.triggers[name] = &mysqlTrigger{table: table, text: src[m[0]:m[1]], file: f.Name, line: line}
		delete(r.droppedTrigger, name)
		delete(r.vacated, table) // guarded again
		delete(r.recreated, table)
		delete(r.keyAdded, table)
		delete(r.remarked, table)
		delete(r.unmarked, table)
		delete(r.marked, table)
	}
	for _, m := range mysqlUnfenceRe().FindAllStringSubmatch(src[start:], -1) {
		table := strings.ToLower(m[1])
		delete(r.vacated, table)
		delete(r.recreated, table)
	}
}

// applyTeam replays what a migration of the team's does to guard
// triggers, in its statements before offset end: DROP TRIGGER, DROP
// TABLE, RENAME TABLE, and a rename or drop of a column a trigger reads.
func (r *mysqlReplay) applyTeam(f *sqlparse.File, end int) {
	at := func(loc int, what string) *cause {
		line, col := diag.Position(f.Src, loc)
		return &cause{file: f.Name, line: line, col: col, what: what}
	}
	// DROP TRIGGER, read from each statement as the server reads it
	// (the TiDB parser does not read it).
	for _, st := range mysqlwrites.SplitStatements(string(f.Src[:end])) {
		names, pos, unread := mysqlwrites.TriggerDrops(st.Text)
		loc := st.Pos + max(pos, 0)
		if unread != "" {
			r.unreadDrop(f, loc, unread)
		}
		for _, name := range names {
			tr := r.triggers[name]
			if tr == nil {
				continue
			}
			delete(r.triggers, name)
			r.droppedTrigger[name] = at(loc, "DROP TRIGGER drops guard trigger "+name+" of table "+tr.table)
		}
		// MariaDB's CREATE OR REPLACE TRIGGER of a guard trigger's name
		// drops it and installs the team's own body in its place.
		name, pos, unread := mysqlwrites.TriggerReplaces(st.Text)
		if unread != "" {
			r.unreadDrop(f, st.Pos+max(pos, 0), unread)
		}
		if name != "" {
			if tr := r.triggers[name]; tr != nil {
				delete(r.triggers, name)
				r.droppedTrigger[name] = at(st.Pos+max(pos, 0), "CREATE OR REPLACE TRIGGER replaces guard trigger "+name+" of table "+tr.table+" with a body of its own")
			}
		}
	}
	for _, st := range f.Stmts {
		if st.Start >= end {
			break
		}
		switch n := st.MySQL.(type) {
		case *ast.DropTableStmt:
			if n.IsView {
				continue
			}
			for _, t := range n.Tables {
				name := t.Name.L
				c := at(st.Start, "DROP TABLE "+t.Name.O+" drops table "+t.Name.O+" and its guard triggers with it")
				guarded := false
				for k, tr := range r.triggers {
					if tr.table == name {
						delete(r.triggers, k)
						r.dropped[name] = c
						guarded = true
					}
				}
				r.leaves(name, guarded, c)
			}
		case *ast.CreateTableStmt:
			name := n.Table.Name.L
			what := "CREATE TABLE " + n.Table.Name.O + " creates table " + n.Table.Name.O + " again"
			if n.TemporaryKeyword != ast.TemporaryNone {
				continue // a session's own, beside the table
			}
			if n.IfNotExists && r.vacated[name] == nil {
				continue
			}
			r.arrives(name, at(st.Start, what))
		case *ast.RenameTableStmt:
			for _, tt := range n.TableToTables {
				r.renameTable(tt.OldTable.Name.L, tt.NewTable.Name.L, at(st.Start, "RENAME TABLE renames table "+tt.OldTable.Name.O+" to "+tt.NewTable.Name.O))
			}
		case *ast.CreateIndexStmt:
			if n.KeyType == ast.IndexKeyTypeUnique {
				r.addsKey(n.Table.Name.L, at(st.Start, "CREATE UNIQUE INDEX "+n.IndexName+" adds a unique key to table "+n.Table.Name.O))
			}
		case *ast.AlterTableStmt:
			table := n.Table.Name.L
			if mysqlAddsKey(n) {
				r.addsKey(table, at(st.Start, "ALTER TABLE adds a primary or unique key to table "+n.Table.Name.O))
			}
			// A column dropped and added again in one ALTER TABLE is
			// there after it (the triggers that read it keep working),
			// with every row holding the new column's default.
			added := map[string]bool{}
			for _, spec := range n.Specs {
				if spec.Tp == ast.AlterTableAddColumns {
					for _, c := range spec.NewColumns {
						added[c.Name.Name.L] = true
					}
				}
			}
			for _, spec := range n.Specs {
				if spec.Tp == ast.AlterTableDropColumn && added[spec.OldColumnName.Name.L] {
					if r.reset[table] == nil {
						r.reset[table] = map[string]*cause{}
					}
					r.reset[table][spec.OldColumnName.Name.L] = at(st.Start, "ALTER TABLE drops column "+spec.OldColumnName.Name.O+" of "+n.Table.Name.O+" and adds it again in the same statement")
				}
			}
			r.marks(table, n, func(what string) *cause { return at(st.Start, what) })
			for _, spec := range n.Specs {
				if spec.Tp == ast.AlterTableDropColumn && added[spec.OldColumnName.Name.L] {
					continue
				}
				switch spec.Tp {
				case ast.AlterTableRenameTable:
					r.renameTable(table, spec.NewTable.Name.L, at(st.Start, "ALTER TABLE renames table "+n.Table.Name.O+" to "+spec.NewTable.Name.O))
					table = spec.NewTable.Name.L
				case ast.AlterTableDropColumn:
					r.breakColumn(table, spec.OldColumnName.Name.L, at(st.Start, "ALTER TABLE drops column "+spec.OldColumnName.Name.O+" of "+n.Table.Name.O))
				case ast.AlterTableRenameColumn:
					r.breakColumn(table, spec.OldColumnName.Name.L, at(st.Start, "ALTER TABLE renames column "+spec.OldColumnName.Name.O+" of "+n.Table.Name.O+" to "+spec.NewColumnName.Name.O))
				case ast.AlterTableChangeColumn:
					if len(spec.NewColumns) == 1 && spec.NewColumns[0].Name.Name.L != spec.OldColumnName.Name.L {
						r.breakColumn(table, spec.OldColumnName.Name.L, at(st.Start, "ALTER TABLE renames column "+spec.OldColumnName.Name.O+" of "+n.Table.Name.O+" to "+spec.NewColumns[0].Name.Name.O))
					}
				}
			}
		}
	}
}

// marks records what an ALTER TABLE of table (lower case) does to the
// fencing mark of a column of it through a column's COMMENT (ADD,
// MODIFY or CHANGE COLUMN), when the table has guard triggers: marks
// again or unmarks the token column they read, or marks another one.
func (r *mysqlReplay) marks(table string, n *ast.AlterTableStmt, at func(what string) *cause) {
	guarded := r.tokenColumn(table)
	if guarded == "" {
		return
	}
	for _, spec := range n.Specs {
		switch spec.Tp {
		case ast.AlterTableAddColumns, ast.AlterTableModifyColumn, ast.AlterTableChangeColumn:
		default:
			continue
		}
		for _, c := range spec.NewColumns {
			for _, o := range c.Options {
				v, ok := o.Expr.(*driver.ValueExpr)
				if o.Tp != ast.ColumnOptionComment || !ok {
					continue
				}
				mark, _, err := catalog.ParseFenceComment(v.GetString())
				mark = mark && err == nil
				col := c.Name.Name
				switch {
				case col.L == guarded && mark:
					r.remarked[table] = at("marks column " + col.O + " of table " + n.Table.Name.O + " for fencing again")
					delete(r.unmarked, table)
				case col.L == guarded:
					r.unmarked[table] = at("removes the fencing mark of column " + col.O + " of table " + n.Table.Name.O)
					delete(r.remarked, table)
				case mark:
					r.marked[table] = at("marks column " + col.O + " of table " + n.Table.Name.O + " for fencing")
					r.markedColumn[table] = col.L
				}
			}
		}
	}
}

// tokenColumn is the token column (lower case) the guard triggers of
// table (lower case) read, "" when it has none.
func (r *mysqlReplay) tokenColumn(table string) string {
	for _, tr := range r.triggers {
		if tr.table == table {
			if c, _ := mysqlTriggerGuard(tr.text); c != "" {
				return c
			}
		}
	}
	return ""
}

// mysqlTriggerTokenRe finds the token column in a guard trigger's text:
// BEFORE UPDATE and INSERT report IFNULL(NEW.col, 0) as presented,
// BEFORE DELETE compares OLD.col with @fencegen_token. Both expressions
// compile on first use: a PostgreSQL run never needs them.
var (
	mysqlTriggerTokenRe = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile("IFNULL\\(NEW\\." + mysqlIdentRe + ", 0\\)|NOT \\(OLD\\." + mysqlIdentRe + " <")
	})
	mysqlTriggerModeRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(` mode=([a-z-]+) table=`) })
)

// mysqlTriggerGuard is the token column (lower case) and the mode a
// guard trigger's text checks, "" when it does not say.
func mysqlTriggerGuard(text string) (column, mode string) {
	if m := mysqlTriggerTokenRe().FindStringSubmatch(text); m != nil {
		column = unquoteMySQL(m[1] + m[2])
	}
	if m := mysqlTriggerModeRe().FindStringSubmatch(text); m != nil {
		mode = m[1]
	}
	return column, mode
}

// addsKey records that c gives table (lower case) a primary or unique
// key: when a guard BEFORE INSERT trigger of the table is installed, the
// first such statement since is kept (keyAdded).
func (r *mysqlReplay) addsKey(table string, c *cause) {
	if r.keyAdded[table] != nil {
		return
	}
	for _, tr := range r.triggers {
		if tr.table == table && strings.Contains(tr.text, " BEFORE INSERT ") {
			r.keyAdded[table] = c
			return
		}
	}
}

// mysqlAddsKey reports whether an ALTER TABLE adds a primary or unique
// key: ADD PRIMARY KEY, ADD [CONSTRAINT] UNIQUE, or a column's PRIMARY
// KEY or UNIQUE in ADD, MODIFY or CHANGE COLUMN.
func mysqlAddsKey(n *ast.AlterTableStmt) bool {
	for _, spec := range n.Specs {
		switch spec.Tp {
		case ast.AlterTableAddConstraint:
			if c := spec.Constraint; c != nil {
				switch c.Tp {
				case ast.ConstraintPrimaryKey, ast.ConstraintUniq, ast.ConstraintUniqKey, ast.ConstraintUniqIndex:
					return true
				}
			}
		case ast.AlterTableAddColumns, ast.AlterTableModifyColumn, ast.AlterTableChangeColumn:
			for _, c := range spec.NewColumns {
				for _, o := range c.Options {
					if o.Tp == ast.ColumnOptionUniqKey || o.Tp == ast.ColumnOptionPrimaryKey {
						return true
					}
				}
			}
		}
	}
	return false
}

// unreadDrop records a statement at offset loc of f that may drop a
// trigger but that fencegen cannot read (why), when a guard trigger is
// installed that it could drop.
func (r *mysqlReplay) unreadDrop(f *sqlparse.File, loc int, why string) {
	if len(r.triggers) == 0 {
		return
	}
	var names []string
	for name := range r.triggers {
		names = append(names, name)
	}
	slices.Sort(names)
	line, col := diag.Position(f.Src, loc)
	r.unread = append(r.unread, &cause{file: f.Name, line: line, col: col, what: why + " (the guard triggers installed then: " + strings.Join(names, ", ") + ")"})
}

// renameTable moves the triggers of table from to table to. A table
// without them that takes the name of one that had them is a re-created
// table (arrives).
func (r *mysqlReplay) renameTable(from, to string, c *cause) {
	guarded := false
	for _, tr := range r.triggers {
		if tr.table == from {
			tr.table, tr.moved = to, c
			guarded = true
		}
	}
	r.leaves(from, guarded, c)
	if guarded {
		delete(r.vacated, to) // the guarded table itself has the name again
		delete(r.recreated, to)
		return
	}
	r.arrives(to, &cause{file: c.file, line: c.line, col: c.col, what: c.what + ", which takes the place of fenced table " + to + ","})
}

// breakColumn records that c renamed or dropped column col of table,
// under the triggers that read it (OLD.col, or NEW.col: the token, and
// the BEFORE INSERT trigger's key columns).
func (r *mysqlReplay) breakColumn(table, col string, c *cause) {
	ident := strings.ToLower(mysqlIdent(col))
	for _, tr := range r.triggers {
		if tr.table != table {
			continue
		}
		if text := strings.ToLower(tr.text); strings.Contains(text, "old."+ident) || strings.Contains(text, "new."+ident) {
			tr.broken = c
		}
	}
}

// NewMySQLEntryGuard is NewMySQLDatabaseGuard given the entry's schema
// files (WithMySQLSchema) and parse, which reads another migration file
// as a schema file is read (NextMigration replays the migrations
// directory's files with it, as on PostgreSQL): without a fenced table, it returns a guard
// without tables when schema holds a MySQL guard migration (its triggers
// may be left on tables no longer fenced, or a table may have been
// re-created without its mark), and nil otherwise.
func NewMySQLEntryGuard(cat *catalog.Catalog, loosened map[string]bool, out string, schema []*sqlparse.File, parse func(name string) (*sqlparse.File, error)) (*DatabaseGuard, error) {
	g, err := NewMySQLDatabaseGuard(cat, loosened, out)
	if err != nil {
		return nil, err
	}
	if g != nil {
		spelled := mysqlSpelledTables(schema)
		for i := range g.mysql {
			g.mysql[i].Spelled = spelled[strings.ToLower(g.mysql[i].Table)]
		}
	}
	if g == nil {
		if !slices.ContainsFunc(schema, func(f *sqlparse.File) bool { return isMySQLGuardMigration(f.Src) }) {
			return nil, nil
		}
		g = &DatabaseGuard{Out: out, data: &guardData{}, mysql: []mysqlGuardTable{}}
	}
	g.parse = parse
	return g.WithMySQLSchema(schema), nil
}

// WithMySQLSchema gives g, the guard of an entry with engine mysql
// (NewMySQLDatabaseGuard), the entry's schema files, parsed, in the order
// they are read, so that GuardMigrations replays the guard migrations
// among them. It returns g.
func (g *DatabaseGuard) WithMySQLSchema(schema []*sqlparse.File) *DatabaseGuard {
	g.schema, g.mysqlEntry = schema, true
	return g
}

// mysqlGuardMigrations is GuardMigrations for an entry with engine mysql.
func (g *DatabaseGuard) mysqlGuardMigrations(others []*DatabaseGuard) []Finding {
	have := replayMySQLGuard(g.schema)
	if len(have.migrations) == 0 {
		return nil
	}
	return g.mysqlFindings(have, others)
}

// mysqlFenced are the tables (lower case) g and others fence.
func (g *DatabaseGuard) mysqlFenced(others []*DatabaseGuard) map[string]bool {
	fenced := map[string]bool{}
	for _, o := range append([]*DatabaseGuard{g}, others...) {
		for _, t := range o.mysql {
			fenced[strings.ToLower(t.Table)] = true
		}
	}
	return fenced
}

// mysqlGuardTriggers are the names (lower case) of the guard triggers
// of the fenced tables of guards.
func mysqlGuardTriggers(guards []*DatabaseGuard) map[string]bool {
	names := map[string]bool{}
	for _, o := range guards {
		for _, t := range o.mysql {
			for _, e := range mysqlTriggerEvents {
				names[strings.ToLower(mysqlTriggerName(e.part, t.Table))] = true
			}
		}
	}
	return names
}

// gone are the guard triggers r leaves that neither g's nor others'
// guard writes, by name, sorted: those of tables no longer fenced, and
// those a RENAME TABLE moved to a table whose own triggers have other
// names (they would fire beside them, naming the old table).
func (r *mysqlReplay) gone(g *DatabaseGuard, others []*DatabaseGuard) []string {
	wanted := mysqlGuardTriggers(append([]*DatabaseGuard{g}, others...))
	var gone []string
	for name := range r.triggers {
		if !wanted[name] {
			gone = append(gone, name)
		}
	}
	slices.Sort(gone)
	return gone
}

// mysqlFindings is mysqlGuardMigrations for the replay have, which
// holds a guard migration.
func (g *DatabaseGuard) mysqlFindings(have *mysqlReplay, others []*DatabaseGuard) []Finding {
	last := have.migrations[len(have.migrations)-1]
	several := severalGuards(others)
	at := func(file string, line int, format string, a ...any) Finding {
		return Finding{File: file, Line: line, Col: 1, Msg: fmt.Sprintf(format, a...),
			Format: have.lastFormat, Dir: filepath.Dir(last), Out: g.Out, Several: several}
	}
	because := func(c *cause, format string, a ...any) Finding {
		f := at(c.file, c.line, "%s%s", c.what, fmt.Sprintf(format, a...))
		f.Col, f.Cause = c.col, true
		return f
	}
	var out []Finding
	fenced := g.mysqlFenced(others)
	wanted := map[string]bool{}
	changed := map[string]bool{} // tables whose change of column or mode is said
	for _, t := range g.mysql {
		table := strings.ToLower(t.Table)
		if c := have.reset[table][strings.ToLower(t.Column)]; c != nil {
			// Not a broken trigger (the column is there again), and not
			// mended by the guard in this migration (-into): the stored
			// tokens are gone.
			out = append(out, because(c, ": %s is the token column of %s (fenced), so once this is applied every row's token is the new column's default, lower than the tokens leases have issued, and a stale holder's write passes both the guard trigger and the generated code; keep the column and change it in place (ALTER TABLE %s MODIFY COLUMN %s ..., which keeps the stored tokens)", t.Column, t.Table, mysqlIdent(t.Table), mysqlIdent(t.Column)))
		}
		_, creates := t.statements()
		// A cause of the table's (re-created, dropped, its token column
		// renamed or dropped) is one finding for the table, naming the
		// events (and triggers) it concerns, not one per trigger (trial
		// t27h).
		var recreatedEvents, droppedEvents []string
		type brokenKey struct {
			c    *cause
			file string
		}
		var brokenOrder []brokenKey
		brokenNames := map[brokenKey][]string{}
		brokenEvents := map[brokenKey][]string{}
		for i := range creates {
			event := mysqlTriggerEvents[i].event
			name := strings.ToLower(mysqlTriggerName(mysqlTriggerEvents[i].part, t.Table))
			wanted[name] = true
			in, ok := have.triggers[name]
			if ok && in.table != table {
				ok = false // another table's, renamed to this name's table since
			}
			var moved *mysqlTrigger
			for _, tr := range have.triggers {
				if tr.table == table && tr.moved != nil && strings.Contains(tr.text, " BEFORE "+event+" ") {
					moved = tr
				}
			}
			_, recreated := have.recreated[table]
			switch {
			case !ok && recreated:
				recreatedEvents = append(recreatedEvents, event)
			case !ok && moved != nil:
				out = append(out, because(moved.moved, ": the guard trigger that %s installs moves with the table, but its stale-token error still names the old table, and the guard migrations install no trigger %s for %s until a new guard migration does", moved.file, name, t.Table))
			case !ok && have.droppedTrigger[name] != nil:
				out = append(out, because(have.droppedTrigger[name], ", which fenced table %s needs: until a new guard migration installs it again, the database lets a stale token's %s of %s from any writer through (fencegen guard writes one)", t.Table, event, t.Table))
			case !ok && have.dropped[table] != nil:
				droppedEvents = append(droppedEvents, event)
			case !ok:
				out = append(out, at(last, 1, "fenced table %s has no guard trigger %s in the guard migrations: the database does not refuse a stale token's %s from other writers", t.Table, name, event))
			case in.broken != nil:
				// A MySQL trigger reads the column by name: the
				// migration that renames or drops it is the one
				// whose every applied state can keep the guard.
				k := brokenKey{in.broken, in.file}
				if brokenNames[k] == nil {
					brokenOrder = append(brokenOrder, k)
				}
				brokenNames[k] = append(brokenNames[k], name)
				brokenEvents[k] = append(brokenEvents[k], event)
			case in.text != creates[i] && event == "INSERT" && have.keyAdded[table] != nil:
				out = append(out, because(have.keyAdded[table], ", after guard trigger %s that %s installs, which looks up the row a REPLACE or INSERT ... ON DUPLICATE KEY UPDATE conflicts with by each key the table had then and not by this one: until a new guard migration replaces it, a stale token's REPLACE or upsert that conflicts on the new key passes the database guard", name, in.file))
			case in.text != creates[i] && event == "INSERT" && sameButKeys(in.text, creates[i]):
				// Another key set than the schema's, with no statement
				// after the trigger to blame: the keys changed before it
				// as fencegen reads the files (a schema file whose order
				// among the migrations is not known), not by hand.
				out = append(out, at(in.file, in.line, "the guard trigger %s of table %s looks up the row a REPLACE or INSERT ... ON DUPLICATE KEY UPDATE conflicts with by other keys than the table has in the schema (a key added or dropped in a migration that is not read before it): until a new guard migration replaces it, a stale token's REPLACE or upsert that conflicts on a key it does not look up passes the database guard; write a new guard migration", name, t.Table))
			case in.text != creates[i]:
				// The column or mode the trigger checks changed: said
				// once for the table, at the migration that changed
				// the mark when one did, as on PostgreSQL (trial tnew
				// F10).
				hc, hm := mysqlTriggerGuard(in.text)
				wc, wm := strings.ToLower(t.Column), t.mode()
				if hc == "" || hc == wc && hm == wm {
					out = append(out, at(in.file, in.line, "the guard trigger %s of table %s differs from the one this fencegen writes (edited by hand, or by another fencegen): write a new guard migration", name, t.Table))
					break
				}
				if changed[table] {
					break
				}
				changed[table] = true
				if m := have.marked[table]; hc != wc && m != nil && have.markedColumn[table] == wc {
					out = append(out, because(m, ": the guard triggers that %s installs read column %s while a column of that name exists, so once this is applied they keep checking %s, which the generated writes no longer set, until a new guard migration replaces them", in.file, hc, hc))
				} else if hc == wc && have.remarked[table] != nil {
					out = append(out, because(have.remarked[table], ": the guard trigger that %s installs checks column %s %s; the mark now asks for %s, which a new guard migration installs", in.file, hc, hm, wm))
				} else {
					out = append(out, at(in.file, in.line, "the guard of table %s checks column %s %s; the schema now fences column %s %s", t.Table, hc, hm, wc, wm))
				}
			}
		}
		if len(recreatedEvents) > 0 {
			rec := have.recreated[table]
			f := because(rec.after, "; table %s is fenced, and %s:%d:%d %s: it has no guard triggers, so their guard belongs in that migration, %s, for no applied state to leave it unguarded: without it, the database lets a stale token's %s of %s from any writer through", t.Table, rec.at.file, rec.at.line, rec.at.col, strings.TrimSuffix(rec.at.what, ","), rec.at.file, orList(recreatedEvents), t.Table)
			f.Into, f.Why = rec.at.file, whyRecreate
			out = append(out, f)
		}
		if len(droppedEvents) > 0 {
			out = append(out, because(have.dropped[table], "; table %s is fenced, so until a new guard migration installs its guard again, the database lets a stale token's %s of %s from any writer through", t.Table, orList(droppedEvents), t.Table))
		}
		for _, k := range brokenOrder {
			names := brokenNames[k]
			f := because(k.c, ", which the guard trigger %s that %s installs reads: once this is applied, every %s of %s fails (Unknown column) until the trigger is replaced; its guard belongs in this migration, %s, for no applied state to break it", names[0], k.file, brokenEvents[k][0], t.Table, k.c.file)
			if len(names) > 1 {
				f = because(k.c, ", which the guard triggers %s that %s installs read: once this is applied, every %s of %s fails (Unknown column) until the triggers are replaced; their guard belongs in this migration, %s, for no applied state to break it", andList(names), k.file, andList(brokenEvents[k]), t.Table, k.c.file)
			}
			f.Into, f.Why = k.c.file, whyMySQLColumn
			out = append(out, f)
		}
	}
	for _, c := range have.unread {
		out = append(out, because(&cause{file: c.file, line: c.line, col: c.col, what: "fencegen cannot read this statement"}, ": %s, and whether that is a guard trigger of a fenced table cannot be told, so the guard cannot be shown in place; write each DROP TRIGGER [IF EXISTS] [db.]name as a statement of its own, without comments inside", c.what))
	}
	var gone []string
	for name, tr := range have.triggers {
		if !wanted[name] && !fenced[tr.table] {
			gone = append(gone, name)
		}
	}
	slices.Sort(gone)
	// The triggers a dropped (or renamed) token column breaks: one
	// finding per cause, table and installing migration.
	type goneKey struct {
		c           *cause
		table, file string
	}
	var goneOrder []goneKey
	goneBroken := map[goneKey][]string{}
	for _, name := range gone {
		tr := have.triggers[name]
		if tr.broken != nil {
			k := goneKey{tr.broken, tr.table, tr.file}
			if goneBroken[k] == nil {
				goneOrder = append(goneOrder, k)
			}
			goneBroken[k] = append(goneBroken[k], name)
		}
	}
	for _, k := range goneOrder {
		// The token column dropped (or renamed) under the trigger:
		// from that migration on, every write the trigger fires on
		// fails, so the trigger's drop belongs in it, as the guard of
		// a rename does (x27 F2).
		names := goneBroken[k]
		f := because(k.c, ", which the guard trigger %s that %s installs reads: once this is applied, every write of %s that fires it fails (Unknown column) until the trigger is dropped; table %s is no longer fenced, so the drop of its guard belongs in this migration, %s, for no applied state to break it", names[0], k.file, k.table, k.table, k.c.file)
		if len(names) > 1 {
			f = because(k.c, ", which the guard triggers %s that %s installs read: once this is applied, every write of %s that fires them fails (Unknown column) until the triggers are dropped; table %s is no longer fenced, so the drop of its guard belongs in this migration, %s, for no applied state to break it", andList(names), k.file, k.table, k.table, k.c.file)
		}
		f.Into, f.Why = k.c.file, whyMySQLColumn
		out = append(out, f)
	}
	for _, name := range gone {
		tr := have.triggers[name]
		if tr.broken != nil {
			continue
		}
		if c := have.unmarked[tr.table]; c != nil {
			// The migration that removed the mark is the cause, said
			// once for the table, as on PostgreSQL.
			if !changed[tr.table] {
				changed[tr.table] = true
				col, _ := mysqlTriggerGuard(tr.text)
				out = append(out, because(c, ", but the guard triggers that %s installs stay: they refuse every write of %s whose token does not beat the stored %s until a new guard migration removes them", tr.file, tr.table, col))
			}
			continue
		}
		out = append(out, at(tr.file, tr.line, "table %s is no longer fenced, but the guard migrations still install its guard trigger %s, which refuses writes with a token that does not beat the stored one", tr.table, name))
	}
	// A table that took a guarded table's name without its mark: fenced
	// no longer, by accident or on purpose; fencegen guard -unfence (or
	// the mark again) says which.
	var recreated []string
	for table := range have.recreated {
		if !fenced[table] {
			recreated = append(recreated, table)
		}
	}
	slices.Sort(recreated)
	for _, table := range recreated {
		rec := have.recreated[table]
		f := because(rec.at, " without the fencing mark of its token column, after %s:%d:%d %s: table %s is no longer fenced, so its generated writes take no token and the database refuses no stale one. Either mark it again (COMMENT 'fencegen:token' on its token column, or a fence key) and write its guard (fencegen guard), or stop fencing %s deliberately (fencegen guard -unfence %s writes a guard migration that records the decision)",
			rec.after.file, rec.after.line, rec.after.col, rec.after.what, table, table, table)
		f.Unfence = table
		out = append(out, f)
	}
	for i := range out {
		if out[i].Into != "" && g.Writable(out[i].Into) != nil {
			out[i].SqlcReadsInto = true
		}
	}
	sortFindings(out)
	return out
}

// mysqlSpelledTables maps each table (lower case) of the MySQL schema
// files to its name as last declared: by CREATE TABLE, RENAME TABLE or
// ALTER TABLE ... RENAME, in file order.
func mysqlSpelledTables(schema []*sqlparse.File) map[string]string {
	out := map[string]string{}
	set := func(n *ast.TableName) {
		if n != nil && n.Name.O != "" {
			out[n.Name.L] = n.Name.O
		}
	}
	for _, f := range schema {
		for _, st := range f.Stmts {
			switch n := st.MySQL.(type) {
			case *ast.CreateTableStmt:
				set(n.Table)
			case *ast.RenameTableStmt:
				for _, tt := range n.TableToTables {
					set(tt.NewTable)
				}
			case *ast.AlterTableStmt:
				for _, spec := range n.Specs {
					if spec.Tp == ast.AlterTableRenameTable {
						set(spec.NewTable)
					}
				}
			}
		}
	}
	return out
}

// orList joins words as "a", "a or b", "a, b or c".
func orList(words []string) string { return joinList(words, "or") }

// andList joins words as "a", "a and b", "a, b and c".
func andList(words []string) string { return joinList(words, "and") }

func joinList(words []string, conj string) string {
	if len(words) < 2 {
		return strings.Join(words, "")
	}
	return strings.Join(words[:len(words)-1], ", ") + " " + conj + " " + words[len(words)-1]
}

// mysqlKeyLookupRe finds the key lookup of a guard BEFORE INSERT
// trigger: the WHERE clause of its SELECT COUNT(*), up to the token
// comparison.
var mysqlKeyLookupRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?s)(SELECT COUNT\(\*\) FROM \S+ WHERE )(.*?)( AND \()`)
})

// sameButKeys reports whether two guard BEFORE INSERT triggers' texts
// differ only in the keys they look the stored row up by.
func sameButKeys(have, want string) bool {
	wm := mysqlKeyLookupRe().FindStringSubmatch(want)
	if wm == nil || mysqlKeyLookupRe().FindStringIndex(have) == nil {
		return false
	}
	keys := func(text string) string {
		m := mysqlKeyLookupRe().FindStringSubmatch(text)
		return m[2]
	}
	// Each key of the lookup appears again in the message's MAX(...) read.
	hk, wk := keys(have), keys(want)
	return strings.ReplaceAll(have, hk, wk) == want
}
