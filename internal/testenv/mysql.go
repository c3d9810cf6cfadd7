package testenv

import (
	"context"
	"database/sql"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/go-sql-driver/mysql"
)

// DefaultMySQLURL is the MariaDB (or MySQL) server tests use when
// MYSQL_URL is unset: a go-sql-driver/mysql DSN for the local server.
const DefaultMySQLURL = "root@tcp(127.0.0.1:3306)/test"

// MySQLURL returns MYSQL_URL or DefaultMySQLURL.
func MySQLURL() string {
	if u := os.Getenv("MYSQL_URL"); u != "" {
		return u
	}
	return DefaultMySQLURL
}

// mysqlAddr is where MySQLURL points, as host:port/database, without the
// user or password.
func mysqlAddr() string {
	cfg, err := mysql.ParseDSN(MySQLURL())
	if err != nil {
		return "an unparsable MYSQL_URL"
	}
	return cfg.Addr + "/" + cfg.DBName
}

// NewMySQLDatabase creates a fresh, empty database fencegen_<random> on
// the server MYSQL_URL names and returns a DSN for it, with the
// parameters params added (for example "clientFoundRows=true"; "" for
// none). The database is dropped when the test ends. An unreachable
// server skips t with one line, or fails it under CI=true.
func NewMySQLDatabase(t testing.TB, params string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	admin, err := sql.Open("mysql", MySQLURL())
	if err == nil {
		err = admin.PingContext(ctx)
	}
	if err != nil {
		UnavailableAt(t, "MariaDB", "MYSQL_URL", mysqlAddr(), err)
	}
	defer admin.Close()
	name := "fencegen_" + randomSuffix()
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+name); err != nil {
		t.Fatalf("create database: %v", err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := sql.Open("mysql", MySQLURL())
		if err != nil {
			t.Errorf("drop database %s: %v", name, err)
			return
		}
		defer c.Close()
		if _, err := c.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name); err != nil {
			t.Errorf("drop database %s: %v", name, err)
		}
	})
	cfg, err := mysql.ParseDSN(MySQLURL())
	if err != nil {
		t.Fatalf("parse MYSQL_URL: %v", err)
	}
	cfg.DBName = name
	dsn := cfg.FormatDSN()
	if params != "" {
		sep := "?"
		if strings.Contains(dsn, "?") {
			sep = "&"
		}
		dsn += sep + params
	}
	return dsn
}

// MySQL creates a fresh database (see NewMySQLDatabase, params as there),
// runs each of the given SQL statements in it, and returns a *sql.DB
// connected to it, closed when the test ends.
func MySQL(t testing.TB, params string, statements ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", NewMySQLDatabase(t, params))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, s := range statements {
		if _, err := db.Exec(s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
	return db
}
