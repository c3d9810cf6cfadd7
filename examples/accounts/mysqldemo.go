package main

import (
	"context"
	"database/sql"
	_ "embed"
	"fmt"
	"time"

	"github.com/go-sql-driver/mysql"

	"github.com/fencegen/fencegen/examples/accounts/accountsmy"
	"github.com/fencegen/fencegen/internal/demo"
	"github.com/fencegen/fencegen/runtime/fence"
)

// MySQL is the SQL package of the demo on MySQL or MariaDB
// (DemoConfig.SQLPackage, -sql-package mysql): accountsmy on
// go-sql-driver/mysql, at DemoConfig.MySQLURL.
const MySQL = "mysql"

//go:embed mysql_schema.sql
var mysqlSchemaSQL string

// unguardedCreditMySQL is unguardedCredit with MySQL's placeholders.
const unguardedCreditMySQL = `UPDATE account_balances SET balance = balance + ? WHERE id = ?`

// mysqlScratch is a demo run's database on MySQL or MariaDB:
// fencegen_demo_<suffix>, holding mysql_schema.sql, dropped at close;
// dsn is the go-sql-driver/mysql DSN for it.
type mysqlScratch struct {
	db, admin *sql.DB
	name, dsn string
}

// openMySQLScratch creates the run's database on the server mysqlURL names.
func openMySQLScratch(ctx context.Context, mysqlURL, suffix string) (*mysqlScratch, error) {
	cfg, err := mysql.ParseDSN(mysqlURL)
	if err != nil {
		return nil, fmt.Errorf("MYSQL_URL: %w", err)
	}
	admin, err := sql.Open("mysql", mysqlURL)
	if err != nil {
		return nil, err
	}
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := admin.PingContext(cctx); err != nil {
		admin.Close()
		return nil, fmt.Errorf("connect to MySQL: %w", err)
	}
	s := &mysqlScratch{admin: admin, name: "fencegen_demo_" + suffix}
	if _, err := admin.ExecContext(ctx, "CREATE DATABASE "+s.name); err != nil {
		admin.Close()
		return nil, fmt.Errorf("create database: %w", err)
	}
	cfg.DBName = s.name
	s.dsn = cfg.FormatDSN()
	if s.db, err = sql.Open("mysql", s.dsn); err == nil {
		_, err = s.db.ExecContext(ctx, mysqlSchemaSQL)
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("apply mysql_schema.sql: %w", err)
	}
	return s, nil
}

// Close drops the run's database.
func (s *mysqlScratch) Close() {
	if s.db != nil {
		s.db.Close()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.admin.ExecContext(ctx, "DROP DATABASE IF EXISTS "+s.name)
	s.admin.Close()
}

// openMySQLDemo is RunDemo's setup for MySQL: the run's database and a
// Scratch holding only the Redis side (its DatabaseURL is the database's
// DSN, for worker 1).
func openMySQLDemo(ctx context.Context, cfg DemoConfig, suffix string) (*demo.Scratch, *mysqlScratch, error) {
	my, err := openMySQLScratch(ctx, cfg.MySQLURL, suffix)
	if err != nil {
		return nil, nil, err
	}
	rdb, err := demo.RedisClient(cfg.RedisURL)
	if err == nil {
		err = rdb.Ping(ctx).Err()
	}
	if err != nil {
		my.Close()
		return nil, nil, fmt.Errorf("connect to Redis: %w", err)
	}
	return &demo.Scratch{DatabaseURL: my.dsn, Redis: rdb, Prefix: "fencegen-demo-" + suffix}, my, nil
}

// mysqlCreditor is the MySQL path: the unguarded credit is the statement
// a hand-written worker sends, the guarded one the generated
// accountsmy.CreditAccount (DECIMAL is a string there, as in sqlc's MySQL
// output).
type mysqlCreditor struct{ db *sql.DB }

func (c mysqlCreditor) credit(ctx context.Context, mode string, account int64, token fence.Token) error {
	if mode == Unguarded {
		_, err := c.db.ExecContext(ctx, unguardedCreditMySQL, creditAmount, account)
		return err
	}
	return accountsmy.New(c.db).CreditAccount(ctx, accountsmy.CreditAccountParams{Amount: creditAmount, ID: account}, token)
}

func (c mysqlCreditor) Close() { c.db.Close() }

// mysqlAccount reads the account's balance and token through accountsmy.
func mysqlAccount(ctx context.Context, db *sql.DB, account int64) (string, fence.Token, error) {
	a, err := accountsmy.New(db).GetAccount(ctx, account)
	if err != nil {
		return "", 0, err
	}
	return a.Balance, fence.Token(a.LastFencingToken), nil
}
