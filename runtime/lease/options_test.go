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

// Options no TTL can make valid are ErrConfig at Acquire, naming the
// field, before anything is sent to Redis (the client here points at a
// port nothing listens on).
func TestInvalidOptionsNameTheField(t *testing.T) {
	rdb := unreachableClient(t)
	for _, tc := range []struct {
		opts Options
		want string
	}{
		{Options{TTL: -time.Second}, "Options.TTL -1s is negative"},
		{Options{CallTimeout: -time.Millisecond}, "Options.CallTimeout -1ms is negative"},
		{Options{ReleaseTimeout: -time.Second}, "Options.ReleaseTimeout"},
		{Options{SafetyMargin: -time.Second}, "Options.SafetyMargin"},
		{Options{MinValidity: -time.Second}, "Options.MinValidity"},
		{Options{DrainTimeout: -time.Second}, "Options.DrainTimeout"},
		{Options{RetryMin: -time.Second}, "Options.RetryMin"},
		{Options{MaxRenewFailures: -1}, "Options.MaxRenewFailures -1 is negative"},
		{Options{RetryMin: time.Second, RetryMax: time.Millisecond}, "Options.RetryMin 1s is above RetryMax 1ms"},
		// A call that may last a whole TTL cannot keep the lease.
		{Options{CallTimeout: 10 * time.Second}, "Options.CallTimeout 10s not below TTL 10s"},
		{Options{TTL: time.Second, CallTimeout: 2 * time.Second}, "Options.CallTimeout 2s not below TTL 1s"},
	} {
		if tc.opts.TTL != 0 {
			// A default TTL the lease cannot keep is refused by New.
			if msg := newPanics(rdb, &tc.opts); !strings.Contains(msg, tc.want) {
				t.Errorf("New(%+v) panicked with %q, want a refusal saying %q", tc.opts, msg, tc.want)
			}
			continue
		}
		_, err := New(rdb, &tc.opts).Acquire(bg, "opts", 0)
		if !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want ErrConfig saying %q", tc.opts, err, tc.want)
		}
	}
	// The documented negative values stay valid: no heartbeat, no retries.
	if _, err := New(rdb, &Options{HeartbeatInterval: -1, AcquireRetries: -1}).timing(0); err != nil {
		t.Errorf("HeartbeatInterval and AcquireRetries -1: %v", err)
	}
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
	c := New(testenv.Redis(t), &Options{MinValidity: -time.Nanosecond})
	_, err := c.Acquire(bg, "x", time.Second)
	if err == nil || !strings.Contains(err.Error(), "MinValidity -1ns is negative") {
		t.Fatalf("Acquire = %v, want MinValidity -1ns named", err)
	}
	_, err = New(testenv.Redis(t), nil).Acquire(bg, "x", -time.Nanosecond)
	if err == nil || !strings.Contains(err.Error(), "ttl -1ns is negative") {
		t.Fatalf("Acquire = %v, want ttl -1ns named", err)
	}
}

// Check reports options no TTL can make valid (here a KeyPrefix with a
// brace) as ErrConfig, as the first Acquire would, before sending anything.
func TestCheckReportsInvalidOptions(t *testing.T) {
	c := New(testenv.Redis(t), &Options{KeyPrefix: "a{b}"})
	if err := c.Check(bg); !errors.Is(err, ErrConfig) || !strings.Contains(err.Error(), "KeyPrefix") {
		t.Fatalf("Check = %v, want ErrConfig naming KeyPrefix", err)
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
	for _, want := range []string{"Options.TTL 1ms", "too short", "minimum TTL with these options: 6ms"} {
		if !strings.Contains(msg, want) {
			t.Errorf("New(TTL 1ms) panicked with %q, want it to say %q", msg, want)
		}
	}
	if strings.Contains(msg, "lease: lease:") {
		t.Errorf("message %q repeats its prefix", msg)
	}
	if msg := newPanics(rdb, &Options{TTL: 6 * time.Millisecond}); msg != "" {
		t.Errorf("New(TTL 6ms) panicked: %s", msg)
	}
}
