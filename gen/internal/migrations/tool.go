package migrations

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Tool is a migration tool, as a directory's file names and contents
// show which one applies it.
type Tool string

// The tools whose files fencegen reads as they apply them. Unknown is a
// directory no rule recognises (a schema.sql beside the queries): its
// files are read as sqlc v1.31.1 reads them, cut where any tool cuts
// (DownStart).
const (
	Unknown       Tool = ""
	GolangMigrate Tool = "golang-migrate"
	Goose         Tool = "goose"
	Dbmate        Tool = "dbmate"
	SQLMigrate    Tool = "sql-migrate"
	Tern          Tool = "tern"
	Atlas         Tool = "atlas"
)

var (
	// golangMigrateName is golang-migrate's file name pattern
	// (source.Regex, v4): a version, a title, up or down, and any
	// extension. A file that does not match is skipped, silently.
	golangMigrateName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9]+)_(.*)\.(down|up)\.(.*)$`) })
	// dbmateName is dbmate's migration file pattern
	// (pkg/dbmate/migration.go): leading digits, ending in .sql.
	dbmateName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(\d+).*\.sql$`) })
	// ternName is tern's (migrate.go, FindMigrations).
	ternName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\A(\d+)_.+\.sql\z`) })
	// dbmateUp is dbmate's up-block directive, as dbmateDown.
	dbmateUp = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?m)^--\s*migrate:up(\s*$|\s+\S+)`) })
)

// Dir is a directory of migrations as its tool applies them.
type Dir struct {
	// Tool is the tool the directory's files show (Unknown for none).
	Tool Tool
	// Why says what shows it: "it holds golang-migrate down migrations,
	// <version>_<title>.down.<ext>", "its files hold -- +goose Up".
	Why string
	// names are the directory's file names.
	names []string
}

// Dirs detects the tool of each directory once (Of); it is safe for
// concurrent use. A run of fencegen has one, so that the schema files of
// every entry and the guard's replay of a migrations directory read each
// directory alike.
type Dirs struct {
	mu sync.Mutex
	m  map[string]*Dir
}

// NewDirs returns an empty Dirs.
func NewDirs() *Dirs { return &Dirs{m: map[string]*Dir{}} }

// Of returns the directory dir as its tool applies it, detected on first
// use (Detect). A directory that cannot be read is Unknown.
func (d *Dirs) Of(dir string) *Dir {
	if d == nil {
		return Detect(dir)
	}
	key := dir
	if abs, err := filepath.Abs(dir); err == nil {
		key = abs
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if got, ok := d.m[key]; ok {
		return got
	}
	got := Detect(dir)
	d.m[key] = got
	return got
}

// Detect reads dir's file names, and the contents of its .sql files where
// the names do not tell, and returns the tool that applies it:
//   - golang-migrate when a name is of its down migrations
//     (^([0-9]+)_(.*)\.down\.(.*)$), or a name is of its up migrations
//     and no .sql file holds the up marker of goose, dbmate or
//     sql-migrate (goose applies 00001_x.up.sql as its version 1);
//   - goose when a .sql file holds a "-- +goose Up" annotation (as goose
//     reads annotations: gooseAnnotation);
//   - dbmate when one holds "-- migrate:up";
//   - sql-migrate when one holds "-- +migrate Up";
//   - Atlas when the directory holds atlas.sum, its integrity file;
//   - tern when a .sql file holds tern's divider and none holds another
//     tool's down marker (a directory of several tools' files, which no
//     one tool applies, is Unknown: each file is cut where any cuts);
//   - Unknown otherwise.
func Detect(dir string) *Dir {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return &Dir{}
	}
	d := &Dir{}
	var sqlFiles []string
	gmUp, gmDown := false, false
	atlasSum := false
	for _, de := range ents {
		if de.IsDir() {
			continue
		}
		n := de.Name()
		d.names = append(d.names, n)
		if m := golangMigrateName().FindStringSubmatch(n); m != nil {
			if m[3] == "down" {
				gmDown = true
			} else {
				gmUp = true
			}
		}
		if n == "atlas.sum" {
			atlasSum = true
		}
		if strings.HasSuffix(n, ".sql") && !strings.HasPrefix(n, ".") {
			sqlFiles = append(sqlFiles, n)
		}
	}
	if gmDown {
		d.Tool, d.Why = GolangMigrate, "it holds golang-migrate down migrations, <version>_<title>.down.<ext>"
		return d
	}
	var goose, dbmate, sqlMigrate, tern, otherDown bool
	for _, n := range sqlFiles {
		src, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			continue
		}
		goose = goose || HasGooseUp(src)
		dbmate = dbmate || bytes.Contains(src, []byte("migrate:up")) && dbmateUp().Match(src)
		sqlMigrate = sqlMigrate || hasSQLMigrateUp(src)
		tern = tern || bytes.Contains(src, []byte(ternDivider))
		otherDown = otherDown || otherDownMarker(src)
	}
	switch {
	case gmUp && !goose && !dbmate && !sqlMigrate:
		d.Tool, d.Why = GolangMigrate, "its files are named as golang-migrate up migrations, <version>_<title>.up.<ext>"
	case goose:
		d.Tool, d.Why = Goose, "its files hold -- +goose Up"
	case dbmate:
		d.Tool, d.Why = Dbmate, "its files hold -- migrate:up"
	case sqlMigrate:
		d.Tool, d.Why = SQLMigrate, "its files hold -- +migrate Up"
	case atlasSum:
		d.Tool, d.Why = Atlas, "it holds atlas.sum"
	case tern && !otherDown:
		d.Tool, d.Why = Tern, "its files hold tern's divider, ---- create above / drop below ----"
	}
	return d
}

// Applies reports whether d's tool applies the file name (a base name in
// d) when it migrates up:
//   - golang-migrate: a name of its pattern, direction up (any extension);
//   - goose: a .sql file whose name's part before the first "_" is a
//     version, an integer of at least 1 (NumericComponent; goose skips
//     or refuses other files);
//   - dbmate: leading digits, ending in .sql;
//   - tern: leading digits, "_", ending in .sql;
//   - sql-migrate, Atlas and Unknown: a .sql file.
//
// Hidden files and .down.sql files are never among them, as sqlc reads
// neither.
func (d *Dir) Applies(name string) bool {
	if strings.HasPrefix(name, ".") {
		return false
	}
	switch d.Tool {
	case GolangMigrate:
		m := golangMigrateName().FindStringSubmatch(name)
		return m != nil && m[3] == "up"
	case Goose:
		return strings.HasSuffix(name, ".sql") && !strings.HasSuffix(name, ".down.sql") && gooseVersion(name) > 0
	case Dbmate:
		return dbmateName().MatchString(name) && !strings.HasSuffix(name, ".down.sql")
	case Tern:
		return ternName().MatchString(name) && !strings.HasSuffix(name, ".down.sql")
	}
	return strings.HasSuffix(name, ".sql") && !strings.HasSuffix(name, ".down.sql")
}

// Rule says which files d's tool applies, for messages: "golang-migrate
// applies only files named <version>_<title>.up.<ext>".
func (d *Dir) Rule() string {
	switch d.Tool {
	case GolangMigrate:
		return "golang-migrate applies only files named <version>_<title>.up.<ext> (^([0-9]+)_(.*)\\.(down|up)\\.(.*)$), and skips others without a word"
	case Goose:
		return "goose applies only .sql files named <version>_<title>.sql, a version of 1 or more"
	case Dbmate:
		return "dbmate applies only .sql files whose names start with digits"
	case Tern:
		return "tern applies only files named <digits>_<title>.sql"
	}
	return ""
}

// Extra returns the files of d its tool applies that sqlc v1.31.1 does
// not read (its name does not end in .sql): golang-migrate's up
// migrations of another extension (000002_x.up.psql), in name order.
func (d *Dir) Extra() []string {
	if d.Tool != GolangMigrate {
		return nil
	}
	var out []string
	for _, n := range d.names {
		if d.Applies(n) && !strings.HasSuffix(n, ".sql") {
			out = append(out, n)
		}
	}
	slices.Sort(out)
	return out
}

// Cut is the offset in src, a file of d, from which d's tool (file's own
// markers deciding where d is Unknown: FileTool) applies nothing going
// up, or -1 when it applies the file to its end. Each tool stops at its
// own marker only:
//   - golang-migrate and Atlas apply the whole file;
//   - goose stops at its Down annotation (gooseDown);
//   - dbmate at its down directive (dbmateDown);
//   - sql-migrate at "-- +migrate Down" (sqlMigrateDown);
//   - tern at its divider, anywhere;
//   - a file of no known tool is cut where any of them or sqlc cuts
//     (DownStart).
//
// A line of another tool's spelling ("-- migrate:down" in a
// golang-migrate or goose file) is a comment to the tool, which applies
// what follows it.
func Cut(tool Tool, src []byte) int {
	switch tool {
	case GolangMigrate, Atlas:
		return -1
	case Goose:
		return lineCut(src, gooseDown)
	case Dbmate:
		if loc := dbmateDown().FindIndex(src); loc != nil {
			return loc[0]
		}
		return -1
	case SQLMigrate:
		return lineCut(src, sqlMigrateDown)
	case Tern:
		return bytes.Index(src, []byte(ternDivider))
	}
	return DownStart(src)
}

// FileTool is the tool whose markers decide where a file of an Unknown
// directory (a schema file named as such, beside other files) is cut:
// goose, dbmate or sql-migrate when the file holds that tool's up
// marker, else Unknown.
func FileTool(src []byte) Tool {
	switch {
	case HasGooseUp(src):
		return Goose
	case bytes.Contains(src, []byte("migrate:up")) && dbmateUp().Match(src):
		return Dbmate
	case hasSQLMigrateUp(src):
		return SQLMigrate
	}
	return Unknown
}

// SqlcCut is the offset of the first line at which sqlc v1.31.1 stops
// reading src (sqlcDown), or -1.
func SqlcCut(src []byte) int { return lineCut(src, sqlcDown) }

// lineCut is the offset of the first line of src (split as
// bufio.ScanLines splits it) for which at is true, or -1.
func lineCut(src []byte, at func(line string) bool) int {
	for off := 0; off < len(src); {
		end := bytes.IndexByte(src[off:], '\n')
		next := len(src)
		if end < 0 {
			end = len(src)
		} else {
			end += off
			next = end + 1
		}
		if at(string(bytes.TrimSuffix(src[off:end], []byte("\r")))) {
			return off
		}
		off = next
	}
	return -1
}

// gooseAnnotation is the annotation goose v3 reads on line
// (sqlparser.extractAnnotation), lower case: "up", "down",
// "statementbegin", "envsub on", ...; "" for a line that is none. A line
// starting with "--" (after blanks) that holds "+goose" is an annotation;
// every "--" and the first "+goose" are removed and white space trimmed.
// A line with leading blanks, or two "+goose", is an error to goose.
func gooseAnnotation(line string) string {
	if !strings.HasPrefix(strings.TrimSpace(line), "--") || !strings.Contains(line, "+goose") {
		return ""
	}
	if strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t") {
		return ""
	}
	cmd := strings.Replace(strings.ReplaceAll(line, "--", ""), "+goose", "", 1)
	if strings.Contains(cmd, "+goose") {
		return ""
	}
	return strings.ToLower(strings.TrimSpace(cmd))
}

// HasGooseUp reports whether src holds goose's Up annotation.
func HasGooseUp(src []byte) bool {
	if !bytes.Contains(src, []byte("+goose")) {
		return false
	}
	return lineCut(src, func(line string) bool { return gooseAnnotation(line) == "up" }) >= 0
}

// otherDownMarker reports whether src holds the down marker of goose,
// dbmate or sql-migrate, as each reads it, or one of sqlc's.
func otherDownMarker(src []byte) bool {
	if bytes.Contains(src, []byte("migrate:down")) && dbmateDown().Match(src) {
		return true
	}
	if !containsFold(src, "goose") && !containsFold(src, "grate") {
		return false
	}
	return lineCut(src, func(line string) bool {
		return gooseDown(line) || sqlMigrateDown(line) || sqlcDown(line) && !strings.Contains(line, ternDivider)
	}) >= 0
}

// hasSQLMigrateUp reports whether src holds sql-migrate's Up command.
func hasSQLMigrateUp(src []byte) bool {
	if !bytes.Contains(src, []byte("-- +migrate ")) {
		return false
	}
	return lineCut(src, func(line string) bool {
		rest, ok := strings.CutPrefix(line, "-- +migrate ")
		f := strings.Fields(rest)
		return ok && len(f) > 0 && f[0] == "Up"
	}) >= 0
}

// gooseVersion is goose's version of a migration file name
// (NumericComponent): the integer before the first "_", 0 when there is
// none or it is below 1.
func gooseVersion(name string) int64 {
	before, _, ok := strings.Cut(name, "_")
	if !ok {
		return 0
	}
	v, err := strconv.ParseInt(before, 10, 64)
	if err != nil || v < 1 {
		return 0
	}
	return v
}
