// Package testenv connects tests to the real PostgreSQL and Redis servers
// they need. Each helper reads its URL from the environment (DATABASE_URL,
// REDIS_URL) and falls back to the local default on 127.0.0.1. When the
// server cannot be reached the test is skipped with one loud line, except
// under CI=true, where it fails: a suite that skips everything must not
// pass in CI.
package testenv

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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
// reachable.
func Unavailable(t testing.TB, service, variable string, err error) {
	t.Helper()
	msg := fmt.Sprintf("%s unreachable (set %s): %v", service, variable, err)
	if InCI() {
		t.Fatalf("CI=true: %s", msg)
	}
	t.Skipf("SKIP: %s", msg)
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
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
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
	c := redis.NewClient(opt)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := c.Ping(ctx).Err(); err != nil {
		_ = c.Close()
		Unavailable(t, "Redis", "REDIS_URL", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// Key returns a key name unique to this test run, for resources in a shared
// Redis.
func Key(t testing.TB, name string) string {
	return fmt.Sprintf("fencegen-test:%s:%s:%s", t.Name(), name, randomSuffix())
}
