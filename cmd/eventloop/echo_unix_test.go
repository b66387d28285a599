//go:build unix

package main

import (
	"bytes"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop"
)

// TestEcho serves echo on every driver of this build, with a fiber per
// connection and served (--serve), and sends it, from four clients at
// once, more than a socket buffer holds, so that the server's fibers (or
// Handlers) suspend on writes, and its reads wait; then it stops the
// server and checks that the loop's goroutines and sockets are gone.
func TestEcho(t *testing.T) {
	watchdog(t, time.Minute)
	for _, name := range eventloop.Drivers() {
		for _, serve := range []bool{false, true} {
			sub := name
			if serve {
				sub += "/served"
			}
			t.Run(sub, func(t *testing.T) { testEcho(t, name, serve) })
		}
	}
}

func testEcho(t *testing.T, name string, serve bool) {
	g0 := runtime.NumGoroutine()
	l, err := eventloop.NewWithDriver(name)
	if err != nil {
		t.Fatal(err)
	}
	srv, err := listenEcho(l, "127.0.0.1:0", false, echoOptions{serve: serve})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		err := l.Run()
		done <- errors.Join(err, l.Close())
	}()

	var wg sync.WaitGroup
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := echoClient(srv.addr.String(), 1<<20+i); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	// A client still connected when the server stops is cut off:
	// Close unwinds its fiber, which closes the socket.
	idle, err := net.Dial("tcp", srv.addr.String())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	time.Sleep(20 * time.Millisecond) // let the server accept it
	if err := l.Post(srv.stop); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	idle.SetReadDeadline(time.Now().Add(5 * time.Second))
	if n, err := idle.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("a client connected at stop read %d, %v; want the server to close it (EOF)", n, err)
	}
	if _, err := net.Dial("tcp", srv.addr.String()); err == nil {
		t.Error("the server still accepts after stop")
	}
	if n := goroutinesSettle(g0); n > g0 {
		t.Errorf("%d goroutines left after Close, %d before", n, g0)
	}
}

// echoClient sends size random bytes while reading the echo back.
func echoClient(addr string, size int) error {
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	sent := make([]byte, size)
	for i := range sent {
		sent[i] = byte(rand.Uint32())
	}
	werr := make(chan error, 1)
	go func() {
		_, err := c.Write(sent)
		werr <- err
	}()
	got := make([]byte, size)
	if _, err := io.ReadFull(c, got); err != nil {
		return err
	}
	if err := <-werr; err != nil {
		return err
	}
	if !bytes.Equal(got, sent) {
		return errors.New("the echo differs from what was sent")
	}
	return nil
}

// TestEchoLoops serves echo on two loops sharing one address through
// SO_REUSEPORT, as --loops 2 does, on every driver: every client is
// echoed, both loops take connections (the kernel spreads them), and a
// stop ends both runs and their goroutines.
func TestEchoLoops(t *testing.T) {
	watchdog(t, time.Minute)
	for _, name := range eventloop.Drivers() {
		t.Run(name, func(t *testing.T) {
			g0 := runtime.NumGoroutine()
			g, err := startEcho(name, "127.0.0.1:0", 2, echoOptions{})
			if err != nil {
				t.Fatal(err)
			}
			for i, s := range g.servers {
				if s.addr.String() != g.servers[0].addr.String() {
					t.Fatalf("loop %d listens on %s, loop 0 on %s", i, s.addr, g.servers[0].addr)
				}
			}
			done := make(chan error, 1)
			go func() { done <- g.run() }()
			var wg sync.WaitGroup
			for i := range 32 {
				wg.Go(func() {
					if err := echoClient(g.servers[0].addr.String(), 64<<10+i); err != nil {
						t.Error(err)
					}
				})
			}
			wg.Wait()
			g.stop()
			if err := <-done; err != nil {
				t.Fatal(err)
			}
			for i, s := range g.servers {
				if s.accepted == 0 {
					t.Errorf("loop %d accepted none of the 32 connections", i)
				}
			}
			if n := goroutinesSettle(g0); n > g0 {
				t.Errorf("%d goroutines left after Close, %d before", n, g0)
			}
		})
	}
}

func TestEchoArgs(t *testing.T) {
	if err := echoCmd(nil, io.Discard); err == nil {
		t.Error("echo without an address: no error")
	}
	if err := echoCmd([]string{"--driver", "nosuch", "127.0.0.1:0"}, io.Discard); err == nil {
		t.Error("echo on an unknown driver: no error")
	}
	if err := echoCmd([]string{"256.0.0.1:0"}, io.Discard); err == nil {
		t.Error("echo on a bad address: no error")
	}
	if err := echoCmd([]string{"--loops", "0", "127.0.0.1:0"}, io.Discard); err == nil {
		t.Error("echo on no loop: no error")
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--serve", "--buf", "64", "127.0.0.1:0"}, "--buf sizes a fiber's read buffer"},
		{[]string{"--buf", "0", "127.0.0.1:0"}, "--buf 0: want at least 1 byte"},
		{[]string{"--timer", "-1s", "127.0.0.1:0"}, "--timer -1s: want a positive interval"},
	} {
		if err := echoCmd(c.args, io.Discard); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("echo %q: %v, want an error saying %q", c.args, err, c.want)
		}
	}
}
