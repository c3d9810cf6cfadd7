package analyze

import (
	"reflect"
	"sync"

	"github.com/fencegen/fencegen/gen/internal/sqlparse"
)

var nodeType = reflect.TypeOf((*sqlparse.Node)(nil)).Elem()

// walk calls fn for every node of the tree under n, parents first. It
// follows every field of the tree's structs, so new node kinds are walked
// without changes here.
func walk(n sqlparse.Node, fn func(sqlparse.Node)) {
	if n == nil {
		return
	}
	walkValue(reflect.ValueOf(n), fn)
}

// walkPruned is walk whose fn also says whether to walk the node's
// children.
func walkPruned(n sqlparse.Node, fn func(sqlparse.Node) bool) {
	if n == nil {
		return
	}
	walkValuePruned(reflect.ValueOf(n), fn)
}

func walkValuePruned(v reflect.Value, fn func(sqlparse.Node) bool) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			walkValuePruned(v.Elem(), fn)
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if walkInfoOf(v.Type()).node && !fn(v.Interface().(sqlparse.Node)) {
			return
		}
		walkValuePruned(v.Elem(), fn)
	case reflect.Struct:
		for _, i := range walkInfoOf(v.Type()).fields {
			walkValuePruned(v.Field(i), fn)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walkValuePruned(v.Index(i), fn)
		}
	}
}

func walkValue(v reflect.Value, fn func(sqlparse.Node)) {
	switch v.Kind() {
	case reflect.Interface:
		if !v.IsNil() {
			walkValue(v.Elem(), fn)
		}
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if walkInfoOf(v.Type()).node {
			fn(v.Interface().(sqlparse.Node))
		}
		walkValue(v.Elem(), fn)
	case reflect.Struct:
		for _, i := range walkInfoOf(v.Type()).fields {
			walkValue(v.Field(i), fn)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walkValue(v.Index(i), fn)
		}
	}
}

// walkInfo is what walkValue needs of a type: whether it is a node, and,
// of a struct, its exported fields that can hold nodes (interfaces,
// pointers, structs, slices), by index.
type walkInfo struct {
	node   bool
	fields []int
}

// walkInfos caches walkInfoOf by reflect.Type: reflect's per-field
// StructField and Implements were most of the walk's time (issue 23).
var walkInfos sync.Map // reflect.Type → *walkInfo

func walkInfoOf(t reflect.Type) *walkInfo {
	if w, ok := walkInfos.Load(t); ok {
		return w.(*walkInfo)
	}
	w := &walkInfo{}
	switch t.Kind() {
	case reflect.Pointer:
		w.node = t.Implements(nodeType)
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			switch f.Type.Kind() {
			case reflect.Interface, reflect.Pointer, reflect.Struct, reflect.Slice:
				w.fields = append(w.fields, i)
			}
		}
	}
	walkInfos.Store(t, w)
	return w
}
