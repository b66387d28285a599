//go:build unix || windows

package socket

import (
	"errors"
	"fmt"
	"net"
	"os"
	"runtime/debug"
	"sync/atomic"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// An Accept asleep in the listener's back-off (out of descriptors, see
// TestAcceptBacksOffOutOfDescriptors) is a call like any other: Close
// ends it at once with net.ErrClosed, and the accept deadline with
// os.ErrDeadlineExceeded, whether it was set before the Accept or while
// it sleeps; not when the back-off is over. The caller is a goroutine
// (the loop not running: the call runs it) or a fiber of the loop, and
// the end comes from another goroutine or from a fiber of the loop, which
// runs only if the sleeping fiber left the loop free. The back-off is set
// to an hour, as a failed accept(2) sets it (5 ms and up), so that only
// an early end lets the Accept return within the test's time.
func TestAcceptBackOffEnds(t *testing.T) {
	watchdog(t, 3*time.Minute)
	type ending struct {
		name   string
		before bool // set up before the Accept, rather than while it sleeps
		end    func(ln *Listener) error
		want   func(err error) bool
	}
	closed := func(err error) bool { return isClosedOp(err, "accept") }
	timeout := func(err error) bool { return isTimeout(err) }
	endings := []ending{
		{"Close", false, (*Listener).Close, closed},
		{"deadline moved", false, func(ln *Listener) error { return ln.SetDeadline(time.Now()) }, timeout},
		{"deadline set before", true, func(ln *Listener) error {
			return ln.SetDeadline(time.Now().Add(20 * time.Millisecond))
		}, timeout},
	}
	for _, caller := range []string{"goroutine", "fiber"} {
		for _, e := range endings {
			for _, from := range []string{"goroutine", "fiber"} {
				if e.before && from == "fiber" {
					continue // the test's goroutine sets it
				}
				name := caller + " accepts/" + e.name
				if !e.before {
					name += " from a " + from
				}
				t.Run(name, func(t *testing.T) {
					eachDriver(t, func(t *testing.T, l *core.Loop) {
						acceptBackOffEnds(t, l, caller, from, e.before, e.end, e.want)
					})
				})
			}
		}
	}
}

func acceptBackOffEnds(t *testing.T, l *core.Loop, caller, from string, before bool, end func(*Listener) error, want func(error) bool) {
	ln, err := Listen(l, "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ln.fd.ln.backoff.until.Store(nowMono() + int64(time.Hour))
	var endErr error
	ended := make(chan struct{})
	ending := func() { endErr = end(ln); close(ended) }
	if before {
		ending()
	} else {
		asleep := false
		testHookBackoff = func() {
			if asleep {
				return
			}
			asleep = true
			if from == "fiber" {
				// A fiber of the loop: it runs only if the loop is free.
				if err := l.Post(ending); err != nil {
					t.Error(err)
				}
			} else {
				go ending()
			}
		}
		defer func() { testHookBackoff = nil }()
	}
	accept, accepted := acceptOnce(ln)
	switch caller {
	case "goroutine":
		go accept()
	case "fiber":
		runLoop(t, l)
		if err := l.Post(accept); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case err = <-accepted:
	case <-time.After(time.Minute):
		// A hang, which the cleanups may not end either (a blocked loop
		// runs nothing): say so at once, and show every stack.
		const msg = "Accept still asleep a minute after its end came: the back-off (an hour) was not cut short"
		fmt.Fprintln(os.Stderr, msg)
		debug.SetTraceback("all")
		panic(msg)
	}
	if !want(err) {
		t.Errorf("Accept: %v", err)
	}
	if caller == "goroutine" && from == "fiber" {
		// The Close's fiber still waits for the Accept to leave, in a
		// loop that nobody runs now.
		if err := l.RunUntil(ended); err != nil {
			t.Fatal(err)
		}
	}
	<-ended
	if endErr != nil {
		t.Errorf("the end (Close or SetDeadline): %v", endErr)
	}
	if err := ln.Close(); err != nil && !isClosedOp(err, "close") {
		t.Errorf("Close: %v", err)
	}
}

// TestAcceptBackOffOver: an Accept asleep in the back-off, with a
// deadline further off than the back-off's end, sleeps on the loop's
// timer (not in a spin of its own that leaves the loop unrun) until the
// back-off is over, and then takes the connection that was queued all
// along. Its sleep, over, is not left with the listener.
func TestAcceptBackOffOver(t *testing.T) {
	for _, caller := range []string{"goroutine", "fiber"} {
		t.Run(caller, func(t *testing.T) {
			eachDriver(t, func(t *testing.T, l *core.Loop) {
				ln, err := Listen(l, "tcp", "127.0.0.1:0")
				if err != nil {
					t.Fatal(err)
				}
				defer ln.Close()
				client, err := net.Dial("tcp", ln.Addr().String())
				if err != nil {
					t.Fatal(err)
				}
				defer client.Close()
				if err := ln.SetDeadline(time.Now().Add(time.Minute)); err != nil {
					t.Fatal(err)
				}
				ln.fd.ln.backoff.until.Store(nowMono() + int64(20*time.Millisecond))
				var sleeps atomic.Int32
				testHookBackoff = func() { sleeps.Add(1) }
				defer func() { testHookBackoff = nil }()
				accept, accepted := acceptOnce(ln)
				if caller == "goroutine" {
					accept()
				} else {
					runLoop(t, l)
					if err := l.Post(accept); err != nil {
						t.Fatal(err)
					}
				}
				if err := <-accepted; err != nil {
					t.Fatalf("Accept after the back-off, before the deadline: %v", err)
				}
				if sleeps.Load() == 0 {
					t.Error("the Accept did not sleep on the loop's timer")
				}
				b := &ln.fd.ln.backoff
				b.mu.Lock()
				left := b.nap
				b.mu.Unlock()
				if left != nil {
					t.Error("the listener still holds the sleep that ended")
				}
			})
		})
	}
}

// TestAcceptBackOffGivenUp: a goroutine's Accept asleep in the back-off
// whose run of the loop fails (a callback panicked, and no error handler
// took it) returns that error and takes its timer off the loop: once
// what it posted has run, no callback is left, where the timer would have
// kept the loop running for the hour of the back-off.
func TestAcceptBackOffGivenUp(t *testing.T) {
	eachDriver(t, func(t *testing.T, l *core.Loop) {
		ln, err := Listen(l, "tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		defer ln.Close()
		ln.fd.ln.backoff.until.Store(nowMono() + int64(time.Hour))
		testHookBackoff = func() {
			if err := l.Post(func() { panic("a callback of the test panics") }); err != nil {
				t.Error(err)
			}
		}
		defer func() { testHookBackoff = nil }()
		c, err := ln.Accept()
		if c != nil {
			c.Close()
		}
		var uncaught *core.UncaughtError
		if !errors.As(err, &uncaught) {
			t.Fatalf("Accept: %v, want the loop's *core.UncaughtError", err)
		}
		// Posts run in order: once this one has, so has any the Accept made.
		after := make(chan struct{})
		if err := l.Post(func() { close(after) }); err != nil {
			t.Fatal(err)
		}
		if err := l.RunUntil(after); err != nil {
			t.Fatalf("RunUntil: %v", err)
		}
		if ids := l.Identifiers(); len(ids) > 0 {
			t.Fatalf("the loop still holds callbacks (%v): the sleep's timer was left on it", ids)
		}
	})
}

// acceptOnce returns a call of ln.Accept that closes the conn it gets, if
// any, and the channel that takes its error.
func acceptOnce(ln *Listener) (accept func(), accepted <-chan error) {
	ch := make(chan error, 1)
	return func() {
		c, err := ln.Accept()
		if c != nil {
			c.Close()
		}
		ch <- err
	}, ch
}
