package faults

import (
	"bytes"
	"errors"
	"net"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Direction selects one or both directions of a proxied connection.
type Direction uint8

const (
	// Upstream is client → server: requests.
	Upstream Direction = 1 << iota
	// Downstream is server → client: replies.
	Downstream
	// Both is Upstream|Downstream.
	Both = Upstream | Downstream
)

// Proxy is a TCP proxy on 127.0.0.1 that forwards every accepted connection
// to a target address, with faults that can be switched at runtime:
// per-direction latency, per-direction blackhole (bytes are held, never
// delivered, until the blackhole is lifted, as a network partition with TCP
// retransmission would), resetting open connections, and resetting new ones
// as soon as they are accepted. It is closed when the test ends.
type Proxy struct {
	t      testing.TB
	ln     net.Listener
	target string

	mu        sync.Mutex
	latency   [2]time.Duration
	blackhole [2]bool
	resetNew  bool
	// closeAfter: the next closeTimes requests containing closeAfter are
	// forwarded, and their connection is closed (FIN) instead of delivering
	// the reply.
	closeAfter []byte
	closeTimes int
	closed1    int // connections closed by closeAfter so far
	// delays: see DelayReply.
	delays  []delayRule
	changed chan struct{} // closed and replaced on every change
	conns   map[*proxyConn]struct{}
	closed  bool

	wg sync.WaitGroup
}

// delayRule holds the replies to the next times requests containing
// pattern by longer.
type delayRule struct {
	pattern []byte
	times   int
	by      time.Duration
}

type proxyConn struct {
	client, server *net.TCPConn
	once           sync.Once
	done           chan struct{}
	// closeOnReply: a request matched CloseAfterReply; the reply is not
	// delivered, the connection is closed when it arrives.
	closeOnReply atomic.Bool
	// delayReply: a request matched DelayReply; the next reply chunk is
	// held this much longer (nanoseconds; 0 none).
	delayReply atomic.Int64
}

// close closes both sides normally (FIN), so the client reads EOF.
func (c *proxyConn) close() {
	c.once.Do(func() {
		_ = c.client.Close()
		_ = c.server.Close()
		close(c.done)
	})
}

// reset closes both sides with SO_LINGER 0, so each peer gets a RST.
func (c *proxyConn) reset() {
	c.once.Do(func() {
		_ = c.client.SetLinger(0)
		_ = c.server.SetLinger(0)
		_ = c.client.Close()
		_ = c.server.Close()
		close(c.done)
	})
}

// StartProxy listens on a free loopback port and forwards to target.
func StartProxy(t testing.TB, target string) *Proxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("faults: proxy listen: %v", err)
	}
	p := &Proxy{t: t, ln: ln, target: target, changed: make(chan struct{}), conns: map[*proxyConn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	t.Cleanup(p.Close)
	return p
}

// Addr returns the proxy's "127.0.0.1:<port>"; point the client here.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) notify() {
	close(p.changed)
	p.changed = make(chan struct{})
}

// SetLatency delays every chunk of bytes flowing in dir by d (0: none).
func (p *Proxy) SetLatency(dir Direction, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range 2 {
		if dir&(1<<i) != 0 {
			p.latency[i] = d
		}
	}
	p.notify()
}

// Blackhole holds every byte flowing in dir (on) or delivers the held bytes
// and lets traffic flow again (off). New connections are still accepted.
func (p *Proxy) Blackhole(dir Direction, on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range 2 {
		if dir&(1<<i) != 0 {
			p.blackhole[i] = on
		}
	}
	p.notify()
}

// ResetNew makes the proxy reset every new connection right after
// accepting it (on), or forward new connections again (off).
func (p *Proxy) ResetNew(on bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.resetNew = on
}

// CloseAfterReply makes the next times requests whose bytes contain
// pattern (a command name, a script's SHA1, a key) reach the server, which
// runs them, and then closes their connection (FIN, so the client reads
// EOF) instead of delivering the reply: a connection lost after the command
// ran. A client that retries on EOF (go-redis by default) sends the command
// again on a new connection. It returns a function that reports how many
// connections it has closed so far.
func (p *Proxy) CloseAfterReply(pattern []byte, times int) func() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.closeAfter, p.closeTimes = bytes.Clone(pattern), times
	return func() int {
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.closed1
	}
}

// DelayReply holds the replies to the next times requests whose bytes
// contain pattern (a command name, a script's SHA1, a key) d longer than
// the latency in force: one slow reply on a connection that stays open (a
// stall of the server or the network for that call), where SetLatency
// slows every call. The request reaches the server at once. Each call adds
// a rule beside those still pending.
func (p *Proxy) DelayReply(pattern []byte, times int, d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.delays = append(p.delays, delayRule{pattern: bytes.Clone(pattern), times: times, by: d})
}

// ResetAll resets every open connection (RST to both peers) and returns how
// many there were.
func (p *Proxy) ResetAll() int {
	p.mu.Lock()
	conns := make([]*proxyConn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
		delete(p.conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		c.reset()
	}
	return len(conns)
}

// Heal removes every fault: no latency, no blackhole, new connections
// forwarded. Open connections stay as they are.
func (p *Proxy) Heal() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency = [2]time.Duration{}
	p.blackhole = [2]bool{}
	p.resetNew = false
	p.notify()
}

// Close stops accepting, resets every connection and waits (bounded) for
// the proxy's goroutines to exit. It is registered with t.Cleanup.
func (p *Proxy) Close() {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return
	}
	p.closed = true
	p.notify()
	p.mu.Unlock()
	_ = p.ln.Close()
	p.ResetAll()
	done := make(chan struct{})
	go func() {
		p.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.t.Errorf("faults: proxy goroutines still running 10s after Close")
	}
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		client := c.(*net.TCPConn)
		p.mu.Lock()
		reset, closed := p.resetNew, p.closed
		p.mu.Unlock()
		if reset || closed {
			_ = client.SetLinger(0)
			_ = client.Close()
			continue
		}
		s, err := net.DialTimeout("tcp", p.target, 2*time.Second)
		if err != nil {
			_ = client.SetLinger(0)
			_ = client.Close()
			continue
		}
		pc := &proxyConn{client: client, server: s.(*net.TCPConn), done: make(chan struct{})}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			pc.reset()
			continue
		}
		p.conns[pc] = struct{}{}
		p.wg.Add(4)
		p.mu.Unlock()
		go p.pump(pc, 0, pc.client, pc.server)
		go p.pump(pc, 1, pc.server, pc.client)
	}
}

type chunk struct {
	b  []byte
	at time.Time
}

// pump copies src to dst in direction dir (0 upstream, 1 downstream)
// through a queue, so that latency and blackholes delay delivery without
// stopping reads. It uses two of the four wg slots added per connection.
func (p *Proxy) pump(pc *proxyConn, dir int, src, dst *net.TCPConn) {
	q := make(chan chunk, 256)
	go p.deliver(pc, dir, q, dst)
	defer p.wg.Done()
	defer close(q)
	for {
		buf := make([]byte, 32<<10)
		n, err := src.Read(buf)
		if n > 0 && dir == 0 {
			p.mu.Lock()
			if p.closeTimes > 0 && len(p.closeAfter) > 0 && bytes.Contains(buf[:n], p.closeAfter) {
				p.closeTimes--
				pc.closeOnReply.Store(true)
			}
			for i := range p.delays {
				if d := &p.delays[i]; d.times > 0 && bytes.Contains(buf[:n], d.pattern) {
					d.times--
					pc.delayReply.Store(int64(d.by))
				}
			}
			p.mu.Unlock()
		}
		if n > 0 {
			select {
			case q <- chunk{buf[:n], time.Now()}:
			case <-pc.done:
				return
			}
		}
		if err != nil {
			if !errors.Is(err, net.ErrClosed) {
				// EOF or reset from one peer: close the pair.
				p.drop(pc)
			}
			return
		}
	}
}

func (p *Proxy) deliver(pc *proxyConn, dir int, q <-chan chunk, dst *net.TCPConn) {
	defer p.wg.Done()
	for c := range q {
		var extra time.Duration // DelayReply's, for this chunk
		if dir == 1 {
			extra = time.Duration(pc.delayReply.Swap(0))
		}
		for {
			p.mu.Lock()
			bh, lat, changed := p.blackhole[dir], p.latency[dir]+extra, p.changed
			p.mu.Unlock()
			var (
				wait <-chan time.Time
				tm   *time.Timer
			)
			if !bh {
				d := time.Until(c.at.Add(lat))
				if d <= 0 {
					break
				}
				tm = time.NewTimer(d)
				wait = tm.C
			}
			select {
			case <-wait:
			case <-changed:
			case <-pc.done:
			}
			if tm != nil {
				tm.Stop()
			}
			select {
			case <-pc.done:
				return
			default:
			}
		}
		if dir == 1 && pc.closeOnReply.Load() {
			p.mu.Lock()
			p.closed1++
			delete(p.conns, pc)
			p.mu.Unlock()
			pc.close()
			return
		}
		if _, err := dst.Write(c.b); err != nil {
			p.drop(pc)
			return
		}
	}
}

// drop resets pc and forgets it.
func (p *Proxy) drop(pc *proxyConn) {
	pc.reset()
	p.mu.Lock()
	delete(p.conns, pc)
	p.mu.Unlock()
}
