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
		return 0, errClosed("wait")
	}
	n := d.pending.Flush(events)
	n += d.reportAlways(events[n:])
	if n > 0 {
		timeout = 0
	}
	m, timeout, capped := d.sweep.BeforeWait(events[n:], timeout, len(d.regs), d.validate)
	n += m
	room := len(events) - n
	if room <= 0 {
		return n, nil
	}
	if room > len(d.evbuf) && len(d.evbuf) < maxBatch {
		d.evbuf = make([]unix.EpollEvent, min(room, maxBatch))
	}
	k, err := d.epollWait(d.evbuf[:min(room, len(d.evbuf))], timeout)
	if err == unix.EINTR {
		return n, nil
	}
	if err != nil {
		if d.pwait2 {
			return n, os.NewSyscallError("epoll_pwait2", err)
		}
		return n, os.NewSyscallError("epoll_wait", err)
	}
	stale := false
	for i := range k {
		ev := &d.evbuf[i]
		if ev.Fd == wakeData {
			d.wake.drain()
			continue
		}
		r, ok := d.regs[int(ev.Fd)]
		if !ok || r.seq != uint32(ev.Pad) || r.mode != inKernel {
			stale = true
			continue
		}
		if ready := readiness(ev.Events) & r.in; ready != 0 {
			events[n] = driver.Event{Token: r.tok, Ready: ready}
			n++
		}
	}
	if n > 0 {
		d.sweep.Activity()
	}
	if stale {
		d.rebuild()
	}
	if k == 0 && capped {
		n += d.sweep.AfterWait(events[n:], d.validate)
	}
	return n, nil
}

// epollWait waits in the kernel; timeout < 0 blocks.
func (d *Driver) epollWait(buf []unix.EpollEvent, timeout time.Duration) (int, error) {
	if !d.pwait2 {
		return unix.EpollWait(d.epfd, buf, msec(timeout))
	}
	var r uintptr
	var e unix.Errno
	if timeout < 0 {
		r, _, e = unix.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(d.epfd),
			uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), 0, 0, 0)
	} else {
		// Rounded up to the Resolution this driver reports.
		d.ts = unix.NsecToTimespec(int64((timeout + time.Microsecond - 1).Truncate(time.Microsecond)))
		r, _, e = unix.Syscall6(unix.SYS_EPOLL_PWAIT2, uintptr(d.epfd),
			uintptr(unsafe.Pointer(&buf[0])), uintptr(len(buf)), uintptr(unsafe.Pointer(&d.ts)), 0, 0)
	}
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
	switch {
	case t < 0:
		return -1
	case t == 0:
		return 0
	case t >= maxWaitMsec*time.Millisecond:
		return maxWaitMsec
	}
	return int((t + time.Millisecond - 1) / time.Millisecond)
}

// reportAlways reports every always-ready registration.
func (d *Driver) reportAlways(events []driver.Event) int {
	n := 0
	for _, fd := range d.alwaysFds {
		if n == len(events) {
			break
		}
		r := d.regs[fd]
		events[n] = driver.Event{Token: r.tok, Ready: r.in}
		n++
	}
	return n
}

// validate is the driver's fdcheck.Check: it finds the registrations
// whose fds were closed behind the driver's back, reports them Closed, and
// forgets them.
func (d *Driver) validate(events []driver.Event) int {
	n := 0
	for fd, r := range d.regs {
		if !d.alive(fd, &r) {
			d.forget(fd, r, false)
			n = d.pending.Put(events, n, r.tok)
		}
	}
	return n
}

// rebuild replaces the epoll instance after an event arrived for a
// registration the driver had forgotten. That happens when the user closed
// a watched fd while another descriptor kept the file open (a dup, a child
// process): epoll keeps the registration, keyed by a file the driver can no
// longer name, so epoll_ctl cannot remove it (epoll(7), Q6), and a file
// that stays ready would make every Wait return at once. The new instance
// gets every live registration and replaces the old one under the same
// number (dup3), so Fd() does not change.
func (d *Driver) rebuild() {
	nfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return
	}
	wake := unix.EpollEvent{Events: unix.EPOLLIN, Fd: wakeData}
	if unix.EpollCtl(nfd, unix.EPOLL_CTL_ADD, d.wake.fd, &wake) != nil {
		closeFd(nfd)
		return
	}
	for fd, r := range d.regs {
		if r.mode != inKernel {
			continue
		}
		// Checked against the old instance first: an ADD to the new one
		// would accept a number that now names another file.
		if !d.alive(fd, &r) {
			d.forget(fd, r, true)
			continue
		}
		if err := ctl(nfd, unix.EPOLL_CTL_ADD, fd, &r); err != nil {
			if gone(err) {
				d.forget(fd, r, true)
				continue
			}
			closeFd(nfd)
			return
		}
	}
	// On failure the old instance stays, and the next stale event retries.
	_ = unix.Dup3(nfd, d.epfd, unix.O_CLOEXEC)
	closeFd(nfd)
}
