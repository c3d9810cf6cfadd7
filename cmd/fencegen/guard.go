package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/fencegen/fencegen/gen"
)

// guardFlags are the flags of fencegen guard.
type guardFlags struct {
	cfg, format, dir, version, out, into string
	// unfence are the -unfence tables (gen.Guard.Unfence).
	unfence []string
	// applied are the -applied migrations (gen.Guard.Applied).
	applied []string
}

func newGuardFlagSet(out io.Writer) (*flag.FlagSet, *guardFlags) {
	fs := flag.NewFlagSet("guard", flag.ContinueOnError)
	fs.SetOutput(out)
	var f guardFlags
	addConfigFlags(fs, &f.cfg)
	fs.StringVar(&f.format, "format", "", "migration tool: "+strings.Join(gen.MigrationFormats, ", ")+" (required)")
	fs.StringVar(&f.dir, "dir", "", "migrations `directory` to add the migration to (default: print it on standard output)")
	fs.StringVar(&f.version, "version", "", "migration `version` (default: the next one in -dir: one more than the highest\nsequence number there, or the UTC time as YYYYMMDDHHMMSS when it holds timestamps or nothing)")
	fs.StringVar(&f.out, "out", "", "the sql entry whose guard to write, by its out `directory` (needed when several have fenced tables)")
	fs.StringVar(&f.into, "into", "", "add the guard to this `migration` (one not yet applied anywhere that drops and re-creates a fenced table\nor renames its token column: the newest in -dir, or an older one that fencegen check names) instead of writing a new one")
	fs.Func("unfence", "stop fencing this `table`, which a migration dropped (or renamed away) and created again\n(or swapped another table in under its name) without its fencing mark: the migration removes its guard and records the decision (repeat for several tables)", func(v string) error {
		f.unfence = append(f.unfence, v)
		return nil
	})
	fs.Func("applied", "a `migration` that fencegen check says needs the guard in it (-into) but that is applied somewhere already:\nwrite the new guard migration after the newest all the same (the table is unguarded between the two; repeat for several)", func(v string) error {
		f.applied = append(f.applied, v)
		return nil
	})
	fs.Usage = func() {
		fmt.Fprintf(fs.Output(), "usage: fencegen guard -format tool [-dir migrations] [-version N] [-out dir] [-into migration | -applied migration] [-f path]\n")
		fs.PrintDefaults()
	}
	return fs, &f
}

// runGuard is fencegen guard: it generates (writing nothing else) and
// writes the database-side guard of one sql entry as a migration of the
// team's tool.
func runGuard(args []string, stdout, stderr io.Writer) int {
	fs, f := newGuardFlagSet(stderr)
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "fencegen: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	if !slices.Contains(gen.MigrationFormats, f.format) {
		fmt.Fprintf(stderr, "fencegen: guard: -format must be one of %s\n", strings.Join(gen.MigrationFormats, ", "))
		return exitUsage
	}
	if f.into != "" && f.dir == "" {
		fmt.Fprintf(stderr, "fencegen: guard: -into needs the migrations directory: give it with -dir\n")
		return exitUsage
	}
	if len(f.applied) > 0 && (f.dir == "" || f.into != "") {
		fmt.Fprintf(stderr, "fencegen: guard: -applied is for a new guard migration in -dir, not with -into\n")
		return exitUsage
	}
	if len(f.unfence) > 0 && f.dir == "" {
		fmt.Fprintf(stderr, "fencegen: guard: -unfence needs the migrations directory (its migrations show the table was fenced): give it with -dir\n")
		return exitUsage
	}
	if f.dir == "" && f.format == "golang-migrate" {
		fmt.Fprintf(stderr, "fencegen: guard: a golang-migrate migration is two files (.up.sql and .down.sql): give the migrations directory with -dir\n")
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	_, out, code := load(ctx, modeGuard, f.cfg, false, stdout, stderr)
	if out == nil {
		return code
	}
	for _, n := range gen.GuardNotes(out) {
		fmt.Fprintln(stderr, n)
	}
	g, err := pickGuard(out.Guards, f.out)
	if err != nil {
		fmt.Fprintf(stderr, "fencegen: guard: %v\n", err)
		return exitError
	}
	version := f.version
	if version == "" && f.dir != "" {
		// On MySQL, the guard migrations may live apart from sqlc's
		// schema (a directory only fencegen reads): one series of
		// versions, which fencegen interleaves as the tool applies them.
		var series []string
		if g.MySQL() {
			series = g.SchemaFiles()
		}
		if version, err = nextVersion(f.dir, series, time.Now()); err != nil {
			fmt.Fprintf(stderr, "fencegen: guard: %v\n", err)
			return exitError
		}
	} else if version == "" {
		version = time.Now().UTC().Format(timestampLayout)
	}
	if f.dir == "" {
		files, err := g.Migration(f.format, version)
		if err != nil {
			fmt.Fprintf(stderr, "fencegen: guard: %v\n", err)
			return exitError
		}
		fmt.Fprint(stdout, string(files[version+"_fencegen_guard.sql"]))
		return exitOK
	}
	ups, err := upMigrations(f.dir, f.format)
	if err != nil {
		fmt.Fprintf(stderr, "fencegen: guard: %v\n", err)
		return exitError
	}
	for _, gm := range goMigrations(f.dir) {
		fmt.Fprintf(stderr, "fencegen: note: %s is a Go migration: its version is counted, but fencegen reads only .sql migrations, so what it does to the schema or the guard trigger is not checked\n", filepath.ToSlash(relPath(gm)))
	}
	g.Unfence(f.unfence)
	g.Applied(f.applied)
	if f.into != "" {
		return guardInto(g, ups, out.Guards, f, stdout, stderr)
	}
	current, files, err := g.NextMigration(ups, out.Guards, f.format, version)
	if ie := (*gen.GuardIntoError)(nil); errors.As(err, &ie) {
		// The exact commands: this one with -into, or with -applied.
		base := fmt.Sprintf("guard -format %s -dir %s", f.format, filepath.ToSlash(f.dir))
		if f.out != "" {
			base += " -out " + f.out
		}
		into := filepath.ToSlash(relPath(ie.Finding.Into))
		fmt.Fprintf(stderr, "fencegen: guard: %v\n", err)
		if ie.Finding.Move != "" {
			// No guard -into closes it: the team moves the ATTACH.
			fmt.Fprintf(stderr, "fencegen: once either migration is applied anywhere, write a new one after the newest with: %s\n", commandLine(base+" -applied "+into, f.cfg))
			return exitError
		}
		fmt.Fprintf(stderr, "fencegen: add it with: %s; once it is applied anywhere, write a new one after the newest with: %s\n", commandLine(base+" -into "+into, f.cfg), commandLine(base+" -applied "+into, f.cfg))
		return exitError
	}
	if err != nil {
		fmt.Fprintf(stderr, "fencegen: guard: %v\n", err)
		return exitError
	}
	if current != "" {
		fmt.Fprintf(stdout, "fencegen: the guard migrations up to %s already install this guard: nothing written\n", filepath.ToSlash(relPath(current)))
		return exitOK
	}
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	// sqlc cannot parse a trigger: never write one where it reads.
	for _, n := range names {
		p := filepath.Join(f.dir, n)
		if err := g.Writable(p); err != nil {
			fmt.Fprintf(stderr, "fencegen: guard: %s: %v\n", filepath.ToSlash(p), err)
			return exitError
		}
	}
	// Every file is new: never overwrite a migration.
	for _, n := range names {
		if _, err := os.Lstat(filepath.Join(f.dir, n)); err == nil {
			fmt.Fprintf(stderr, "fencegen: guard: %s exists: choose another -version\n", filepath.ToSlash(filepath.Join(f.dir, n)))
			return exitError
		}
	}
	// A missing directory is created, as the migration tools' own create
	// commands do (dbmate new, goose create), and said (a mistyped -dir).
	if _, err := os.Stat(f.dir); errors.Is(err, os.ErrNotExist) {
		if err := os.MkdirAll(f.dir, 0o755); err != nil {
			fmt.Fprintf(stderr, "fencegen: guard: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stdout, "fencegen: created directory %s (it did not exist)\n", filepath.ToSlash(relPath(f.dir)))
	}
	for _, n := range names {
		p := filepath.Join(f.dir, n)
		if err := os.WriteFile(p, files[n], 0o644); err != nil {
			fmt.Fprintf(stderr, "fencegen: guard: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stdout, "fencegen: wrote %s\n", filepath.ToSlash(relPath(p)))
	}
	if f.format == "atlas" {
		fmt.Fprintf(stdout, "fencegen: run atlas migrate hash so that atlas.sum lists it\n")
	}
	// The migrations it fixes: until it is applied after them, the
	// database is in the state their findings describe.
	var causes []string
	for _, fd := range g.GuardMigrations(out.Guards) {
		if fd.Cause && !slices.Contains(causes, fd.File) {
			causes = append(causes, fd.File)
		}
	}
	if len(causes) > 0 {
		for i, c := range causes {
			causes[i] = filepath.ToSlash(relPath(c))
		}
		// The newest migration before this one: of -dir, and on MySQL
		// of the entry's schema too (one series: Guard.Migrations).
		if all := g.Migrations(ups); len(all) > 0 && !samePath(all[len(all)-1], causes[len(causes)-1]) {
			// Newer migrations follow the cause: the new one comes
			// after them all.
			fmt.Fprintf(stdout, "fencegen: apply it in the same deployment as %s and the migrations after it: from it to this one the guard does not match the schema (fencegen check said how)\n", strings.Join(causes, ", "))
		} else {
			fmt.Fprintf(stdout, "fencegen: apply it right after %s, in the same deployment: between them the guard does not match the schema (fencegen check said how)\n", strings.Join(causes, ", "))
		}
	}
	return exitOK
}

// guardInto is fencegen guard -into: it adds g's guard to the migration
// f.into, the newest of ups or an older one a finding names (Guard.Inline).
func guardInto(g *gen.Guard, ups []string, guards []*gen.Guard, f *guardFlags, stdout, stderr io.Writer) int {
	text, err := g.Inline(ups, f.into, guards, f.format)
	if err != nil {
		fmt.Fprintf(stderr, "fencegen: guard: %v\n", err)
		return exitError
	}
	if text == nil {
		fmt.Fprintf(stdout, "fencegen: the migrations up to %s already install this guard: nothing written\n", filepath.ToSlash(relPath(f.into)))
		return exitOK
	}
	// golang-migrate's down file, read before into changes.
	downName, down, err := g.InlineDown(ups, f.into, f.format)
	if err != nil {
		fmt.Fprintf(stderr, "fencegen: guard: %v\n", err)
		return exitError
	}
	if err := os.WriteFile(f.into, text, 0o644); err != nil {
		fmt.Fprintf(stderr, "fencegen: guard: %v\n", err)
		return exitError
	}
	fmt.Fprintf(stdout, "fencegen: added the guard to %s\n", filepath.ToSlash(relPath(f.into)))
	if down != nil {
		if err := os.WriteFile(downName, down, 0o644); err != nil {
			fmt.Fprintf(stderr, "fencegen: guard: %v\n", err)
			return exitError
		}
		fmt.Fprintf(stdout, "fencegen: added the earlier guard to %s, after its statements\n", filepath.ToSlash(relPath(downName)))
	}
	if f.format == "atlas" {
		fmt.Fprintf(stdout, "fencegen: run atlas migrate hash so that atlas.sum lists it\n")
	}
	return exitOK
}

// pickGuard returns the guard of the entry whose out directory is out, or
// when out is "" the only one with fenced tables (or the only one, when
// none has: its guard migrations' triggers are to be removed).
func pickGuard(guards []*gen.Guard, out string) (*gen.Guard, error) {
	if out == "" {
		// Without -out, the entries with fenced tables; an entry
		// without is picked only to remove the guard of the last one.
		var fenced []*gen.Guard
		for _, g := range guards {
			if g.Fenced() {
				fenced = append(fenced, g)
			}
		}
		if len(fenced) > 0 {
			guards = fenced
		}
	}
	var outs []string
	for _, g := range guards {
		if out != "" && path.Clean(filepath.ToSlash(g.Out)) == path.Clean(filepath.ToSlash(out)) {
			return g, nil
		}
		outs = append(outs, g.Out)
	}
	switch {
	case len(guards) == 0:
		return nil, errors.New("no sql entry has a fenced table: there is no guard to write")
	case out != "":
		return nil, fmt.Errorf("no sql entry with fenced tables has out %q (those that do: %s)", out, strings.Join(outs, ", "))
	case len(guards) > 1:
		return nil, fmt.Errorf("several sql entries have fenced tables (out %s): choose one with -out", strings.Join(outs, ", "))
	}
	return guards[0], nil
}

// timestampLayout is the version the migration tools' create commands
// write by default (goose, dbmate, atlas; golang-migrate with -format).
const timestampLayout = "20060102150405"

// nextVersion returns the version of a new migration in dir, which
// follows the files series too (the schema files of an entry with engine
// mysql, whose guard migrations may be in a directory of their own: one
// series of versions): when its
// migrations are numbered with sequence numbers (fewer than 14 digits, as
// golang-migrate -seq and goose -s write them), one more than the
// highest, as wide as it; otherwise (timestamps, or no numbered file) the
// UTC time now as YYYYMMDDHHMMSS, or one more than the highest timestamp
// when that is later. Every file whose name starts with a version counts,
// whatever its extension: goose's Go migrations (00002_backfill.go, a
// version goose refuses to see twice), golang-migrate's up and down files
// of any extension, and the .sql files of dbmate and Atlas; counting a
// file a tool ignores only leaves a gap, which none of them minds.
func nextVersion(dir string, series []string, now time.Time) (string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil && !errors.Is(err, os.ErrNotExist) { // a missing dir is created empty
		return "", err
	}
	var names []string
	for _, de := range ents {
		if n := de.Name(); !de.IsDir() && !strings.HasPrefix(n, ".") {
			names = append(names, n)
		}
	}
	for _, s := range series {
		names = append(names, path.Base(filepath.ToSlash(s)))
	}
	var max uint64
	width := 0
	for _, n := range names {
		i := 0
		for i < len(n) && n[i] >= '0' && n[i] <= '9' {
			i++
		}
		if i == 0 {
			continue
		}
		v, err := strconv.ParseUint(n[:i], 10, 64)
		if err != nil {
			continue
		}
		if v >= max {
			max, width = v, i
		}
	}
	stamp := now.UTC().Format(timestampLayout)
	if width == 0 {
		return stamp, nil
	}
	if width < len(timestampLayout) {
		return fmt.Sprintf("%0*d", width, max+1), nil
	}
	if s, _ := strconv.ParseUint(stamp, 10, 64); s > max {
		return stamp, nil
	}
	return strconv.FormatUint(max+1, 10), nil
}

// goMigrations returns goose's Go migrations in dir: files named
// <version>_<name>.go other than tests. fencegen reads .sql migrations
// only, so what they do to the schema and the guard is not replayed.
func goMigrations(dir string) []string {
	ents, _ := os.ReadDir(dir)
	var out []string
	for _, de := range ents {
		n := de.Name()
		i := 0
		for i < len(n) && n[i] >= '0' && n[i] <= '9' {
			i++
		}
		if !de.IsDir() && i > 0 && strings.HasSuffix(n, ".go") && !strings.HasSuffix(n, "_test.go") {
			out = append(out, filepath.Join(dir, n))
		}
	}
	return out
}

// upMigrations returns the files of dir its migration tool applies
// going up (gen.UpMigrationNames: the tool its files show, or format's),
// in its order: by version number, names breaking ties. A file the tool
// skips is not among them (golang-migrate's 000002_x.sql, without .up),
// one it applies that sqlc does not read is (000002_x.up.psql).
func upMigrations(dir, format string) ([]string, error) {
	names, err := gen.UpMigrationNames(dir, format)
	if err != nil {
		return nil, err
	}
	type mig struct {
		v    uint64
		name string
	}
	var ms []mig
	for _, n := range names {
		i := 0
		for i < len(n) && n[i] >= '0' && n[i] <= '9' {
			i++
		}
		v, _ := strconv.ParseUint(n[:i], 10, 64)
		ms = append(ms, mig{v, n})
	}
	slices.SortFunc(ms, func(a, b mig) int {
		if a.v != b.v {
			if a.v < b.v {
				return -1
			}
			return 1
		}
		return strings.Compare(a.name, b.name)
	})
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = filepath.Join(dir, m.name)
	}
	return out, nil
}
