//go:build unix || windows

package stream

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/revoltgo/eventloop/driver"
)

// maxWaitMs caps a poll timeout, as the Go runtime's netpoll caps its own
// (1e9 ms is about 11.5 days); returning early is allowed by the contract.
const maxWaitMs = 1e9

// Wait implements driver.Driver.
func (d *Driver) Wait(events []driver.Event, timeout time.Duration) (int, error) {
	if d.closed.Load() {
		return 0, driver.ErrClosed
	}
	n, err := poll(d.pfds, pollTimeout(timeout))
	if err != nil && errors.Is(err, errBadFd) {
		// Wine fails the whole WSAPoll (WSAENOTSOCK) when a watched socket
		// is closed during the call, where poll and Windows report POLLNVAL
		// for its entry: mark the entries whose socket is gone so, and
		// report them as a poll would have.
		if dead := d.markGone(); dead > 0 {
			n, err = dead, nil
		}
	}
	if err != nil {
		if err == errInterrupted {
			return 0, nil
		}
		return 0, os.NewSyscallError(pollCall, err)
	}
	if n == 0 {
		return 0, nil
	}
	if rev := revents(&d.pfds[0]); rev != 0 {
		if rev&pollNval != 0 {
			// Someone closed our own fd behind our back; every later poll
			// would report it again, so stop rather than spin.
			return 0, fmt.Errorf("stream: waker fd %d was closed: %w", d.pfds[0].Fd, os.NewSyscallError(pollCall, errBadFd))
		}
		d.wake.Drain()
		n--
	}
	return d.collect(events, n), nil
}

// collect reports the n registrations poll found with revents, starting
// where the last Wait stopped. Those beyond the caller's slice keep their
// revents for the next poll, which is level-triggered, so none is lost; a
// POLLNVAL among them is likewise reported by a later Wait, and the
// registration is forgotten only once it has been reported.
func (d *Driver) collect(events []driver.Event, n int) int {
	if d.next >= len(d.pfds) {
		d.next = 1
	}
	filled, dead := 0, false
	i := d.next
	for k := 1; k < len(d.pfds) && n > 0 && filled < len(events); k++ {
		if rev := revents(&d.pfds[i]); rev != 0 {
			n--
			r := &d.regs[i]
			switch {
			case rev&pollNval != 0:
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
	return filled
}

// markGone sets POLLNVAL, and nothing else, on the entries whose socket
// is no longer open (probe), and clears the others; it returns how many.
func (d *Driver) markGone() int {
	gone := 0
	for i := 1; i < len(d.pfds); i++ {
		d.pfds[i].Revents = 0
		if probe(d.regs[i].fd) != nil {
			d.pfds[i].Revents = pollNval
			gone++
		}
	}
	d.pfds[0].Revents = 0
	return gone
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

// readiness maps poll's revents onto the registered interest. POLLHUP and
// POLLERR are reported whatever was asked for, and they make every
// registered interest ready, so that a reader sees EOF and a writer sees
// EPIPE instead of waiting forever.
func readiness(rev uint32, in driver.Interest) driver.Interest {
	if rev&(pollHup|pollErr) != 0 {
		return in
	}
	var ready driver.Interest
	if rev&pollIn != 0 {
		ready |= driver.Read
	}
	if rev&pollOut != 0 {
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
