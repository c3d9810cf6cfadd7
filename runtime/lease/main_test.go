package lease

import (
	"testing"

	"go.uber.org/goleak"
)

// TestMain fails the package if any goroutine (a heartbeat, a go-redis
// connection) outlives the tests.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
