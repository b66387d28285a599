//go:build unix

package core_test

import (
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
	"golang.org/x/sys/unix"
)

// notOpen is an fd number that names no file: above any descriptor limit
// the tests run with, so closing it fails with EBADF and never closes a
// file of someone else's.
const notOpen = 1 << 30

// Close returns close's own error, from a fiber and from a goroutine: a
// descriptor that could not be closed is not reported closed.
func TestFDCloseReturnsCloseError(t *testing.T) {
	for _, fiber := range []bool{true, false} {
		t.Run(map[bool]string{true: "fiber", false: "goroutine"}[fiber], func(t *testing.T) {
			l := core.New(newTimerDriver(), core.WithoutFileIDs())
			defer l.Close()
			var p core.FD
			if err := p.Init(l, notOpen, net.ErrClosed); err != nil {
				t.Fatal(err)
			}
			var err error
			onFiber(t, l, fiber, func() { err = p.Close() })
			if !errors.Is(err, syscall.EBADF) || !strings.Contains(err.Error(), "FD.Close(1073741824)") {
				t.Fatalf("Close of an fd that is not open: %v, want an error naming it that matches EBADF", err)
			}
			if err := p.Close(); err != net.ErrClosed {
				t.Fatalf("second Close: %v, want the closed error", err)
			}
		})
	}
}

// refuseOnce is a scripted driver that refuses the first registration of
// one fd.
type refuseOnce struct {
	*scriptFD
	fd      int
	refused bool
}

func (d *refuseOnce) Register(fd int, tok core.Token, in core.Interest) error {
	if fd == d.fd && !d.refused {
		d.refused = true
		return errors.New("refused")
	}
	return d.scriptFD.Register(fd, tok, in)
}

// An FD the driver refused lets go of its number in the loop's books: a
// watcher of that number registered afterwards is deregistered when it is
// cancelled, as if the FD had never been, instead of the registration
// being kept for the failed FD.
func TestFDRefusedLetsGoOfItsNumber(t *testing.T) {
	drv := &refuseOnce{scriptFD: newScriptFD()}
	l := core.New(drv)
	defer l.Close()
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(fds[1])
	var p core.FD
	if err := p.Init(l, fds[0], net.ErrClosed); err != nil {
		syscall.Close(fds[0])
		t.Fatal(err)
	}
	defer p.Close() // closes fds[0]
	drv.fd = fds[0]
	var waitErr error
	registered, kept := false, true
	l.Defer(func(core.CallbackID) {
		p.Acquire()
		waitErr = p.Wait(core.Read)
		p.Release()
		id := l.OnReadable(drv.fd, func(core.CallbackID, int) {})
		l.Defer(func(core.CallbackID) { // the watcher is active
			_, registered = drv.reg[drv.fd]
			l.Cancel(id)
			_, kept = drv.reg[drv.fd]
		})
	})
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if waitErr == nil || !strings.Contains(waitErr.Error(), "refused") {
		t.Fatalf("Wait on an fd the driver refused: %v, want the driver's error", waitErr)
	}
	// The fd still names its file: the refusal is the driver's alone.
	if errors.Is(waitErr, core.ErrFDClosed) {
		t.Fatalf("Wait on an open fd the driver refused: %v, which matches ErrFDClosed", waitErr)
	}
	if !registered || kept {
		t.Fatalf("a watcher of the refused FD's number: registered %v, still registered after its Cancel %v; want true, false", registered, kept)
	}
}

// Close waits for the last user: the descriptor stays open while a call
// still holds a reference, and the last Release closes it and ends the
// Close.
func TestFDCloseWaitsForTheLastRelease(t *testing.T) {
	l := core.New(newTimerDriver(), core.WithoutFileIDs())
	defer l.Close()
	var p core.FD
	if err := p.Init(l, notOpen, net.ErrClosed); err != nil {
		t.Fatal(err)
	}
	if !p.Acquire() || !p.Acquire() {
		t.Fatal("Acquire failed on an open FD")
	}
	var closeErr error
	var closed, closedBeforeTheLast, closedAfterIt bool
	l.Defer(func(core.CallbackID) {
		closeErr = p.Close()
		closed = true
	})
	l.Defer(func(core.CallbackID) { // Close waits
		p.Release()
		l.Defer(func(core.CallbackID) {
			closedBeforeTheLast = closed
			p.Release()
			l.Defer(func(core.CallbackID) {
				closedAfterIt = closed
				if !closed {
					l.Stop() // nothing will wake the Close
				}
			})
		})
	})
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if closedBeforeTheLast || !closedAfterIt || !errors.Is(closeErr, syscall.EBADF) {
		t.Fatalf("Close returned while a user was left: %v, once the last had left: %v (with %v); want false, true (with close's EBADF)", closedBeforeTheLast, closedAfterIt, closeErr)
	}
}

// A wait that Close ends returns the closed error, with no deadline set
// (which would send it down the general path): from a fiber and from a
// goroutine.
func TestCloseEndsAWaitWithTheClosedError(t *testing.T) {
	for _, fiber := range []bool{true, false} {
		t.Run(map[bool]string{true: "fiber", false: "goroutine"}[fiber], func(t *testing.T) {
			l := core.New(newScriptFD())
			defer l.Close()
			p := lockFD(t, l)
			if !p.Acquire() {
				t.Fatal("Acquire failed on an open FD")
			}
			closed := make(chan error, 1)
			l.Defer(func(core.CallbackID) {
				l.Defer(func(core.CallbackID) { // the wait has begun
					go func() { closed <- p.Close() }()
				})
			})
			var err error
			onFiber(t, l, fiber, func() {
				err = p.Wait(core.Read)
				p.Release() // the last user: Close closes the descriptor
			})
			if err != net.ErrClosed {
				t.Fatalf("Wait that Close ended: %v, want net.ErrClosed", err)
			}
			if err := <-closed; err != nil {
				t.Fatalf("Close: %v", err)
			}
		})
	}
}

// An FD whose descriptor was closed behind the loop's back, its number
// taken by a new file, fails when an FD of the new file attaches the
// number: its waiter wakes with an error matching ErrFDClosed that says
// so, instead of waiting for ever on a file that is gone.
func TestAttachFailsTheGoneOwnerOfItsNumber(t *testing.T) {
	l := core.New(newScriptFD())
	defer l.Close()
	var a, b [2]int
	if err := syscall.Pipe(a[:]); err != nil {
		t.Fatal(err)
	}
	defer syscall.Close(a[1])
	if err := syscall.Pipe(b[:]); err != nil {
		syscall.Close(a[0])
		t.Fatal(err)
	}
	defer syscall.Close(b[1])
	var old, newer core.FD // old is never closed: its number goes to newer
	if err := old.Init(l, a[0], net.ErrClosed); err != nil {
		t.Fatal(err)
	}
	var x core.FDWatch
	var waitErr error
	rescued := false
	l.Defer(func(core.CallbackID) {
		old.Acquire()
		defer old.Release()
		guard := l.Delay(5*time.Second, func(core.CallbackID) {
			rescued = true // the wait was never woken: end it
			old.SetDeadline(core.Read, time.Now().Add(-time.Second))
		})
		defer l.Cancel(guard)
		l.Defer(func(core.CallbackID) {
			l.Defer(func(core.CallbackID) { // old waits, its number attached
				if err := unix.Dup2(b[0], a[0]); err != nil { // closes old's file
					t.Error(err)
				}
				syscall.Close(b[0])
				if err := newer.Init(l, a[0], net.ErrClosed); err != nil {
					t.Error(err)
				} else if err := newer.Watch(core.Read, &x, func() {}); err != nil {
					t.Error(err)
				}
			})
		})
		waitErr = old.Wait(core.Read)
		x.Stop()
	})
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	if err := newer.Close(); err != nil {
		t.Error(err)
	}
	if rescued || !errors.Is(waitErr, core.ErrFDClosed) || !strings.Contains(waitErr.Error(), "now names another file") {
		t.Fatalf("the wait on a number another file took: %v (woken only by the 5 s guard: %v), want an error matching ErrFDClosed that says its number names another file", waitErr, rescued)
	}
}
