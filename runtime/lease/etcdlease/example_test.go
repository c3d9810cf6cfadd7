package etcdlease_test

import (
	"context"
	"errors"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fencegen/fencegen/runtime/fence"
	"github.com/fencegen/fencegen/runtime/lease"
	"github.com/fencegen/fencegen/runtime/lease/etcdlease"
)

// A worker moved from the Redis lease: only the construction changes.
func ExampleNew() {
	cli, err := clientv3.New(clientv3.Config{Endpoints: []string{"127.0.0.1:2379"}, DialTimeout: 5 * time.Second})
	if err != nil {
		return
	}
	defer cli.Close()
	locker := etcdlease.New(cli, nil) // was: lease.New(redisClient, nil)

	ctx := context.Background()
	err = locker.Do(ctx, "account:42", 10*time.Second, func(ctx context.Context, token fence.Token) error {
		// q.CreditAccount(ctx, params, token): the token is the lock key's
		// create revision, above every earlier holder's.
		return nil
	})
	if errors.Is(err, lease.ErrNotAcquired) {
		return // etcd answered: someone else holds it
	}
}
