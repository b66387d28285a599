// Package eventloop is the one import a program needs: it picks a driver
// and makes loops, and gives the loop's types, options, errors and helpers
// (Loop, CallbackID, Suspension, Await, WithWatchdog, ...) as aliases of
// package core's, the scheduler, which documents them: go doc shows a
// type's methods there (go doc github.com/revoltgo/eventloop/core Loop,
// go doc github.com/revoltgo/eventloop/core Loop.Defer). The drivers live
// under drivers/.
//
// The examples start from New, then Queue, Defer, Delay, Repeat,
// OnReadable, OnSignal, Suspension, Await, Post, RunOnce (a loop inside
// another), RunContext, the watchdog and Metrics.
//
// # Seeing inside a running loop
//
// A fiber that keeps the loop's goroutine blocked for 5 ms (net/http's
// client in a handler, time.Sleep, a channel, a lock) is reported once per
// call site to the standard logger, with what to do instead; nothing needs
// setting (WithBlockedReport, or EVENTLOOP_BLOCKED=0 to turn it off).
//
// WithWatchdog (or EVENTLOOP_DEBUG_SLOW=100ms) reports a callback that runs
// past a threshold while it still runs, with the stack of its fiber, and
// again when it returns. Loop.Metrics, safe from any goroutine, tells time
// idle and busy (UtilizationSince), how late timers ran (a histogram),
// ticks, fd events, callbacks by type, microtasks, posts and suspended
// fibers; package expvarloop publishes them with expvar.
//
// New picks the driver in this order: the EVENTLOOP_DRIVER environment
// variable ("stream", "epoll", "kqueue", "netpoll", "afd"; an unknown or
// unavailable name is an error that lists the available ones), else the
// build tag eventloop_<name> (at most one: two stop the build), else the
// platform's best: epoll on Linux, kqueue on the BSDs and darwin, afd on
// Windows, stream on AIX (netpoll is not built there), netpoll on the
// other Unix systems (Solaris, illumos); js, wasip1 and plan9 have none.
// Drivers lists what this build offers, best first.
//
// kqueue is offered on Linux too when built with cgo and the tag
// eventloop_libkqueue (libkqueue, a userspace kqueue: for testing the
// driver, not for production).
package eventloop

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/revoltgo/eventloop/core"
)

// EnvDriver is the environment variable that names the driver New picks.
const EnvDriver = "EVENTLOOP_DRIVER"

// Drivers returns the names of the drivers this build offers, best first.
func Drivers() []string { return slices.Clone(platformDrivers) }

// DefaultDriver returns the name of the driver New would pick now: the
// value of EVENTLOOP_DRIVER as it is (New fails if this build does not
// offer it), else the one the build tag names, else the first of Drivers,
// or "" where this build offers none. DefaultDriverReason says which.
func DefaultDriver() string {
	name, _ := pick()
	return name
}

// DefaultDriverReason says where DefaultDriver's answer comes from: "env"
// (the EVENTLOOP_DRIVER variable), "tag" (an eventloop_<name> build tag) or
// "platform".
func DefaultDriverReason() string {
	_, why := pick()
	return why
}

func pick() (name, why string) {
	if env := os.Getenv(EnvDriver); env != "" {
		return env, "env"
	}
	if driverTag != "" {
		return driverTag, "tag"
	}
	if offered := platformDrivers; len(offered) > 0 {
		return offered[0], "platform"
	}
	return "", "platform"
}

// New returns a loop on the driver picked as the package doc says. Like
// core.New it reads EVENTLOOP_DEBUG_TRACE, EVENTLOOP_DEBUG_SLOW and
// EVENTLOOP_BLOCKED; unlike it, it returns an error naming
// EVENTLOOP_DEBUG_SLOW and its value when that is not a duration of 0 (off)
// or more, and likewise EVENTLOOP_BLOCKED when it is not 0 or 1 (or off, on,
// false, true).
func New(opts ...Option) (*Loop, error) {
	if _, err := core.DebugSlowFromEnv(); err != nil {
		return nil, err
	}
	if _, err := core.BlockedFromEnv(); err != nil {
		return nil, err
	}
	name, why := pick()
	if name == "" {
		return nil, fmt.Errorf("eventloop: no driver is available on this platform: %w", core.ErrUnsupported)
	}
	l, err := NewWithDriver(name, opts...)
	if err != nil && why == "env" {
		return nil, fmt.Errorf("%w (from %s)", err, EnvDriver)
	}
	return l, err
}

// NewWithDriver returns a loop on the named driver: "stream", "epoll",
// "kqueue", "netpoll" or "afd". The environment is read as New reads it.
func NewWithDriver(name string, opts ...Option) (*Loop, error) {
	if _, err := core.DebugSlowFromEnv(); err != nil {
		return nil, err
	}
	if _, err := core.BlockedFromEnv(); err != nil {
		return nil, err
	}
	d, err := NewDriver(name)
	if err != nil {
		return nil, err
	}
	return core.New(d, opts...), nil
}

// NewDriver makes the named driver alone, as NewWithDriver does before it
// hands it to core.New: for a program that wraps a driver (to count its
// calls, say) before it makes a loop on it. The loop made on it owns it;
// without one, the caller closes it.
func NewDriver(name string) (core.Driver, error) {
	if !offersDriver(name) {
		what := "unknown"
		if knownDriver(name) {
			what = "unavailable in this build"
		}
		return nil, unsupportedError{fmt.Sprintf("eventloop: driver %q is %s; available: %s",
			name, what, strings.Join(platformDrivers, ", "))}
	}
	d, err := newDriver(name)
	if err != nil {
		return nil, fmt.Errorf("eventloop: driver %q: %w", name, err)
	}
	return d, nil
}

// unsupportedError matches core.ErrUnsupported without repeating its words
// after a message that says the same.
type unsupportedError struct{ msg string }

func (e unsupportedError) Error() string        { return e.msg }
func (e unsupportedError) Is(target error) bool { return target == core.ErrUnsupported }

var defaultLoop struct {
	sync.Mutex
	l *core.Loop
}

// Default returns the process-wide loop (Revolt's static EventLoop facade).
// The first call makes it with New; a call after it was closed makes a new
// one, empty: what was registered on the old loop went with it. Default is
// safe to call from any goroutine; the loop it returns is not (only its
// Post is): use it from the goroutine that runs it.
//
// Libraries that share the default loop never close it, never run or stop
// it, and never keep it across calls that might outlive it: they call
// Default when they need the loop, register their callbacks (which keep it
// running while they are referenced) and cancel them when done. The program
// runs it (Run, or RunContext until a signal) and closes it, once, when
// nothing will use it again (after its last Run).
//
// When New fails (EVENTLOOP_DRIVER names an unknown or unavailable driver,
// the platform offers none, or the driver cannot be made, e.g. for lack of
// fds), Default panics with an error that wraps New's error: its message
// begins "eventloop.Default: " and names the cause, and errors.Is works on
// it (core.ErrUnsupported for a driver this build does not offer). Nothing
// is kept, so a later call tries again. A program that must not panic calls
// New and keeps the loop itself.
func Default() *Loop {
	defaultLoop.Lock()
	defer defaultLoop.Unlock()
	if defaultLoop.l != nil && !defaultLoop.l.IsClosed() {
		return defaultLoop.l
	}
	defaultLoop.l = nil
	l, err := New()
	if err != nil {
		panic(fmt.Errorf("eventloop.Default: %w", err))
	}
	defaultLoop.l = l
	return l
}
