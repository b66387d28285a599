//go:build linux

package epoll

import (
	"errors"
	"os"

	"github.com/revoltgo/eventloop/driver"
	"github.com/revoltgo/eventloop/drivers/internal/fdcheck"
	"golang.org/x/sys/unix"
)

// mode says how the kernel sees a registration.
type mode uint8

const (
	// inKernel: added to the epoll instance.
	inKernel mode = iota
	// parked: interest 0, kept out of the kernel, because epoll_ctl(2)
	// reports EPOLLHUP and EPOLLERR whatever the mask, and a hung-up fd
	// that nobody watches would make every Wait return at once.
	parked
	// always: a file epoll refuses with EPERM (regular files, directories:
	// epoll_ctl(2), ERRORS). poll(2) reports such files always ready, and
	// so does this driver, so that every driver agrees on them.
	always
)

type reg struct {
	tok  driver.Token
	seq  uint32
	in   driver.Interest
	mode mode
	id   fdcheck.Ident // set for parked and always: the kernel does not hold those
}

// attach gives r a mode and, for inKernel, adds it to the epoll instance.
func (d *Driver) attach(fd int, r *reg) error {
	if r.in == 0 {
		id, err := fdcheck.Identify(fd)
		if err != nil {
			return os.NewSyscallError("fstat", err)
		}
		r.mode, r.id = parked, id
		return nil
	}
	r.mode = inKernel
	err := d.ctl(unix.EPOLL_CTL_ADD, fd, r)
	switch err {
	case nil:
		return nil
	case unix.EEXIST:
		// The kernel still holds this file under this number: a
		// registration the driver forgot when the number was closed while
		// another descriptor kept the file open, and that the file took
		// back (dup2). Take it over.
		err = d.ctl(unix.EPOLL_CTL_MOD, fd, r)
	case unix.EPERM:
		id, ierr := fdcheck.Identify(fd)
		if ierr != nil {
			return os.NewSyscallError("fstat", ierr)
		}
		r.mode, r.id = always, id
		d.alwaysFds = append(d.alwaysFds, fd)
		return nil
	}
	if err != nil {
		return os.NewSyscallError("epoll_ctl", err)
	}
	return nil
}

// alive reports whether fd still names the file registered as r.
func (d *Driver) alive(fd int, r *reg) bool {
	if r.mode == inKernel {
		// epoll_ctl finds a registration by file and number together, so
		// rewriting the registration with its own mask succeeds exactly
		// when the number still names the registered file (ENOENT: it
		// names another one; EBADF: nothing).
		return !gone(d.ctl(unix.EPOLL_CTL_MOD, fd, r))
	}
	id, err := fdcheck.Identify(fd)
	if err != nil {
		return !gone(err)
	}
	return id == r.id
}

// forget drops the registration of fd, and queues its Closed event if it
// was closed behind the driver's back.
func (d *Driver) forget(fd int, r reg, closed bool) {
	delete(d.regs, fd)
	if r.mode == always {
		d.dropAlways(fd)
	}
	if closed {
		d.pending.Add(r.tok)
	}
}

func (d *Driver) dropAlways(fd int) {
	for i, f := range d.alwaysFds {
		if f == fd {
			last := len(d.alwaysFds) - 1
			d.alwaysFds[i] = d.alwaysFds[last]
			d.alwaysFds = d.alwaysFds[:last]
			return
		}
	}
}

func (d *Driver) ctl(op, fd int, r *reg) error {
	return ctl(d.epfd, op, fd, r)
}

func ctl(epfd, op, fd int, r *reg) error {
	ev := unix.EpollEvent{Events: epollEvents(r.in), Fd: int32(fd), Pad: int32(r.seq)}
	return unix.EpollCtl(epfd, op, fd, &ev)
}

// gone reports whether an epoll_ctl or fstat error means that the number
// no longer names the registered file.
func gone(err error) bool { return errors.Is(err, unix.ENOENT) || errors.Is(err, unix.EBADF) }

func epollEvents(in driver.Interest) uint32 {
	var ev uint32
	if in&driver.Read != 0 {
		ev |= unix.EPOLLIN
	}
	if in&driver.Write != 0 {
		ev |= unix.EPOLLOUT
	}
	return ev
}

// readiness maps epoll events to interest. EPOLLRDHUP is not asked for:
// level-triggered EPOLLIN already reports the end of stream it signals.
func readiness(ev uint32) driver.Interest {
	var in driver.Interest
	if ev&unix.EPOLLIN != 0 {
		in |= driver.Read
	}
	if ev&unix.EPOLLOUT != 0 {
		in |= driver.Write
	}
	if ev&(unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		in |= driver.Read | driver.Write
	}
	return in
}
