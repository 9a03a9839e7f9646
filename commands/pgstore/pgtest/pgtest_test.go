package pgtest_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/url"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mailbot/mailbot/commands/pgstore/pgtest"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// echo starts a line echo server on loopback and returns its address.
func echo(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer func() { _ = c.Close() }(); _, _ = io.Copy(c, c) }()
		}
	}()
	return ln.Addr().String()
}

// roundTrip sends a line through a new or given connection and reports
// whether it came back.
func roundTrip(c net.Conn) bool {
	_ = c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return false
	}
	line, err := bufio.NewReader(c).ReadString('\n')
	return err == nil && line == "ping\n"
}

func TestProxyCutRestore(t *testing.T) {
	p := pgtest.NewProxy(t, "postgres://u@"+echo(t)+"/db")
	u, err := url.Parse(p.DSN())
	if err != nil {
		t.Fatal(err)
	}
	addr := u.Host
	old, err := net.Dial("tcp", addr)
	if err != nil || !roundTrip(old) {
		t.Fatalf("through the proxy before the cut: %v", err)
	}
	p.Cut()
	if roundTrip(old) {
		t.Error("a connection made before the cut still works after it")
	}
	if c, err := net.Dial("tcp", addr); err == nil && roundTrip(c) {
		t.Error("a new connection works during the cut")
	}
	p.Restore()
	c, err := net.Dial("tcp", addr)
	if err != nil || !roundTrip(c) {
		t.Errorf("a new connection after Restore: %v", err)
	}
}

func TestNewDatabase(t *testing.T) {
	a, b := pgtest.NewDatabase(t), pgtest.NewDatabase(t)
	if a == b {
		t.Fatalf("two databases with one DSN: %s", a)
	}
	for _, dsn := range []string{a, b} {
		conn, err := pgx.Connect(t.Context(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = conn.Close(context.Background()) }()
		var tables int
		var user string
		err = conn.QueryRow(t.Context(), `SELECT (SELECT count(*) FROM information_schema.tables
			WHERE table_schema = 'public'), current_user`).Scan(&tables, &user)
		if err != nil || tables != 0 || user != "postgres" {
			t.Errorf("%s: %d tables as %q, %v; want an empty database for postgres", dsn, tables, user, err)
		}
		if _, err := conn.Exec(t.Context(), "CREATE TABLE t (x int)"); err != nil {
			t.Errorf("create a table: %v", err)
		}
	}
}
