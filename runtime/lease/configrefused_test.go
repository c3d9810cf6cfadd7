package lease

import (
	"errors"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
)

// A README-only trial (F1): a server that refuses CONFIG GET (CONFIG renamed away,
// an ACL user without +config, as managed services do) made Check of a
// *redis.Client return nil with nothing but a log record, which a nil
// Logger drops, on a server with allkeys-lru and no persistence. Check now
// reads what INFO shows, as it does for a plain redis.Scripter, and
// returns each problem, and what INFO cannot show (appendfsync), wrapped
// in ErrUnsafeConfig and never in ErrConfig, with no Logger set; a user
// refused INFO too gets the whole configuration reported unverified.
func TestCheckWithConfigRefusedReadsInfo(t *testing.T) {
	renamed := []string{"--rename-command", "CONFIG", ""}
	const (
		lru       = "maxmemory-policy allkeys-lru can evict the fence counter"
		aofOff    = "appendonly no (INFO persistence: aof_enabled:0)"
		fsync     = "appendfsync could not be verified: CONFIG GET failed ("
		unknown   = "unknown command"
		noperm    = "NOPERM"
		noInfoAll = "the eviction policy and persistence could not be verified: CONFIG GET failed ("
	)
	aclClient := func(t *testing.T, r *faults.Redis, user string, rules ...any) *redis.Client {
		t.Helper()
		if _, err := r.Do(append([]any{"acl", "setuser", user, "on", ">pw", "~*"}, rules...)...); err != nil {
			t.Fatal(err)
		}
		return r.Client(&redis.Options{Username: user, Password: "pw"})
	}
	for _, tc := range []struct {
		name   string
		client func(t *testing.T) redis.Scripter
		want   []string
	}{
		{"CONFIG renamed, allkeys-lru, no persistence", func(t *testing.T) redis.Scripter {
			return faults.StartRedis(t, faults.RedisOptions{MaxmemoryPolicy: "allkeys-lru", Args: renamed}).Client(nil)
		}, []string{lru, aofOff}},
		{"CONFIG renamed, noeviction, appendonly yes", func(t *testing.T) redis.Scripter {
			return faults.StartRedis(t, faults.RedisOptions{Persistence: true, Args: renamed}).Client(nil)
		}, []string{fsync + "ERR " + unknown}},
		{"ACL -config, allkeys-lru, no persistence", func(t *testing.T) redis.Scripter {
			return aclClient(t, faults.StartRedis(t, faults.RedisOptions{MaxmemoryPolicy: "allkeys-lru"}), "noconfig", "+@all", "-config")
		}, []string{lru, aofOff}},
		{"ACL -config, noeviction, appendonly yes", func(t *testing.T) redis.Scripter {
			return aclClient(t, faults.StartRedis(t, faults.RedisOptions{Persistence: true}), "noconfig", "+@all", "-config")
		}, []string{fsync + noperm}},
		{"ACL -config -info", func(t *testing.T) redis.Scripter {
			return aclClient(t, faults.StartRedis(t, faults.RedisOptions{Persistence: true}), "noconfig", "+@all", "-config", "-info")
		}, []string{noInfoAll + noperm}},
		{"cluster, ACL -config, allkeys-lru", func(t *testing.T) redis.Scripter {
			cl := faults.StartCluster(t, 3, faults.RedisOptions{MaxmemoryPolicy: "allkeys-lru"})
			for _, n := range cl.Nodes {
				if _, err := n.Do("acl", "setuser", "noconfig", "on", ">pw", "~*", "+@all", "-config"); err != nil {
					t.Fatal(err)
				}
			}
			return cl.Client(&redis.ClusterOptions{Username: "noconfig", Password: "pw"})
		}, []string{lru, aofOff}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := New(tc.client(t), nil).Check(bg) // no Logger: the error is all there is
			if !errors.Is(err, ErrUnsafeConfig) || errors.Is(err, ErrConfig) {
				t.Fatalf("Check = %v, want ErrUnsafeConfig and not ErrConfig", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Check = %v, want it to say %q", err, w)
				}
			}
			// One problem each, once for all the masters of a cluster.
			if n := strings.Count(err.Error(), "lease: unsafe Redis configuration"); n != len(tc.want) {
				t.Errorf("Check = %v: %d problems, want %d", err, n, len(tc.want))
			}
		})
	}
}
