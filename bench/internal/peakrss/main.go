// Command peakrss runs a command and writes its wall time, CPU time and
// peak resident set size to a file, for the generation benchmarks:
//
//	peakrss <figures-file> <command> [args...]
//
// The figures file gets one line, "<wall ns> <cpu ns> <peak RSS bytes>",
// the CPU time being user plus system time of all the command's threads.
// The command's standard output and error are peakrss's; its exit status
// is peakrss's (1 if it did not exit normally).
//
// The benchmarks start each tool through peakrss rather than directly
// because on Linux a process's peak RSS (getrusage's ru_maxrss) is at
// least the peak RSS its parent had when it was started: os/exec starts a
// child with vfork, sharing the parent's memory until the child execs, and
// exec keeps the highest RSS the process had so far. Started from the
// test binary, every tool's peak read as at least the test binary's own
// (155 MiB once the benchmark held both binaries in memory). Started from
// peakrss, whose own RSS is a few MiB, it reads as the tool's.
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: peakrss <figures-file> <command> [args...]")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[2], os.Args[3:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	start := time.Now()
	err := cmd.Run()
	wall := time.Since(start)
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(1)
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss * 1024 // kilobytes on Linux
	}
	if err := os.WriteFile(os.Args[1], fmt.Appendf(nil, "%d %d %d\n", wall.Nanoseconds(), cpu.Nanoseconds(), rss), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(1)
	}
	if code := cmd.ProcessState.ExitCode(); code != 0 {
		os.Exit(max(code, 1))
	}
}
