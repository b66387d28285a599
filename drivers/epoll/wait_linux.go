//go:build linux

package epoll

import (
	"errors"
	"os"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/revoltgo/eventloop/driver"
	"golang.org/x/sys/unix"
)

// Wait implements driver.Driver. Its frames are kept small, down to the
// system call (cold paths out of line, a zero timeout straight to
// pollNow): the core runs a tick that cannot block on a callback fiber,
// whose stack then goes to a conn that suspends on it, and a 2 KiB stack
// lets frames reach 1 120 bytes before the runtime doubles it for good.
func (d *Driver) Wait(events []driver.Event, timeout time.Duration) (int, error) {
	if d.closed {
		return 0, errClosed
	}
	n := 0
	if len(d.pending) > 0 || len(d.always) > 0 {
		if n = d.queued(events); n > 0 {
			timeout = 0
		}
	}
	room := len(events) - n
	if room <= 0 {
		return n, nil
	}
	buf := d.evbuf[:min(room, len(d.evbuf))]
	var k int
	var err error
	if timeout == 0 {
		k, err = pollNow(d.epfd, buf)
	} else {
		k, err = d.epollWait(buf, timeout)
	}
	if err != nil {
		return n, d.waitError(err)
	}
	return d.collect(events, n, k), nil
}

// queued reports the Closed events pending and the always-ready
// registrations, as many as fit.
func (d *Driver) queued(events []driver.Event) int {
	n := copy(events, d.pending)
	d.pending = d.pending[:copy(d.pending, d.pending[n:])]
	return n + d.reportAlways(events[n:])
}

// waitError is Wait's error for the kernel's; nil for EINTR (Wait then
// returns what it has).
//
//go:noinline
func (d *Driver) waitError(err error) error {
	switch {
	case err == unix.EINTR:
		return nil
	case d.pwait2:
		return os.NewSyscallError("epoll_pwait2", err)
	}
	return os.NewSyscallError("epoll_wait", err)
}

// collect turns the kernel's k events into events from n on, and returns
// the new count.
func (d *Driver) collect(events []driver.Event, n, k int) int {
	stale := false
	for _, ev := range d.evbuf[:k] {
		if ev.Fd == wakeData {
			d.wake.Drain()
			continue
		}
		r, ok := d.regs.get(int(ev.Fd))
		if !ok || r.seq != uint32(ev.Pad) || !r.inKernel() {
			stale = true
		} else if ready := readiness(ev.Events) & r.in; ready != 0 {
			events[n] = driver.Event{Token: r.tok, Ready: ready}
			n++
		}
	}
	if stale {
		d.rebuild()
	}
	return n
}

// parkAfter is the shortest timeout for which Wait parks in the Go
// runtime's netpoller rather than in epoll_wait: the runtime sleeps in
// whole milliseconds (a timer due in 0.5 ms waits 1 ms), so a Wait parks
// until a millisecond before its timeout and waits the rest in epoll_wait.
const parkAfter = 2 * time.Millisecond

// epollWait waits for events; timeout < 0 blocks, 0 is pollNow's. The
// package doc says why a long wait parks in the runtime's netpoller: under
// HTTP load at 128 conns, a loop per CPU, blocking in epoll_wait cost
// 4 200 sysmon wakeups and 10 700 context switches a second, parking 180
// and 3 800.
func (d *Driver) epollWait(buf []unix.EpollEvent, timeout time.Duration) (int, error) {
	timeout = min(timeout, maxWait)
	if d.park != nil && (timeout < 0 || timeout >= parkAfter) && parking() {
		if n, err := pollNow(d.epfd, buf); n != 0 || err != nil {
			return n, err
		}
		var end time.Time
		if timeout >= 0 {
			end = time.Now().Add(timeout)
		}
		if n, err := d.parkWait(buf, end); n != 0 || err != nil || timeout < 0 {
			return n, err
		}
		if timeout = time.Until(end); timeout <= 0 {
			return 0, nil
		}
	}
	if !d.pwait2 {
		return unix.EpollWait(d.epfd, buf, msec(timeout))
	}
	var ts *unix.Timespec // nil blocks
	if timeout >= 0 {
		// Rounded up to the Resolution this driver reports.
		d.ts = unix.NsecToTimespec(int64((timeout + time.Microsecond - 1).Truncate(time.Microsecond)))
		ts = &d.ts
	}
	r, _, e := unix.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(d.epfd),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(unsafe.Pointer(ts)), 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// pollNow takes what is ready without waiting. It does not block, so it
// is a raw system call: the goroutine keeps its P.
func pollNow(epfd int, buf []unix.EpollEvent) (int, error) {
	r, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT, uintptr(epfd),
		uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0, 0)
	if e != 0 {
		return 0, e
	}
	return int(r), nil
}

// parks counts the open Drivers that can park.
var parks atomic.Int32

// parking reports whether a long Wait parks: when the process has at
// least as many epoll loops as Ps (a loop per CPU), so that a P blocked in
// epoll_wait finds no idle P beside it and sysmon takes it. With fewer
// loops an idle P is there, sysmon leaves the blocked P alone, and a
// blocking epoll_wait is cheaper than a park: one system call where a park
// makes five and a goroutine switch, which one client at a time pays on
// every request (HTTP, one conn: 25 us of server CPU a request parked,
// 20 blocked).
func parking() bool { return int(parks.Load()) >= runtime.GOMAXPROCS(0) }

// parkWait parks the calling goroutine in the runtime's netpoller until
// the epoll instance has events, or until a millisecond before end (the
// zero time: no end). It returns no events if it stopped for end.
func (d *Driver) parkWait(buf []unix.EpollEvent, end time.Time) (int, error) {
	if !end.IsZero() {
		d.deadline = true
		_ = d.park.SetReadDeadline(end.Add(-parkAfter / 2))
	} else if d.deadline {
		d.deadline = false
		_ = d.park.SetReadDeadline(time.Time{})
	}
	if err := d.armPark(unix.EPOLLIN | unix.EPOLLONESHOT); err != nil {
		return 0, err
	}
	d.parkBuf, d.parkN, d.parkErr = buf, 0, nil
	err := d.parkConn.Read(d.parkPoll)
	n, perr := d.parkN, d.parkErr
	d.parkBuf, d.parkErr = nil, nil
	if derr := d.armPark(unix.EPOLLONESHOT); derr != nil && perr == nil {
		perr = derr
	}
	if err != nil && !errors.Is(err, os.ErrDeadlineExceeded) {
		return 0, err
	}
	return n, perr
}

// pollPark is parkWait's poll: RawConn.Read calls it, and parks until the
// park instance is readable while it reports nothing.
func (d *Driver) pollPark(uintptr) bool {
	d.parkN, d.parkErr = pollNow(d.epfd, d.parkBuf)
	return d.parkN != 0 || d.parkErr != nil
}

// armPark sets what the park instance watches the epoll instance for:
// EPOLLIN while a Wait is parked, nothing otherwise (EPOLLONESHOT alone).
// The runtime's netpoller watches the park instance edge-triggered and
// would wake at every event of the loop's fds if it watched the epoll
// instance itself, parked or not: each scheduling round of an idle P polls
// it: under HTTP load, one loop on 2 CPUs then made over 10 000 epoll
// calls and over 10 000 context switches a second more, and lost a fifth
// of its rate.
func (d *Driver) armPark(events uint32) error {
	d.parkEv = unix.EpollEvent{Events: events}
	if e := rawCtl(int(d.park.Fd()), unix.EPOLL_CTL_MOD, d.epfd, &d.parkEv); e != 0 {
		return ctlError(e)
	}
	return nil
}

// openPark makes the park instance, a second epoll instance that watches
// the first, and hands it to the runtime's netpoller; or leaves park nil
// if the runtime does not take it (Wait then blocks in epoll_wait).
// O_NONBLOCK, which os.NewFile needs to use the poller, does not change
// how epoll_wait waits.
func (d *Driver) openPark() {
	fd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return
	}
	ev := unix.EpollEvent{Events: unix.EPOLLONESHOT} // disarmed
	if unix.EpollCtl(fd, unix.EPOLL_CTL_ADD, d.epfd, &ev) != nil || unix.SetNonblock(fd, true) != nil {
		unix.Close(fd)
		return
	}
	f := os.NewFile(uintptr(fd), "epoll")
	rc, err := f.SyscallConn()
	// A file the poller took takes deadlines; one it refused does not.
	if err != nil || f.SetReadDeadline(time.Time{}) != nil {
		f.Close()
		return
	}
	d.park, d.parkConn, d.parkPoll = f, rc, d.pollPark
	parks.Add(1)
}

func (d *Driver) closePark() {
	if d.park != nil {
		parks.Add(-1)
		d.park.Close()
		d.park, d.parkConn, d.parkPoll, d.deadline = nil, nil, nil, false
	}
}

// probePwait2 reports whether epoll_pwait2 works: it is missing before
// Linux 5.11 (ENOSYS), and seccomp filters that predate it refuse it
// (EPERM, as Docker's default profile did).
func (d *Driver) probePwait2() bool {
	d.ts = unix.Timespec{}
	_, _, e := unix.RawSyscall6(unix.SYS_EPOLL_PWAIT2, uintptr(d.epfd),
		uintptr(unsafe.Pointer(&d.evbuf[0])), 1, uintptr(unsafe.Pointer(&d.ts)), 0, 0)
	return e == 0
}

// msec rounds a timeout up to whole milliseconds, never down to zero.
func msec(t time.Duration) int {
	if t < 0 {
		return -1
	}
	return int((t + time.Millisecond - 1) / time.Millisecond)
}

// reportAlways reports the always-ready registrations, as many as fit; map
// order varies, so none is left out for long.
func (d *Driver) reportAlways(events []driver.Event) int {
	n := 0
	for fd := range d.always {
		if n == len(events) {
			break
		}
		r, _ := d.regs.get(fd)
		events[n] = driver.Event{Token: r.tok, Ready: r.in}
		n++
	}
	return n
}

// rebuild replaces the epoll instance after an event arrived for a
// registration the driver had forgotten. That happens when the user closed
// a watched fd while another descriptor kept the file open (a dup, a child
// process): epoll keeps the registration, keyed by a file the driver can no
// longer name, so epoll_ctl cannot remove it (epoll(7), Q6), and a file
// that stays ready would make every Wait return at once. The new instance
// gets the waker and every live registration, and replaces the old one
// under the same number (dup3), so Fd() does not change. On failure the
// old instance stays, and the next stale event retries.
func (d *Driver) rebuild() {
	nfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return
	}
	defer unix.Close(nfd)
	if addWaker(nfd, d.wake.Fd()) != nil {
		return
	}
	for fd, r := range d.regs {
		if !r.ok || !r.inKernel() {
			continue
		}
		// Asked of the old instance first: an ADD to the new one would
		// take a number that now names another file.
		err := ctl(d.epfd, unix.EPOLL_CTL_MOD, fd, &r)
		if err == nil {
			err = ctl(nfd, unix.EPOLL_CTL_ADD, fd, &r)
		}
		if gone(err) {
			d.regs.del(fd)
			d.pending = append(d.pending, driver.Event{Token: r.tok, Closed: true})
		} else if err != nil {
			return
		}
	}
	if unix.Dup3(nfd, d.epfd, unix.O_CLOEXEC) == nil {
		// The runtime watches the old instance, which the dup keeps.
		d.closePark()
		d.openPark()
	}
}
