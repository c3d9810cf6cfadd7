package faults

import (
	"bytes"
	"errors"
	"os/exec"
	"sync"
	"syscall"
	"time"
)

// OutputBuffer is a process's output, safe for the copiers of its stdout
// and stderr; it keeps the first MiB and drops the rest.
type OutputBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *OutputBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.b.Len() > 1<<20 {
		return len(p), nil
	}
	return s.b.Write(p)
}

func (s *OutputBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// StartProcess starts cmd with its stdout and stderr in out, and waits for
// it in the background: done is closed once it has exited and been waited
// for. Whatever the test does, the process is killed (after SIGCONT, in
// case it was stopped) when it is still running after life. The error is
// cmd.Start's.
func StartProcess(cmd *exec.Cmd, life time.Duration) (out *OutputBuffer, done <-chan struct{}, err error) {
	out = &OutputBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		return nil, nil, err
	}
	exited := make(chan struct{})
	go func() {
		_ = cmd.Wait()
		close(exited)
	}()
	go func() {
		select {
		case <-exited:
		case <-time.After(life):
			_ = cmd.Process.Signal(syscall.SIGCONT)
			_ = cmd.Process.Kill()
		}
	}()
	return out, exited, nil
}

// KillProcess sends cmd's process SIGCONT (in case it was stopped) and
// SIGKILL, and waits up to 10s for done (from [StartProcess]) to close.
// It returns an error when the process did not exit by then.
func KillProcess(cmd *exec.Cmd, done <-chan struct{}) error {
	_ = cmd.Process.Signal(syscall.SIGCONT)
	_ = cmd.Process.Kill()
	select {
	case <-done:
		return nil
	case <-time.After(10 * time.Second):
		return errors.New("did not exit after SIGKILL")
	}
}
