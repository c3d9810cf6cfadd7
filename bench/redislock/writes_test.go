package redislock

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/bsm/redislock"
	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/internal/faults"
)

// BenchmarkScriptWrites splits the lease's script cost by what its two
// scripts do on the server: each variant is an acquire script and a
// release script sent bare (go-redis Do, no lease code, the lease's keys
// and arguments), interleaved with redislock's Obtain + Release as in
// CycleInterleaved. "token-lock" mints and locks the least a fencing token
// lock can (INCR, SET NX PX; GET, DEL: three key writes a cycle); each
// "+..." variant adds one more key write of the lease's (the :minted
// record at acquire, the :released record at release, :minted marked
// released); "lease-scripts" are the lease's own scripts with the
// arguments the lease sends on the hot path (SET NX PX, INCR, SET with GET
// of the :minted record, whose old value carries the abandon list; GET,
// DEL: four key writes in five calls, three keys and two arguments at
// acquire, one key and one argument at release); "lease-released-record"
// the same with the release script before 2026-12-07 (testdata: GET, DEL
// and SET of the :released record, two keys); "lease-exists-mark" the
// acquire script before the abandon list (testdata: EXISTS of the abandon
// mark first, four keys); "lease-token-value" the scripts before the lock
// key held the owner alone
// (testdata: the lock key "<owner>:<token>", MGET, INCR, SET, SET; GET,
// DEL, SET, with five keys and five arguments at acquire, three keys and
// one argument at release); "lease-before" the scripts before issue 26's
// release no longer marked :minted (testdata: six writes in eight calls);
// "lease-folded" six writes in six calls (MGET, SET, MSET; GET, DEL,
// MSET). Every variant but the two lease-scripts ones takes the five keys and five
// arguments at acquire. ratio-<variant> is redislock's median over the
// variant's, as in CycleInterleaved.
//
//	cd bench/redislock && go test -run '^$' -bench ScriptWrites -benchtime 20000x -count 3
func BenchmarkScriptWrites(b *testing.B) {
	r := faults.StartRedis(b, faults.RedisOptions{})
	rdb := r.Client(&redis.Options{ContextTimeoutEnabled: true})
	ctx := context.Background()
	pairs := scriptPairs(b)
	variants := []func(string) error{redislockCycle(ctx, redislock.New(rdb))}
	prefixes := []string{"b"}
	for i, p := range pairs {
		variants = append(variants, p.cycle(b, ctx, rdb, fmt.Sprint("w", i, ":{")))
		prefixes = append(prefixes, fmt.Sprint("w", i))
	}
	m := interleave(b, variants, prefixes...)
	b.ReportMetric(float64(m[0].Nanoseconds())/1e3, "redislock-µs")
	for i, p := range pairs {
		b.ReportMetric(float64(m[0])/float64(m[i+1]), "ratio-"+p.name)
	}
}

// scriptPair is an acquire script and a release script that
// BenchmarkScriptWrites and BenchmarkScriptInstructions send bare.
type scriptPair struct {
	name, acquire, release string
	// hot: the pair takes the lease's hot-path arguments since the
	// owner-only lock value (acquire: three keys, owner and TTL; release:
	// the lock key, the owner); the others the layout before it (five keys
	// and five arguments; three keys and "<owner>:<token>"). mark: the hot
	// form names the abandon mark too. record: the release takes the
	// :released record too (its key second), as before 2026-12-07.
	hot, mark, record bool
}

// scriptPairs returns the script pairs of BenchmarkScriptWrites, read from
// runtime/lease and testdata.
func scriptPairs(b *testing.B) []scriptPair {
	read := func(path string) string {
		src, err := os.ReadFile(path)
		if err != nil {
			b.Fatal(err)
		}
		return string(src)
	}
	file := func(name string) string { return read(filepath.Join("..", "..", "runtime", "lease", name)) }
	// KEYS: lock, counter, minted, abandon mark, released; ARGV: owner, TTL ms, floor,
	// askMissing, retry (acquire.lua's). Release: lock, minted, released;
	// ARGV: "<owner>:<token>".
	const (
		incrSet = `local t = redis.call('INCR', KEYS[2])
local v = ARGV[1] .. ':' .. t
redis.call('SET', KEYS[1], v, 'NX', 'PX', ARGV[2])
`
		getDel = `local cur = redis.call('GET', KEYS[1])
if cur ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
`
		folded = `local got = redis.call('MGET', KEYS[1], KEYS[4], KEYS[2])
if got[1] or got[2] then return 0 end
local t = (tonumber(got[3]) or 0) + 1
local d = string.format('%d', t)
local v = ARGV[1] .. ':' .. d
redis.call('SET', KEYS[1], v, 'PX', ARGV[2])
redis.call('MSET', KEYS[2], d, KEYS[3], v)
return t`
	)
	return []scriptPair{
		{"token-lock", incrSet + "return t", getDel + "return 1", false, false, false},
		{"+minted", incrSet + "redis.call('SET', KEYS[3], v)\nreturn t", getDel + "return 1", false, false, false},
		{"+released", incrSet + "redis.call('SET', KEYS[3], v)\nreturn t", getDel + "redis.call('SET', KEYS[3], cur)\nreturn 1", false, false, false},
		{"+minted-marked", incrSet + "redis.call('SET', KEYS[3], v)\nreturn t", getDel + "redis.call('SET', KEYS[2], cur .. ':released')\nredis.call('SET', KEYS[3], cur)\nreturn 1", false, false, false},
		{"lease-scripts", file("acquire.lua"), file("release.lua"), true, false, false},
		{"lease-released-record", file("acquire.lua"), read(filepath.Join("testdata", "release-released-record.lua")), true, false, true},
		{"lease-exists-mark", read(filepath.Join("testdata", "acquire-exists-mark.lua")), file("release.lua"), true, true, false},
		{"lease-token-value", read(filepath.Join("testdata", "acquire-token-value.lua")), read(filepath.Join("testdata", "release-token-value.lua")), false, false, false},
		{"lease-before", read(filepath.Join("testdata", "acquire-before-issue26.lua")), read(filepath.Join("testdata", "release-before-issue26.lua")), false, false, false},
		{"lease-folded", folded, getDel + "redis.call('MSET', KEYS[2], cur .. ':released', KEYS[3], cur)\nreturn 1", false, false, false},
	}
}

// cycle loads p's scripts on rdb and returns one bare cycle of them on a
// resource: the acquire script with a fresh owner, then the release
// script, each one EVALSHA through go-redis's Do, on keys that begin with
// pfx.
func (p scriptPair) cycle(b *testing.B, ctx context.Context, rdb *redis.Client, pfx string) func(string) error {
	load := func(src string) *redis.Script {
		s := redis.NewScript(src)
		if err := s.Load(ctx, rdb).Err(); err != nil {
			b.Fatal(err)
		}
		return s
	}
	acquire, release := load(p.acquire), load(p.release)
	ttl := cycleTTL.Milliseconds()
	return func(name string) error {
		var raw [16]byte
		_, _ = rand.Read(raw[:])
		o, k := hex.EncodeToString(raw[:]), pfx+name+"}:"
		acq := []any{"evalsha", acquire.Hash(), 5, k + "lock", k + "token", k + "minted", k + "abandoned:" + o, k + "released", o, ttl, 0, "0", "0"}
		switch {
		case p.mark:
			acq = []any{"evalsha", acquire.Hash(), 4, k + "lock", k + "token", k + "minted", k + "abandoned:" + o, o, ttl}
		case p.hot:
			acq = []any{"evalsha", acquire.Hash(), 3, k + "lock", k + "token", k + "minted", o, ttl}
		}
		tok, err := rdb.Do(ctx, acq...).Int64()
		if err != nil || tok <= 0 {
			return fmt.Errorf("%s acquire: %d, %v", p.name, tok, err)
		}
		rel := []any{"evalsha", release.Hash(), 3, k + "lock", k + "minted", k + "released", o + ":" + strconv.FormatInt(tok, 10)}
		switch {
		case p.record:
			rel = []any{"evalsha", release.Hash(), 2, k + "lock", k + "released", o}
		case p.hot:
			rel = []any{"evalsha", release.Hash(), 1, k + "lock", o}
		}
		n, err := rdb.Do(ctx, rel...).Int64()
		if err != nil || n != 1 {
			return fmt.Errorf("%s release: %d, %v", p.name, n, err)
		}
		return nil
	}
}
