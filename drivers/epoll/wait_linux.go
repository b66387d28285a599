//go:build linux

package epoll

import (
	"os"
	"time"
	"unsafe"

	"github.com/revoltgo/eventloop/driver"
	"golang.org/x/sys/unix"
)

// Wait implements driver.Driver.
func (d *Driver) Wait(events []driver.Event, timeout time.Duration) (int, error) {
	if d.closed {
		return 0, errClosed
	}
	n := copy(events, d.pending)
	d.pending = d.pending[:copy(d.pending, d.pending[n:])]
	n += d.reportAlways(events[n:])
	if n > 0 {
		timeout = 0
	}
	room := len(events) - n
	if room <= 0 {
		return n, nil
	}
	k, err := d.epollWait(d.evbuf[:min(room, len(d.evbuf))], timeout)
	switch {
	case err == unix.EINTR:
		return n, nil
	case err != nil && d.pwait2:
		return n, os.NewSyscallError("epoll_pwait2", err)
	case err != nil:
		return n, os.NewSyscallError("epoll_wait", err)
	}
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
	return n, nil
}

// epollWait waits in the kernel; timeout < 0 blocks.
func (d *Driver) epollWait(buf []unix.EpollEvent, timeout time.Duration) (int, error) {
	timeout = min(timeout, maxWait)
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

// probePwait2 reports whether epoll_pwait2 works: it is missing before
// Linux 5.11 (ENOSYS), and seccomp filters that predate it refuse it
// (EPERM, as Docker's default profile did).
func (d *Driver) probePwait2() bool {
	d.pwait2 = true
	_, err := d.epollWait(d.evbuf[:1], 0)
	return err == nil
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
	unix.Dup3(nfd, d.epfd, unix.O_CLOEXEC)
}
