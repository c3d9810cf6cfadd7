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
	// The fields in declaration order: protoreflect's Range visits them
	// in an order that changes with the binary (protobuf's detrand), and
	// callers rely on tree order.
	fields := m.Descriptor().Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if fd.Kind() != protoreflect.MessageKind || !m.Has(fd) {
			continue
		}
		v := m.Get(fd)
		if fd.IsList() {
			l := v.List()
			for i := 0; i < l.Len(); i++ {
				WalkMessages(l.Get(i).Message(), s, f)
			}
			continue
		}
		WalkMessages(v.Message(), s, f)
	}
}
