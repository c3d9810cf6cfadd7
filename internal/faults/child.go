package faults

import (
	"bufio"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Child is a worker child process whose standard output is read line by
// line. It can be paused with SIGSTOP (a stop-the-world pause of the whole
// process, heartbeat goroutines included), resumed, signalled and killed.
// It is killed after MaxLifetime, and when the test ends.
type Child struct {
	t      testing.TB
	cmd    *exec.Cmd
	lines  chan string
	done   chan struct{}
	err    error // set before done is closed
	stderr OutputBuffer
}

// StartChild starts cmd (which must not have been started and whose Stdout
// must be unset). Lines it prints arrive on Lines.
func StartChild(t testing.TB, cmd *exec.Cmd) *Child {
	t.Helper()
	c := &Child{t: t, cmd: cmd, lines: make(chan string, 1024), done: make(chan struct{})}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatalf("faults: child stdout: %v", err)
	}
	cmd.Stderr = &c.stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("faults: start child: %v", err)
	}
	scanned := make(chan struct{})
	go func() {
		defer close(scanned)
		defer close(c.lines)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			select {
			case c.lines <- sc.Text():
			default: // nobody reads: drop rather than block the child
			}
		}
	}()
	go func() {
		<-scanned
		c.err = cmd.Wait()
		close(c.done)
	}()
	go func() {
		select {
		case <-c.done:
		case <-time.After(MaxLifetime):
			c.Kill()
		}
	}()
	t.Cleanup(func() {
		c.Kill()
		select {
		case <-c.done:
		case <-time.After(10 * time.Second):
			t.Errorf("faults: child %d did not exit after SIGKILL", cmd.Process.Pid)
		}
	})
	return c
}

// Stderr returns what the child wrote to standard error so far.
func (c *Child) Stderr() string { return c.stderr.String() }

// Lines delivers the child's standard output, one line at a time; it is
// closed when the child closes its output.
func (c *Child) Lines() <-chan string { return c.lines }

// Expect waits up to d for a line with the given prefix and returns it,
// skipping other lines; it fails the test on timeout or exit.
func (c *Child) Expect(prefix string, d time.Duration) string {
	c.t.Helper()
	tm := time.NewTimer(d)
	defer tm.Stop()
	for {
		select {
		case l, ok := <-c.lines:
			if !ok {
				<-c.done
				c.t.Fatalf("faults: child exited (%v) before printing %q; stderr:\n%s", c.err, prefix, c.Stderr())
			}
			if strings.HasPrefix(l, prefix) {
				return l
			}
		case <-tm.C:
			c.t.Fatalf("faults: no %q line from child within %v; stderr:\n%s", prefix, d, c.Stderr())
		}
	}
}

// Pid returns the child's process id.
func (c *Child) Pid() int { return c.cmd.Process.Pid }

// Pause stops the child with SIGSTOP.
func (c *Child) Pause() { c.Signal(syscall.SIGSTOP) }

// Resume continues the child with SIGCONT.
func (c *Child) Resume() { c.Signal(syscall.SIGCONT) }

// Signal sends sig to the child; it fails the test if the child is gone.
func (c *Child) Signal(sig os.Signal) {
	c.t.Helper()
	if err := c.cmd.Process.Signal(sig); err != nil {
		c.t.Fatalf("faults: signal %v to child: %v", sig, err)
	}
}

// Kill resumes and kills the child; it is safe to call after it exited.
func (c *Child) Kill() {
	_ = c.cmd.Process.Signal(syscall.SIGCONT)
	_ = c.cmd.Process.Kill()
}

// Wait waits up to d for the child to exit and returns its exit error (nil
// for status 0); it fails the test on timeout.
func (c *Child) Wait(d time.Duration) error {
	c.t.Helper()
	select {
	case <-c.done:
		return c.err
	case <-time.After(d):
		c.t.Fatalf("faults: child still running after %v", d)
		return nil
	}
}

// Done is closed when the child has exited.
func (c *Child) Done() <-chan struct{} { return c.done }
