package main

import (
	"bytes"
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
	// exitUsage is an unknown command, flag or argument: 1, as sqlc v1.31.1
	// exits (its command line's errors are errors like any other), so a
	// Makefile or CI step written for sqlc reads the same status.
	exitUsage = 1
)

const usage = `usage: fencegen [flags] <command> [flags]

Commands:
  generate   generate code, write the files that changed and remove the files
             fencegen generated earlier and no longer writes
  check      exit 1 and print a unified diff if generated files on disk are stale
             (changed, missing, or no longer generated), or if the guard migrations
             among the schema files install another guard than fencegen guard writes
  diff       check, under sqlc's name (sqlc diff)
  compile    generate without writing anything: exit 1 on the first run's errors,
             print nothing on success (sqlc compile)
  vet        run the generator and print its notes; write nothing; with DATABASE_URL,
             also the queries PostgreSQL refuses to prepare (on a scratch database)
  guard      write the database-side guard (fencegen_guard.sql) as a migration
             of golang-migrate, goose, dbmate or atlas: fencegen guard -format goose -dir migrations
  init       write sqlc's empty configuration file, sqlc.yaml or the -f path (sqlc init)
  version    print fencegen's version
  help       print this help, or a command's flags: fencegen help <command>

Flags of generate, check, diff, compile and vet, before or after the command:
  -f path, -fpath, --file path, -config path
      configuration file (default: the first of fencegen.yaml, fencegen.yml,
      sqlc.yaml, sqlc.yml and sqlc.json in the current directory; sqlc.json
      beside sqlc.yaml or sqlc.yml is refused, as by sqlc)
  -no-remote, -remote, -no-database, -x, -experimental
      accepted as sqlc accepts them; fencegen always generates locally;
      with -no-database, vet prepares no query at DATABASE_URL
Flags may be written with one dash or two, but for -f, a shorthand as in
sqlc: --f is unknown, and -file is -f ile.

Given only flags, fencegen generates: "fencegen -config fencegen.yaml" is
"fencegen generate -f fencegen.yaml", and "fencegen -check" is "fencegen check".
If the configuration leaves a package name unset and the output directory is
the current one, $GOPACKAGE (set by go generate) names it, or else the
package clause of the Go files there.

Paths in messages and diffs are relative to the current directory, so that
"fencegen check | git apply" works from it (when the generated files lie
outside it, the diff names them from the nearest directory that holds them
all, and check says which).

Exit status: 0 success; 1 generation error, stale files or usage error
(as sqlc's).
`

type mode int

const (
	modeGenerate mode = iota
	modeCheck
	modeVet
	modeCompile
	// modeGuard is fencegen guard's generation: the guard migrations'
	// findings are not errors (gen.GenerateGuard).
	modeGuard
)

var commands = map[string]mode{
	"generate": modeGenerate,
	"check":    modeCheck,
	"diff":     modeCheck,
	"vet":      modeVet,
	"compile":  modeCompile,
}

// sqlcCommands are the commands of commands that are sqlc's, which
// take no positional argument and ignore one (runCommand); fencegen's
// own check refuses it.
var sqlcCommands = map[string]bool{"generate": true, "diff": true, "vet": true, "compile": true}

// valueFlags are the flags before a command that take a value (-f x).
var valueFlags = map[string]bool{"f": true, "file": true, "config": true}

// splitCommand splits args into the command and its arguments: flags
// written before the command ("fencegen -f x.yaml generate") are moved
// after it. name is "" when args hold flags only.
func splitCommand(args []string) (name string, rest []string) {
	i := 0
	for i < len(args) {
		a := args[i]
		if a == "--" || a == "-" || !strings.HasPrefix(a, "-") {
			break
		}
		flagName := strings.TrimLeft(a, "-")
		if !strings.Contains(flagName, "=") && valueFlags[flagName] {
			i++
		}
		i++
	}
	if i >= len(args) || args[i] == "--" || args[i] == "-" {
		return "", args
	}
	rest = append(slices.Clip(args[:i]), args[i+1:]...)
	return args[i], rest
}

// run is fencegen's main, testable in-process: it returns the exit code.
func run(args []string, _ io.Reader, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		// As sqlc without arguments: the help, and success.
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	if slices.ContainsFunc(args[:1], isHelpFlag) {
		return help(args[1:], stdout, stderr)
	}
	name, rest := splitCommand(args)
	if name == "" {
		if slices.ContainsFunc(args, isHelpFlag) {
			return help(nil, stdout, stderr)
		}
		return runCommand("fencegen", modeGenerate, true, args, stdout, stderr)
	}
	if m, ok := commands[name]; ok {
		return runCommand(name, m, false, rest, stdout, stderr)
	}
	switch name {
	case "guard":
		return runGuard(rest, stdout, stderr)
	case "init":
		return runInit(rest, stdout, stderr)
	}
	switch name {
	case "help":
		return help(rest, stdout, stderr)
	case "version":
		// sqlc's global flags (-f x, --no-remote) are accepted, as sqlc
		// accepts them before or after any command; nothing else.
		fs, _, _ := newFlagSet(name, false, stderr)
		if code, ok := parseFlags(fs, rest, stdout, stderr); !ok {
			return code
		}
		// sqlc's version ignores arguments (sqlc version x prints its
		// version and exits 0); so does this.
		fmt.Fprintf(stdout, "fencegen %s\n", version())
		return exitOK
	}
	if name == "completion" {
		// sqlc's completion is cobra's generated shell-completion script;
		// fencegen has none (docs/sqlc.md, "The command line").
		fmt.Fprintf(stderr, "fencegen: no shell completion: fencegen has no completion command (sqlc's is cobra's); its commands and flags are listed by fencegen help\n")
		return exitUsage
	}
	hint := ""
	if c := commandLike(name); c != "" {
		hint = fmt.Sprintf(" (did you mean %s?)", c)
	}
	fmt.Fprintf(stderr, "fencegen: unknown command %q%s\nRun 'fencegen help' for usage.\n", name, hint)
	return exitUsage
}

func isHelpFlag(a string) bool { return a == "-h" || a == "-help" || a == "--help" || a == "--h" }

// commandLike is the one command that name abbreviates (gen for
// generate), or "".
func commandLike(name string) string {
	found := ""
	for _, c := range []string{"generate", "check", "compile", "diff", "vet", "guard", "init", "version", "help"} {
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
		if args[0] == "init" || args[0] == "version" {
			// Their usage, as their -h prints it.
			if args[0] == "init" {
				return runInit([]string{"-h"}, stdout, stderr)
			}
			fs, _, _ := newFlagSet(args[0], false, stdout)
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

// parseFlags parses args into fs. As sqlc's -h and --help, a help flag
// prints the command's usage on stdout and the command exits 0; a flag
// error prints the error and the usage on stderr and exits 1. ok is false
// when the command must stop with code. After it, fs writes to stderr.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) (code int, ok bool) {
	var buf bytes.Buffer
	fs.SetOutput(&buf)
	var err error
	if fs.Lookup("file") != nil {
		args, err = sqlcConfigFlag(fs, args)
	}
	if err != nil {
		fmt.Fprintf(&buf, "%v\n", err)
		fs.Usage()
	} else {
		err = fs.Parse(args)
	}
	fs.SetOutput(stderr)
	switch {
	case err == nil:
		return exitOK, true
	case errors.Is(err, flag.ErrHelp):
		stdout.Write(buf.Bytes())
		return exitOK, false
	}
	stderr.Write(buf.Bytes())
	return exitUsage, false
}

// sqlcConfigFlag reads sqlc's configuration flag as sqlc's command line
// (cobra and pflag) reads it, before the flag package sees args: -f is a
// shorthand, so its value may be attached (-fsqlc.yaml, -f=sqlc.yaml)
// and -file is -f with the value "ile"; the long name takes two dashes
// (--file), and --f is an unknown flag. Other flags are left as they are;
// args after "--" are not flags. A flag of fs's own whose name starts
// with f (guard's -format) is that flag, not -f with a value: fencegen's
// flags take one dash, and sqlc has no such flag to be compatible with.
func sqlcConfigFlag(fs *flag.FlagSet, args []string) ([]string, error) {
	out := make([]string, 0, len(args))
	for i, a := range args {
		if a == "--" {
			return append(out, args[i:]...), nil
		}
		name, _, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		switch {
		case a == "--f" || strings.HasPrefix(a, "--f="):
			return nil, fmt.Errorf("unknown flag: --f (sqlc's -f is -f or --file)")
		case len(a) > 2 && a[0] == '-' && a[1] == 'f' && name != "file" && fs.Lookup(name) != nil:
			// one of fs's own flags, such as -format
		case len(a) > 2 && a[0] == '-' && a[1] == 'f':
			a = "-f=" + strings.TrimPrefix(a[2:], "=")
		}
		out = append(out, a)
	}
	return out, nil
}

// addConfigFlags adds -f and its other spellings, and sqlc's flags that
// change nothing for fencegen, to fs.
func addConfigFlags(fs *flag.FlagSet, cfg *string) {
	fs.StringVar(cfg, "f", "", "configuration `path` (default: found in the current directory)")
	fs.StringVar(cfg, "config", "", "same as -f")
	// sqlc's spellings, so that a Makefile or go:generate line written
	// for sqlc ("sqlc generate --file sqlc.yaml --no-remote") runs as is;
	// sqlcConfigFlag reads -f and --file as sqlc does.
	fs.StringVar(cfg, "file", "", "same as -f (sqlc's name, written --file)")
	fs.Bool("no-remote", false, "accepted as sqlc accepts it: fencegen always generates locally")
	fs.Bool("remote", false, "accepted as sqlc accepts it: fencegen always generates locally")
	fs.Bool("no-database", false, "as sqlc's: vet prepares no query on the server at DATABASE_URL")
	fs.Bool("x", false, "accepted as sqlc accepts it (sqlc's experimental features): no effect")
	fs.Bool("experimental", false, "same as -x")
}

// newFlagSet returns the flag set of a command; topLevel adds -check for
// the flags-only form.
func newFlagSet(name string, topLevel bool, out io.Writer) (*flag.FlagSet, *string, *bool) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	var cfg string
	addConfigFlags(fs, &cfg)
	check := new(bool)
	if topLevel {
		fs.BoolVar(check, "check", false, "check instead of generate: exit 1 and print a diff if files are stale")
	}
	fs.Usage = func() {
		if topLevel {
			fmt.Fprintf(fs.Output(), "usage: fencegen [-f path] [-check]\n")
		} else {
			fmt.Fprintf(fs.Output(), "usage: fencegen %s [-f path]\n", name)
		}
		fs.PrintDefaults()
	}
	return fs, &cfg, check
}

func runCommand(name string, m mode, topLevel bool, args []string, stdout, stderr io.Writer) int {
	fs, cfgPath, check := newFlagSet(name, topLevel, stderr)
	if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
		return code
	}
	for sqlcCommands[name] && !topLevel && fs.NArg() > 0 {
		// sqlc's generate, diff, vet and compile (cobra commands with
		// no argument check) ignore a positional argument and read
		// flags on either side of it ("sqlc generate . -f x.yaml"), so
		// a Makefile line written for sqlc runs as is; after "--"
		// nothing is a flag.
		rest := fs.Args()
		if len(rest) < len(args) && args[len(args)-len(rest)-1] == "--" {
			break
		}
		args = rest[1:]
		if code, ok := parseFlags(fs, args, stdout, stderr); !ok {
			return code
		}
	}
	if fs.NArg() > 0 && !sqlcCommands[name] {
		fmt.Fprintf(stderr, "fencegen: unexpected argument %q\n", fs.Arg(0))
		fs.Usage()
		return exitUsage
	}
	if *check {
		m = modeCheck
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	// sqlc's --no-database: vet asks no server (gen.Vet) and says nothing
	// of it.
	noDB := fs.Lookup("no-database").Value.String() == "true"
	return execute(ctx, m, *cfgPath, noDB, stdout, stderr)
}

// execute loads the configuration, generates, and then writes, checks or
// only reports. Nothing is written unless generation succeeded as a whole.
func execute(ctx context.Context, m mode, cfgPath string, noDB bool, stdout, stderr io.Writer) int {
	cfg, out, code := load(ctx, m, cfgPath, noDB, stdout, stderr)
	if out == nil {
		return code
	}
	if m == modeCompile {
		return exitOK
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
			noteSqlcFiles(stderr, root, changes.Write, out.Fenced > 0)
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
		fmt.Fprintln(stdout, summary(out, changes.Write, shown, cfgPath))
	case modeCheck:
		diff, err := out.Check(root)
		if err != nil {
			report(stderr, err)
			return exitError
		}
		if diff != "" {
			fmt.Fprint(stdout, diff)
			if r := filepath.ToSlash(filepath.Clean(root)); r != "." {
				// Files outside the current directory (-f ../sqlc.yaml):
				// the diff names them from the nearest directory that
				// holds them all.
				fmt.Fprintf(stderr, "fencegen: the diff's paths are relative to %s: apply it there (git apply)\n", r)
			}
			fmt.Fprintf(stderr, "fencegen: generated files are out of date; run %s\n", commandLine("generate", cfgPath))
			return exitError
		}
	}
	return exitOK
}

// reportGuardFix prints, after the errors of a run (report), the command
// that writes the migration fixing the guard migrations' findings among
// them (gen.GuardFinding), one per sql entry; or, when a newer fencegen
// wrote them, that fencegen must be updated. cfgPath is the -f the
// command was given, if any.
func reportGuardFix(w io.Writer, err error, cfgPath string) {
	var fix []string
	why := map[string]string{}     // the commands with -into: what their migration does
	later := map[string]string{}   // and when newer migrations follow it: the command without -into
	unfence := map[string]string{} // and with -unfence: the other choice
	// The commands (without -into) for a migration that needs its guard
	// in it but that sqlc reads (GuardFinding.SqlcReadsInto): what it
	// does, and the migration.
	sqlcInto := map[string][2]string{}
	for _, p := range gen.Problems(err) {
		var f gen.GuardFinding
		if !errors.As(p, &f) {
			continue
		}
		line := ""
		if f.Refused {
			line = "\x01"
		} else if f.Move != "" {
			// The fix is the team's (the ATTACH moved), or, applied,
			// a new guard migration that -applied lets through.
			cmd := fmt.Sprintf("guard -format %s -dir %s", f.Format, filepath.ToSlash(relPath(f.Dir)))
			if f.Several {
				cmd += " -out " + f.Out
			}
			line = "\x02" + commandLine(cmd+" -applied "+filepath.ToSlash(relPath(f.Into)), cfgPath)
			why[line] = f.Why
		} else if !f.Newer {
			cmd := fmt.Sprintf("guard -format %s -dir %s", f.Format, filepath.ToSlash(relPath(f.Dir)))
			if f.Several {
				cmd += " -out " + f.Out
			}
			base := cmd
			if f.Into != "" && f.SqlcReadsInto {
				line = commandLine(cmd, cfgPath)
				sqlcInto[line] = [2]string{f.Why, filepath.ToSlash(relPath(f.Into))}
				if !slices.Contains(fix, line) {
					fix = append(fix, line)
				}
				continue
			}
			if f.Into != "" {
				cmd += " -into " + filepath.ToSlash(relPath(f.Into))
			}
			line = commandLine(cmd, cfgPath)
			if f.Into != "" {
				why[line] = f.Why
				if ups, err := upMigrations(f.Dir, f.Format); err == nil && len(ups) > 0 && !samePath(ups[len(ups)-1], f.Into) {
					// Applied there, it is history: -applied says so.
					later[line] = commandLine(base+" -applied "+filepath.ToSlash(relPath(f.Into)), cfgPath)
				}
			}
			if f.Unfence != "" {
				line += "\x00" + f.Unfence // one line per table
				unfence[line] = commandLine(base+" -unfence "+f.Unfence, cfgPath)
			}
		}
		if !slices.Contains(fix, line) {
			fix = append(fix, line)
		}
	}
	// A token column fencegen cannot fence stops fencegen guard as it
	// stops generate: the commands below would fail at it (trial t24h:
	// the column retyped to text or numeric), so it is named instead.
	var column *gen.Problem
	for _, p := range gen.Problems(err) {
		if column == nil && errors.Is(p, gen.ErrTokenColumn) {
			column = p
		}
	}
	for _, cmd := range fix {
		if column != nil && cmd != "\x01" && cmd != "" {
			what := column.Msg
			if head, _, ok := strings.Cut(what, ": "); ok && strings.HasPrefix(head, "fencing token column ") {
				what = head
			}
			cmd, _, _ = strings.Cut(strings.TrimPrefix(cmd, "\x02"), "\x00")
			fmt.Fprintf(w, "fencegen: fencegen guard cannot write the fix yet: it stops at the token column, as generate does (%s:%d:%d: %s); fix the column first (in a new migration, or in that one while it is not applied anywhere), then write the guard migration with: %s\n",
				relPath(column.File), column.Line, column.Col, what, cmd)
			continue
		}
		switch {
		case cmd == "\x01":
			fmt.Fprintf(w, "fencegen: a migration weakens the guard in a way no new guard migration undoes: change it while it is not applied anywhere, or undo it in a new migration of yours, as said above\n")
		case strings.HasPrefix(cmd, "\x02"):
			fmt.Fprintf(w, "fencegen: a migration that %s leaves the partition unguarded between the two: move the ATTACH into it while neither is applied anywhere; once either is, write a new guard migration after the newest with: %s\n", why[cmd], cmd[1:])
		case cmd == "":
			fmt.Fprintf(w, "fencegen: the guard migrations were written by a newer fencegen: update fencegen (a migration this one wrote would undo the newer guard)\n")
		case sqlcInto[cmd] != [2]string{}:
			// The guard cannot go into the migration: sqlc reads it.
			fmt.Fprintf(w, "fencegen: a migration that %s needs its guard installed again, but sqlc reads %s and cannot parse a trigger: write the guard in a new migration of the directory only fencegen reads with: %s, and apply it in the same deployment as %[2]s (the table is unguarded between the two)\n", sqlcInto[cmd][0], sqlcInto[cmd][1], cmd)
		case unfence[cmd] != "":
			into, table, _ := strings.Cut(cmd, "\x00")
			fmt.Fprintf(w, "fencegen: fenced table %s was created again without its fencing mark: mark it again in that migration, then add its guard with: %s; or stop fencing it with: %s\n", table, into, unfence[cmd])
		case why[cmd] != "" && later[cmd] != "":
			// Newer migrations follow it: the guard still goes into it,
			// from which on the table needs it. A migration inserted
			// after it would not do: golang-migrate never applies a
			// version below a database's, goose refuses one (or, allowed
			// missing ones, applies it after the newer ones).
			fmt.Fprintf(w, "fencegen: a migration that %s must install its guard again itself (while neither it nor a migration after it is applied anywhere: the tools apply no migration inserted between them, so a new one after the newest would leave every migration from it on unguarded); add it with: %s; once it is applied anywhere, write a new one after the newest with: %s\n", why[cmd], cmd, later[cmd])
		case why[cmd] != "":
			fmt.Fprintf(w, "fencegen: a migration that %s must install its guard again itself (while it is not applied anywhere); add it with: %s\n", why[cmd], cmd)
		default:
			fmt.Fprintf(w, "fencegen: the guard migrations install an outdated guard: never edit an applied migration; write a new one with: %s\n", cmd)
		}
	}
}

// samePath reports whether a and b name the same file.
func samePath(a, b string) bool {
	aa, err1 := filepath.Abs(a)
	ba, err2 := filepath.Abs(b)
	if err1 != nil || err2 != nil {
		return filepath.Clean(a) == filepath.Clean(b)
	}
	return aa == ba
}

// load finds and loads the configuration and generates, printing the
// configuration's notes, and for vet the generator's. On an error it
// prints it and returns a nil Output and the exit code. noDB (sqlc's
// --no-database) keeps vet from asking a server (gen.Vet).
func load(ctx context.Context, m mode, cfgPath string, noDB bool, stdout, stderr io.Writer) (*gen.Config, *gen.Output, int) {
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
		// Its files are sqlc's to write: a go:generate or Makefile step
		// that removes the outputs first leaves them empty (trial x23 F3).
		out := filepath.ToSlash(filepath.Join(filepath.Dir(relPath(cfg.Path)), sk.Out))
		fmt.Fprintf(stderr, "%s:%d:%d: note: skipping entry %q: engine %s is not generated by fencegen (PostgreSQL and MySQL only); the files in its output directory %s are left as they are: generate them with sqlc\n",
			relPath(cfg.Path), sk.Pos.Line, sk.Pos.Col, name, sk.Engine, out)
	}

	for _, n := range cfg.Notes {
		fmt.Fprintf(stderr, "%s:%d:%d: note: %s\n", relPath(cfg.Path), n.Pos.Line, n.Pos.Col, n.Msg)
	}

	generate := gen.Generate
	if m == modeGuard {
		generate = gen.GenerateGuard
	}
	if m == modeVet && !noDB {
		generate = gen.Vet
	}
	out, err := generate(ctx, cfg)
	if m == modeVet && out != nil {
		for _, v := range out.Vet {
			fmt.Fprintln(stdout, v)
		}
	}
	if err != nil {
		report(stderr, err)
		reportGuardFix(stderr, err, cfgPath)
		return nil, nil, exitError
	}
	return cfg, out, exitOK
}

// rebase returns the directory the files of out are written under and
// out with its names relative to it: the current directory when it holds
// every output directory, so that check's diff applies from there (git
// apply, patch -p1); otherwise (fencegen -f ../sqlc.yaml, or sqlc's out:
// ../internal/db) the nearest directory above it that does. The
// directory is returned relative to the current one, so that messages
// stay relative.
func rebase(dir string, out *gen.Output) (string, *gen.Output, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, err
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", nil, err
	}
	root := wd
	fit := func(name string) {
		p := filepath.Join(abs, filepath.FromSlash(name))
		for !within(root, p) && filepath.Dir(root) != root {
			root = filepath.Dir(root)
		}
	}
	for name := range out.Files {
		fit(name)
	}
	for _, d := range out.Dirs {
		fit(d)
	}
	if root == abs {
		return dir, out, nil
	}
	rel := func(name string) (string, error) {
		r, err := filepath.Rel(root, filepath.Join(abs, filepath.FromSlash(name)))
		return filepath.ToSlash(r), err
	}
	files := make(map[string][]byte, len(out.Files))
	for name, b := range out.Files {
		r, err := rel(name)
		if err != nil {
			return "", nil, err
		}
		files[r] = b
	}
	rebased := *out
	rebased.Files = files
	rebased.Dirs = nil
	for _, d := range out.Dirs {
		r, err := rel(d)
		if err != nil {
			return "", nil, err
		}
		rebased.Dirs = append(rebased.Dirs, r)
	}
	if r, err := filepath.Rel(wd, root); err == nil {
		root = r
	}
	return root, &rebased, nil
}

// noteSqlcFiles says so when generate is about to replace files that
// sqlc generated: sqlc generate and fencegen generate, run on one
// configuration, write the same files, and the last one run wins (sqlc's
// have no guards).
func noteSqlcFiles(w io.Writer, root string, names []string, fenced bool) {
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
	switch {
	case len(sqlc) > 0 && fenced:
		fmt.Fprintf(w, "fencegen: note: replacing files sqlc generated (%s): sqlc generate writes the same files without the guards; generate the Go code with one of them (fencegen's docs/sqlc.md)\n", strings.Join(sqlc, ", "))
	case len(sqlc) > 0:
		// Nothing is fenced: the files differ from sqlc's in their
		// header only, and nothing is lost whichever writes them.
		fmt.Fprintf(w, "fencegen: note: replacing files sqlc generated (%s): nothing is fenced, so they differ from sqlc's in the header only (fencegen's docs/sqlc.md)\n", strings.Join(sqlc, ", "))
	}
}

// summary is generate's one line on success: what was generated, and
// what changed on disk.
func summary(out *gen.Output, write, remove []string, cfgPath string) string {
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
	if len(out.Vet) > 0 {
		fmt.Fprintf(&b, " (%s: run %s)", plural(len(out.Vet), "note"), commandLine("vet", cfgPath))
	}
	return b.String()
}

// commandLine is the fencegen command line that runs cmd (and its
// flags) on the configuration at cfgPath, the -f a command was given:
// with that -f, relative to the current directory, unless it names the
// configuration fencegen finds by default there.
func commandLine(cmd, cfgPath string) string {
	line := "fencegen " + cmd
	if cfgPath == "" {
		return line
	}
	if found, err := gen.FindConfig("."); err == nil && sameFile(found, cfgPath) {
		return line
	}
	p := filepath.ToSlash(relPath(cfgPath))
	if strings.ContainsAny(p, " \t'\"$\\") {
		p = "'" + strings.ReplaceAll(p, "'", `'\''`) + "'"
	}
	return line + " -f " + p
}

// sameFile reports whether a and b name one existing file.
func sameFile(a, b string) bool {
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
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

// modulePath is fencegen's module path.
const modulePath = "github.com/fencegen/fencegen"

// develVersion is the version a fencegen built from a clone says it is:
// the next release, as build metadata marks it (semver: v0.1.0+devel).
// Bump it with each release tag.
const develVersion = "v0.1.0+devel"

// placeholderVersion is the version go.generate.md has a module require
// with a replace directive to a clone: no such version exists.
const placeholderVersion = "v0.0.0-00010101000000-000000000000"

// version is fencegen's version: the module version of a published
// fencegen (go tool fencegen, go install ...@v0.2.0), or, built from a
// clone (go run ./cmd/fencegen, a replace directive), develVersion and
// the commit when the build recorded one (go build with -buildvcs).
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return develVersion
	}
	return versionOf(bi)
}

// versionOf is version for the build information bi.
func versionOf(bi *debug.BuildInfo) string {
	m := &bi.Main
	if m.Path != modulePath {
		m = nil
		for _, d := range bi.Deps {
			if d.Path == modulePath {
				m = d
				break
			}
		}
	}
	if m != nil && m.Replace != nil {
		m = m.Replace
	}
	if m != nil && m.Version != "" && m.Version != "(devel)" && m.Version != placeholderVersion {
		return m.Version
	}
	v := develVersion
	var rev string
	var modified bool
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev != "" {
		v += " (commit " + rev[:min(len(rev), 12)]
		if modified {
			v += ", modified"
		}
		v += ")"
	}
	return v
}
