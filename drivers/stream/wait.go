//go:build unix

package stream

import (
	"fmt"
	"os"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"golang.org/x/sys/unix"
)

// maxWaitMs caps a poll timeout, as the Go runtime's netpoll caps its own
// (1e9 ms is about 11.5 days); returning early is allowed by the contract.
const maxWaitMs = 1e9

// Wait implements driver.Driver.
func (d *Driver) Wait(events []driver.Event, timeout time.Duration) (int, error) {
	if d.closed.Load() {
		return 0, driver.ErrClosed
	}
	filled := d.pending.Flush(events)
	if filled > 0 {
		timeout = 0
	}
	m, timeout, capped := d.sweep.BeforeWait(events[filled:], timeout, len(d.regs)-1, d.validate)
	filled += m
	if filled > 0 && filled == len(events) {
		d.sweep.Activity()
		return filled, nil
	}
	n, err := unix.Poll(d.pfds, pollTimeout(timeout))
	if err != nil {
		if err == unix.EINTR {
			return filled, nil
		}
		return filled, os.NewSyscallError("poll", err)
	}
	if n == 0 {
		if capped && filled == 0 {
			filled = d.sweep.AfterWait(events, d.validate)
		}
		if filled > 0 {
			d.sweep.Activity()
		}
		return filled, nil
	}
	if rev := revents(&d.pfds[0]); rev != 0 {
		if rev&unix.POLLNVAL != 0 {
			// Someone closed our own fd behind our back; every later poll
			// would report it again, so stop rather than spin.
			return filled, fmt.Errorf("stream: wakeup fd %d was closed: %w", d.wake.r, os.NewSyscallError("poll", unix.EBADF))
		}
		d.wake.drain()
		n--
	}

	if d.next >= len(d.pfds) {
		d.next = 1
	}
	dead := false
	i := d.next
	for k := 1; k < len(d.pfds) && n > 0 && filled < len(events); k++ {
		if rev := revents(&d.pfds[i]); rev != 0 {
			n--
			r := &d.regs[i]
			switch {
			case rev&unix.POLLNVAL != 0:
				events[filled] = driver.Event{Token: r.tok, Closed: true}
				filled++
				r.dead, dead = true, true
			default:
				if ready := readiness(rev, r.in); ready != 0 {
					events[filled] = driver.Event{Token: r.tok, Ready: ready}
					filled++
				}
			}
		}
		if i++; i == len(d.pfds) {
			i = 1
		}
	}
	d.next = i
	if dead {
		d.dropDead()
	}
	if filled > 0 {
		d.sweep.Activity()
	}
	return filled, nil
}

// dropDead forgets every registration that Wait reported Closed. Walking
// down keeps swap-removal correct: whatever moves into slot i was already
// seen.
func (d *Driver) dropDead() {
	for i := len(d.regs) - 1; i >= 1; i-- {
		if d.regs[i].dead {
			d.remove(i)
		}
	}
}

// validate is the driver's fdcheck.Check: it reports Closed, and forgets,
// every registration whose number no longer names the file registered
// (closed, or closed and taken by another file), which poll(2) cannot
// tell. Walking down keeps swap-removal correct, as in dropDead.
func (d *Driver) validate(events []driver.Event) int {
	n := 0
	for i := len(d.regs) - 1; i >= 1; i-- {
		if !d.alive(i) {
			tok := d.regs[i].tok
			d.remove(i)
			n = d.pending.Put(events, n, tok)
		}
	}
	return n
}

// revents widens Revents, which is int16 on most systems and uint16 on AIX
// (where POLLNVAL is 0x8000).
func revents(p *unix.PollFd) uint32 { return uint32(uint16(p.Revents)) }

// readiness maps poll's revents onto the registered interest. POLLHUP and
// POLLERR are reported whatever was asked for, and they make every
// registered interest ready, so that a reader sees EOF and a writer sees
// EPIPE instead of waiting forever.
func readiness(rev uint32, in driver.Interest) driver.Interest {
	if rev&(unix.POLLHUP|unix.POLLERR) != 0 {
		return in
	}
	var ready driver.Interest
	if rev&unix.POLLIN != 0 {
		ready |= driver.Read
	}
	if rev&unix.POLLOUT != 0 {
		ready |= driver.Write
	}
	return ready & in
}

// pollTimeout converts a Wait timeout to poll's milliseconds, rounding up so
// that a positive timeout never becomes 0 (a busy poll) nor fires early.
func pollTimeout(d time.Duration) int {
	switch {
	case d < 0:
		return -1
	case d == 0:
		return 0
	case d >= maxWaitMs*time.Millisecond:
		return maxWaitMs
	}
	return int((d + time.Millisecond - 1) / time.Millisecond)
}
