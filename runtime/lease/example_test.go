package lease_test

import (
	"context"
	"errors"
	"fmt"
	"log"
	"time"

	"github.com/redis/go-redis/v9"

	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
)

// creditAccount stands for a fencegen-generated fenced method.
func creditAccount(ctx context.Context, id int64, token fence.Token) error { return nil }

// Acquire, make a fenced write with the token under the lease context, and
// release. Compile-only: it needs a Redis server.
func ExampleClient_Acquire() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer rdb.Close()
	locker := lease.New(rdb, nil)

	ctx := context.Background()
	l, err := locker.Acquire(ctx, "account:42", 10*time.Second)
	if errors.Is(err, lease.ErrNotAcquired) {
		fmt.Println("someone else holds account:42")
		return
	} else if err != nil {
		log.Fatal(err)
	}
	defer l.Release(ctx) // stops the heartbeat, then compare-and-delete

	work, cancel := context.WithCancel(l.Context())
	defer cancel()
	err = creditAccount(work, 42, l.Token())
	switch {
	case errors.Is(err, fence.ErrStaleToken):
		fmt.Println("a newer holder wrote the row")
	case errors.Is(context.Cause(work), lease.ErrLost):
		var lost *lease.LostError
		errors.As(context.Cause(work), &lost)
		fmt.Println("lease lost:", lost.Reason)
	}
}

// Do acquires, runs the function under the lease and releases, also on panic.
func ExampleClient_Do() {
	rdb := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", ContextTimeoutEnabled: true})
	defer rdb.Close()
	locker := lease.New(rdb, &lease.Options{HeartbeatInterval: time.Second})

	err := locker.Do(context.Background(), "account:42", 3*time.Second, func(ctx context.Context, token fence.Token) error {
		return creditAccount(ctx, 42, token)
	})
	switch {
	case errors.Is(err, lease.ErrNotAcquired):
		// try later
	case errors.Is(err, lease.ErrLost):
		// the work may have overlapped with another holder; the fencing
		// token made the database reject the stale writes
	case err != nil:
		log.Print(err)
	}
}
