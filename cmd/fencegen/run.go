package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/fencegen/fencegen/gen"
)

// Exit codes.
const (
	exitOK    = 0
	exitError = 1 // generation error, or stale files for check
	exitUsage = 2 // unknown command, bad flag
)

const usage = `usage: fencegen <command> [flags]

Commands:
  generate   generate code, write the files that changed and remove the files
             fencegen generated earlier and no longer writes
  check      exit 1 and print a unified diff if generated files on disk are stale
             (changed, missing, or no longer generated), or if the guard migrations
             among the schema files install another guard than fencegen guard writes
  vet        run the generator and print its notes; write nothing
  guard      write the database-side guard (fencegen_guard.sql) as a migration
             of golang-migrate, goose, dbmate or atlas: fencegen guard -format goose -dir migrations
  version    print fencegen's version
  help       print this help, or a command's flags: fencegen help <command>

Flags of generate, check and vet:
  -f, -config, -file path
      configuration file (default: the first of fencegen.yaml, fencegen.yml,
      sqlc.yaml, sqlc.yml and sqlc.json in the current directory)
  -no-remote
      accepted as sqlc accepts it; fencegen always generates locally

Given only flags, fencegen generates: "fencegen -config fencegen.yaml" is
"fencegen generate -f fencegen.yaml", and "fencegen -check" is "fencegen check".
If the configuration leaves a package name unset and the output directory is
the current one, $GOPACKAGE (set by go generate) names it, or else the
package clause of the Go files there.

Exit status: 0 success, 1 generation error or stale files, 2 usage error.
`

type mode int

const (
	modeGenerate mode = iota
	modeCheck
	modeVet
)

var commands = map[string]mode{"generate": modeGenerate, "check": modeCheck, "vet": modeVet}

// run is fencegen's main, testable in-process: it returns the exit code.
func run(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	name, rest := args[0], args[1:]
	if m, ok := commands[name]; ok {
		return runCommand(name, m, false, rest, stdout, stderr)
	}
	if name == "guard" {
		return runGuard(rest, stdout, stderr)
	}
	switch name {
	case "help", "-h", "-help", "--help":
		return help(rest, stdout, stderr)
	case "version":
		if len(rest) > 0 {
			fmt.Fprintf(stderr, "fencegen: version takes no arguments\n")
			return exitUsage
		}
		fmt.Fprintf(stdout, "fencegen %s\n", version())
		return exitOK
	}
	if strings.HasPrefix(name, "-") {
		return runCommand("fencegen", modeGenerate, true, args, stdout, stderr)
	}
	hint := ""
	if c := commandLike(name); c != "" {
		hint = fmt.Sprintf(" (did you mean %s?)", c)
	}
	fmt.Fprintf(stderr, "fencegen: unknown command %q%s\nRun 'fencegen help' for usage.\n", name, hint)
	return exitUsage
}

// commandLike is the one command that name abbreviates (gen for
// generate), or "".
func commandLike(name string) string {
	found := ""
	for _, c := range []string{"generate", "check", "vet", "guard", "version", "help"} {
		if len(name) >= 2 && strings.HasPrefix(c, strings.ToLower(name)) {
			if found != "" {
				return ""
			}
			found = c
		}
	}
	return found
}

func help(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		fmt.Fprint(stdout, usage)
		return exitOK
	case len(args) == 1:
		if args[0] == "guard" {
			fs, _ := newGuardFlagSet(stdout)
			fs.Usage()
			return exitOK
		}
		if _, ok := commands[args[0]]; ok {
			fs, _, _ := newFlagSet(args[0], false, stdout)
			fs.Usage()
			return exitOK
		}
	}
	fmt.Fprintf(stderr, "fencegen: unknown help topic %q\nRun 'fencegen help' for usage.\n", strings.Join(args, " "))
	return exitUsage
}

// newFlagSet returns the flag set of a command; topLevel adds -check for
// the flags-only form.
func newFlagSet(name string, topLevel bool, out io.Writer) (*flag.FlagSet, *string, *bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	var cfg string
	fs.StringVar(&cfg, "f", "", "configuration `path` (default: found in the current directory)")
	fs.StringVar(&cfg, "config", "", "same as -f")
	// sqlc's spellings, so that a go:generate line or script written for
	// sqlc ("sqlc generate --file sqlc.yaml --no-remote") runs as is.
	fs.StringVar(&cfg, "file", "", "same as -f (sqlc's name)")
	fs.Bool("no-remote", false, "accepted for sqlc compatibility: fencegen always generates locally")
	check := new(bool)
	if topLevel {
		fs.BoolVar(check, "check", false, "check instead of generate: exit 1 and print a diff if files are stale")
	}
	fs.Usage = func() {
		if topLevel {
			fmt.Fprintf(out, "usage: fencegen [-f path] [-check]\n")
		} else {
			fmt.Fprintf(out, "usage: fencegen %s [-f path]\n", name)
		}
		fs.PrintDefaults()
	}
	return fs, &cfg, check
}

func runCommand(name string, m mode, topLevel bool, args []string, stdout, stderr io.Writer) int {
	fs, cfgPath, check := newFlagSet(name, topLevel, stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return exitOK
		}
		return exitUsage
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "fencegen: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	if *check {
		m = modeCheck
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	return execute(ctx, m, *cfgPath, stdout, stderr)
}

// execute loads the configuration, generates, and then writes, checks or
// only reports. Nothing is written unless generation succeeded as a whole.
func execute(ctx context.Context, m mode, cfgPath string, stdout, stderr io.Writer) int {
	cfg, out, code := load(ctx, m, cfgPath, stdout, stderr)
	if out == nil {
		return code
	}
	root, out, err := rebase(cfg.Dir, out)
	if err != nil {
		report(stderr, err)
		return exitError
	}
	switch m {
	case modeGenerate:
		changes, err := out.Changes(root)
		if err == nil {
			noteSqlcFiles(stderr, root, changes.Write)
			err = changes.Apply()
		}
		if err != nil {
			report(stderr, err)
			return exitError
		}
		shown := make([]string, len(changes.Remove))
		for i, name := range changes.Remove {
			shown[i] = filepath.ToSlash(relPath(filepath.Join(root, filepath.FromSlash(name))))
		}
		fmt.Fprintln(stdout, summary(out, changes.Write, shown))
		if _, err := reportGuardMigrations(stderr, out, cfgPath, "warning: "); err != nil {
			report(stderr, err)
			return exitError
		}
	case modeCheck:
		diff, err := out.Check(root)
		if err != nil {
			report(stderr, err)
			return exitError
		}
		stale, err := reportGuardMigrations(stderr, out, cfgPath, "")
		if err != nil {
			report(stderr, err)
			return exitError
		}
		if diff != "" {
			fmt.Fprint(stdout, diff)
			fmt.Fprintf(stderr, "fencegen: generated files are out of date; run fencegen generate\n")
			return exitError
		}
		if stale {
			return exitError
		}
	case modeVet:
		// As generate warns (check fails): an outdated or newer guard
		// migration among the schema files.
		if _, err := reportGuardMigrations(stderr, out, cfgPath, "warning: "); err != nil {
			report(stderr, err)
			return exitError
		}
	}
	return exitOK
}

// reportGuardMigrations prints, located and each message prefixed with
// kind ("warning: " for generate), how the guard migrations among the
// schema files differ from the guard this fencegen writes, and then the
// command that writes the new migration; it reports whether there was
// any difference. cfgPath is the -f the command was given, if any.
func reportGuardMigrations(w io.Writer, out *gen.Output, cfgPath, kind string) (bool, error) {
	var fix []string
	for _, g := range out.Guards {
		found, err := g.GuardMigrations(out.Guards)
		if err != nil {
			return false, err
		}
		for _, f := range found {
			fmt.Fprintf(w, "%s:%d:%d: %s%s\n", filepath.ToSlash(relPath(f.File)), f.Line, f.Col, kind, f.Msg)
		}
		if len(found) == 0 {
			continue
		}
		if slices.ContainsFunc(found, func(f gen.GuardFinding) bool { return f.Newer }) {
			fix = append(fix, "")
			continue
		}
		cmd := fmt.Sprintf("fencegen guard -format %s -dir %s", found[0].Format, filepath.ToSlash(relPath(found[0].Dir)))
		if len(out.Guards) > 1 {
			cmd += " -out " + g.Out
		}
		if cfgPath != "" {
			cmd += " -f " + filepath.ToSlash(relPath(cfgPath))
		}
		fix = append(fix, cmd)
	}
	for _, cmd := range fix {
		if cmd == "" {
			fmt.Fprintf(w, "fencegen: %sthe guard migrations were written by a newer fencegen: update fencegen (a migration this one wrote would undo the newer guard)\n", kind)
			continue
		}
		fmt.Fprintf(w, "fencegen: %sthe guard migrations install an outdated guard: never edit an applied migration; write a new one with: %s\n", kind, cmd)
	}
	return len(fix) > 0, nil
}

// load finds and loads the configuration and generates, printing the
// configuration's notes, and for vet the generator's. On an error it
// prints it and returns a nil Output and the exit code.
func load(ctx context.Context, m mode, cfgPath string, stdout, stderr io.Writer) (*gen.Config, *gen.Output, int) {
	if cfgPath == "" {
		p, err := gen.FindConfig(".")
		if err != nil {
			report(stderr, err)
			return nil, nil, exitError
		}
		cfgPath = p
	}
	cfg, err := gen.LoadConfig(cfgPath)
	if err != nil {
		report(stderr, err)
		return nil, nil, exitError
	}
	defaultPackages(cfg, os.Getenv("GOPACKAGE"))
	for _, sk := range cfg.Skipped {
		name := sk.Name
		if name == "" {
			name = sk.Out
		}
		fmt.Fprintf(stderr, "%s:%d:%d: note: skipping entry %q: engine %s is not generated by fencegen (PostgreSQL only)\n",
			relPath(cfg.Path), sk.Pos.Line, sk.Pos.Col, name, sk.Engine)
	}

	for _, n := range cfg.Notes {
		fmt.Fprintf(stderr, "%s:%d:%d: note: %s\n", relPath(cfg.Path), n.Pos.Line, n.Pos.Col, n.Msg)
	}

	out, err := gen.Generate(ctx, cfg)
	if m == modeVet && out != nil {
		for _, v := range out.Vet {
			fmt.Fprintln(stdout, v)
		}
	}
	if err != nil {
		report(stderr, err)
		return nil, nil, exitError
	}
	return cfg, out, exitOK
}

// rebase returns the directory the files of out are written under and
// out with its names relative to it. That is dir itself unless an output
// directory lies outside it (sqlc allows out: ../internal/db): then it is
// the nearest directory that holds dir and every file.
func rebase(dir string, out *gen.Output) (string, *gen.Output, error) {
	outside := false
	for name := range out.Files {
		if !filepath.IsLocal(filepath.FromSlash(name)) {
			outside = true
			break
		}
	}
	if !outside {
		return dir, out, nil
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, err
	}
	root := abs
	for name := range out.Files {
		p := filepath.Join(abs, filepath.FromSlash(name))
		for !within(root, p) {
			root = filepath.Dir(root)
		}
	}
	files := make(map[string][]byte, len(out.Files))
	for name, b := range out.Files {
		r, err := filepath.Rel(root, filepath.Join(abs, filepath.FromSlash(name)))
		if err != nil {
			return "", nil, err
		}
		files[filepath.ToSlash(r)] = b
	}
	rebased := *out
	rebased.Files = files
	rebased.Dirs = nil
	for _, d := range out.Dirs {
		r, err := filepath.Rel(root, filepath.Join(abs, filepath.FromSlash(d)))
		if err != nil {
			return "", nil, err
		}
		rebased.Dirs = append(rebased.Dirs, filepath.ToSlash(r))
	}
	// Keep the root relative when dir is, so that messages stay so.
	if !filepath.IsAbs(dir) {
		if wd, err := os.Getwd(); err == nil {
			if r, err := filepath.Rel(wd, root); err == nil {
				root = r
			}
		}
	}
	return root, &rebased, nil
}

// noteSqlcFiles says so when generate is about to replace files that
// sqlc generated: sqlc generate and fencegen generate, run on one
// configuration, write the same files, and the last one run wins (sqlc's
// have no guards).
func noteSqlcFiles(w io.Writer, root string, names []string) {
	var sqlc []string
	for _, name := range names {
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(name)))
		if err != nil {
			continue
		}
		head := make([]byte, 64)
		n, _ := io.ReadFull(f, head)
		f.Close()
		if strings.HasPrefix(string(head[:n]), "// Code generated by sqlc.") {
			sqlc = append(sqlc, name)
		}
	}
	if len(sqlc) > 0 {
		fmt.Fprintf(w, "fencegen: note: replacing files sqlc generated (%s): sqlc generate writes the same files without the guards; generate the Go code with one of them (fencegen's docs/sqlc.md)\n", strings.Join(sqlc, ", "))
	}
}

// summary is generate's one line on success: what was generated, and
// what changed on disk.
func summary(out *gen.Output, write, remove []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "fencegen: %s, %s (%d fenced): ", plural(out.Packages, "package"), plural(out.Queries, "query"), out.Fenced)
	switch {
	case len(write) == 0 && len(remove) == 0:
		b.WriteString("files up to date")
	case len(remove) == 0:
		fmt.Fprintf(&b, "wrote %s", plural(len(write), "file"))
	default:
		fmt.Fprintf(&b, "wrote %s, removed %s no longer generated (%s)", plural(len(write), "file"), plural(len(remove), "file"), strings.Join(remove, ", "))
	}
	return b.String()
}

// plural is "1 query", "2 queries", "0 packages".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "y") {
		return fmt.Sprintf("%d %sies", n, strings.TrimSuffix(noun, "y"))
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// within reports whether p is root or below it.
func within(root, p string) bool {
	r, err := filepath.Rel(root, p)
	return err == nil && filepath.IsLocal(r)
}

// defaultPackages names packages left unnamed whose output directory is
// the current one after $GOPACKAGE, as go generate sets it, or, run
// outside go generate (fencegen check in CI, generate by hand), after the
// package clause of the directory's Go files, which is what go generate
// would set: so both name the package alike.
func defaultPackages(cfg *gen.Config, gopackage string) {
	for i := range cfg.Packages {
		g := &cfg.Packages[i].Go
		if g.Package != "" || filepath.Clean(filepath.Join(cfg.Dir, g.Out)) != "." {
			continue
		}
		if gopackage == "" {
			gopackage = packageClause(".")
		}
		g.Package = gopackage
	}
}

// packageClause returns the package name that the Go files of dir other
// than tests declare, or "" when there are none or they disagree.
func packageClause(dir string) string {
	paths, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	name := ""
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.PackageClauseOnly)
		if err != nil {
			continue
		}
		switch n := f.Name.Name; {
		case name == "":
			name = n
		case n != name:
			return ""
		}
	}
	return name
}

// report prints err to w, one located problem per line, sorted, with
// paths relative to the current directory.
func report(w io.Writer, err error) {
	list := gen.Problems(err)
	if len(list) == 0 {
		fmt.Fprintf(w, "fencegen: %v\n", err)
		return
	}
	for _, e := range list {
		c := *e
		c.File = relPath(c.File)
		fmt.Fprintln(w, c.Error())
	}
}

// relPath makes an absolute path relative to the current directory, so
// that messages never show the build machine's layout.
func relPath(p string) string {
	if !filepath.IsAbs(p) {
		return p
	}
	wd, err := os.Getwd()
	if err != nil {
		return p
	}
	if r, err := filepath.Rel(wd, p); err == nil {
		return r
	}
	return p
}

func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}
