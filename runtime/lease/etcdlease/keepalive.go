package etcdlease

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	pb "go.etcd.io/etcd/api/v3/etcdserverpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"google.golang.org/grpc"
)

// keepAliver carries the renewals of every lease of a Client on one
// LeaseKeepAlive stream, pipelined: a renewal is one request message on
// the open stream and one response, matched by lease ID, where
// clientv3's KeepAliveOnce opens and closes a stream per call. The stream
// is opened by the first renewal, closed when the Client holds no lease
// (so an idle Client keeps no goroutine), and replaced after it failed or
// stalled. clientv3's own KeepAlive shares one stream too, but renews on
// its own schedule and measures the TTL from the reply; the lease's local
// deadline needs each request's send time.
type keepAliver struct {
	cli *clientv3.Client

	mu      sync.Mutex
	leases  int // leases started and not ended
	s       *kaStream
	opening *kaOpen // the stream being opened, if any
	waiters map[clientv3.LeaseID][]chan kaResult
}

// kaOpen is one attempt to open the stream: done is closed when it ended,
// with err set if it failed.
type kaOpen struct {
	done chan struct{}
	err  error
}

// kaStream is one open LeaseKeepAlive stream.
type kaStream struct {
	stream pb.Lease_LeaseKeepAliveClient
	done   <-chan struct{} // closed when the stream is closed (cancel)
	cancel context.CancelFunc
	// sending holds a token while one renewal is in Send: gRPC allows one
	// sender at a time on a stream, and Send is not made under k.mu (see
	// renew).
	sending  chan struct{}
	lastRecv time.Time // of the last response, zero before the first; guarded by k.mu
}

type kaResult struct {
	ttl int64
	err error
}

func newKeepAliver(cli *clientv3.Client) *keepAliver {
	return &keepAliver{cli: cli, waiters: map[clientv3.LeaseID][]chan kaResult{}}
}

// hold counts a lease started (+1) or ended (-1); the stream closes when
// none is left.
func (k *keepAliver) hold(n int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.leases += n
	if k.leases == 0 && k.s != nil {
		k.closeLocked(k.s, errors.New("no lease left"))
	}
}

// closeLocked closes s and fails every renewal waiting on it, if s is
// still the open stream. k.mu is held.
func (k *keepAliver) closeLocked(s *kaStream, err error) {
	if k.s != s {
		return
	}
	k.s = nil
	s.cancel()
	for id, q := range k.waiters {
		for _, ch := range q {
			ch <- kaResult{err: err}
		}
		delete(k.waiters, id)
	}
}

// renew sends one keep-alive of id on the shared stream and waits for its
// response or ctx (renewals of one id sent at once are answered in the
// order they were sent). It returns the TTL etcd granted (≤ 0: no such lease).
// A renewal cut off by ctx while the stream has answered nothing since the
// request was sent, or while its Send is still blocked, closes the stream
// (it stalled: a partition, a member that hangs), so that the next renewal
// opens a new one, which the client's balancer may put on another member.
//
// Send runs outside k.mu: it blocks once HTTP/2 flow control leaves no
// window (a member that reads nothing: after about 128 KB of requests,
// the stream's window and gRPC's write quota), and until the connection
// dies, minutes later without gRPC keepalives. Under k.mu it would hold up
// the receiver, every other renewal, the stall detection that closes the
// stream (which ends the Send) and the end of every lease (hold), each
// past its own context (TestKeepAliveSendBlockedByFlowControlHoldsNoLock).
// A renewal waits for its turn to send bounded by ctx, and registers its
// response channel only once it holds the turn, so that the channels of
// one id are queued in the order their requests go out.
func (k *keepAliver) renew(ctx context.Context, id clientv3.LeaseID) (int64, error) {
	var s *kaStream
	for s == nil {
		open, err := k.stream(ctx)
		if err != nil {
			return 0, err
		}
		k.mu.Unlock()
		select {
		case open.sending <- struct{}{}:
			s = open
		case <-open.done: // closed meanwhile: the next renewal opens another
		case <-ctx.Done():
			return 0, ctx.Err()
		}
	}
	if err := ctx.Err(); err != nil {
		// ctx ended as the turn came (select picks either): nothing sent.
		<-s.sending
		return 0, err
	}
	k.mu.Lock()
	if k.s != s {
		// Closed while this renewal took its turn.
		k.mu.Unlock()
		<-s.sending
		return 0, errors.New("keep-alive stream closed")
	}
	ch := make(chan kaResult, 1)
	k.waiters[id] = append(k.waiters[id], ch)
	send := time.Now()
	k.mu.Unlock()
	// A Send still blocked when ctx ends means the stream stalled: close
	// it, which ends the Send.
	var sent atomic.Bool
	stop := context.AfterFunc(ctx, func() {
		k.mu.Lock()
		defer k.mu.Unlock()
		if !sent.Load() {
			k.closeLocked(s, errors.New("keep-alive stream stalled: send blocked"))
		}
	})
	err := s.stream.Send(&pb.LeaseKeepAliveRequest{ID: int64(id)})
	sent.Store(true)
	stop()
	<-s.sending
	if err != nil {
		k.mu.Lock()
		k.closeLocked(s, rpctypes.Error(err)) // fails ch too, unless s was closed (and ch failed) already
		k.mu.Unlock()
		r := <-ch
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		return 0, r.err
	}
	select {
	case r := <-ch:
		return r.ttl, r.err
	case <-ctx.Done():
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	select {
	case r := <-ch: // answered meanwhile
		return r.ttl, r.err
	default:
	}
	// ch stays queued: the late response of this request, which a live
	// stream still delivers (etcd answers one stream's requests in
	// order), lands in it and is dropped, so that it is never taken for
	// the answer to a later renewal of id sent after it.
	if k.s == s && !s.lastRecv.After(send) {
		k.closeLocked(s, errors.New("keep-alive stream stalled"))
	}
	return 0, ctx.Err()
}

// stream returns the open stream with k.mu held, opening one if there is
// none. The open runs in a goroutine of its own (gRPC may wait for a
// connection), so that a caller waits for it bounded by its ctx, and
// others wait for the same open instead of holding k.mu meanwhile.
func (k *keepAliver) stream(ctx context.Context) (*kaStream, error) {
	k.mu.Lock()
	for k.s == nil {
		o := k.opening
		if o == nil {
			o = &kaOpen{done: make(chan struct{})}
			k.opening = o
			go k.open(o)
		}
		k.mu.Unlock()
		select {
		case <-o.done:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		if o.err != nil {
			return nil, o.err
		}
		k.mu.Lock()
	}
	return k.s, nil
}

// open opens a stream for o. A stream opened when no lease is left is
// closed at once.
func (k *keepAliver) open(o *kaOpen) {
	sctx, cancel := context.WithCancel(clientv3.WithRequireLeader(context.Background()))
	stream, err := pb.NewLeaseClient(k.cli.ActiveConnection()).LeaseKeepAlive(sctx, grpc.WaitForReady(true))
	k.mu.Lock()
	defer k.mu.Unlock()
	k.opening = nil
	defer close(o.done)
	if err != nil {
		cancel()
		o.err = rpctypes.Error(err)
		return
	}
	if k.leases == 0 {
		cancel()
		o.err = errors.New("no lease left")
		return
	}
	k.s = &kaStream{stream: stream, done: sctx.Done(), cancel: cancel, sending: make(chan struct{}, 1)}
	go k.recv(k.s)
}

// recv matches the responses of s to the renewals waiting on it, the
// oldest of each lease ID first, until s fails or is closed.
func (k *keepAliver) recv(s *kaStream) {
	for {
		resp, err := s.stream.Recv()
		k.mu.Lock()
		if err != nil {
			k.closeLocked(s, rpctypes.Error(err))
			k.mu.Unlock()
			return
		}
		s.lastRecv = time.Now()
		id := clientv3.LeaseID(resp.ID)
		if q := k.waiters[id]; len(q) > 0 {
			q[0] <- kaResult{ttl: resp.TTL}
			if len(q) == 1 {
				delete(k.waiters, id)
			} else {
				k.waiters[id] = q[1:]
			}
		}
		k.mu.Unlock()
	}
}
