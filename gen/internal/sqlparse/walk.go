package sqlparse

import "google.golang.org/protobuf/reflect/protoreflect"

// EachMessage calls f on m and, in tree order, on every message below it
// (fields in their protobuf order, list elements in order) for which no
// message above returned false: the whole parse tree, whatever its node
// types.
func EachMessage(m protoreflect.Message, f func(protoreflect.Message) bool) {
	WalkMessages(m, struct{}{}, func(m protoreflect.Message, s struct{}) (struct{}, bool) { return s, f(m) })
}

// WalkMessages is EachMessage with a state handed down the tree: f gets m
// and the state its parent's call returned (in, for m itself), and
// returns the state for m's children and whether to walk them. A scope
// (the WITH entries a subtree sees) is such a state.
func WalkMessages[S any](m protoreflect.Message, in S, f func(protoreflect.Message, S) (S, bool)) {
	s, ok := f(m, in)
	if !ok {
		return
	}
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if fd.Kind() != protoreflect.MessageKind {
			return true
		}
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				WalkMessages(l.Get(i).Message(), s, f)
			}
			return true
		}
		WalkMessages(v.Message(), s, f)
		return true
	})
}
