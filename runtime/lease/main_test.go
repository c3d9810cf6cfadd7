package lease

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any goroutine (a heartbeat, a go-redis
// connection) outlives the tests.
//
// With FENCEGEN_LEASE_TEST_WORKER set, the binary is a worker child process
// started by a test (see startWorker) instead.
func TestMain(m *testing.M) {
	if os.Getenv(workerEnv) != "" {
		os.Exit(workerMain())
	}
	goleak.VerifyTestMain(m)
}
