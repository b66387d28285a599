//go:build unix || windows

package socket

import (
	"errors"
	"os"
	"runtime/debug"
	"testing"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// drivers lists the drivers this test runs on: EVENTLOOP_DRIVER alone if
// it is set, else every driver of this build (kqueue with
// -tags eventloop_libkqueue).
func drivers() []string {
	if name := os.Getenv(eventloop.EnvDriver); name != "" {
		return []string{name}
	}
	return eventloop.Drivers()
}

// eachDriver runs f as a subtest per driver with a fresh loop, closed
// after f.
func eachDriver(t *testing.T, f func(t *testing.T, l *core.Loop)) {
	t.Helper()
	for _, name := range drivers() {
		t.Run(name, func(t *testing.T) {
			l, err := eventloop.NewWithDriver(name)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() {
				if err := l.Close(); err != nil {
					t.Errorf("Close: %v", err)
				}
			})
			f(t, l)
		})
	}
}

// newLoop makes a loop on the named driver, closed when the test ends.
func newLoop(t *testing.T, name string) *core.Loop {
	t.Helper()
	l, err := eventloop.NewWithDriver(name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// watchdog panics (with every goroutine's stack) if the test runs past d.
func watchdog(t *testing.T, d time.Duration) {
	t.Helper()
	timer := time.AfterFunc(d, func() {
		debug.SetTraceback("all") // a panic prints its own goroutine only
		panic("test " + t.Name() + " timed out")
	})
	t.Cleanup(func() { timer.Stop() })
}

// runLoop runs l on a goroutine until the returned stop is called; a
// referenced Repeat keeps it running meanwhile.
func runLoop(t *testing.T, l *core.Loop) (stop func()) {
	t.Helper()
	keep := l.Repeat(time.Hour, func(core.CallbackID) {})
	done := make(chan error, 1)
	go func() { done <- l.Run() }()
	// Wait until that goroutine runs the loop, before the test's goroutines
	// use sockets (the package doc says who runs the loop).
	running := make(chan struct{})
	if err := l.Post(func() { close(running) }); err != nil {
		t.Fatal(err)
	}
	<-running
	stopped := false
	stop = func() {
		if stopped {
			return
		}
		stopped = true
		if err := l.Post(func() { l.Cancel(keep); l.Stop() }); err != nil {
			t.Errorf("Post: %v", err)
			return
		}
		if err := <-done; err != nil && !errors.Is(err, core.ErrLoopRunning) {
			t.Errorf("Run: %v", err)
		}
	}
	t.Cleanup(stop)
	return stop
}

// option reads an int socket option of c (getsockopt).
func option(t *testing.T, c *Conn, level, opt int) int {
	t.Helper()
	rc, err := c.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var v int
	var oerr error
	if err := rc.Control(func(fd uintptr) { v, oerr = sockoptInt(fd, level, opt) }); err != nil || oerr != nil {
		t.Fatalf("getsockopt: %v, %v", err, oerr)
	}
	return v
}

// testFD is newFD for a socket a test made; it fails the test on an error.
func testFD(t testing.TB, l *core.Loop, s, family, sotype int, network string) *netFD {
	t.Helper()
	fd, err := newFD(l, s, family, sotype, network)
	if err != nil {
		t.Fatal(err)
	}
	return fd
}
