package faults

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"

	"github.com/redis/go-redis/v9"
)

// RedisLogEnv names the environment variable that, set to any value, makes
// [QuietRedisLog] write go-redis's log lines to stderr after all.
const RedisLogEnv = "FENCEGEN_REDIS_LOG"

// redisLog is the go-redis logger QuietRedisLog installs.
type redisLog struct {
	lines   atomic.Int64
	verbose bool
}

func (l *redisLog) Printf(_ context.Context, format string, v ...any) {
	l.lines.Add(1)
	if l.verbose {
		fmt.Fprintf(os.Stderr, "redis: "+format+"\n", v...)
	}
}

var installed atomic.Pointer[redisLog]

// QuietRedisLog replaces go-redis's process-wide logger (redis.SetLogger)
// with one that drops its lines, such as "connection pool: failed to dial
// after 1 attempts: ... connection refused", which every outage test
// provokes by design and which would otherwise flood the test output. Set
// FENCEGEN_REDIS_LOG=1 to see them (on stderr, prefixed "redis: "). Call
// it once from TestMain, before m.Run; [RedisLogLines] counts the lines.
func QuietRedisLog() {
	l := &redisLog{verbose: os.Getenv(RedisLogEnv) != ""}
	installed.Store(l)
	redis.SetLogger(l)
}

// RedisLogLines returns how many lines go-redis logged since QuietRedisLog
// (0 if it was not called).
func RedisLogLines() int64 {
	if l := installed.Load(); l != nil {
		return l.lines.Load()
	}
	return 0
}
