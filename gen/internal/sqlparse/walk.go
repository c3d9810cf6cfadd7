package sqlparse

import (
	"sync"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/fencegen/fencegen/gen/internal/pgpb"
)

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
	// pg_query's messages, without protobuf reflection's set-up of
	// each message type (its walk below needs Has, Get and WhichOneof):
	// a schema's first walk paid for pg_query.proto's whole descriptor
	// and Node's 252 oneof fields, on the goroutine that builds the
	// catalog (BENCHMARKS.md, issue 23).
	if pgpb.EachChild(m.Interface(), func(c proto.Message) { WalkMessages(c.ProtoReflect(), s, f) }) {
		return
	}
	for _, st := range walkPlanOf(m.Descriptor()) {
		fd := st.field
		if st.oneof != nil {
			// One question for the whole run of the oneof's fields
			// (pg_query's Node is a oneof of some 250 messages): the
			// field it holds, where asking each field (Has) was most of
			// a walk's time.
			fd = m.WhichOneof(st.oneof)
			if fd == nil || fd.Index() < st.first || fd.Index() > st.last || fd.Kind() != protoreflect.MessageKind {
				continue
			}
		} else if !m.Has(fd) {
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

// walkStep is one step of a walkPlan: a message field (field), or a run
// of fields of one oneof, first to last by declaration index, of which
// the one the oneof holds is walked if it is a message field.
type walkStep struct {
	field       protoreflect.FieldDescriptor
	oneof       protoreflect.OneofDescriptor
	first, last int
}

// walkPlans holds each message descriptor's walkPlan.
var walkPlans sync.Map // protoreflect.MessageDescriptor -> []walkStep

// walkPlanOf is the fields of messages of descriptor md WalkMessages
// looks at, in declaration order (protoreflect's Range visits fields in
// an order that changes with the binary, protobuf's detrand, and callers
// rely on tree order): each message field on its own, but the fields of a
// oneof (not a synthetic one, proto3 optional) that follow each other in
// declaration order as one step, so that a message holding one of them
// is asked which once.
func walkPlanOf(md protoreflect.MessageDescriptor) []walkStep {
	if p, ok := walkPlans.Load(md); ok {
		return p.([]walkStep)
	}
	var plan []walkStep
	fields := md.Fields()
	for i := 0; i < fields.Len(); i++ {
		fd := fields.Get(i)
		if od := fd.ContainingOneof(); od != nil && !od.IsSynthetic() {
			if n := len(plan); n > 0 && plan[n-1].oneof == od && plan[n-1].last == i-1 {
				plan[n-1].last = i
				continue
			}
			plan = append(plan, walkStep{oneof: od, first: i, last: i})
			continue
		}
		if fd.Kind() == protoreflect.MessageKind {
			plan = append(plan, walkStep{field: fd})
		}
	}
	p, _ := walkPlans.LoadOrStore(md, plan)
	return p.([]walkStep)
}
