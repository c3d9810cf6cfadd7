package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// entry is one sql entry of an sqlc configuration: an element of "sql"
// (version 2) or of "packages" (version 1).
type entry struct {
	Index  int    // 0-based position in the file's list
	Name   string // the entry's name key, "" when unset
	Engine string // as written; "" means postgresql
	// SQLPackage is sql_package as written ("" is sqlc's default,
	// database/sql).
	SQLPackage string
	// Out is the output directory, relative to the configuration's
	// directory: gen.go.out (version 2) or path (version 1); "" when the
	// entry generates no Go.
	Out string
	// Paths are the entry's schema and queries paths as written
	// (relative to the configuration's directory).
	Paths []string
}

// engine is the engine whose entries a run measures (-engine):
// "postgresql" (sqlc's default when the key is unset) or "mysql".
var engine = "postgresql"

// postgres reports whether e is for the engine measured (-engine; the
// PostgreSQL engine by default, sqlc's default engine when the key is
// unset).
func (e entry) postgres() bool {
	if engine != "postgresql" {
		return e.Engine == engine
	}
	return e.Engine == "" || e.Engine == "postgresql"
}

// sqlPackageLabel is the entry's sql_package for the report: "none" stands
// for an unset key, which is sqlc's database/sql default.
func (e entry) sqlPackageLabel() string {
	if e.SQLPackage == "" {
		return "none"
	}
	return e.SQLPackage
}

// sqlPackageGroup is the summary group of an sql_package label: pgx/v5,
// database/sql (set or by default), or the label itself.
func sqlPackageGroup(label string) string {
	switch label {
	case "none", "database/sql":
		return "database/sql"
	}
	return label
}

// sqlcConfig is what the corpus reads of a configuration.
type sqlcConfig struct {
	JSON    bool    // the file is JSON (sqlc.json), else YAML
	Entries []entry // in file order
}

// parseConfig reads the entries of the sqlc (or fencegen) configuration
// src; name is the file name, its extension telling JSON from YAML. JSON
// is read with goccy/go-yaml as well, as YAML is a superset of it.
func parseConfig(name string, src []byte) (*sqlcConfig, error) {
	type goGen struct {
		Out        string `yaml:"out"`
		SQLPackage string `yaml:"sql_package"`
	}
	var doc struct {
		SQL []struct {
			Name    string `yaml:"name"`
			Engine  string `yaml:"engine"`
			Schema  any    `yaml:"schema"`
			Queries any    `yaml:"queries"`
			Gen     struct {
				Go *goGen `yaml:"go"`
			} `yaml:"gen"`
		} `yaml:"sql"`
		Packages []struct {
			Name       string `yaml:"name"`
			Engine     string `yaml:"engine"`
			Path       string `yaml:"path"`
			SQLPackage string `yaml:"sql_package"`
			Schema     any    `yaml:"schema"`
			Queries    any    `yaml:"queries"`
		} `yaml:"packages"`
	}
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", name, firstLines(err.Error(), 1))
	}
	c := &sqlcConfig{JSON: strings.HasSuffix(name, ".json")}
	for i, s := range doc.SQL {
		e := entry{Index: i, Name: s.Name, Engine: s.Engine, Paths: append(stringsOf(s.Schema), stringsOf(s.Queries)...)}
		if s.Gen.Go != nil {
			e.Out, e.SQLPackage = s.Gen.Go.Out, s.Gen.Go.SQLPackage
			if e.Out == "" {
				e.Out = "."
			}
		}
		c.Entries = append(c.Entries, e)
	}
	for i, p := range doc.Packages {
		out := p.Path
		if out == "" {
			out = "."
		}
		c.Entries = append(c.Entries, entry{Index: i, Name: p.Name, Engine: p.Engine, SQLPackage: p.SQLPackage, Out: out,
			Paths: append(stringsOf(p.Schema), stringsOf(p.Queries)...)})
	}
	return c, nil
}

// stringsOf is a schema or queries key's paths: one string or a list.
func stringsOf(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			if s, ok := x.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// reduceConfig returns src with only the sql entries whose indexes keep
// holds. Dropped entries are blanked out in place, so every kept line keeps
// its line number and the file its format, comments and anchors; a YAML
// file where that is not possible (a flow-style list, an anchor defined in
// a dropped entry) is decoded and written anew instead.
func reduceConfig(name string, src []byte, keep map[int]bool) ([]byte, error) {
	c, err := parseConfig(name, src)
	if err != nil {
		return nil, err
	}
	var out []byte
	if c.JSON {
		out, err = blankJSON(src, keep)
	} else {
		out, err = blankYAML(src, keep)
	}
	if err == nil {
		err = checkReduced(name, out, c, keep)
	}
	if err != nil && !c.JSON {
		out, err = rewriteYAML(src, keep)
		if err == nil {
			err = checkReduced(name, out, c, keep)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: reducing to the kept sql entries: %v", name, err)
	}
	return out, nil
}

// checkReduced verifies that out holds exactly the kept entries of c.
func checkReduced(name string, out []byte, c *sqlcConfig, keep map[int]bool) error {
	r, err := parseConfig(name, out)
	if err != nil {
		return err
	}
	var want []entry
	for _, e := range c.Entries {
		if keep[e.Index] {
			want = append(want, e)
		}
	}
	if len(r.Entries) != len(want) {
		return fmt.Errorf("%d entries after reduction, want %d", len(r.Entries), len(want))
	}
	for i := range want {
		got := r.Entries[i]
		got.Index = want[i].Index
		if !reflect.DeepEqual(got, want[i]) {
			return fmt.Errorf("entry %d reads %+v after reduction, want %+v", want[i].Index, got, want[i])
		}
	}
	return nil
}

// entryListKeys are the keys of the entry list in version 2 and 1.
var entryListKeys = map[string]bool{"sql": true, "packages": true}

// blankYAML blanks the lines of the dropped entries of a block-style
// "sql" or "packages" list.
func blankYAML(src []byte, keep map[int]bool) ([]byte, error) {
	f, err := parser.ParseBytes(src, 0)
	if err != nil {
		return nil, err
	}
	if len(f.Docs) != 1 || f.Docs[0].Body == nil {
		return nil, errors.New("not a single YAML document")
	}
	var top []*ast.MappingValueNode
	switch b := f.Docs[0].Body.(type) {
	case *ast.MappingNode:
		top = b.Values
	case *ast.MappingValueNode:
		top = []*ast.MappingValueNode{b}
	default:
		return nil, errors.New("the document is not a mapping")
	}
	lines := bytes.SplitAfter(src, []byte("\n"))
	for i, mv := range top {
		if !entryListKeys[mv.Key.GetToken().Value] {
			continue
		}
		seq, ok := mv.Value.(*ast.SequenceNode)
		if !ok || seq.IsFlowStyle || len(seq.Entries) != len(seq.Values) {
			return nil, errors.New("the entry list is not a block sequence")
		}
		end := len(lines) // last line (1-based) of the list
		if i+1 < len(top) {
			end = top[i+1].Key.GetToken().Position.Line - 1
		}
		for j, e := range seq.Entries {
			if keep[j] {
				continue
			}
			first := e.Start.Position.Line
			last := end
			if j+1 < len(seq.Entries) {
				last = seq.Entries[j+1].Start.Position.Line - 1
			}
			for l := first; l <= last && l <= len(lines); l++ {
				if bytes.HasSuffix(lines[l-1], []byte("\n")) {
					lines[l-1] = []byte("\n")
				} else {
					lines[l-1] = nil
				}
			}
		}
	}
	return bytes.Join(lines, nil), nil
}

// rewriteYAML decodes src, drops the entries and encodes it again:
// anchors are resolved, comments and line numbers are lost.
func rewriteYAML(src []byte, keep map[int]bool) ([]byte, error) {
	var doc yaml.MapSlice
	if err := yaml.Unmarshal(src, &doc); err != nil {
		return nil, err
	}
	for i, it := range doc {
		k, _ := it.Key.(string)
		list, ok := it.Value.([]any)
		if !entryListKeys[k] || !ok {
			continue
		}
		var kept []any
		for j, v := range list {
			if keep[j] {
				kept = append(kept, v)
			}
		}
		doc[i].Value = kept
	}
	return yaml.Marshal(doc)
}

// blankJSON replaces the dropped elements of the top-level "sql" or
// "packages" array, with their separating commas, by spaces (newlines
// stay, so kept lines keep their numbers).
func blankJSON(src []byte, keep map[int]bool) ([]byte, error) {
	out := append([]byte(nil), src...)
	blank := func(from, to int64) {
		for i := from; i < to; i++ {
			if out[i] != '\n' {
				out[i] = ' '
			}
		}
	}
	dec := json.NewDecoder(bytes.NewReader(src))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, errors.New("not a JSON object")
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, err
		}
		k, _ := t.(string)
		if !entryListKeys[k] {
			var skip json.RawMessage
			if err := dec.Decode(&skip); err != nil {
				return nil, err
			}
			continue
		}
		if t, err := dec.Token(); err != nil || t != json.Delim('[') {
			continue // the loader reports it
		}
		firstKept := true
		for j := 0; dec.More(); j++ {
			// The element's span runs from the end of the previous token
			// (so it starts with the separating comma, after the first).
			start := dec.InputOffset()
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, err
			}
			end := dec.InputOffset()
			switch {
			case !keep[j]:
				blank(start, end)
			case firstKept:
				firstKept = false
				if i := bytes.IndexByte(src[start:end], ','); i >= 0 && strings.TrimSpace(string(src[start:start+int64(i)])) == "" {
					blank(start+int64(i), start+int64(i)+1)
				}
			}
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// splitName is the file name of the configuration reduced to entry n
// (0-based) of the configuration name: sqlc.yaml → sqlc.corpus-2.yaml.
func splitName(name string, n int) string {
	ext := path.Ext(name)
	return fmt.Sprintf("%s.corpus-%d%s", strings.TrimSuffix(name, ext), n+1, ext)
}
