//go:build darwin || dragonfly || freebsd || netbsd || openbsd || (linux && cgo && eventloop_libkqueue)

package kqueue_test

import (
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"github.com/revoltgo/eventloop/drivers/kqueue"
	"golang.org/x/sys/unix"
)

// wakers are the two ways a driver can be woken; every unit test runs with
// each.
var wakers = []struct {
	name string
	new  func() (*kqueue.Driver, error)
}{
	{"New", kqueue.New},
	{"pipe", kqueue.NewPipeWaker},
}

func eachWaker(t *testing.T, fn func(t *testing.T, d *kqueue.Driver)) {
	for _, w := range wakers {
		t.Run(w.name, func(t *testing.T) {
			d, err := w.new()
			if err != nil {
				t.Fatalf("new driver: %v", err)
			}
			t.Cleanup(func() { d.Close() })
			fn(t, d)
		})
	}
}

// fdset owns the descriptors a test opens and closes those still open
// when the test ends; a test that closes one says so through close, so that
// the cleanup never closes a number the test no longer owns.
type fdset struct {
	t    testing.TB
	live map[int]bool
}

func newFds(t testing.TB) *fdset {
	f := &fdset{t: t, live: make(map[int]bool)}
	t.Cleanup(func() {
		for fd := range f.live {
			unix.Close(fd)
		}
	})
	return f
}

// pair returns a non-blocking socketpair.
func (f *fdset) pair() (a, b int) {
	f.t.Helper()
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM, 0)
	if err != nil {
		f.t.Fatalf("socketpair: %v", err)
	}
	for _, fd := range fds {
		f.live[fd] = true
		unix.CloseOnExec(fd)
		if err := unix.SetNonblock(fd, true); err != nil {
			f.t.Fatalf("nonblock: %v", err)
		}
	}
	return fds[0], fds[1]
}

func (f *fdset) close(fd int) {
	f.t.Helper()
	delete(f.live, fd)
	if err := unix.Close(fd); err != nil {
		f.t.Fatalf("close(%d): %v", fd, err)
	}
}

// pairAt returns a socketpair whose first end has the number fd, which must
// be free.
func (f *fdset) pairAt(fd int) (a, b int) {
	f.t.Helper()
	a, b = f.pair()
	if a == fd {
		return a, b
	}
	if b == fd {
		return b, a
	}
	// The lowest free number from fd on is fd itself (x/sys has no Dup2
	// on every port).
	got, err := unix.FcntlInt(uintptr(a), unix.F_DUPFD_CLOEXEC, fd)
	if err != nil || got != fd {
		f.t.Fatalf("dup of %d to %d: got %d, %v", a, fd, got, err)
	}
	f.live[fd] = true
	f.close(a)
	return fd, b
}

func write(t testing.TB, fd int, s string) {
	t.Helper()
	if _, err := unix.Write(fd, []byte(s)); err != nil {
		t.Fatalf("write(%d): %v", fd, err)
	}
}

// wait collects the events of one Wait, failing the test on an error.
func wait(t *testing.T, d *kqueue.Driver, timeout time.Duration) []core.Event {
	t.Helper()
	ev := make([]core.Event, 64)
	n, err := d.Wait(ev, timeout)
	if err != nil {
		t.Fatalf("Wait(%v): %v", timeout, err)
	}
	return ev[:n]
}

// waitFor waits until an event for tok comes (Wait may return early), for at
// most limit, and returns it.
func waitFor(t *testing.T, d *kqueue.Driver, tok core.Token, limit time.Duration) (core.Event, time.Duration) {
	t.Helper()
	start := time.Now()
	for time.Since(start) < limit {
		for _, e := range wait(t, d, limit-time.Since(start)) {
			if e.Token == tok {
				return e, time.Since(start)
			}
		}
	}
	t.Fatalf("no event for token %#x within %v", tok, limit)
	return core.Event{}, 0
}

// openFds lists the open descriptors below n, to check that the driver
// leaves none of its own behind.
func openFds(n int) map[int]bool {
	open := make(map[int]bool)
	for fd := range n {
		if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err == nil {
			open[fd] = true
		}
	}
	return open
}
