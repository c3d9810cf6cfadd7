// Package faults injects real failures into tests of the lease runtime: it
// starts private redis-server processes (standalone or a 3-master cluster)
// on free loopback ports and can kill, restart, pause (SIGSTOP), resume
// (SIGCONT), flush them and delete single keys; it puts a TCP proxy between
// a client and Redis that adds per-direction latency, blackholes traffic
// (connections are accepted, nothing is answered) or resets connections,
// all toggled at runtime; and it runs worker child processes that a test
// can pause with SIGSTOP to stand in for a stop-the-world pause.
//
// Everything is registered with t.Cleanup and bounded in time: processes
// get a hard lifetime after which they are killed, proxies close all their
// connections and wait for their goroutines when the test ends.
package faults
