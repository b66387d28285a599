// Package driver is the seam between the scheduler (package core) and the
// operating system, as database/sql/driver is to database/sql: what a driver
// implements and nothing else. Drivers import this package and never core.
//
// A driver reports readiness of file descriptors and can be woken. It knows
// nothing of time, callbacks, signals or fibers: the core keeps timers in a
// heap, takes signals from os/signal, runs every callback itself, and owns
// the lifecycle of every fd it watches (which file a watcher belongs to, and
// finding fds closed behind its back). The doc comment of Driver is the whole
// contract; package conformance runs a named case for each of its sentences
// (conformance/contract.go lists them side by side).
package driver

import (
	"errors"
	"syscall"
	"time"
)

// Driver reports readiness of file descriptors and can be woken.
//
// Threading. Every method but Wakeup is called from one goroutine at a time
// (the loop's). Wakeup may be called from any goroutine, at any moment,
// including while Wait blocks and concurrently with Close; it never blocks.
//
// Registration. Register starts watching fd for the interest in (Read, Write
// or both) and reports events for it under tok; it fails with an error
// matching fs.ErrExist if fd is already registered. Modify replaces (never
// unions) the interest and token of a registered fd; fs.ErrNotExist if fd is
// not registered. An interest of 0 is valid for Register and Modify: the fd
// stays registered but reports nothing and does not make Wait return (a
// hung-up fd with interest 0 must not spin the loop). Deregister forgets fd;
// fs.ErrNotExist if unknown. A negative fd is rejected with an error. Errors
// name the syscall (os.NewSyscallError) so that errors.Is works on the errno.
//
// Readiness is level-triggered: as long as fd is readable and Read is
// registered, every Wait reports it. Readable is what poll(2) calls POLLIN:
// urgent (out-of-band) data alone, which a read does not return, does not
// make an fd readable (else a level-triggered loop would spin on it).
// Hang-up and error conditions count as readiness for every registered
// interest. Regular files are always ready, as poll(2) has them.
//
// Closed fds. The core deregisters an fd before it closes it (Loop.CloseFD),
// and finds by itself the fds closed behind its back: it records the
// identity of the file behind each watched fd and checks it on a schedule of
// its own. A driver therefore only passes on what its kernel tells it: an fd
// the kernel reports closed (POLLNVAL, or EBADF from a control call) is
// reported once as an Event with Closed set and forgotten. Deregister of an
// fd the kernel has already dropped (closed, or closed and its number
// reused) succeeds. Whatever the kernel keeps of a closed fd, the driver
// must never report it ready forever (a spin). One batch may carry readiness
// and Closed for the same token; the core handles either order.
//
// Tokens are chosen by the core and opaque to the driver: it hands back, in
// Event.Token, the token of the registration (or of the last Modify). The
// core puts a generation into each token and drops events whose generation is
// stale, so a driver need not guard against events that race a Deregister.
//
// Wait fills events (owned by the caller; the driver keeps no reference and
// must not allocate) and returns how many it filled. timeout < 0 blocks until
// an event or a Wakeup; 0 polls without blocking; > 0 blocks at most that
// long, rounded up to the driver's resolution and never down to zero. Every
// fd ready when Wait is called is reported (in this or, when events is full,
// the following Waits); past that, returning (0, nil) early is always allowed
// (the core computes timers itself), so EINTR is never an error. Wakeup makes
// the current or the next Wait return; wakeups coalesce, so a thousand calls
// cost about one.
//
// Close releases every kernel object; afterwards every method, Wakeup
// included, returns an error matching ErrClosed; a second Close is a no-op
// that returns nil.
//
// No globals: two drivers in one process never interfere.
type Driver interface {
	// Name is the selection name: "stream", "epoll", "kqueue", "netpoll", "afd".
	Name() string
	Register(fd int, tok Token, in Interest) error
	Modify(fd int, tok Token, in Interest) error
	Deregister(fd int) error
	Wait(events []Event, timeout time.Duration) (int, error)
	Wakeup() error
	Close() error
}

// Token identifies a registration to the core. Drivers store it and return
// it; they never interpret it.
type Token uint64

// Interest is a bit set of the readiness a driver watches (and reports).
type Interest uint8

const (
	Read  Interest = 1 << iota // the fd is readable (or hung up, or in error)
	Write                      // the fd is writable (or hung up, or in error)
)

// String returns "0", "r", "w" or "rw".
func (in Interest) String() string {
	switch in & (Read | Write) {
	case Read:
		return "r"
	case Write:
		return "w"
	case Read | Write:
		return "rw"
	}
	return "0"
}

// Event is one readiness report.
type Event struct {
	Token Token
	Ready Interest // a subset of the registered interest
	// Closed reports that the kernel said the fd was closed while
	// registered. The driver has already forgotten it; Ready is ignored.
	Closed bool
	// Errno is the error the kernel reported with hang-up or error
	// readiness (kqueue's fflags beside EV_EOF), 0 if none. A driver whose
	// kernel leaves a socket's pending error (SO_ERROR) in place may leave
	// it 0. One that reads SO_ERROR to report it must pass it on: on Linux
	// the read clears it (libkqueue does that read), so the error of a
	// failed connect would be lost.
	Errno syscall.Errno
}

// ErrClosed is what every Driver method returns (wrapped or not) after Close.
var ErrClosed = errors.New("eventloop: driver closed")

// WaitResolution is implemented by drivers whose Wait timeout is coarser than
// a nanosecond; the conformance suite uses it to bound its accuracy checks.
type WaitResolution interface {
	Resolution() time.Duration
}

// Pollable is implemented by drivers whose whole state is one kernel object
// that another event loop can watch: Fd is readable whenever Wait has
// something to report. A program that embeds the loop in another one
// (Loop.RunOnce) waits for Fd in the outer loop, then runs one tick.
type Pollable interface {
	Fd() int
}
