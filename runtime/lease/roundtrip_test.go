package lease

import (
	"testing"
	"time"
)

// Acquire, Renew and Release are one round trip each: counted on a private
// redis-server with INFO commandstats (one EVALSHA each, nothing else, once
// the scripts are loaded; commandstats also lists the GET/SET/INCR/PEXPIRE/
// DEL the script runs inside that one call).
func TestOneRoundTripEachByCommandStats(t *testing.T) {
	r, rdb := private(t, privateOpts)
	c := New(rdb, &Options{HeartbeatInterval: -1})
	warm := mustAcquire(t, c, "rt", time.Second) // EVALSHA → NOSCRIPT → EVAL once per script
	_ = warm.Renew(bg)
	_ = warm.Release(bg)

	step := func(name string, f func()) {
		t.Helper()
		r.ResetStats()
		f()
		calls := r.CommandCalls()
		// commandstats also counts the commands run inside the script.
		inScript := map[string]bool{"get": true, "set": true, "incr": true, "pexpire": true, "del": true, "exists": true}
		for cmd, n := range calls {
			switch {
			case cmd == "evalsha" && n == 1, inScript[cmd], cmd == "config|resetstat", cmd == "info":
			default:
				t.Errorf("%s ran %v on the server, want one evalsha (plus the script's own commands)", name, calls)
			}
		}
		if calls["evalsha"] != 1 {
			t.Errorf("%s ran %d evalsha, want 1", name, calls["evalsha"])
		}
	}
	var l *Lease
	step("Acquire", func() { l = mustAcquire(t, c, "rt", time.Second) })
	step("Renew", func() {
		if err := l.Renew(bg); err != nil {
			t.Fatal(err)
		}
	})
	step("Release", func() {
		if err := l.Release(bg); err != nil {
			t.Fatal(err)
		}
	})
}
