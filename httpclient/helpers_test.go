package httpclient_test

import (
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"sync"
	"testing"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// drivers lists the drivers the tests run on, as package socket's tests:
// EVENTLOOP_DRIVER alone if it is set, else every driver of this build.
func drivers() []string {
	if name := os.Getenv(eventloop.EnvDriver); name != "" {
		return []string{name}
	}
	return eventloop.Drivers()
}

// eachDriver runs f as a subtest per driver with a fresh loop run by a
// goroutine until f and its cleanups are over; it checks that no
// descriptor is left open (where they can be counted) and closes the
// loop.
func eachDriver(t *testing.T, f func(t *testing.T, l *core.Loop)) {
	t.Helper()
	for _, name := range drivers() {
		t.Run(name, func(t *testing.T) {
			watchdog(t, time.Minute)
			before, countable := countFDs()
			l, err := eventloop.NewWithDriver(name)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := l.Close(); err != nil {
					t.Errorf("loop Close: %v", err)
				}
				if !countable {
					return
				}
				// net/http's servers and Transports close their conns
				// on goroutines of their own: give them a moment.
				var after int
				for range 200 {
					if after, _ = countFDs(); after <= before {
						return
					}
					time.Sleep(10 * time.Millisecond)
				}
				t.Errorf("%d descriptors open before, %d after", before, after)
			})
			runLoop(t, l)
			f(t, l)
		})
	}
}

// watchdog panics (with every goroutine's stack) if the test runs past d.
func watchdog(t *testing.T, d time.Duration) {
	t.Helper()
	timer := time.AfterFunc(d, func() {
		debug.SetTraceback("all")
		panic("test " + t.Name() + " timed out")
	})
	t.Cleanup(func() { timer.Stop() })
}

// runLoop runs l on a goroutine until the test ends; a referenced Repeat
// keeps it running meanwhile.
func runLoop(t testing.TB, l *core.Loop) {
	t.Helper()
	keep := l.Repeat(time.Hour, func(core.CallbackID) {})
	done := make(chan error, 1)
	go func() { done <- l.Run() }()
	// Run must be running before a goroutine's request finds the loop
	// idle and runs it itself (Run would then fail: already running).
	running := make(chan struct{})
	if err := l.Post(func() { close(running) }); err != nil {
		t.Fatal(err)
	}
	<-running
	t.Cleanup(func() {
		if err := l.Post(func() { l.Cancel(keep); l.Stop() }); err != nil {
			t.Errorf("Post: %v", err)
			return
		}
		if err := <-done; err != nil {
			t.Errorf("Run: %v", err)
		}
	})
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
	mu  sync.Mutex
	new int
}

func (c *connCounter) hook(_ net.Conn, s http.ConnState) {
	if s == http.StateNew {
		c.mu.Lock()
		c.new++
		c.mu.Unlock()
	}
}

func (c *connCounter) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.new
}
