//go:build unix && !aix

package netpoll

import (
	"slices"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"golang.org/x/sys/unix"
)

// pollEvents maps an interest (Read is 1, Write 2) to poll(2) events.
var pollEvents = [4]int16{0, unix.POLLIN, unix.POLLOUT, unix.POLLIN | unix.POLLOUT}

// Wait implements driver.Driver. A blocking Wait blocks on a channel, not in
// a system call, so a blocked loop holds no OS thread.
func (d *Driver) Wait(events []driver.Event, timeout time.Duration) (int, error) {
	if d.closed.Load() {
		return 0, errClosed("wait")
	}
	// A Wakeup or a helper's report since the last Wait is for this one.
	select {
	case <-d.signal:
		timeout = 0
	default:
	}
	if n := d.scan(events); n > 0 || timeout == 0 || len(events) == 0 {
		return n, nil
	}
	if timeout < 0 {
		<-d.signal
	} else {
		// Rounded up to whole milliseconds: the runtime's poller sleeps in
		// those, so a finer timer would fire late anyway.
		d.timer.Reset((timeout + time.Millisecond - 1).Truncate(time.Millisecond))
		select {
		case <-d.signal:
			d.timer.Stop() // since Go 1.23 a stopped timer delivers nothing stale
		case <-d.timer.C:
		}
	}
	return d.scan(events), nil
}

// scan polls every watched fd at once (the user's numbers, since only they
// show a close: the dups keep the files open) and reports what is ready,
// for as long as it stays ready. It arms each direction not ready, so that
// the runtime wakes a blocked Wait when it becomes ready, and reports an fd
// that poll finds closed (POLLNVAL) Closed, then forgets it. Every watch,
// not only those whose helper spoke: the runtime hands readiness to helpers
// one at a time, so fds that became ready with the first may not have
// spoken yet.
func (d *Driver) scan(events []driver.Event) int {
	ws := slices.DeleteFunc(d.list, func(w *watch) bool { return w.forgotten })
	d.list = ws
	if len(ws) == 0 || len(events) == 0 {
		return 0
	}
	pfds := d.pfds[:0]
	for _, w := range ws {
		// poll(2) ignores a negative fd: one with interest 0 reports
		// nothing, even hung up.
		p := unix.PollFd{Fd: -1}
		if w.in != 0 {
			p.Fd, p.Events = int32(w.fd), pollEvents[w.in]
		}
		pfds = append(pfds, p)
	}
	d.pfds = pfds
	if _, err := pollNow(pfds); err != nil {
		return 0
	}
	n, start := 0, d.rot
	for j := range ws {
		i := (start + j) % len(ws)
		w, rev := ws[i], pfds[i].Revents
		ev := driver.Event{Token: w.tok}
		switch {
		case pfds[i].Fd < 0:
			continue
		case rev&unix.POLLNVAL != 0:
			ev.Closed = true
		default:
			ev.Ready = readiness(rev) & w.in
			w.arm(d.signal, w.in&^ev.Ready)
		}
		// A closed fd beyond the caller's slice stays watched, and the
		// next scan finds it again.
		if (ev.Ready != 0 || ev.Closed) && n < len(events) {
			events[n] = ev
			n++
			d.rot = i + 1
			if ev.Closed {
				d.forget(w)
			}
		}
	}
	return n
}

// readiness maps poll(2) revents to interest; hang-up and error count for
// both directions.
func readiness(rev int16) driver.Interest {
	var in driver.Interest
	if rev&unix.POLLIN != 0 {
		in |= driver.Read
	}
	if rev&unix.POLLOUT != 0 {
		in |= driver.Write
	}
	if rev&(unix.POLLHUP|unix.POLLERR) != 0 {
		in |= driver.Read | driver.Write
	}
	return in
}

// pollNow is poll(2) with a zero timeout.
func pollNow(pfds []unix.PollFd) (int, error) {
	for {
		n, err := unix.Poll(pfds, 0)
		if err != unix.EINTR {
			return n, err
		}
	}
}
