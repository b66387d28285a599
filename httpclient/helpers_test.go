package httpclient_test

import (
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/leakcheck"
	"github.com/revoltgo/eventloop/internal/testloop"
	"github.com/stretchr/testify/require"
)

func TestMain(m *testing.M) { leakcheck.Main(m) }

// eachDriver runs f as a subtest per driver with a fresh loop run by a
// goroutine until f and its cleanups are over, and checks that the case
// left no goroutine and no descriptor behind.
func eachDriver(t *testing.T, f func(t *testing.T, l *core.Loop)) {
	t.Helper()
	for _, name := range testloop.Drivers() {
		t.Run(name, func(t *testing.T) {
			testloop.Watchdog(t, time.Minute)
			testloop.NoLeaks(t)
			l := testloop.New(t, name)
			testloop.Run(t, l)
			f(t, l)
		})
	}
}

// onFiber runs fn in a fiber of l (running on another goroutine) and
// waits for it to return.
func onFiber(t testing.TB, l *core.Loop, fn func()) {
	t.Helper()
	done := make(chan struct{})
	var panicked any
	if err := l.Post(func() {
		l.Defer(func(core.CallbackID) {
			defer close(done)
			defer func() { panicked = recover() }()
			if !l.InFiber() {
				panic("not in a fiber")
			}
			fn()
		})
	}); err != nil {
		t.Fatal(err)
	}
	<-done
	if panicked != nil {
		t.Fatalf("panic in the fiber: %v", panicked)
	}
}

// callers are the two ways a request is made: from a fiber of the loop,
// and from a goroutine of its own.
var callers = []struct {
	name string
	run  func(t testing.TB, l *core.Loop, fn func())
}{
	{"fiber", onFiber},
	{"goroutine", func(_ testing.TB, _ *core.Loop, fn func()) { fn() }},
}

// connCounter counts the connections an httptest server accepts.
type connCounter struct {
	mu          sync.Mutex
	new, closed int
	changed     chan struct{} // a value at every close
}

func (c *connCounter) hook(_ net.Conn, s http.ConnState) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch s {
	case http.StateNew:
		c.new++
	case http.StateClosed:
		c.closed++
		if c.changed == nil {
			c.changed = make(chan struct{}, 1)
		}
		select {
		case c.changed <- struct{}{}:
		default:
		}
	}
}

// waitClosed waits until the server has seen n connections close.
func (c *connCounter) waitClosed(n int) {
	for {
		c.mu.Lock()
		if c.closed >= n {
			c.mu.Unlock()
			return
		}
		if c.changed == nil {
			c.changed = make(chan struct{}, 1)
		}
		ch := c.changed
		c.mu.Unlock()
		<-ch
	}
}

func (c *connCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.new
}

// rawServer serves each connection of a TCP listener with serve, in a
// goroutine of its own, and closes the connection when serve returns. It
// returns the listener's address. It stops when the test ends, before the
// test's descriptors are counted: the listener and every connection still
// open are closed, and every serve has returned.
func rawServer(t *testing.T, serve func(c net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	var mu sync.Mutex
	open := map[net.Conn]bool{}
	var serving sync.WaitGroup
	accepting := make(chan struct{})
	go func() {
		defer close(accepting)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			open[c] = true
			mu.Unlock()
			serving.Add(1)
			go func() {
				defer serving.Done()
				serve(c)
				c.Close()
				mu.Lock()
				delete(open, c)
				mu.Unlock()
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		<-accepting
		mu.Lock()
		for c := range open {
			c.Close()
		}
		mu.Unlock()
		serving.Wait()
	})
	return ln.Addr().String()
}
