//go:build darwin || dragonfly || freebsd || netbsd || openbsd || (linux && cgo && eventloop_libkqueue)

package kqueue

import (
	"time"

	"github.com/revoltgo/eventloop/driver"
	"github.com/revoltgo/eventloop/drivers/internal/fdcheck"
	"golang.org/x/sys/unix"
)

// Neither a kernel kqueue nor libkqueue says when a registered fd is closed:
// kevent(2) removes the knotes silently, libkqueue's epoll forgets the fd
// silently (or, while another descriptor holds the file open, keeps
// reporting it). So the driver checks every registration in sweeps,
// scheduled by fdcheck.Sweep like the epoll and netpoll drivers' (10 ms
// after activity, doubling while idle up to 1 s, at most ~1% of the time),
// and over libkqueue each fd it holds a dup of whenever that fd reports an
// event (see doc.go).

// sweepDueNow reports whether a sweep is due before a Wait with this
// timeout; a poll reads the clock only now and then.
func (d *Driver) sweepDueNow(timeout time.Duration) bool {
	if timeout == 0 {
		return d.sweep.PollDue()
	}
	return d.sweep.Due(d.sweep.Now())
}

// sweepAll reports every stale registration as Closed after events[:n].
// When events fill up, the rest waits for the next Wait.
func (d *Driver) sweepAll(events []driver.Event, n int) int {
	start := d.sweep.Now()
	d.sweepDue = false
	for _, r := range d.regs {
		if !d.stale(r) {
			continue
		}
		if n == len(events) {
			d.sweepDue = true
			break
		}
		events[n] = driver.Event{Token: r.tok, Closed: true}
		n++
		d.reap(r)
	}
	d.sweep.Swept(start, d.sweep.Now())
	return n
}

// stale reports whether r's fd was closed since Register, or closed and its
// number reused.
//
// On a kernel, the knotes went with close(2), so EV_ENABLE on one of them
// fails with ENOENT (number reused) or EBADF (closed); enabling an enabled
// knote changes nothing. This works for sockets, whose fstat carries no
// identity on the BSDs (st_dev and st_ino are zero). Over libkqueue the
// stale knote survives close (KQUEUE.md, bug 3) and EV_ENABLE succeeds on
// it, but Linux gives every file a distinct inode. A registration with no
// filter falls back to fstat everywhere.
func (d *Driver) stale(r *reg) bool {
	if closeRemovesKnotes && r.added != 0 {
		bit := driver.Read
		if r.added&bit == 0 {
			bit = driver.Write
		}
		err := d.kq.change(r.fd, filterOf(bit), evEnable, 0)
		return err == unix.ENOENT || err == unix.EBADF
	}
	id, err := fdcheck.Identify(r.fd)
	if err != nil {
		return err == unix.EBADF
	}
	return id != r.id
}

// reap forgets a registration whose fd was closed. The errors of its
// EV_DELETEs are expected (EBADF, ENOENT) and ignored; they still clear
// libkqueue's stale knote (KQUEUE.md, bug 3).
func (d *Driver) reap(r *reg) {
	d.drop(r)
	delete(d.regs, r.fd)
	d.release(r)
}
