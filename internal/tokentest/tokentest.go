// Package tokentest checks, for tests of generated packages, that every
// generated method taking a fence.Token refuses a token no lease mints (0,
// negative) before sending anything: it calls each such method of a
// generated Queries value through reflection, with zero arguments (slices of
// one zero element), and reads what the caller of a real database sees.
package tokentest

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/fencegen/fencegen/runtime/fence"
)

// Tracer counts what a pgx connection sends: queries (database/sql through
// pgx's stdlib driver included), batches, COPY FROM and prepares. Set it as
// pgx.ConnConfig.Tracer.
type Tracer struct{ sent atomic.Int64 }

// Sent is how many statements, batches, COPYs and prepares were started.
func (c *Tracer) Sent() int64 { return c.sent.Load() }

func (c *Tracer) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.sent.Add(1)
	return ctx
}
func (c *Tracer) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}
func (c *Tracer) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.sent.Add(1)
	return ctx
}
func (c *Tracer) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *Tracer) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}
func (c *Tracer) TraceCopyFromStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceCopyFromStartData) context.Context {
	c.sent.Add(1)
	return ctx
}
func (c *Tracer) TraceCopyFromEnd(context.Context, *pgx.Conn, pgx.TraceCopyFromEndData) {}
func (c *Tracer) TracePrepareStart(ctx context.Context, _ *pgx.Conn, _ pgx.TracePrepareStartData) context.Context {
	c.sent.Add(1)
	return ctx
}
func (c *Tracer) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}

var tokenType = reflect.TypeFor[fence.Token]()

// Methods returns the names of q's methods whose last parameter is a
// fence.Token.
func Methods(q any) []string {
	var out []string
	t := reflect.TypeOf(q)
	for i := range t.NumMethod() {
		m := t.Method(i)
		if n := m.Type.NumIn(); n > 1 && m.Type.In(n-1) == tokenType {
			out = append(out, m.Name)
		}
	}
	return out
}

// Call calls q's method name with ctx, zero arguments (a slice holds one
// zero element) and token, and returns the errors the caller sees: the
// method's error, or for a batch method the error its reader hands the
// callback for each item followed by Close's.
func Call(t *testing.T, ctx context.Context, q any, name string, token fence.Token) []error {
	t.Helper()
	m := reflect.ValueOf(q).MethodByName(name)
	mt := m.Type()
	args := []reflect.Value{reflect.ValueOf(ctx)}
	for i := 1; i < mt.NumIn()-1; i++ {
		in := mt.In(i)
		v := reflect.New(in).Elem()
		if in.Kind() == reflect.Slice {
			v = reflect.MakeSlice(in, 1, 1)
		}
		args = append(args, v)
	}
	args = append(args, reflect.ValueOf(token))
	out := m.Call(args)
	last := out[len(out)-1]
	if last.Type() == reflect.TypeFor[error]() {
		err, _ := last.Interface().(error)
		return []error{err}
	}
	// A batch: *<Name>BatchResults, read with Exec, Query or QueryRow.
	var errs []error
	for _, reader := range []string{"Exec", "Query", "QueryRow"} {
		r := last.MethodByName(reader)
		if !r.IsValid() {
			continue
		}
		cb := reflect.MakeFunc(r.Type().In(0), func(in []reflect.Value) []reflect.Value {
			err, _ := in[len(in)-1].Interface().(error)
			errs = append(errs, err)
			return nil
		})
		r.Call([]reflect.Value{cb})
		break
	}
	closeErr, _ := last.MethodByName("Close").Call(nil)[0].Interface().(error)
	return append(errs, closeErr)
}

// Refused fails t unless every method of q that takes a token returns a
// *fence.InvalidTokenError (errors.Is fence.ErrInvalidToken) naming it and
// the token, for tokens 0 and -5, while sent (what the connection has sent
// so far: Tracer.Sent, or a count of a driver's log) does not move; and
// unless token 1 does send (so that the count can fail). It returns the
// number of methods checked.
func Refused(t *testing.T, q any, sent func() int64) int {
	t.Helper()
	ctx := context.Background()
	methods := Methods(q)
	for _, name := range methods {
		for _, tok := range []fence.Token{0, -5} {
			before := sent()
			errs := Call(t, ctx, q, name, tok)
			if n := sent() - before; n != 0 {
				t.Errorf("%s(token %d) sent %d statements; want none", name, tok, n)
			}
			for _, err := range errs {
				var ie *fence.InvalidTokenError
				if !errors.Is(err, fence.ErrInvalidToken) || !errors.As(err, &ie) || ie.Token != tok || ie.Query != name {
					t.Errorf("%s(token %d): %v; want a *fence.InvalidTokenError for %s, token %d", name, tok, err, name, tok)
				}
			}
		}
		before := sent()
		Call(t, ctx, q, name, 1)
		if sent() == before {
			t.Errorf("%s(token 1) sent nothing the tracer saw; the check above proves nothing", name)
		}
	}
	return len(methods)
}
