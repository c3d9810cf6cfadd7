package analyze

import (
	"reflect"

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
		if v.Type().Implements(nodeType) {
			fn(v.Interface().(sqlparse.Node))
		}
		walkValue(v.Elem(), fn)
	case reflect.Struct:
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				walkValue(v.Field(i), fn)
			}
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			walkValue(v.Index(i), fn)
		}
	}
}
