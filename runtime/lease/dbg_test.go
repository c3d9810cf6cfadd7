package lease

import (
	"context"
	"syscall"
	"testing"
	"time"
)

func TestDbg(t *testing.T) {
	rdb, proc := privateRedis(t)
	proc.Signal(syscall.SIGSTOP)
	for i := 0; i < 3; i++ {
		ctx, cancel := context.WithTimeout(bg, 166*time.Millisecond)
		s := time.Now()
		err := rdb.Get(ctx, "x").Err()
		cancel()
		t.Log(time.Since(s), err)
	}
	proc.Signal(syscall.SIGCONT)
}
