package lease

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/redis/go-redis/v9"
)

// cmdPrinter is a redis.Hook recording how go-redis prints each EVALSHA
// command (Cmd.String, which tracing hooks such as redisotel use too).
type cmdPrinter struct {
	mu  sync.Mutex
	all []string
	// boxed counts the keys among them passed as strings (boxed into an
	// interface, an allocation each) rather than as *keyStr.
	boxed int
}

func (p *cmdPrinter) record(cmd redis.Cmder) {
	if cmd.Name() != "evalsha" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.all = append(p.all, cmd.String())
	args := cmd.Args()
	n, _ := args[2].(int)
	for _, k := range args[3 : 3+n] {
		if _, ok := k.(string); ok {
			p.boxed++
		}
	}
}

func (p *cmdPrinter) DialHook(next redis.DialHook) redis.DialHook { return next }

func (p *cmdPrinter) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		p.record(cmd)
		return next(ctx, cmd)
	}
}

func (p *cmdPrinter) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		for _, cmd := range cmds {
			p.record(cmd)
		}
		return next(ctx, cmds)
	}
}

// The keys of the acquire and release commands go out as pointers to the
// strings the lease holds (keyStr), not as boxed strings (an allocation
// each, issue 26): go-redis prints them, as a trace shows them, as the
// keys' text, not as addresses, and the server ran them on those keys.
func TestCommandsPrintTheirKeys(t *testing.T) {
	e := newEnv(t)
	t.Cleanup(func() { e.rdb.Del(bg, mintKey(e.lockKey)) })
	var p cmdPrinter
	e.rdb.AddHook(&p)
	c := New(e.rdb, &Options{UnsafeNoReplicas: true})
	// The first Acquire reads INFO replication in a pipeline with the
	// script, whose keys are split out as strings; the next ones, within
	// a second, send the prebuilt command.
	l, err := c.Acquire(bg, e.resource, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.Release(bg); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.all, p.boxed = nil, 0
	p.mu.Unlock()
	l, err = c.Acquire(bg, e.resource, 0)
	if err != nil {
		t.Fatal(err)
	}
	owner := l.owner
	if err := l.Release(bg); err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.all) != 2 {
		t.Fatalf("EVALSHA commands %q, want the acquire and the release", p.all)
	}
	for i, want := range [][]string{
		{e.lockKey, e.counter, mintKey(e.lockKey), owner},
		{e.lockKey, owner},
	} {
		if got := strings.Join(strings.Fields(p.all[i])[3:3+len(want)], " "); got != strings.Join(want, " ") {
			t.Errorf("command %q prints keys and owner %q, want %q", p.all[i], got, strings.Join(want, " "))
		}
	}
	if p.boxed != 0 {
		t.Errorf("%d keys of the acquire and release commands passed as boxed strings, want none (each is an allocation a cycle)", p.boxed)
	}
	if got := e.get(t, mintKey(e.lockKey)); !strings.HasPrefix(got, owner+":") {
		t.Errorf(":minted = %q, want the owner's record (the script ran on the keys sent)", got)
	}
}
