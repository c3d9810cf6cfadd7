package testenv

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// recorder is a testing.TB that records Skipf and Fatalf instead of
// acting on the real test.
type recorder struct {
	testing.TB
	msg     string
	skipped bool
	failed  bool
}

func (r *recorder) Helper() {}

func (r *recorder) Skipf(format string, args ...any) {
	r.msg, r.skipped = fmt.Sprintf(format, args...), true
	runtime.Goexit()
}

func (r *recorder) Fatalf(format string, args ...any) {
	r.msg, r.failed = fmt.Sprintf(format, args...), true
	runtime.Goexit()
}

// record runs f with a recorder in a goroutine of its own (Skipf and
// Fatalf end it) and returns the recorder.
func record(t *testing.T, f func(testing.TB)) *recorder {
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		f(r)
	}()
	<-done
	return r
}

// Nothing listens on port 1 of the loopback interface: connections are
// refused at once.
const (
	deadDatabase = "postgres://postgres:secret@127.0.0.1:1/app?sslmode=disable"
	deadRedis    = "redis://:secret@127.0.0.1:1/3"
)

func TestUnreachableServerSkipsWithOneLine(t *testing.T) {
	t.Setenv("CI", "")
	t.Setenv("DATABASE_URL", deadDatabase)
	t.Setenv("REDIS_URL", deadRedis)
	for _, c := range []struct {
		name string
		f    func(testing.TB)
		want string
	}{
		{"PostgreSQL", func(t testing.TB) { NewDatabase(t) }, "SKIP: PostgreSQL unreachable at 127.0.0.1:1/app (from DATABASE_URL): "},
		{"Redis", func(t testing.TB) { Redis(t) }, "SKIP: Redis unreachable at 127.0.0.1:1/3 (from REDIS_URL): "},
	} {
		r := record(t, c.f)
		if !r.skipped || !strings.HasPrefix(r.msg, c.want) {
			t.Errorf("%s: skipped %v with %q, want a skip starting %q", c.name, r.skipped, r.msg, c.want)
		}
		if strings.ContainsAny(r.msg, "\n\r") || strings.Contains(r.msg, "secret") {
			t.Errorf("%s: message %q is not one line without the password", c.name, r.msg)
		}
	}
}

func TestUnreachableServerFailsInCI(t *testing.T) {
	t.Setenv("CI", "true")
	t.Setenv("DATABASE_URL", deadDatabase)
	r := record(t, func(t testing.TB) { NewDatabase(t) })
	if want := "CI=true: PostgreSQL unreachable at 127.0.0.1:1/app (from DATABASE_URL): "; !r.failed || !strings.HasPrefix(r.msg, want) {
		t.Errorf("failed %v with %q, want a failure starting %q", r.failed, r.msg, want)
	}
}

func TestUnavailableMessage(t *testing.T) {
	t.Setenv("DATABASE_URL", "")
	multi := errors.New("failed to connect to `user=postgres database=postgres`:\n\t[::1]:5432 (localhost): dial error\n\t127.0.0.1:5432 (localhost): dial error")
	for _, c := range []struct {
		service, variable, addr string
		err                     error
		want                    string
	}{
		{"PostgreSQL", "DATABASE_URL", databaseAddr(), multi,
			"PostgreSQL unreachable at 127.0.0.1:5432/postgres (DATABASE_URL unset, default used): failed to connect to `user=postgres database=postgres`: [::1]:5432 (localhost): dial error 127.0.0.1:5432 (localhost): dial error"},
		{"redis-server binary", "PATH", "", errors.New(`exec: "redis-server": executable file not found in $PATH`),
			`redis-server binary unavailable (set PATH): exec: "redis-server": executable file not found in $PATH`},
	} {
		if got := unavailableMessage(c.service, c.variable, c.addr, c.err); got != c.want {
			t.Errorf("unavailableMessage(%q, %q, %q, ...)\n got %q\nwant %q", c.service, c.variable, c.addr, got, c.want)
		}
	}
}
