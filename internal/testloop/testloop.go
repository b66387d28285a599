// Package testloop is what the tests of the packages that open loops
// share: the drivers to run on, a loop per driver closed when the test
// ends, a loop run by a goroutine, a check that a case left no goroutine
// and no descriptor behind, and a hang guard. It imports package testing,
// so only tests import it.
package testloop

import (
	"errors"
	"os"
	"runtime/debug"
	"testing"
	"time"

	"github.com/revoltgo/eventloop"
	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/internal/leakcheck"
	"go.uber.org/goleak"
)

// Drivers lists the drivers the tests run on: EVENTLOOP_DRIVER alone if it
// is set, else every driver of this build (kqueue with
// -tags eventloop_libkqueue).
func Drivers() []string {
	if name := os.Getenv(eventloop.EnvDriver); name != "" {
		return []string{name}
	}
	return eventloop.Drivers()
}

// New returns a loop on the named driver, closed when t ends (after the
// cleanups registered later); its Close must not fail.
func New(t testing.TB, name string, opts ...eventloop.Option) *core.Loop {
	t.Helper()
	l, err := eventloop.NewWithDriver(name, opts...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := l.Close(); err != nil {
			t.Errorf("loop Close: %v", err)
		}
	})
	return l
}

// EachDriver runs f as a subtest per driver (Drivers) with a fresh loop
// (New).
func EachDriver(t *testing.T, f func(t *testing.T, l *core.Loop)) {
	t.Helper()
	for _, name := range Drivers() {
		t.Run(name, func(t *testing.T) { f(t, New(t, name)) })
	}
}

// NoLeaks checks, once t and all the cleanups registered after this call
// are done, that no goroutine started meanwhile is left and that as many
// descriptors are open as now (where they can be counted: leakcheck.FDs).
func NoLeaks(t testing.TB) {
	t.Helper()
	fds, counted := leakcheck.FDs()
	goroutines := goleak.IgnoreCurrent()
	t.Cleanup(func() {
		if err := goleak.Find(goroutines); err != nil {
			t.Errorf("goroutines left behind: %v", err)
		}
		if !counted {
			return
		}
		// The Close of a loop, of its sockets and of net's returns once the
		// descriptor is closed; net/http's servers and Transports close
		// theirs on goroutines of their own, which goleak waited for.
		// Leaked polls, and its deadline is reached only by a leak.
		if err := leakcheck.Leaked(fds, leakcheck.Deadline); err != nil {
			t.Error(err)
		}
	})
}

// Watchdog panics (with every goroutine's stack) if the test runs past d:
// a hang guard, never a bound on speed.
func Watchdog(t testing.TB, d time.Duration) {
	t.Helper()
	timer := time.AfterFunc(d, func() {
		debug.SetTraceback("all") // a panic prints its own goroutine only
		panic("test " + t.Name() + " timed out")
	})
	t.Cleanup(func() { timer.Stop() })
}

// Run runs l on a goroutine until stop is called or the test ends; a
// referenced Repeat keeps it running meanwhile. It returns once that
// goroutine runs the loop, so that a goroutine of the test whose socket
// call waits finds it running (package socket's doc says who runs the
// loop), rather than running it itself and making Run fail.
func Run(t testing.TB, l *core.Loop) (stop func()) {
	t.Helper()
	keep := l.Repeat(time.Hour, func(core.CallbackID) {})
	done := make(chan error, 1)
	go func() { done <- l.Run() }()
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
