// Package etcdfaults starts private etcd clusters for tests that kill,
// pause and restart members. It is a package of its own, beside
// internal/faults (whose proxies partition a member from a client), so
// that tests of the Redis lease do not link the etcd client and gRPC.
package etcdfaults

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"

	"github.com/fencegen/fencegen/internal/faults"
	"github.com/fencegen/fencegen/internal/testenv"
)

// Etcd is a private etcd cluster of one or more members started from the
// etcd binary on PATH (Debian's etcd-server package), each on free
// loopback ports with its data in a temp dir. Short Raft timings
// (heartbeat 50ms, election 500ms) make leader changes take well under a
// second, and the server's minimum lease TTL 1s.
type Etcd struct {
	t       testing.TB
	bin     string
	args    []string // extra flags for every member
	Members []*EtcdMember
}

// EtcdMember is one etcd process of an [Etcd] cluster.
type EtcdMember struct {
	t                    testing.TB
	c                    *Etcd
	Name                 string
	ClientPort, PeerPort int
	dir                  string
	cluster              string // --initial-cluster

	mu   sync.Mutex
	proc *exec.Cmd
	out  *faults.OutputBuffer
	done <-chan struct{}
}

// EtcdBinary returns the path of the etcd binary, or skips t (fails it
// under CI=true) when it is not installed.
func EtcdBinary(t testing.TB) string {
	t.Helper()
	bin, err := exec.LookPath("etcd")
	if err != nil {
		testenv.Unavailable(t, "etcd binary (apt-get install etcd-server)", "PATH", err)
	}
	return bin
}

// Start starts an n-member cluster and waits until it has a leader.
// Every member is killed when t ends.
func Start(t testing.TB, n int) *Etcd {
	t.Helper()
	return StartArgs(t, n)
}

// StartArgs is Start with extra etcd flags for every member (such as
// "--quota-backend-bytes", "4194304"). A member that cannot bind its
// ports (taken between FreePort and the bind) makes the new cluster start
// again on fresh ports, up to three times.
func StartArgs(t testing.TB, n int, args ...string) *Etcd {
	t.Helper()
	for attempt := 1; ; attempt++ {
		c := &Etcd{t: t, bin: EtcdBinary(t), args: args}
		var peers []string
		for i := range n {
			m := &EtcdMember{t: t, c: c, Name: fmt.Sprintf("m%d", i), ClientPort: faults.FreePort(t), PeerPort: faults.FreePort(t), dir: filepath.Join(t.TempDir(), "data")}
			c.Members = append(c.Members, m)
			peers = append(peers, fmt.Sprintf("%s=http://127.0.0.1:%d", m.Name, m.PeerPort))
		}
		for _, m := range c.Members {
			m.cluster = strings.Join(peers, ",")
			t.Cleanup(m.kill)
			m.start()
		}
		err := c.waitHealthy()
		if err == nil {
			return c
		}
		if attempt < 3 && c.portTaken() {
			for _, m := range c.Members {
				m.kill()
			}
			continue
		}
		t.Fatalf("faults: %v", err)
	}
}

// portTaken reports whether a member exited because its address was in use.
func (c *Etcd) portTaken() bool {
	for _, m := range c.Members {
		if !m.running() && m.out != nil && strings.Contains(m.out.String(), "address already in use") {
			return true
		}
	}
	return false
}

// Endpoints returns every member's client URL.
func (c *Etcd) Endpoints() []string {
	var eps []string
	for _, m := range c.Members {
		eps = append(eps, m.Endpoint())
	}
	return eps
}

// Client returns a client of the given endpoints (every member's when
// none), closed when the test ends.
func (c *Etcd) Client(endpoints ...string) *clientv3.Client {
	c.t.Helper()
	if len(endpoints) == 0 {
		endpoints = c.Endpoints()
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 2 * time.Second,
		DialKeepAliveTime: time.Second, DialKeepAliveTimeout: time.Second, Logger: zap.NewNop()})
	if err != nil {
		c.t.Fatalf("faults: etcd client: %v", err)
	}
	c.t.Cleanup(func() { _ = cli.Close() })
	return cli
}

// WaitHealthy waits until a linearizable read succeeds through every
// running member.
func (c *Etcd) WaitHealthy() {
	c.t.Helper()
	if err := c.waitHealthy(); err != nil {
		c.t.Fatalf("faults: %v", err)
	}
}

func (c *Etcd) waitHealthy() error {
	for _, m := range c.Members {
		if !m.running() {
			continue
		}
		cli := c.Client(m.Endpoint())
		deadline := time.Now().Add(20 * time.Second)
		for {
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			_, err := cli.Get(ctx, "health")
			cancel()
			if err == nil {
				break
			}
			if time.Now().After(deadline) || (!m.running() && c.portTaken()) {
				return fmt.Errorf("etcd member %s not ready: %v\n%s", m.Name, err, m.out.String())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nil
}

// Leader returns the member that is leader now.
func (c *Etcd) Leader() *EtcdMember {
	c.t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		for _, m := range c.Members {
			if !m.running() {
				continue
			}
			cli := c.Client(m.Endpoint())
			ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			st, err := cli.Status(ctx, m.Endpoint())
			cancel()
			_ = cli.Close()
			if err == nil && st.Leader != 0 && st.Leader == st.Header.MemberId {
				return m
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.t.Fatalf("faults: no etcd leader")
	return nil
}

// Endpoint returns the member's client URL.
func (m *EtcdMember) Endpoint() string { return fmt.Sprintf("http://127.0.0.1:%d", m.ClientPort) }

// DataDir is the member's data directory.
func (m *EtcdMember) DataDir() string { return m.dir }

func (m *EtcdMember) running() bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.proc == nil {
		return false
	}
	select {
	case <-m.done:
		return false
	default:
		return true
	}
}

func (m *EtcdMember) start() {
	m.t.Helper()
	cmd := exec.Command(m.c.bin,
		"--name", m.Name, "--data-dir", m.dir,
		"--listen-client-urls", m.Endpoint(), "--advertise-client-urls", m.Endpoint(),
		"--listen-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", m.PeerPort),
		"--initial-advertise-peer-urls", fmt.Sprintf("http://127.0.0.1:%d", m.PeerPort),
		"--initial-cluster", m.cluster, "--initial-cluster-state", "new",
		"--initial-cluster-token", "faults",
		"--heartbeat-interval", "50", "--election-timeout", "500",
		"--log-level", "error", "--logger", "zap")
	cmd.Args = append(cmd.Args, m.c.args...)
	out, done, err := faults.StartProcess(cmd, faults.MaxLifetime)
	if err != nil {
		m.t.Fatalf("faults: start etcd: %v", err)
	}
	m.mu.Lock()
	m.proc, m.out, m.done = cmd, out, done
	m.mu.Unlock()
}

// Kill sends SIGKILL and waits for the member to exit. Its data dir stays,
// so Start brings it back with everything it had synced.
func (m *EtcdMember) Kill() { m.kill() }

func (m *EtcdMember) kill() {
	m.mu.Lock()
	cmd, done := m.proc, m.done
	m.mu.Unlock()
	if cmd == nil {
		return
	}
	if err := faults.KillProcess(cmd, done); err != nil {
		m.t.Errorf("faults: etcd member %s %v", m.Name, err)
	}
}

// Start starts a killed member again on the same ports and data dir.
func (m *EtcdMember) Start() {
	m.t.Helper()
	m.start()
}

// Pause stops the member with SIGSTOP; Resume continues it.
//
// It returns once the kernel shows the process stopped (state T in
// /proc/PID/stat), at most 5s after the signal: SIGSTOP is delivered
// asynchronously, and a request sent right after Pause returned was
// answered by a member not yet descheduled under a load average of 8.
func (m *EtcdMember) Pause() {
	m.signal(syscall.SIGSTOP)
	m.mu.Lock()
	proc := m.proc
	m.mu.Unlock()
	if proc == nil {
		return
	}
	stat := filepath.Join("/proc", fmt.Sprint(proc.Process.Pid), "stat")
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		b, err := os.ReadFile(stat)
		if err != nil {
			return // no procfs, or the process is gone
		}
		if i := strings.LastIndexByte(string(b), ')'); i >= 0 && i+2 < len(b) && (b[i+2] == 'T' || b[i+2] == 't') {
			return
		}
	}
}

// Resume continues a paused member.
func (m *EtcdMember) Resume() { m.signal(syscall.SIGCONT) }

func (m *EtcdMember) signal(sig syscall.Signal) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.proc != nil {
		_ = m.proc.Process.Signal(sig)
	}
}

// SetDataDir points the member at another data dir (a restored snapshot)
// for its next Start.
func (m *EtcdMember) SetDataDir(dir string) { m.dir = dir }

// Output returns what the member printed.
func (m *EtcdMember) Output() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.out == nil {
		return ""
	}
	return m.out.String()
}
