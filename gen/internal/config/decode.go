package config

import (
	"fmt"

	"github.com/goccy/go-yaml/ast"
	ytoken "github.com/goccy/go-yaml/token"

	"github.com/fencegen/fencegen/gen/internal/diag"
)

// loader walks the YAML (or JSON) syntax tree itself rather than
// unmarshalling into structs, so that it can report every unknown key and
// type error with its position in one run.
type loader struct {
	file    string
	errs    diag.List
	notes   []Note
	anchors map[string][]*ast.AnchorNode
	plugin  map[string]plugin // the top-level plugins by name
	codegen []*codegenUse     // every sql entry's codegen items
	// benign counts the errors of errs that leave the configuration
	// read as meant: a misspelled key read as its suggestion, a fence
	// mode typo (read as the default). An sql entry with other errors of
	// its own is Package.Doubtful.
	benign int
	// rulesNoted is set once rules have their note (rulesNote): one
	// per file, whether the rules are defined at the top or named by
	// entries (sqlc's built-in sqlc/db-prepare).
	rulesNoted bool
}

// handler decodes the value v of key.
type handler func(key string, v ast.Node)

// fields maps a mapping's keys to their handlers; the key "*" handles
// every key not listed.
type fields map[string]handler

func ignore(string, ast.Node) {}

// record stores the value node in *dst before calling h.
func record(dst *ast.Node, h handler) handler {
	return func(k string, v ast.Node) {
		*dst = v
		h(k, v)
	}
}

// reported sets *bad when h reports an error.
func (l *loader) reported(bad *bool, h handler) handler {
	return func(k string, v ast.Node) {
		n := len(l.errs)
		h(k, v)
		*bad = *bad || len(l.errs) > n
	}
}

func or(a, b ast.Node) ast.Node {
	if a != nil {
		return a
	}
	return b
}

func (l *loader) errorf(n ast.Node, format string, args ...any) {
	p := posOf(n)
	l.errs.Add(l.file, p.Line, p.Col, format, args...)
}

func (l *loader) notef(n ast.Node, format string, args ...any) {
	l.notes = append(l.notes, Note{Pos: posOf(n), Msg: fmt.Sprintf(format, args...)})
}

func (l *loader) collectAnchors(doc ast.Node) {
	l.anchors = map[string][]*ast.AnchorNode{}
	for _, n := range ast.Filter(ast.AnchorType, doc) {
		a := n.(*ast.AnchorNode)
		name := a.Name.GetToken().Value
		l.anchors[name] = append(l.anchors[name], a)
	}
}

// resolve follows anchors, aliases and tags to the node holding the value.
func (l *loader) resolve(n ast.Node) ast.Node {
	for range 100 {
		switch v := n.(type) {
		case *ast.AnchorNode:
			n = v.Value
		case *ast.TagNode:
			n = v.Value
		case *ast.MappingKeyNode:
			n = v.Value
		case *ast.AliasNode:
			n = l.alias(v)
			if n == nil {
				return nil
			}
		default:
			return n
		}
	}
	l.errorf(n, "aliases nested too deeply")
	return nil
}

// alias returns the value of the last anchor of the alias's name defined
// before it.
func (l *loader) alias(a *ast.AliasNode) ast.Node {
	name := a.Value.GetToken().Value
	off := tokenOffset(a.GetToken())
	var found *ast.AnchorNode
	for _, an := range l.anchors[name] {
		if tokenOffset(an.GetToken()) < off {
			found = an
		}
	}
	if found == nil {
		l.errorf(a, "undefined alias %q", name)
		return nil
	}
	return found.Value
}

func tokenOffset(tk *ytoken.Token) int {
	if tk == nil || tk.Position == nil {
		return 0
	}
	return tk.Position.Offset
}

func isNull(n ast.Node) bool {
	_, ok := n.(*ast.NullNode)
	return n == nil || ok
}

func isMapping(n ast.Node) bool {
	switch n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return true
	}
	return false
}

// mapValues returns the entries of a mapping node; what names it in the
// error for any other kind of node.
func (l *loader) mapValues(n ast.Node, what string) ([]*ast.MappingValueNode, bool) {
	switch m := l.resolve(n).(type) {
	case *ast.MappingNode:
		return m.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{m}, true
	case nil, *ast.NullNode:
		return nil, false
	default:
		l.errorf(n, "%s: want a mapping, found %s", what, kind(m))
		return nil, false
	}
}

// lookup returns the value of key in mapping n, or nil.
func (l *loader) lookup(n ast.Node, key string) ast.Node {
	values, _ := l.mapValues(n, "configuration")
	for _, kv := range values {
		if !kv.Key.IsMergeKey() && keyText(kv.Key) == key {
			return kv.Value
		}
	}
	return nil
}

// mapping decodes mapping n with fs, reporting every unknown key. Merge
// keys (<<) are applied first, so the mapping's own keys win.
func (l *loader) mapping(what string, n ast.Node, fs fields) {
	values, _ := l.mapValues(n, what)
	for _, kv := range values {
		if !kv.Key.IsMergeKey() {
			continue
		}
		if s, ok := l.resolve(kv.Value).(*ast.SequenceNode); ok {
			for _, m := range s.Values {
				l.mapping("<<", m, fs)
			}
		} else {
			l.mapping("<<", kv.Value, fs)
		}
	}
	for _, kv := range values {
		if kv.Key.IsMergeKey() {
			continue
		}
		key := keyText(kv.Key)
		h, ok := fs[key]
		if !ok {
			h, ok = fs["*"]
		}
		if !ok {
			if key == "fence" {
				l.errorf(kv.Key, "unknown key %q here: a fence key goes in an sql entry (beside schema and queries) or at the top level of the file, for every entry", key)
				continue
			}
			if s := suggest(key, fs); s != "" {
				l.errorf(kv.Key, "unknown key %q (did you mean %q?)", key, s)
				if !has(values, s) {
					l.benign++
					// Read on as if the key were spelled as suggested,
					// so that what follows from it (a "missing key"
					// that is there, misspelled; every later check)
					// is not reported as a problem of its own: the
					// typo is the one problem, and the run goes on
					// to the others (trial tnew F1, F2).
					fs[s](s, kv.Value)
				}
			} else {
				l.errorf(kv.Key, "unknown key %q", key)
			}
			continue
		}
		h(key, kv.Value)
	}
}

// serious is the number of errors so far that are not benign.
func (l *loader) serious() int { return len(l.errs) - l.benign }

// has reports whether the mapping entries hold key.
func has(values []*ast.MappingValueNode, key string) bool {
	for _, kv := range values {
		if !kv.Key.IsMergeKey() && keyText(kv.Key) == key {
			return true
		}
	}
	return false
}

// seq returns a handler that calls each for every element of a sequence.
func (l *loader) seq(each func(ast.Node)) handler {
	return func(k string, v ast.Node) {
		switch s := l.resolve(v).(type) {
		case *ast.SequenceNode:
			for _, e := range s.Values {
				each(e)
			}
		case nil, *ast.NullNode:
		default:
			l.errorf(v, "%s: want a list, found %s", k, kind(s))
		}
	}
}

// scalar returns the text of a scalar node; ok is false for null and for
// non-scalars, which are reported.
func (l *loader) scalar(key string, n ast.Node) (string, bool) {
	switch v := l.resolve(n).(type) {
	case nil, *ast.NullNode:
		return "", false
	case *ast.StringNode:
		return v.Value, true
	case *ast.LiteralNode:
		return v.Value.Value, true
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode:
		return v.GetToken().Value, true
	default:
		l.errorf(n, "%s: want a string, found %s", key, kind(v))
		return "", false
	}
}

func (l *loader) str(dst *string) handler {
	return func(k string, v ast.Node) {
		if s, ok := l.scalar(k, v); ok {
			*dst = s
		}
	}
}

func (l *loader) boolean(dst *bool) handler {
	return func(k string, v ast.Node) {
		switch b := l.resolve(v).(type) {
		case nil, *ast.NullNode:
		case *ast.BoolNode:
			*dst = b.Value
		default:
			l.errorf(v, "%s: want true or false, found %s", k, kind(b))
		}
	}
}

func (l *loader) boolPtr(dst **bool) handler {
	return func(k string, v ast.Node) {
		var b bool
		if _, isNull := l.resolve(v).(*ast.NullNode); isNull {
			return
		}
		l.boolean(&b)(k, v)
		*dst = &b
	}
}

func (l *loader) intPtr(dst **int) handler {
	return func(k string, v ast.Node) {
		switch i := l.resolve(v).(type) {
		case nil, *ast.NullNode:
		case *ast.IntegerNode:
			var n int
			switch x := i.Value.(type) {
			case int64:
				n = int(x)
			case uint64:
				n = int(x)
			}
			*dst = &n
		default:
			l.errorf(v, "%s: want an integer, found %s", k, kind(i))
		}
	}
}

// strs decodes a string or a list of strings.
func (l *loader) strs(dst *[]string) handler {
	return func(k string, v ast.Node) {
		if _, ok := l.resolve(v).(*ast.SequenceNode); ok {
			l.list(dst)(k, v)
			return
		}
		if s, ok := l.scalar(k, v); ok {
			*dst = []string{s}
		}
	}
}

// paths decodes a string or a list of strings, as strs, and the position
// of each: the string's value, or the list element's.
func (l *loader) paths(dst *[]string, pos *[]Position) handler {
	return func(k string, v ast.Node) {
		l.strs(dst)(k, v)
		*pos = nil
		if seq, ok := l.resolve(v).(*ast.SequenceNode); ok {
			for _, e := range seq.Values {
				if _, ok := l.resolve(e).(*ast.SequenceNode); ok {
					continue
				}
				if r := l.resolve(e); r != nil && !isMapping(r) && !isNull(r) {
					*pos = append(*pos, posOf(e))
				}
			}
		} else if len(*dst) == 1 {
			*pos = []Position{posOf(v)}
		}
		if len(*pos) != len(*dst) {
			*pos = nil // an element that is no string was reported
		}
	}
}

// list decodes a list of strings; an empty list gives a non-nil slice.
func (l *loader) list(dst *[]string) handler {
	return func(k string, v ast.Node) {
		if _, ok := l.resolve(v).(*ast.SequenceNode); !ok {
			l.seq(nil)(k, v) // reports the type
			return
		}
		out := []string{}
		l.seq(func(n ast.Node) {
			if s, ok := l.scalar(k, n); ok {
				out = append(out, s)
			}
		})(k, v)
		*dst = out
	}
}

// strMap decodes a mapping of strings to strings.
func (l *loader) strMap(dst *map[string]string) handler {
	return func(k string, v ast.Node) {
		values, _ := l.mapValues(v, k)
		for _, kv := range values {
			if kv.Key.IsMergeKey() {
				l.strMap(dst)(k, kv.Value)
				continue
			}
			if s, ok := l.scalar(k, kv.Value); ok {
				if *dst == nil {
					*dst = map[string]string{}
				}
				(*dst)[keyText(kv.Key)] = s
			}
		}
	}
}

func keyText(k ast.MapKeyNode) string {
	var n ast.Node = k
	if mk, ok := n.(*ast.MappingKeyNode); ok {
		n = mk.Value
	}
	switch v := n.(type) {
	case *ast.StringNode:
		return v.Value
	case ast.ScalarNode:
		return fmt.Sprint(v.GetValue())
	}
	return n.String()
}

func kind(n ast.Node) string {
	switch n.(type) {
	case *ast.MappingNode, *ast.MappingValueNode:
		return "a mapping"
	case *ast.SequenceNode:
		return "a list"
	case *ast.StringNode, *ast.LiteralNode:
		return "a string"
	case *ast.IntegerNode, *ast.FloatNode, *ast.InfinityNode, *ast.NanNode:
		return "a number"
	case *ast.BoolNode:
		return "a boolean"
	case nil, *ast.NullNode:
		return "null"
	}
	return n.Type().String()
}

// posOf returns where n starts: for a block mapping, its first key.
func posOf(n ast.Node) Position {
	switch v := n.(type) {
	case nil:
		return Position{}
	case *ast.MappingNode:
		if !v.IsFlowStyle && len(v.Values) > 0 {
			return posOf(v.Values[0])
		}
	case *ast.MappingValueNode:
		return posOf(v.Key)
	}
	return tokenPos(n.GetToken())
}

func tokenPos(tk *ytoken.Token) Position {
	if tk == nil || tk.Position == nil {
		return Position{}
	}
	return Position{Line: tk.Position.Line, Col: tk.Position.Column}
}
