package etcdlease

import clientv3 "go.etcd.io/etcd/client/v3"

// AfterGrant sets a hook run between an Acquire's grant and its
// transaction.
func AfterGrant(c *Client, f func(clientv3.LeaseID)) { c.afterGrant = f }
