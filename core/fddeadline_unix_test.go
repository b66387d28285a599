//go:build unix

package core_test

import (
	"fmt"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/revoltgo/eventloop/core"
)

// A deadline is kept as given, however long the goroutine that sets it
// is held up while it does (a preemption between two clock readings set
// it early by the time lost: a Read timed out before its deadline).
func TestFDDeadlineOneClockReading(t *testing.T) {
	l := core.New(newTimerDriver())
	defer l.Close()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	var p core.FD
	if err := p.Init(l, int(r.Fd()), net.ErrClosed); err != nil {
		t.Fatal(err)
	}
	defer core.SetDeadlineHook(func() { time.Sleep(50 * time.Millisecond) })()
	for _, mode := range []core.Interest{core.Read, core.Write} {
		at := time.Now().Add(time.Hour)
		p.SetDeadline(mode, at)
		if kept, want := core.FDDeadline(&p, mode, at); kept != want {
			t.Errorf("mode %v: the deadline kept is %v off the one given", mode, time.Duration(kept-want))
		}
	}
}

// A direction's deadline timer is armed again after it fired: a wait that
// timed out, then a wait under a new deadline, times out too (the fired
// timer is out of the heap and marked so; re-arming pushes it back instead
// of removing from the heap what is not there).
func TestFDDeadlineArmedAgainAfterItFired(t *testing.T) {
	l := core.New(newScriptFD())
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
	var errs []error
	l.Defer(func(core.CallbackID) {
		defer p.Close() // closes fds[0]
		if !p.Acquire() {
			t.Error("Acquire failed on an open FD")
			return
		}
		defer p.Release()
		for range 2 {
			p.SetDeadline(core.Read, time.Now().Add(5*time.Millisecond))
			errs = append(errs, p.Wait(core.Read))
		}
	})
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	want := []error{os.ErrDeadlineExceeded, os.ErrDeadlineExceeded}
	if len(errs) != len(want) || errs[0] != want[0] || errs[1] != want[1] {
		t.Fatalf("the two waits under a deadline returned %v, want %v", errs, want)
	}
}

// A waiting direction's deadline timer follows its deadline: one node in
// the loop's heap, left in place when the deadline is set again unchanged
// (no heap operation, and it keeps its place among the timers due at that
// instant), armed anew when it moves (after every timer armed before it),
// and taken out when the deadline is removed or the FD closed, so that the
// heap holds no closed FD until its deadline.
func TestFDDeadlineTimerFollowsTheDeadline(t *testing.T) {
	l := core.New(newScriptFD())
	defer l.Close()
	p := lockFD(t, l)
	at := time.Now().Add(time.Hour)
	var errs []string
	check := func(step string, wantArmed bool) {
		armed, _ := core.FDTimer(p, core.Read)
		want := map[bool]int{true: 1, false: 0}[wantArmed]
		if armed != wantArmed || core.Timers(l) != want {
			errs = append(errs, fmt.Sprintf("%s: the timer is armed: %v, the heap holds %d; want %v, %d", step, armed, core.Timers(l), wantArmed, want))
		}
	}
	var waitErr, closeErr error
	l.Defer(func(core.CallbackID) {
		p.Acquire()
		defer p.Release()
		p.SetDeadline(core.Read, at)
		l.Defer(func(core.CallbackID) { // the fiber below waits
			check("the wait began", true)
			_, seq := core.FDTimer(p, core.Read)
			p.SetDeadline(core.Read, at)
			check("the same deadline set again", true)
			if _, again := core.FDTimer(p, core.Read); again != seq {
				errs = append(errs, fmt.Sprintf("the same deadline set again re-armed the timer (arming number %d, was %d)", again, seq))
			}
			p.SetDeadline(core.Read, at.Add(time.Hour))
			check("the deadline moved", true)
			if _, moved := core.FDTimer(p, core.Read); moved <= seq {
				errs = append(errs, fmt.Sprintf("the moved deadline's timer has arming number %d, not after the %d it had", moved, seq))
			}
			p.SetDeadline(core.Read, time.Time{})
			check("the deadline removed", false)
			p.SetDeadline(core.Read, at)
			check("a deadline set again", true)
			closeErr = p.Close() // returns once the waiter has left
			check("the FD closed", false)
		})
		waitErr = p.Wait(core.Read)
	})
	if err := l.Run(); err != nil {
		t.Fatal(err)
	}
	for _, e := range errs {
		t.Error(e)
	}
	if waitErr != net.ErrClosed || closeErr != nil {
		t.Fatalf("the wait ended with %v, Close with %v; want net.ErrClosed, nil", waitErr, closeErr)
	}
}

// A deadline set from another goroutine while a call waits ends that
// wait, in either direction, and when both directions are set at once:
// SetDeadline looks at the waiter of each direction it sets.
func TestFDDeadlineSetWhileWaiting(t *testing.T) {
	for _, c := range []struct {
		name       string
		set, waits core.Interest
	}{
		{"read", core.Read, core.Read},
		{"write", core.Write, core.Write},
		{"both, a read waits", core.Read | core.Write, core.Read},
		{"both, a write waits", core.Read | core.Write, core.Write},
	} {
		t.Run(c.name, func(t *testing.T) {
			l := core.New(newScriptFD()) // it reports no readiness unless told
			defer l.Close()
			p := lockFD(t, l)
			var got error
			l.Defer(func(core.CallbackID) {
				defer p.Close()
				if !p.Acquire() {
					t.Error("Acquire failed on an open FD")
					return
				}
				defer p.Release()
				// Once the wait is under way, from a goroutine; a wait that
				// the deadline misses is ended by Close, and says so.
				l.Delay(5*time.Millisecond, func(core.CallbackID) {
					go p.SetDeadline(c.set, time.Now().Add(-time.Second))
				})
				guard := l.Delay(10*time.Second, func(core.CallbackID) {
					t.Error("the deadline did not end the wait in 10 s")
					p.Close()
				})
				got = p.Wait(c.waits)
				l.Cancel(guard)
			})
			if err := l.Run(); err != nil {
				t.Fatal(err)
			}
			if got != os.ErrDeadlineExceeded {
				t.Errorf("the wait returned %v, want os.ErrDeadlineExceeded", got)
			}
		})
	}
}
