//go:build darwin || dragonfly || freebsd || netbsd || openbsd || (linux && cgo && eventloop_libkqueue)

package kqueue

import (
	"os"
	"slices"
	"syscall"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"golang.org/x/sys/unix"
)

// maxTimeout caps one sleep: darwin fails a longer one with EINVAL (the Go
// runtime's netpoll_kqueue.go caps it alike); returning early is allowed.
const maxTimeout = 1e6 * time.Second

// Wait implements driver.Driver.
func (d *Driver) Wait(events []driver.Event, timeout time.Duration) (int, error) {
	if d.closed {
		return 0, driver.ErrClosed
	}
	n := min(len(events), len(d.pending))
	for i, tok := range d.pending[:n] {
		events[i] = driver.Event{Token: tok, Closed: true}
	}
	d.pending = slices.Delete(d.pending, 0, n)
	if n = d.reportAlways(events, n); n > 0 {
		timeout = 0
	}
	deadline := time.Now().Add(timeout)
	for n < len(events) {
		t := timeout // rounded up: libkqueue truncates to whole ms (KQUEUE.md, bug 4)
		if t > 0 {
			t = (min(t, maxTimeout) + resolution - 1) / resolution * resolution
		}
		m, err := d.kq.wait(min(len(events)-n, maxEvents), t)
		// EINTR comes often, from the Go runtime's preemption signals
		// (KQUEUE.md, bug 11). Darwin has been seen to return ETIMEDOUT,
		// which the Go runtime ignores too (go.dev/issue/59679).
		if err != nil && err != unix.EINTR && err != unix.ETIMEDOUT {
			return n, os.NewSyscallError("kevent", err)
		}
		var woke bool
		if n, woke = d.collect(events, n, max(m, 0)); n > 0 || woke || timeout == 0 {
			break
		}
		if timeout > 0 {
			if timeout = time.Until(deadline); timeout <= 0 {
				break
			}
		}
	}
	return n, nil
}

// collect turns the m events the kqueue returned into Events after
// events[:n], one per fd; EOF and error count as readiness for every
// registered filter. It reports whether the waker fired.
func (d *Driver) collect(events []driver.Event, n, m int) (int, bool) {
	d.seq++
	woke := false
	for i := range m {
		ident, filter, flags, fflags := d.kq.event(i)
		if filter == filtUser || filter == filtRead && ident == d.w.Fd() {
			d.w.Drain()
			woke = true
			continue
		}
		r, bit := d.regs[ident], driver.Read
		if filter == filtWrite {
			if bit = driver.Write; writeNeedsDup {
				r = d.dups[ident]
			}
		}
		if r == nil || filter != filtRead && filter != filtWrite {
			continue
		}
		if r.seq != d.seq {
			r.seq, r.slot = d.seq, -1
			if r.dup >= 0 && d.gone(r) {
				events[n] = driver.Event{Token: r.tok, Closed: true}
				n++
				d.forget(r)
				continue
			}
		}
		if flags&(evEOF|evError) != 0 {
			bit = r.in
		}
		if bit &= r.in; bit == 0 {
			continue
		}
		if r.slot < 0 {
			r.slot = n
			events[n] = driver.Event{Token: r.tok}
			n++
		}
		events[r.slot].Ready |= bit
		// With EV_EOF, fflags is the socket's error. libkqueue reads it
		// from SO_ERROR, which clears it, and READ and WRITE may each
		// read: the first one holds it.
		if flags&evEOF != 0 && fflags != 0 && events[r.slot].Errno == 0 {
			events[r.slot].Errno = syscall.Errno(fflags)
		}
	}
	return n, woke
}

// gone reports whether r's fd is closed or names another file: the dup
// that carries WRITE over libkqueue keeps a closed fd's file, and its
// entry in epoll, alive, and with it a readiness that would never end.
func (d *Driver) gone(r *reg) bool {
	id, _, err := identify(r.fd)
	return err == unix.EBADF || err == nil && id != r.id
}
