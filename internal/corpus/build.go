package main

import (
	"bufio"
	"context"
	"fmt"
	"go/parser"
	"go/token"
	"io"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"
)

const pgxVersion = "v5.12.0"

// compileCheck writes every generated package into one module under
// modDir, runs go build ./... and go vet ./... once each and attributes
// the errors to cases by directory. rootMod is root's go.mod.
func compileCheck(root string, rootMod []byte, modDir string, cases []*Case, stderr io.Writer) error {
	goVersion := "1.22"
	if m := regexp.MustCompile(`(?m)^go\s+(\S+)`).FindSubmatch(rootMod); m != nil {
		goVersion = string(m[1])
	}
	rootSum, _ := os.ReadFile(filepath.Join(root, "go.sum"))
	cache := goEnv("GOMODCACHE")

	extra := map[string]string{} // module → version
	bySlug := map[string]*Case{}
	var included []*Case
	for _, c := range cases {
		if c.files == nil {
			c.Compile, c.Vet = "n.a.", "n.a."
			continue
		}
		need, missing := imports(c.files, cache, string(rootSum))
		if missing != "" {
			c.Compile, c.Vet = "skipped: needs module "+missing, "n.a."
			continue
		}
		gofiles := 0
		for name, b := range c.files {
			if !strings.HasSuffix(name, ".go") {
				continue
			}
			gofiles++
			p := filepath.Join(modDir, c.slug, filepath.FromSlash(modPath(name)))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(p, b, 0o644); err != nil {
				return err
			}
		}
		if gofiles == 0 {
			c.Compile, c.Vet = "n.a. (no Go files)", "n.a."
			continue
		}
		for m, v := range need {
			if old, ok := extra[m]; !ok || semverLess(old, v) {
				extra[m] = v
			}
		}
		bySlug[c.slug] = c
		included = append(included, c)
	}
	if len(included) == 0 {
		return nil
	}
	var gm strings.Builder
	fmt.Fprintf(&gm, "module corpuscheck\n\ngo %s\n\nrequire (\n\tgithub.com/jackc/pgx/v5 %s\n\tgithub.com/fencegen/fencegen v0.0.0\n", goVersion, pgxVersion)
	for _, m := range sortedKeys(extra) {
		fmt.Fprintf(&gm, "\t%s %s\n", m, extra[m])
	}
	fmt.Fprintf(&gm, ")\n\nreplace github.com/fencegen/fencegen => %s\n", root)
	if err := os.WriteFile(filepath.Join(modDir, "go.mod"), []byte(gm.String()), 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(modDir, "go.sum"), rootSum, 0o644); err != nil {
		return err
	}

	// go build stops before compiling anything when a package cannot be
	// loaded (e.g. a bad import); such cases are taken out and the build
	// repeated.
	active := map[string]bool{}
	for s := range bySlug {
		active[s] = true
	}
	for round := 0; round < 6 && len(active) > 0; round++ {
		start := time.Now()
		out, err := goCmd(modDir, "build", "./...")
		fmt.Fprintf(stderr, "corpus: go build ./... (%d cases) in %s\n", len(active), time.Since(start).Round(time.Millisecond))
		perCase, loadErr, unattributed := attribute(out, bySlug)
		if err == nil {
			break
		}
		if len(loadErr) > 0 {
			for s := range loadErr {
				c := bySlug[s]
				c.Compile, c.Vet = "fail", "n.a."
				c.CompileErr = perCase[s]
				delete(active, s)
				os.RemoveAll(filepath.Join(modDir, s))
			}
			continue
		}
		for s, lines := range perCase {
			if active[s] {
				bySlug[s].Compile = "fail"
				bySlug[s].CompileErr = lines
				delete(active, s)
			}
		}
		if len(perCase) == 0 {
			// Nothing attributable: a module-level problem.
			msg := firstOr(unattributed, "go build failed")
			for s := range active {
				bySlug[s].Compile = "fail"
				bySlug[s].CompileErr = append([]string{"(module) " + msg}, unattributed...)
			}
			active = map[string]bool{}
		}
		break
	}
	for s := range active {
		bySlug[s].Compile = "OK"
	}
	// go vet, on the cases that compiled only.
	for s, c := range bySlug {
		if c.Compile != "OK" {
			os.RemoveAll(filepath.Join(modDir, s))
			if c.Vet == "" {
				c.Vet = "n.a."
			}
		}
	}
	if len(active) == 0 {
		return nil
	}
	start := time.Now()
	out, err := goCmd(modDir, "vet", "./...")
	fmt.Fprintf(stderr, "corpus: go vet ./... in %s\n", time.Since(start).Round(time.Millisecond))
	perCase, _, unattributed := attribute(out, bySlug)
	for s := range active {
		c := bySlug[s]
		if lines := perCase[s]; len(lines) > 0 {
			c.Vet, c.VetErr = "fail", lines
		} else if err != nil && len(perCase) == 0 {
			c.Vet, c.VetErr = "fail", append([]string{"(module)"}, unattributed...)
		} else {
			c.Vet = "OK"
		}
	}
	return nil
}

// modPath maps a generated file's path, relative to its configuration's
// directory, to one inside the case's folder of the build module: ".."
// elements (an output directory outside the configuration's folder)
// become "_up".
func modPath(name string) string {
	els := strings.Split(path.Clean(name), "/")
	for i, e := range els {
		if e == ".." {
			els[i] = "_up"
		}
	}
	return strings.Join(els, "/")
}

func goEnv(key string) string {
	out, err := exec.Command("go", "env", key).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

func goCmd(dir string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(),
		"GOFLAGS=-mod=mod -buildvcs=false",
		"GOPROXY=off",
		"GOWORK=off",
		"GOSUMDB=off",
		"GOTOOLCHAIN=local",
	)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

var headerRe = regexp.MustCompile(`^# (\S+)`)

// attribute splits go build/vet output by case. loadErr holds the cases
// with errors reported outside a "# package" block (package loading, which
// stops the whole build).
func attribute(out string, bySlug map[string]*Case) (perCase map[string][]string, loadErr map[string]bool, unattributed []string) {
	perCase = map[string][]string{}
	loadErr = map[string]bool{}
	cur := ""
	inBlock := false
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	slugOf := func(p string) string {
		p = strings.TrimPrefix(p, "corpuscheck/")
		p = strings.TrimPrefix(p, "./")
		s := strings.SplitN(p, "/", 2)[0]
		if _, ok := bySlug[s]; ok {
			return s
		}
		return ""
	}
	for sc.Scan() {
		l := sc.Text()
		if strings.TrimSpace(l) == "" {
			continue
		}
		if m := headerRe.FindStringSubmatch(l); m != nil {
			cur = slugOf(m[1])
			inBlock = true
			continue
		}
		t := strings.TrimPrefix(strings.TrimSpace(l), "vet: ")
		s := ""
		if f := strings.Fields(t); len(f) > 0 {
			s = slugOf(f[0])
			if s == "" {
				// "package corpuscheck/x/go imports …" and similar.
				for _, w := range f {
					if x := slugOf(strings.Trim(w, `":`)); x != "" && strings.HasPrefix(w, "corpuscheck/") {
						s = x
						break
					}
				}
			}
		}
		if s == "" {
			s = cur
		}
		if s == "" {
			unattributed = append(unattributed, l)
			continue
		}
		// Strip the slug so messages read like paths in the case.
		t = strings.Replace(strings.TrimPrefix(t, "./"), s+"/", "", 1)
		perCase[s] = append(perCase[s], t)
		if !inBlock {
			loadErr[s] = true
		}
	}
	return perCase, loadErr, unattributed
}

// imports returns the modules (beyond pgx and fencegen) the generated
// files import, with a version from the module cache, or the first import
// no cached module provides.
func imports(files map[string][]byte, cache, rootSum string) (need map[string]string, missing string) {
	need = map[string]string{}
	fset := token.NewFileSet()
	names := sortedKeys(files)
	for _, n := range names {
		if !strings.HasSuffix(n, ".go") {
			continue
		}
		f, err := parser.ParseFile(fset, n, files[n], parser.ImportsOnly)
		if err != nil || f == nil {
			continue // the build reports it
		}
		for _, im := range f.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			first := strings.SplitN(p, "/", 2)[0]
			if !strings.Contains(first, ".") ||
				p == "github.com/jackc/pgx/v5" || strings.HasPrefix(p, "github.com/jackc/pgx/v5/") ||
				p == "github.com/fencegen/fencegen" || strings.HasPrefix(p, "github.com/fencegen/fencegen/") {
				continue
			}
			mod, ver := cachedModule(p, cache, rootSum)
			if mod == "" {
				return nil, p
			}
			need[mod] = ver
		}
	}
	return need, ""
}

// cachedModule finds the longest prefix of importPath that is a module in
// the download cache, and a version of it: the one in the project's
// go.sum if listed there, else the highest cached.
func cachedModule(importPath, cache, rootSum string) (string, string) {
	if cache == "" {
		return "", ""
	}
	for p := importPath; p != "." && p != ""; p = path.Dir(p) {
		dir := filepath.Join(cache, "cache", "download", filepath.FromSlash(escapePath(p)), "@v")
		ents, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		var vers []string
		for _, e := range ents {
			if v, ok := strings.CutSuffix(e.Name(), ".zip"); ok {
				vers = append(vers, v)
			}
		}
		if len(vers) == 0 {
			continue
		}
		sort.Slice(vers, func(i, j int) bool { return semverLess(vers[i], vers[j]) })
		best := vers[len(vers)-1]
		for _, v := range vers {
			if strings.Contains(rootSum, p+" "+v+" ") {
				best = v
			}
		}
		return p, best
	}
	return "", ""
}

// escapePath is the module cache's case encoding: "!" + lower case for
// upper-case letters.
func escapePath(p string) string {
	var b strings.Builder
	for _, r := range p {
		if r >= 'A' && r <= 'Z' {
			b.WriteByte('!')
			b.WriteRune(r + ('a' - 'A'))
		} else {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// semverLess compares vMAJOR.MINOR.PATCH[-pre][+build] versions; a
// release sorts after its pre-releases.
func semverLess(a, b string) bool {
	pa, pb := parseSemver(a), parseSemver(b)
	for i := 0; i < 3; i++ {
		if pa.n[i] != pb.n[i] {
			return pa.n[i] < pb.n[i]
		}
	}
	switch {
	case pa.pre == pb.pre:
		return a < b
	case pa.pre == "":
		return false
	case pb.pre == "":
		return true
	}
	return pa.pre < pb.pre
}

type semver struct {
	n   [3]int
	pre string
}

func parseSemver(v string) semver {
	var s semver
	v = strings.TrimPrefix(v, "v")
	if i := strings.IndexByte(v, '+'); i >= 0 {
		v = v[:i]
	}
	if i := strings.IndexByte(v, '-'); i >= 0 {
		v, s.pre = v[:i], v[i+1:]
	}
	for i, part := range strings.SplitN(v, ".", 3) {
		s.n[i], _ = strconv.Atoi(part)
	}
	return s
}
