package gen

import (
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/fencegen/fencegen/gen/internal/config"
	"github.com/fencegen/fencegen/gen/internal/diag"
	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

// expand turns schema or queries entries (files, directories, globs) into
// file names relative to the current directory, in order, each once.
// Directories contribute their *.sql files in lexical order, without
// golang-migrate's *.down.sql files.
func expand(cfg *Config, entries []string, pos config.Position) ([]string, diag.List) {
	var errs diag.List
	var out []string
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	for _, e := range entries {
		p := filepath.FromSlash(e)
		if !filepath.IsAbs(p) {
			p = filepath.Join(cfg.Dir, p)
		}
		matches := []string{p}
		if strings.ContainsAny(e, "*?[") {
			m, err := filepath.Glob(p)
			if err != nil || len(m) == 0 {
				errs.Add(cfg.Path, pos.Line, pos.Col, "%q matches no file", e)
				continue
			}
			sort.Strings(m)
			matches = m
		}
		for _, m := range matches {
			info, err := os.Stat(m)
			if err != nil {
				errs.Add(cfg.Path, pos.Line, pos.Col, "%s: no such file or directory", e)
				continue
			}
			if !info.IsDir() {
				add(m)
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
				if de.IsDir() || !strings.HasSuffix(n, ".sql") || strings.HasSuffix(n, ".down.sql") {
					continue
				}
				names = append(names, filepath.Join(m, n))
			}
			sort.Strings(names)
			for _, n := range names {
				add(n)
			}
		}
	}
	return out, errs
}

var (
	gooseDown  = regexp.MustCompile(`(?m)^--\s*\+goose\s+Down\b`)
	dbmateDown = regexp.MustCompile(`(?m)^--\s*migrate:down\b`)
	sqlMigrate = regexp.MustCompile(`(?m)^--\s*\+migrate\s+Down\b`)
	ternSplit  = regexp.MustCompile(`(?m)^----\s*create above\s*/\s*drop below\s*----`)
	// psqlMeta matches a psql meta-command line, such as the \restrict and
	// \unrestrict lines pg_dump writes since PostgreSQL 17.6 and 15.14
	// (psql docs, "Meta-Commands"): psql's, not SQL.
	psqlMeta = regexp.MustCompile(`(?m)^\\[a-zA-Z].*$`)
)

// readAndParse reads and parses one file. For schema files, the down
// sections of goose, dbmate, sql-migrate and tern migrations, and psql
// meta-command lines, are blanked out (keeping line numbers) so only the
// up migration's SQL builds the catalog.
func readAndParse(name string, schema bool) (*sqlparse.File, error) {
	src, err := os.ReadFile(name)
	if err != nil {
		return nil, &diag.Error{File: name, Msg: err.Error()}
	}
	if schema {
		for _, re := range []*regexp.Regexp{gooseDown, dbmateDown, sqlMigrate, ternSplit} {
			if loc := re.FindIndex(src); loc != nil {
				src = blank(src, loc[0], len(src))
			}
		}
		for _, loc := range psqlMeta.FindAllIndex(src, -1) {
			src = blank(src, loc[0], loc[1])
		}
	}
	return sqlparse.Parse(displayName(name), src)
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
