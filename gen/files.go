package gen

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/fencegen/fencegen/gen/internal/config"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/migrations"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
	"github.com/fencegen/fencegen/gen/internal/sqlparse/mysqlparse"
	"github.com/fencegen/fencegen/gen/internal/writes/mysqlwrites"
)

// expand turns schema or queries entries (files, directories, globs) into
// file names relative to the current directory, in order, each once.
// Directories contribute their *.sql files, without golang-migrate's
// *.down.sql files and hidden files (as sqlc), in the order of
// migrationOrder; patterns their matches, in the order of globOrder; a
// file named as such counts by the same rule (isSQLFile).
func expand(cfg *Config, entries []string, pos config.Position) ([]string, diag.List) {
	return expandAt(cfg, entries, pos, nil)
}

// expandAt is expand with the position of each entry in the configuration
// (at, nil when unknown): a problem with an entry is reported there.
func expandAt(cfg *Config, entries []string, pos config.Position, at []config.Position) ([]string, diag.List) {
	return expandOrdered(cfg, entries, pos, at, false, nil, nil)
}

// expandSchema is expandAt for schema entries: the files of a migrations
// directory are those its tool applies (toolApplies, toolExtra), with a
// note for each file the tool and sqlc v1.31.1 read differently appended
// to notes.
func expandSchema(cfg *Config, entries []string, pos config.Position, at []config.Position, dirs *migrations.Dirs, notes *[]string) ([]string, diag.List) {
	return expandOrdered(cfg, entries, pos, at, false, dirs, notes)
}

// expandOrdered is expandAt with, when lexical is set, each directory's
// files and each pattern's matches in lexical order, as sqlc v1.31.1
// reads them (os.ReadDir, filepath.Glob): sqlcSchemaOrder. With dirs
// (schema entries), the files are those the migration tool of their
// directory applies: toolApplies, toolExtra.
func expandOrdered(cfg *Config, entries []string, pos config.Position, at []config.Position, lexical bool, dirs *migrations.Dirs, notes *[]string) ([]string, diag.List) {
	var errs diag.List
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for i, e := range entries {
		pos := pos
		if i < len(at) {
			pos = at[i]
		}
		p := filepath.FromSlash(e)
		if !filepath.IsAbs(p) {
			p = filepath.Join(cfg.Dir, p)
		}
		matches := []string{p}
		glob := strings.ContainsAny(e, "*?[")
		if glob {
			// As in sqlc, a pattern that matches nothing adds nothing.
			m, err := filepath.Glob(p)
			if err != nil {
				errs.Add(cfg.Path, pos.Line, pos.Col, "%q: %v", e, err)
				continue
			}
			matches = globOrder(m)
			if lexical {
				matches = m
				sort.Strings(matches)
			}
		}
		for _, m := range matches {
			info, err := os.Stat(m)
			if err != nil {
				errs.Add(cfg.Path, pos.Line, pos.Col, "%s: no such file or directory%s", e, nearFile(m, e))
				continue
			}
			if !info.IsDir() {
				// A file counts only if it is SQL, as sqlc filters it
				// (migrations/* holds a README and down migrations); a
				// file named as such is filtered too, as sqlc filters it
				// (see skippedFiles).
				if isSQLFile(filepath.Base(m)) && toolApplies(dirs, m, notes) {
					add(m)
				}
				continue
			}
			ents, err := os.ReadDir(m)
			if err != nil {
				errs.Add(cfg.Path, pos.Line, pos.Col, "%s: %v", e, err)
				continue
			}
			var names []string
			for _, de := range ents {
				n := de.Name()
				if de.IsDir() || !isSQLFile(n) || !toolApplies(dirs, filepath.Join(m, n), notes) {
					continue
				}
				names = append(names, n)
			}
			names = append(names, toolExtra(dirs, m, notes)...)
			if lexical {
				sort.Strings(names)
			} else {
				names = migrationOrder(names)
			}
			for _, n := range names {
				add(filepath.Join(m, n))
			}
		}
	}
	return out, errs
}

// skippedFiles returns a note for each file that entries name as such
// (not through a directory or a pattern) and that is not read, because
// sqlc v1.31.1 does not read it either: its name does not end in .sql
// (schema.psql), it is hidden, or it is a golang-migrate down migration
// (1_init.down.sql). The file names are relative to the configuration,
// as the entries give them; at locates each entry (nil: pos).
func skippedFiles(cfg *Config, entries []string, pos config.Position, at []config.Position) []string {
	var notes []string
	for i, e := range entries {
		if strings.ContainsAny(e, "*?[") {
			continue
		}
		p := filepath.FromSlash(e)
		if !filepath.IsAbs(p) {
			p = filepath.Join(cfg.Dir, p)
		}
		info, err := os.Stat(p)
		if err != nil || info.IsDir() || isSQLFile(filepath.Base(p)) {
			continue
		}
		pos := pos
		if i < len(at) {
			pos = at[i]
		}
		why := "its name does not end in .sql"
		switch base := filepath.Base(p); {
		case strings.HasSuffix(base, ".down.sql"):
			why = "it is a golang-migrate down migration (.down.sql)"
		case strings.HasPrefix(base, "."):
			why = "it is hidden"
		}
		notes = append(notes, fmt.Sprintf("%s:%d:%d: note: %s is not read: %s, and sqlc reads only the .sql files that are neither hidden nor .down.sql, also where one is named as such",
			cfg.Path, pos.Line, pos.Col, e, why))
	}
	return notes
}

// isSQLFile reports whether a file of a directory or a pattern's match
// is read, by its name, as is a file an entry names: as in sqlc
// (internal/sql/sqlpath), one ending in .sql, not hidden, and not a
// golang-migrate down migration (.down.sql).
func isSQLFile(name string) bool {
	return strings.HasSuffix(name, ".sql") && !strings.HasPrefix(name, ".") && !strings.HasSuffix(name, ".down.sql")
}

// toolApplies reports whether the migration tool of file's directory
// applies file going up (migrations.Dir.Applies), for the schema files
// (dirs set; without, every file counts). A file sqlc v1.31.1 reads that
// the tool skips (golang-migrate's 000002_x.sql, without .up) is not read
// either: fencegen reads what the database holds, and a file the tool
// skips never reaches it (trial t24h F_gm_ignored). A note says so.
func toolApplies(dirs *migrations.Dirs, file string, notes *[]string) bool {
	if dirs == nil {
		return true
	}
	d := dirs.Of(filepath.Dir(file))
	if d.Applies(filepath.Base(file)) {
		return true
	}
	if notes != nil {
		*notes = append(*notes, fmt.Sprintf("%s:1:1: note: %s does not apply this file, so fencegen does not read it: %s (%s is a %s directory: %s); sqlc v1.31.1 reads it as schema. Rename it to be applied, or move it out of the directory",
			displayName(file), d.Tool, d.Rule(), displayName(filepath.Dir(file)), d.Tool, d.Why))
	}
	return false
}

// toolExtra returns the names of the files of dir, a schema entry's
// directory, that its migration tool applies and sqlc v1.31.1 does not
// read (migrations.Dir.Extra: golang-migrate's 000002_x.up.psql), each
// with a note: fencegen reads them, as the database holds what they do.
func toolExtra(dirs *migrations.Dirs, dir string, notes *[]string) []string {
	if dirs == nil {
		return nil
	}
	d := dirs.Of(dir)
	extra := d.Extra()
	for _, n := range extra {
		if notes != nil {
			*notes = append(*notes, fmt.Sprintf("%s:1:1: note: %s applies this file (%s is a %s directory: %s), so fencegen reads it, for the guard to see what it does to the database; sqlc v1.31.1 does not read it (its name does not end in .sql), nor see what it defines",
				displayName(filepath.Join(dir, n)), d.Tool, displayName(dir), d.Tool, d.Why))
		}
	}
	return extra
}

// UpMigrationNames returns the names of the files of dir that its
// migration tool applies going up (as the schema entries read a
// directory: migrations.Dir.Applies), in no particular order: the tool
// dir's files show, or, where they show none, format's (fencegen guard
// -format: golang-migrate, goose, dbmate, atlas). A golang-migrate up
// migration of any extension counts (000002_x.up.psql), a file the tool
// skips does not (000002_x.sql beside golang-migrate's files). A missing
// dir holds none.
func UpMigrationNames(dir, format string) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	d := migrations.Detect(dir)
	if d.Tool == migrations.Unknown {
		d.Tool = migrations.Tool(format)
	}
	var out []string
	for _, de := range ents {
		if n := de.Name(); !de.IsDir() && d.Applies(n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// globOrder sorts a pattern's matches: lexically, as filepath.Glob and
// sqlc do, unless they are all in one directory, where migrationOrder
// applies (migrations/*.up.sql lists golang-migrate's up migrations).
func globOrder(matches []string) []string {
	if len(matches) == 0 {
		return matches
	}
	dir := filepath.Dir(matches[0])
	names := make([]string, len(matches))
	for i, m := range matches {
		if filepath.Dir(m) != dir {
			out := append([]string(nil), matches...)
			sort.Strings(out)
			return out
		}
		names[i] = filepath.Base(m)
	}
	out := make([]string, len(names))
	for i, n := range migrationOrder(names) {
		out[i] = filepath.Join(dir, n)
	}
	return out
}

// sqlcSchemaOrder returns the positions in files, pkg's schema files in
// the order a migration tool applies them (expandAt), in the order the
// catalog is built from them: the order sqlc v1.31.1 reads them,
// lexically within each directory and pattern (10_c.sql before
// 2_b.sql), so that the API (a model's fields) is sqlc's, unless the
// entry declares its engine's own types (postgresql_types, mysql_types),
// which keeps the tool's order, the database's. Where the two orders
// differ and a catalog built in sqlc's (trial) has problems, where
// sqlc fails (relation "u" does not exist: 10_alter_u.sql before
// 2_u.sql), the tool's order stands, with the vet note returned. The
// guard and vet's PREPARE check replay the files in the tool's order
// either way.
func sqlcSchemaOrder(cfg *Config, pkg config.Package, files []string, trial func([]int) diag.List) ([]int, string) {
	order := make([]int, len(files))
	for i := range order {
		order[i] = i
	}
	if pkg.Go.Types() {
		return order, ""
	}
	// The entry's own files; those only fencegen reads (a fencegen.yaml's
	// schema key) follow them, in their order.
	lex, errs := expandOrdered(cfg, pkg.Schema, pkg.Pos, pkg.SchemaPos, true, nil, nil)
	if len(errs) > 0 || len(lex) > len(files) {
		return order, ""
	}
	at := make(map[string]int, len(lex))
	for i, f := range files[:len(lex)] {
		at[f] = i
	}
	sqlc := slices.Clone(order)
	differ := false
	for i, f := range lex {
		j, ok := at[f]
		if !ok {
			return order, ""
		}
		sqlc[i] = j
		differ = differ || i != j
	}
	if !differ {
		return order, ""
	}
	problems := trial(sqlc)
	if len(problems) == 0 {
		return sqlc, ""
	}
	rel := func(p string) string {
		if r, err := filepath.Rel(cfg.Dir, p); err == nil {
			return filepath.ToSlash(r)
		}
		return p
	}
	var first, second string
	for i, j := range sqlc {
		if i != j {
			first, second = rel(files[j]), rel(files[i])
			break
		}
	}
	return order, fmt.Sprintf("%s:%d:%d: note: sqlc v1.31.1 reads the schema files lexically (%s before %s) and fails: %s; fencegen reads them in the order their migration tool applies them", cfg.Path, pkg.Pos.Line, pkg.Pos.Col, first, second, problems[0].Msg)
}

// migrationOrder sorts the names of a directory's SQL files in the order
// a migration tool applies them. When every name starts with a version
// number, that is the order of the numbers, compared as numbers (9_ before
// 10_; dbmate's YYYYMMDDHHMMSS timestamps likewise), names breaking ties.
// This is the rule of each tool that names migrations so:
//   - golang-migrate: ^([0-9]+)_(.*)\.(down|up)\.(.*)$, an unsigned version;
//   - goose: the digits before the first "_" (NNN_name.sql);
//   - dbmate: ^(\d+).*\.sql$, the leading digits;
//   - sql-migrate: the leading digits, compared as numbers.
//
// Otherwise (some name has no leading digits: not a migration directory)
// the names keep lexical order.
//
// sqlc itself reads a directory in lexical order (os.ReadDir), so it
// applies 10_b.sql before 9_a.sql and fails when the later migration
// changes a table the earlier one creates; the tools, and so the
// database, apply 9_a.sql first. Where the two orders agree (versions of
// one width, as golang-migrate -seq and dbmate write them) the result is
// the same as sqlc's.
func migrationOrder(names []string) []string {
	type file struct{ name, version string }
	files := make([]file, 0, len(names))
	for _, n := range names {
		i := 0
		for i < len(n) && n[i] >= '0' && n[i] <= '9' {
			i++
		}
		if i == 0 {
			out := append([]string(nil), names...)
			sort.Strings(out)
			return out
		}
		v := strings.TrimLeft(n[:i], "0")
		files = append(files, file{n, v})
	}
	sort.Slice(files, func(i, j int) bool {
		a, b := files[i], files[j]
		if len(a.version) != len(b.version) {
			return len(a.version) < len(b.version)
		}
		if a.version != b.version {
			return a.version < b.version
		}
		return a.name < b.name
	})
	out := make([]string, len(files))
	for i, f := range files {
		out[i] = f.name
	}
	return out
}

var (
	// psqlMeta matches a psql meta-command line, such as the \restrict and
	// \unrestrict lines pg_dump writes since PostgreSQL 17.6 and 15.14
	// (psql docs, "Meta-Commands"): psql's, not SQL.
	psqlMeta = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^\\[a-zA-Z].*$`) })
)

// readAndParse reads and parses one file. For schema files, the down
// sections of goose, dbmate, sql-migrate and tern migrations, and psql
// meta-command lines, are blanked out (keeping line numbers) so only the
// up migration's SQL builds the catalog: what the file's migration tool
// applies (dirs, as readAndParseNoted).
func readAndParse(name string, schema bool, dirs *migrations.Dirs) (*sqlparse.File, error) {
	return readAndParseFor(config.EnginePostgreSQL, name, schema, dirs)
}

// parseMySQL reads and parses a MySQL migration file as a schema file of
// an entry with engine mysql is read (the guard's NextMigration replays
// the migrations directory with it).
func parseMySQL(dirs *migrations.Dirs) func(name string) (*sqlparse.File, error) {
	return func(name string) (*sqlparse.File, error) {
		return readAndParseFor(config.EngineMySQL, name, true, dirs)
	}
}

// readAndParseFor is readAndParse with engine's parser: PostgreSQL's
// (sqlparse) or MySQL's (mysqlparse, the TiDB parser).
func readAndParseFor(engine, name string, schema bool, dirs *migrations.Dirs) (*sqlparse.File, error) {
	f, _, err := readAndParseNoted(engine, name, schema, dirs)
	return f, err
}

// readAndParseNoted is readAndParseFor with, for a schema file, its vet
// notes ("file:line:col: note: ..."): where the file is cut at tern's
// divider in the middle of a line, which sqlc v1.31.1 reads past
// (migrations.TernMidLine), and where sqlc stops reading at a line that
// the file's migration tool applies past (toolCut).
//
// A schema file is read as the migration tool of its directory applies
// it (dirs; migrations.Cut): each tool stops at its own down marker
// only, so a line of another's spelling ("-- migrate:down" in a
// golang-migrate .up.sql, "-- +migrate Down" in goose's Up section) does
// not hide what follows it, which the tool applies (trial t24h
// F_gm_ignored). A file of a directory no tool's files show is cut where
// any tool or sqlc cuts (migrations.DownStart), as before. In a goose
// file, a statement whose text goose changes under ENVSUB ON is an error
// (envsubErrors): the returned error then comes with the parsed file.
func readAndParseNoted(engine, name string, schema bool, dirs *migrations.Dirs) (*sqlparse.File, []string, error) {
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, nil, &diag.Error{File: name, Msg: err.Error()}
	}
	var notes []string
	var envsub []migrations.Envsub
	// A UTF-8 byte order mark, as some editors save it, is not SQL; line 1's
	// columns are then counted as the editor shows them, without it.
	src = bytes.TrimPrefix(src, []byte("\ufeff"))
	if schema {
		tool := dirs.Of(filepath.Dir(name)).Tool
		if tool == migrations.Unknown {
			tool = migrations.FileTool(src)
		}
		if mid := migrations.TernMidLine(src); mid >= 0 && (tool == migrations.Tern || tool == migrations.Unknown) {
			line, col := diag.Position(src, mid)
			notes = append(notes, fmt.Sprintf("%s:%d:%d: note: tern's divider in the middle of a line: tern applies the file up to it, and fencegen reads it so; sqlc v1.31.1 stops only at a line that starts with the divider, and reads the rest as schema; put the divider at the start of its line", displayName(name), line, col))
		}
		cut := migrations.Cut(tool, src)
		if note := toolCutNote(name, src, tool, cut); note != "" {
			notes = append(notes, note)
		}
		if tool == migrations.Goose {
			envsub = migrations.EnvsubSpans(src)
		}
		if cut >= 0 {
			src = blank(src, cut, len(src))
		}
		if bytes.IndexByte(src, '\\') >= 0 {
			for _, loc := range psqlMeta().FindAllIndex(src, -1) {
				src = blank(src, loc[0], loc[1])
			}
		}
	}
	var f *sqlparse.File
	switch {
	case engine == config.EngineMySQL && schema:
		f, err = mysqlparse.ParseSchema(displayName(name), src)
	case engine == config.EngineMySQL:
		f, err = mysqlparse.Parse(displayName(name), src)
	default:
		f, err = sqlparse.Parse(displayName(name), src)
	}
	if err == nil && len(envsub) > 0 {
		if errs := envsubErrors(f, envsub); len(errs) > 0 {
			return f, notes, errs
		}
	}
	return f, notes, err
}

// toolCutNote is the note of a schema file that sqlc v1.31.1 stops
// reading at a line (migrations.SqlcCut) while its migration tool applies
// statements after it (cut, -1 for to the end): fencegen reads them as
// the tool applies them; "" for none.
func toolCutNote(name string, src []byte, tool migrations.Tool, cut int) string {
	sqlcCut := migrations.SqlcCut(src)
	if sqlcCut < 0 || tool == migrations.Unknown || cut >= 0 && cut <= sqlcCut {
		return ""
	}
	end := cut
	if end < 0 {
		end = len(src)
	}
	if !holdsSQL(src[sqlcCut:end]) {
		return ""
	}
	line, col := diag.Position(src, sqlcCut)
	text, _, _ := strings.Cut(string(src[sqlcCut:]), "\n")
	return fmt.Sprintf("%s:%d:%d: note: sqlc v1.31.1 stops reading this file at this line (%q), but %s applies the statements after it, so fencegen reads them, for the guard to see what they do to the database; sqlc does not see what they define (reword the line so that it does not start with -- migrate:down, -- +migrate down or -- +goose down, in any case)",
		displayName(name), line, col, strings.TrimSpace(text), tool)
}

// holdsSQL reports whether b holds anything but white space and "--"
// comments.
func holdsSQL(b []byte) bool {
	for _, line := range bytes.Split(b, []byte("\n")) {
		line = bytes.TrimSpace(line)
		if len(line) > 0 && !bytes.HasPrefix(line, []byte("--")) {
			return true
		}
	}
	return false
}

// envsubErrors refuses each statement of f, a goose migration, that goose
// changes before it sends it (migrations.Substituted) because it stands
// in an ENVSUB ON part (spans) and is not one that cannot write
// (migrations.EnvsubHarmless): goose replaces ${AUDIT_TABLE} with the
// variable's value when it applies the file, so fencegen cannot know
// what the statement writes (a trigger function's UPDATE "${AUDIT_TABLE}"
// may become an UPDATE of a fenced table; trial t24h F_goose_envsub).
// Each error is located at the first such "$" of the statement.
func envsubErrors(f *sqlparse.File, spans []migrations.Envsub) diag.List {
	var errs diag.List
	for _, st := range f.Stmts {
		text := string(f.Src[st.Start:st.End])
		if migrations.EnvsubHarmless(text) {
			continue
		}
		for _, sp := range spans {
			from, to := max(st.Start, sp.From), min(st.End, sp.To)
			if from >= to {
				continue
			}
			i, what := migrations.Substituted(string(f.Src[from:to]))
			if i < 0 {
				continue
			}
			onLine, _ := diag.Position(f.Src, sp.On)
			line, col := diag.Position(f.Src, from+i)
			var msg string
			if what == "expansion" {
				tok := string(f.Src[from+i:])
				if j := strings.IndexAny(tok[1:], " \t\r\n'\";,()"); j >= 0 {
					tok = tok[:j+1]
				}
				msg = fmt.Sprintf("goose substitutes environment variables in this statement (-- +goose ENVSUB ON at line %d): fencegen cannot know what %s becomes, so neither what the statement writes once goose applies it (a trigger function's UPDATE of a fenced table, unguarded); write the text out, or put -- +goose ENVSUB OFF before this statement (ENVSUB is fine for GRANT, REVOKE and CREATE, ALTER or DROP of a ROLE, USER or GROUP)", onLine, tok)
			} else {
				msg = fmt.Sprintf("goose substitutes environment variables in this statement (-- +goose ENVSUB ON at line %d) and turns %s into $, so PostgreSQL would run other text than this file's, which fencegen reads; end ENVSUB (-- +goose ENVSUB OFF) before this statement", onLine, f.Src[from+i:from+i+2])
			}
			errs.Add(f.Name, line, col, "%s", msg)
			break
		}
	}
	return errs
}

// blank replaces src[from:to] with spaces, keeping newlines.
func blank(src []byte, from, to int) []byte {
	out := append([]byte(nil), src...)
	for i := from; i < to; i++ {
		if out[i] != '\n' {
			out[i] = ' '
		}
	}
	return out
}

// displayName is the name used in messages: relative to the current
// directory when possible, never absolute when avoidable.
func displayName(name string) string {
	if filepath.IsAbs(name) {
		if wd, err := os.Getwd(); err == nil {
			if rel, err := filepath.Rel(wd, name); err == nil {
				return filepath.ToSlash(rel)
			}
		}
	}
	return filepath.ToSlash(name)
}

// nearFile is " (did you mean X?)" naming the file or directory beside the
// missing path p whose name is closest to p's, as the configuration's
// entry e would name it, or "". When no name is close, it names the
// files beside p of its kind: the ones with its extension (queries.sql
// missing, q.sql there), or the directories for a name without one; ""
// when there are none.
func nearFile(p, e string) string {
	ents, err := os.ReadDir(filepath.Dir(p))
	if err != nil {
		return ""
	}
	var names []string
	for _, de := range ents {
		names = append(names, de.Name())
	}
	dir := path.Dir(filepath.ToSlash(e))
	base := filepath.Base(p)
	if c := config.Closest(base, names); c != "" {
		return fmt.Sprintf(" (did you mean %s?)", path.Join(dir, c))
	}
	ext := filepath.Ext(base)
	var kind []string
	for _, de := range ents {
		n := de.Name()
		if strings.HasPrefix(n, ".") {
			continue
		}
		switch {
		case ext == "" && de.IsDir():
		case ext != "" && !de.IsDir() && strings.EqualFold(filepath.Ext(n), ext) && (ext != ".sql" || isSQLFile(n)):
		default:
			continue
		}
		kind = append(kind, path.Join(dir, n))
	}
	one, many := "the only "+ext+" file there", "the "+ext+" files there are "
	if ext == "" {
		one, many = "the only directory there", "the directories there are "
	}
	switch {
	case len(kind) == 1:
		return fmt.Sprintf(" (did you mean %s? it is %s)", kind[0], one)
	case len(kind) > 1 && len(kind) <= 5:
		return fmt.Sprintf(" (%s%s)", many, strings.Join(kind, ", "))
	}
	return ""
}

// missingSemicolon reports a query file whose last statement has no
// terminating semicolon, at the statement's start, as sqlc v1.31.1 does
// ("missing semicolon at end of file", internal/compiler/parse.go): sqlc
// cannot cut that statement out of the file, and refuses the file.
func missingSemicolon(f *sqlparse.File) *diag.Error {
	if len(f.Stmts) == 0 {
		return nil
	}
	st := f.Stmts[len(f.Stmts)-1]
	src := f.Src
	for i := st.End; i < len(src); {
		switch {
		case src[i] == ';':
			return nil
		case src[i] == ' ' || src[i] == '\t' || src[i] == '\n' || src[i] == '\r' || src[i] == '\f':
			i++
		case bytes.HasPrefix(src[i:], []byte("--")):
			j := bytes.IndexByte(src[i:], '\n')
			if j < 0 {
				i = len(src)
			} else {
				i += j
			}
		case bytes.HasPrefix(src[i:], []byte("/*")):
			j := bytes.Index(src[i+2:], []byte("*/"))
			if j < 0 {
				i = len(src)
			} else {
				i += 2 + j + 2
			}
		default:
			return nil // not the end of the statement as parsed: leave it to the parser
		}
	}
	line, col := diag.Position(src, st.Start)
	return &diag.Error{File: f.Name, Line: line, Col: col, Msg: "missing semicolon at end of file"}
}

// fencegenSchemaFiles expands pkg.FencegenSchema, the schema files of
// the configuration that extends cfg (cfg.Extension), relative to that
// file's directory and reported at their places in it.
func fencegenSchemaFiles(cfg *Config, pkg config.Package) ([]string, diag.List) {
	if len(pkg.FencegenSchema) == 0 || cfg.Extension == "" {
		return nil, nil
	}
	ext := *cfg
	ext.Path, ext.Dir = cfg.Extension, filepath.Dir(cfg.Extension)
	var pos config.Position
	if len(pkg.FencegenSchemaPos) > 0 {
		pos = pkg.FencegenSchemaPos[0]
	}
	return expandAt(&ext, pkg.FencegenSchema, pos, pkg.FencegenSchemaPos)
}

// fencegenOnlyStmts refuses, in a schema file only fencegen reads
// (fencegenSchemaFiles), each statement the TiDB parser read that is no
// stored program: such a file holds what sqlc v1.31.1 cannot parse, and
// a table, view or type defined there would be one sqlc's API lacks.
func fencegenOnlyStmts(cfg *Config, pf *sqlparse.File) diag.List {
	var errs diag.List
	for _, st := range pf.Stmts {
		if mysqlwrites.IsProgram(string(pf.Src[st.Start:st.End])) {
			continue
		}
		line, col := diag.Position(pf.Src, st.Start)
		errs.Add(pf.Name, line, col, "a statement other than a stored program in a schema file only fencegen reads (schema in %s) would define what sqlc's API lacks: list it in the schema of %s; this file holds what sqlc cannot parse: CREATE or DROP of a TRIGGER, FUNCTION, PROCEDURE or EVENT, ALTER EVENT, DELIMITER lines",
			filepath.Base(cfg.Extension), filepath.Base(cfg.Path))
	}
	return errs
}
