// Package testenv connects tests to the real PostgreSQL and Redis servers
// they need. Each helper reads its URL from the environment (DATABASE_URL,
// REDIS_URL) and falls back to the local default on 127.0.0.1. When the
// server cannot be reached the test is skipped with one line that names
// the server, the address tried and the variable to set, for example
//
//	SKIP: PostgreSQL unreachable at 127.0.0.1:5432/postgres (DATABASE_URL unset, default used): failed to connect to ...
//
// except under CI=true, where the test fails with that line instead: a
// suite that skips everything must not pass in CI. go test shows a skip's
// line only with -v (or when the package fails).
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/redis/go-redis/v9"
)

const (
	// DefaultDatabaseURL is used when DATABASE_URL is unset.
	DefaultDatabaseURL = "postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable"
	// DefaultRedisURL is used when REDIS_URL is unset.
	DefaultRedisURL = "redis://127.0.0.1:6379/0"
)

// InCI reports whether the CI variable is "true".
func InCI() bool { return os.Getenv("CI") == "true" }

// Unavailable skips t, or fails it under CI=true, because service is not
// reachable; variable is the environment variable that says where it is.
// For DATABASE_URL and REDIS_URL the message names the address tried (see
// UnavailableAt).
func Unavailable(t testing.TB, service, variable string, err error) {
	t.Helper()
	var addr string
	switch variable {
	case "DATABASE_URL":
		addr = databaseAddr()
	case "REDIS_URL":
		addr = redisAddr()
	}
	UnavailableAt(t, service, variable, addr, err)
}

// UnavailableAt is Unavailable with the address that was tried ("" for
// none). The message is one line, whatever err's text holds.
func UnavailableAt(t testing.TB, service, variable, addr string, err error) {
	t.Helper()
	msg := unavailableMessage(service, variable, addr, err)
	if InCI() {
		t.Fatalf("CI=true: %s", msg)
	}
	t.Skipf("SKIP: %s", msg)
}

// unavailableMessage is the line Unavailable reports, for example
// "PostgreSQL unreachable at 127.0.0.1:5432/postgres (DATABASE_URL unset,
// default used): ...".
func unavailableMessage(service, variable, addr string, err error) string {
	source := "set " + variable
	if variable != "PATH" { // never print PATH itself: it is this machine's layout
		if os.Getenv(variable) != "" {
			source = "from " + variable
		} else {
			source = variable + " unset, default used"
		}
	}
	detail := "unknown error"
	if err != nil {
		// pgx puts each address it tried on a line of its own.
		detail = strings.Join(strings.Fields(err.Error()), " ")
	}
	if addr == "" {
		return fmt.Sprintf("%s unavailable (%s): %s", service, source, detail)
	}
	return fmt.Sprintf("%s unreachable at %s (%s): %s", service, addr, source, detail)
}

// databaseAddr is where DatabaseURL points, as host:port/database, without
// the user or password.
func databaseAddr() string {
	cfg, err := pgconn.ParseConfig(DatabaseURL())
	if err != nil {
		return "an unparsable DATABASE_URL"
	}
	return net.JoinHostPort(cfg.Host, strconv.Itoa(int(cfg.Port))) + "/" + cfg.Database
}

// redisAddr is where RedisURL points, as host:port/db, without the user or
// password.
func redisAddr() string {
	opt, err := redis.ParseURL(RedisURL())
	if err != nil {
		return "an unparsable REDIS_URL"
	}
	return fmt.Sprintf("%s/%d", opt.Addr, opt.DB)
}

// DatabaseURL returns DATABASE_URL or DefaultDatabaseURL.
func DatabaseURL() string {
	if u := os.Getenv("DATABASE_URL"); u != "" {
		return u
	}
	return DefaultDatabaseURL
}

// RedisURL returns REDIS_URL or DefaultRedisURL.
func RedisURL() string {
	if u := os.Getenv("REDIS_URL"); u != "" {
		return u
	}
	return DefaultRedisURL
}

func randomSuffix() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// NewDatabase creates a fresh, empty database named after no one and
// returns its URL. The database is dropped WITH (FORCE) when the test ends.
func NewDatabase(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := pgx.Connect(ctx, DatabaseURL())
	if err != nil {
		Unavailable(t, "PostgreSQL", "DATABASE_URL", err)
	}
	defer admin.Close(context.Background())
	name := "fencegen_" + randomSuffix()
	if _, err := admin.Exec(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		// DROP DATABASE waits for a checkpoint, which took over 30
		// seconds in a clean-clone CI run at load average 25 (every
		// package's tests creating and dropping databases at once).
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
		defer cancel()
		c, err := pgx.Connect(ctx, DatabaseURL())
		if err != nil {
			t.Errorf("drop database %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)"); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	u, err := url.Parse(DatabaseURL())
	if err != nil {
		t.Fatalf("parse DATABASE_URL: %v", err)
	}
	u.Path = "/" + name
	return u.String()
}

// Database creates a fresh database (see NewDatabase), applies each of the
// given SQL scripts to it, and returns a pool connected to it, closed when
// the test ends.
func Database(t testing.TB, schema ...string) *pgxpool.Pool {
	t.Helper()
	dsn := NewDatabase(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pool, err := pgxpool.New(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(pool.Close)
	for _, s := range schema {
		if strings.TrimSpace(s) == "" {
			continue
		}
		if _, err := pool.Exec(ctx, s); err != nil {
			t.Fatalf("apply schema: %v", err)
		}
	}
	return pool
}

// Redis returns a client for REDIS_URL (or DefaultRedisURL), closed when
// the test ends. Tests must use keys that are unique to them (see Key).
func Redis(t testing.TB) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(RedisURL())
	if err != nil {
		t.Fatalf("parse REDIS_URL: %v", err)
	}
	// Probe once, without go-redis's retries: each failed attempt logs a
	// line of its own before the skip.
	popt := *opt
	popt.MaxRetries = -1
	probe := redis.NewClient(&popt)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = probe.Ping(ctx).Err()
	_ = probe.Close()
	if err != nil {
		Unavailable(t, "Redis", "REDIS_URL", err)
	}
	c := redis.NewClient(opt)
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Key returns a key name unique to this test run, for resources in a shared
// Redis.
func Key(t testing.TB, name string) string {
	return fmt.Sprintf("fencegen-test:%s:%s:%s", t.Name(), name, randomSuffix())
}
