package lease

import (
	"os"
	"testing"

	"go.uber.org/goleak"

	"github.com/fencegen/fencegen/internal/faults"
)

// TestMain fails the package if any goroutine (a heartbeat, a go-redis
// connection) outlives the tests.
//
// With FENCEGEN_LEASE_TEST_WORKER set, the binary is a worker child process
// started by a test (see startWorker) instead.
//
// go-redis's own log lines (a refused dial, which the outage tests provoke
// on purpose) are dropped: FENCEGEN_REDIS_LOG=1 shows them.
func TestMain(m *testing.M) {
	faults.QuietRedisLog()
	if os.Getenv(workerEnv) != "" {
		os.Exit(workerMain())
	}
	// go-redis re-dials a refused address in the background for a second
	// after the client that tried it was closed (pool.tryDial); that is
	// not a goroutine of this package.
	goleak.VerifyTestMain(m, goleak.IgnoreAnyFunction("github.com/redis/go-redis/v9/internal/pool.(*ConnPool).tryDial"))
}
