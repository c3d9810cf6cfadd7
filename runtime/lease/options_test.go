package lease

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/testenv"
)

// Options the lease cannot keep are refused by New, with the default TTL
// of 10s as with Options.TTL (r26 N4: New checked only a TTL it was given,
// so HeartbeatInterval 20s failed every Acquire later): the panic value
// wraps an *OptionsError (ErrConfig) whose Fields name the options, before
// anything is sent to Redis (the client here points at a port nothing
// listens on).
func TestInvalidOptionsNameTheField(t *testing.T) {
	rdb := unreachableClient(t)
	for _, tc := range []struct {
		opts   Options
		want   string
		fields []string
	}{
		{Options{TTL: -time.Second}, "Options.TTL -1s is negative", []string{"Options.TTL"}},
		{Options{CallTimeout: -time.Millisecond}, "Options.CallTimeout -1ms is negative", []string{"Options.CallTimeout"}},
		{Options{ReleaseTimeout: -time.Second}, "Options.ReleaseTimeout", []string{"Options.ReleaseTimeout"}},
		{Options{SafetyMargin: -time.Second}, "Options.SafetyMargin", []string{"Options.SafetyMargin"}},
		{Options{MinValidity: -time.Second}, "Options.MinValidity", []string{"Options.MinValidity"}},
		{Options{DrainTimeout: -time.Second}, "Options.DrainTimeout", []string{"Options.DrainTimeout"}},
		{Options{RetryMin: -time.Second}, "Options.RetryMin", []string{"Options.RetryMin"}},
		{Options{MaxRenewFailures: -1}, "Options.MaxRenewFailures -1 is negative", []string{"Options.MaxRenewFailures"}},
		{Options{RetryMin: time.Second, RetryMax: time.Millisecond}, "Options.RetryMin 1s is above RetryMax 1ms", []string{"Options.RetryMin", "Options.RetryMax"}},
		{Options{KeyPrefix: "a{b"}, "KeyPrefix \"a{b\" contains", []string{"Options.KeyPrefix"}},
		// A call that may last a whole TTL cannot keep the lease.
		{Options{CallTimeout: 10 * time.Second}, "default TTL 10s (Options.TTL is 0; set it to the TTL the leases use): configuration error: Options.CallTimeout 10s not below TTL 10s", []string{"Options.CallTimeout", "Options.TTL"}},
		{Options{TTL: time.Second, CallTimeout: 2 * time.Second}, "Options.TTL 1s: configuration error: Options.CallTimeout 2s not below TTL 1s", []string{"Options.CallTimeout", "Options.TTL"}},
		// A heartbeat, a validity floor or a margin the default TTL
		// leaves no room for.
		{Options{HeartbeatInterval: 20 * time.Second}, "HeartbeatInterval 20s not below TTL − SafetyMargin 9s", []string{"Options.HeartbeatInterval", "Options.TTL", "Options.SafetyMargin"}},
		{Options{MinValidity: 9 * time.Second}, "MinValidity 9s not below TTL − SafetyMargin 9s", []string{"Options.MinValidity", "Options.TTL", "Options.SafetyMargin"}},
		{Options{SafetyMargin: 10 * time.Second}, "SafetyMargin 10s not below TTL 10s", []string{"Options.SafetyMargin", "Options.TTL"}},
	} {
		r := newRefusal(rdb, &tc.opts)
		var oe *OptionsError
		if !errors.As(r, &oe) || !errors.Is(r, ErrConfig) || !strings.Contains(r.Error(), tc.want) || fmt.Sprint(oe.Fields) != fmt.Sprint(tc.fields) {
			t.Errorf("New(%+v) panicked with %v (fields %v), want an *OptionsError saying %q, naming %v", tc.opts, r, fieldsOf(oe), tc.want, tc.fields)
		}
	}
	// The documented negative values stay valid: no heartbeat, no retries.
	if _, err := New(rdb, &Options{HeartbeatInterval: -1, AcquireRetries: -1}).timing(0); err != nil {
		t.Errorf("HeartbeatInterval and AcquireRetries -1: %v", err)
	}
	// A TTL passed to Acquire is checked there, with the same error type:
	// "ttl" names the argument.
	_, err := New(rdb, &Options{HeartbeatInterval: 5 * time.Second}).Acquire(bg, "opts", 2*time.Second)
	var oe *OptionsError
	if !errors.As(err, &oe) || fmt.Sprint(oe.Fields) != "[Options.HeartbeatInterval ttl Options.SafetyMargin]" || oe.TTL != 2*time.Second {
		t.Errorf("Acquire(ttl 2s) with HeartbeatInterval 5s = %v (fields %v), want an *OptionsError naming the heartbeat and ttl", err, fieldsOf(oe))
	}
}

// fieldsOf is e.Fields, or nil for a nil e.
func fieldsOf(e *OptionsError) []string {
	if e == nil {
		return nil
	}
	return e.Fields
}

// newRefusal returns the error New(rdb, opts) panicked with, or nil if it
// did not panic; a panic with a non-error value fails the test.
func newRefusal(rdb redis.Scripter, opts *Options) (err error) {
	defer func() {
		if r := recover(); r != nil {
			var ok bool
			if err, ok = r.(error); !ok {
				err = fmt.Errorf("panic value %T, not an error: %v", r, r)
			}
		}
	}()
	New(rdb, opts)
	return nil
}

// unreachableClient is a go-redis client for a loopback port nothing
// listens on, with one dial attempt: a test that uses it must fail before
// Redis is asked anything.
func unreachableClient(t *testing.T) *redis.Client {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:1", MaxRetries: -1, DialTimeout: 100 * time.Millisecond})
	t.Cleanup(func() { rdb.Close() })
	return rdb
}

// Durations below a microsecond keep their value in messages: a TTL of
// -1ns is "-1ns is negative", not "0s is negative".
func TestSubMicrosecondDurationsInMessages(t *testing.T) {
	err := newRefusal(testenv.Redis(t), &Options{MinValidity: -time.Nanosecond})
	if err == nil || !strings.Contains(err.Error(), "MinValidity -1ns is negative") {
		t.Fatalf("New = %v, want MinValidity -1ns named", err)
	}
	_, err = New(testenv.Redis(t), nil).Acquire(bg, "x", -time.Nanosecond)
	if err == nil || !strings.Contains(err.Error(), "ttl -1ns is negative") {
		t.Fatalf("Acquire = %v, want ttl -1ns named", err)
	}
}

// newPanics returns what New(rdb, opts) panicked with, or "" if it did not.
func newPanics(rdb redis.Scripter, opts *Options) (msg string) {
	defer func() {
		if r := recover(); r != nil {
			msg = fmt.Sprint(r)
		}
	}()
	New(rdb, opts)
	return ""
}

// Issue 26, the first hour: a default TTL the lease cannot keep (1ms, whose
// TTL/6 leaves a Redis call no time) is refused by New, naming the rule and
// the least TTL the options allow, instead of failing every Acquire later
// (or reaching Check, where it could be taken for one more warning). A TTL
// it can keep is accepted.
func TestNewRefusesTTLItCannotKeep(t *testing.T) {
	rdb := unreachableClient(t)
	msg := newPanics(rdb, &Options{TTL: time.Millisecond})
	for _, want := range []string{"Options.TTL 1ms", "too short", "minimum TTL with these options: 36ms"} {
		if !strings.Contains(msg, want) {
			t.Errorf("New(TTL 1ms) panicked with %q, want it to say %q", msg, want)
		}
	}
	if strings.Contains(msg, "lease: lease:") {
		t.Errorf("message %q repeats its prefix", msg)
	}
	if msg := newPanics(rdb, &Options{TTL: 36 * time.Millisecond}); msg != "" {
		t.Errorf("New(TTL 36ms) panicked: %s", msg)
	}
}
