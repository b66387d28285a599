//go:build windows

package afd

import (
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"golang.org/x/sys/windows"
)

// Wait implements driver.Driver. It first arms the queued registrations
// (new, modified, or reported in the last Wait), then dequeues up to
// len(events) completions.
//
// Level-triggered by re-arming: a poll completes once, so every
// registration a Wait reports is armed again by the next Wait, and that
// poll completes at once while the socket stays ready. A Wait therefore
// costs a system call per registration reported by the one before, and
// nothing for those that wait: O(ready), whatever the number watched.
// Completions come out of the port in the order they were queued, and a
// re-armed poll queues behind the others, so a socket that stays ready
// cannot starve the ones behind it.
func (d *Driver) Wait(events []driver.Event, timeout time.Duration) (int, error) {
	if d.closed.Load() {
		return 0, driver.ErrClosed
	}
	// Dequeue until what is queued is taken, or events is full. A batch of
	// completions that makes no event (cancelled polls) does not end a
	// blocking Wait, a wakeup does; the polls of completions that made no
	// event (a Modify cancelled them) are armed again before the next
	// batch, so that a socket ready when Wait was called is reported by
	// it. Once a batch has made events, the rest is only what is queued
	// already, and what this Wait reported is not re-armed: it would be
	// reported twice. A second wakeup ends the Wait, so that a goroutine
	// calling Wakeup in a loop cannot hold it.
	filled, woken := 0, false
	ms := waitMs(timeout)
	var deadline time.Time
	if timeout > 0 {
		deadline = time.Now().Add(timeout)
	}
	for filled < len(events) {
		if filled == 0 {
			if err := d.arm(); err != nil {
				return 0, err
			}
			if filled = d.reportGone(events); filled == len(events) {
				break
			}
		}
		if err := d.armNow(); err != nil {
			return filled, err
		}
		if filled > 0 || woken {
			ms = 0
		}
		es := d.entries[:min(len(d.entries), len(events)-filled)]
		var n int
		var err error
		if len(d.early) > 0 {
			n = copy(es, d.early)
			d.early = d.early[:copy(d.early, d.early[n:])]
		} else {
			n, err = dequeue(d.port, es, ms)
		}
		if err != nil {
			return filled, err
		}
		if n == 0 {
			break
		}
		again := false
		for _, e := range es[:n] {
			if e.Overlapped == 0 {
				d.wake.Drain()
				again = woken
				woken = true
				continue
			}
			if ev, ok := d.complete(int32(e.Overlapped-1), windows.NTStatus(uint32(e.Internal))); ok {
				events[filled] = ev
				filled++
			}
		}
		if again {
			break
		}
		if timeout > 0 && filled == 0 && !woken {
			left := time.Until(deadline)
			if left <= 0 {
				break
			}
			ms = waitMs(left)
		}
	}
	return filled, nil
}

// arm submits a poll for every queued registration that wants one and has
// none pending. A socket AFD no longer knows under its handle (closed;
// or closed and its handle reused by something else than a socket) is
// reported Closed by this Wait.
func (d *Driver) arm() (err error) {
	d.queue, err = d.armAll(d.queue, true)
	return err
}

// armNow arms the slots whose poll completed in this Wait without an
// event (d.now); they are not on the queue's books.
func (d *Driver) armNow() (err error) {
	d.now, err = d.armAll(d.now, false)
	return err
}

// armAll arms the slots of q and returns q emptied, or on an error what is
// left of it, for the next try; queued says q is d.queue, whose slots are
// marked queued while on it.
func (d *Driver) armAll(q []int32, queued bool) ([]int32, error) {
	for i, id := range q {
		if err := d.armOne(id); err != nil {
			return q[:copy(q, q[i:])], err
		}
		if queued {
			d.slots[id].queued = false
		}
	}
	return q[:0], nil
}

func (d *Driver) armOne(id int32) error {
	s := &d.slots[id]
	if !s.live || s.in == 0 || s.state != idle {
		return nil
	}
	ev := events(s.in)
	switch st := submit(d.helpers[s.helper].h, d.op(id), s.base, ev, uintptr(id)+1); {
	case socketGone(st):
		if !s.gone {
			s.gone = true
			d.gone = append(d.gone, id)
		}
	case uint32(st)>>30 == 3:
		// An error: the request was refused, and no completion comes.
		return fmt.Errorf("afd: poll fd %d: %w", s.fd, os.NewSyscallError("NtDeviceIoControlFile", st))
	default:
		// Pending, success, and any other status short of an error: a
		// completion will come.
		s.state, s.asked = polling, ev
		d.pending++
	}
	return nil
}

// socketGone reports whether a poll's status says that AFD does not know the
// socket under its handle: STATUS_INVALID_HANDLE, or what the runtime
// library maps to the same Win32 error (Wine answers
// STATUS_OBJECT_TYPE_MISMATCH for a handle that names something else).
func socketGone(st windows.NTStatus) bool {
	return st == windows.STATUS_INVALID_HANDLE || st == windows.STATUS_OBJECT_TYPE_MISMATCH ||
		st.Errno() == windows.ERROR_INVALID_HANDLE
}

// reportGone reports the sockets arm found gone, Closed, and forgets them.
// A slot forgotten meanwhile, and perhaps reused by another registration,
// has lost its mark and is passed over.
func (d *Driver) reportGone(events []driver.Event) int {
	n, i := 0, 0
	for ; i < len(d.gone) && n < len(events); i++ {
		id := d.gone[i]
		if s := &d.slots[id]; s.live && s.gone {
			events[n] = driver.Event{Token: s.tok, Closed: true}
			n++
			d.forget(id)
		}
	}
	d.gone = d.gone[:copy(d.gone, d.gone[i:])]
	return n
}

// complete handles the completion of slot id's poll, and returns the event
// it makes, if any. A completion is for the slot's one pending poll: a
// slot is not reused before it.
func (d *Driver) complete(id int32, status windows.NTStatus) (driver.Event, bool) {
	s := &d.slots[id]
	d.pending--
	s.state, s.asked = idle, 0
	if !s.live {
		d.release(id)
		return driver.Event{}, false
	}
	var got uint32
	switch {
	case status == windows.STATUS_CANCELLED:
	case status&0xc0000000 == 0xc0000000:
		// The request itself failed: an error condition of the socket's.
		got = pollAbort
	case d.op(id).info.N >= 1:
		got = d.op(id).info.Handles[0].Events
	}
	if got&pollLocalClose != 0 {
		ev := driver.Event{Token: s.tok, Closed: true}
		d.forget(id)
		return ev, true
	}
	if ready := readiness(got, s.in); ready != 0 {
		d.enqueue(id) // level-triggered: armed again by the next Wait
		ev := driver.Event{Token: s.tok, Ready: ready}
		if got&pollAbort != 0 {
			// The reset itself: a recv after it may find only the end of
			// the stream (under Wine it does), and the error is here.
			ev.Errno = wsaeConnReset
		}
		return ev, true
	}
	// Cancelled, or events no longer asked for (a Modify raced them):
	// armed anew in this Wait.
	d.now = append(d.now, id)
	return driver.Event{}, false
}

// events are the AFD events that make in ready. A reset and a failed
// connect are asked for whatever the interest, and the socket's last close.
// Not the expedited receive (urgent data, not inline), which a read does
// not return: a socket reported readable for it would spin the loop until
// something read it with MSG_OOB (mio leaves it out too).
func events(in driver.Interest) uint32 {
	ev := uint32(pollAbort | pollConnectFail | pollLocalClose)
	if in&driver.Read != 0 {
		ev |= pollReceive | pollAccept | pollDisconnect
	}
	if in&driver.Write != 0 {
		ev |= pollSend
	}
	return ev
}

// readiness maps AFD's events onto the registered interest. A reset or a
// failed connect is an error condition: it makes every registered interest
// ready, as POLLERR and POLLHUP do for poll(2). The peer's shutdown
// (DISCONNECT, a FIN) makes the socket readable (end of file), not
// writable: it may still take data, or still be full.
func readiness(ev uint32, in driver.Interest) driver.Interest {
	if ev&(pollAbort|pollConnectFail) != 0 {
		return in
	}
	var ready driver.Interest
	if ev&(pollReceive|pollAccept|pollDisconnect) != 0 {
		ready |= driver.Read
	}
	if ev&pollSend != 0 {
		ready |= driver.Write
	}
	return ready & in
}

// wsaeConnReset is Winsock's ECONNRESET.
const wsaeConnReset = syscall.Errno(10054)

// closeDrainFor bounds how long Close waits for the completions of the
// polls its closing of the AFD handles cancelled; they come at once.
const closeDrainFor = 5 * time.Second

// drain dequeues completions until none is pending or the time is up, and
// returns how many are still pending.
func (d *Driver) drain(limit time.Duration) int {
	for _, e := range d.early {
		if e.Overlapped != 0 {
			d.pending--
		}
	}
	d.early = nil
	deadline := time.Now().Add(limit)
	for d.pending > 0 {
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		n, err := dequeue(d.port, d.entries, waitMs(left))
		if err != nil {
			break
		}
		for _, e := range d.entries[:n] {
			if e.Overlapped != 0 {
				d.pending--
			}
		}
	}
	return d.pending
}
