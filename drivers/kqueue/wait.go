//go:build darwin || dragonfly || freebsd || netbsd || openbsd || (linux && cgo && eventloop_libkqueue)

package kqueue

import (
	"os"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"golang.org/x/sys/unix"
)

// Wait implements driver.Driver.
func (d *Driver) Wait(events []driver.Event, timeout time.Duration) (int, error) {
	if d.closed {
		return 0, driver.ErrClosed
	}
	n := d.flush(events)
	n = d.reportAlways(events, n)
	if len(d.regs) > 0 && (d.sweepDue || d.sweepDueNow(timeout)) {
		n = d.sweepAll(events, n)
	}
	if n > 0 {
		timeout = 0
	}
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for {
		room := min(len(events)-n, maxEvents)
		if room <= 0 {
			return n, nil
		}
		// While fds are registered, a blocking wait ends when the next sweep
		// is due, so that an fd closed behind our back is found even when
		// nothing else happens (see doc.go).
		t, capped := timeout, false
		if len(d.regs) > 0 && timeout != 0 {
			t, capped = d.sweep.Bound(d.sweep.Now(), timeout)
		}
		m, err := d.kq.wait(room, roundUp(t))
		if err != nil {
			// EINTR comes often, from the Go runtime's preemption signals
			// (KQUEUE.md, bug 11): wait again for the time left. Darwin has
			// been seen to return ETIMEDOUT, which the Go runtime's kqueue
			// netpoller ignores too (go.dev/issue/59679).
			if err != unix.EINTR && err != unix.ETIMEDOUT {
				return n, os.NewSyscallError("kevent", err)
			}
			m = 0
		}
		var woke bool
		if n, woke = d.collect(events, n, m); n > 0 {
			d.sweep.Activity()
			return n, nil
		}
		if woke || timeout == 0 {
			return 0, nil
		}
		if capped && d.sweep.Due(d.sweep.Now()) {
			if n = d.sweepAll(events, n); n > 0 {
				return n, nil
			}
		}
		if timeout > 0 {
			if timeout = time.Until(deadline); timeout <= 0 {
				return 0, nil
			}
		}
	}
}

// flush reports the Closed events found outside Wait.
func (d *Driver) flush(events []driver.Event) int {
	n := 0
	for n < len(events) && len(d.pending) > 0 {
		events[n] = driver.Event{Token: d.pending[0], Closed: true}
		d.pending = d.pending[1:]
		n++
	}
	if len(d.pending) == 0 {
		d.pending = nil
	}
	return n
}

// roundUp turns a timeout into what the backend sleeps: never shorter than
// asked (libkqueue truncates to whole milliseconds, KQUEUE.md bug 4), never
// zero when positive, never longer than maxTimeout.
func roundUp(t time.Duration) time.Duration {
	if t <= 0 {
		return t
	}
	t = min(t, maxTimeout)
	if resolution > 1 {
		t = (t + resolution - 1) / resolution * resolution
	}
	return t
}

// collect turns the m events the kqueue returned into core events after
// events[:n]. READ and WRITE of one fd become one Event; EOF and error count
// as readiness for every registered filter. It reports whether a wakeup was
// among them.
func (d *Driver) collect(events []driver.Event, n, m int) (int, bool) {
	d.seq++
	woke := false
	for i := 0; i < m; i++ {
		ident, filter, flags := d.kq.event(i)
		if hasUserFilter && filter == filtUser {
			woke = true
			d.wakePending.Store(false)
			continue
		}
		if ident == d.wakeR && filter == filtRead {
			d.drainPipe()
			woke = true
			continue
		}
		r, bit := d.lookup(ident, filter)
		if r == nil {
			continue
		}
		if r.seq != d.seq {
			r.seq, r.slot = d.seq, -1
			// Over libkqueue, a closed fd whose file our dup keeps open
			// stays in epoll and keeps reporting: check it before reporting
			// it, so that it ends in one Closed event, not a spin. Without
			// a dup, epoll forgets a closed fd, and the sweep finds it.
			if !closeRemovesKnotes && r.dup >= 0 && d.stale(r) {
				events[n] = driver.Event{Token: r.tok, Closed: true}
				n++
				d.reap(r)
				continue
			}
		}
		if flags&(evEOF|evError) != 0 {
			bit = r.added
		}
		if bit &= r.added; bit == 0 {
			continue
		}
		if r.slot >= 0 {
			events[r.slot].Ready |= bit
			continue
		}
		r.slot = n
		events[n] = driver.Event{Token: r.tok, Ready: bit}
		n++
	}
	return n, woke
}

// lookup finds the registration an event belongs to.
func (d *Driver) lookup(ident, filter int) (*reg, driver.Interest) {
	var bit driver.Interest
	switch filter {
	case filtRead:
		bit = driver.Read
	case filtWrite:
		bit = driver.Write
	default:
		return nil, 0
	}
	if r := d.regs[ident]; r != nil && r.onDup != bit {
		return r, bit
	}
	if writeNeedsDup {
		if r := d.dups[ident]; r != nil && r.onDup == bit {
			return r, bit
		}
	}
	return nil, 0
}
