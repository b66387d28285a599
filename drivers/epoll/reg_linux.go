//go:build linux

package epoll

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"unsafe"

	"github.com/revoltgo/eventloop/driver"
	"golang.org/x/sys/unix"
)

// reg is a registration. It is in the kernel unless its interest is 0
// (parked, see the package doc) or it is always ready.
type reg struct {
	tok driver.Token
	// seq numbers the registration. The kernel hands it back with each
	// event, which tells the events of a registration the driver forgot
	// from those of the one that took its number.
	seq uint32
	in  driver.Interest
	// always: a file epoll refuses with EPERM (epoll_ctl(2), ERRORS:
	// regular files, directories), reported ready as poll(2) does.
	always bool
	ok     bool // in the table
}

// regTable holds the registrations by fd number, in a slice that grows to
// the highest number registered (an open fd: below RLIMIT_NOFILE). Wait
// looks one up per event, and a map lookup there cost more than all the
// rest Wait does for the event (callgrind: 73 instructions of 140).
type regTable []reg

func (t regTable) get(fd int) (reg, bool) {
	if uint(fd) >= uint(len(t)) {
		return reg{}, false
	}
	return t[fd], t[fd].ok
}

func (t *regTable) set(fd int, r reg) {
	if fd >= len(*t) {
		*t = append(*t, make([]reg, fd+1-len(*t)+len(*t)/2)...)
	}
	r.ok = true
	(*t)[fd] = r
}

func (t regTable) del(fd int) {
	if uint(fd) < uint(len(t)) {
		t[fd] = reg{}
	}
}

func (r *reg) inKernel() bool { return r.in != 0 && !r.always }

// Register implements driver.Driver.
func (d *Driver) Register(fd int, tok driver.Token, in driver.Interest) error {
	if err := d.check("register", fd); err != nil {
		return err
	}
	if _, ok := d.regs.get(fd); ok {
		return regError("register", fd, fs.ErrExist)
	}
	d.seq++
	r := reg{tok: tok, seq: d.seq, in: in & (driver.Read | driver.Write)}
	if err := d.apply(fd, reg{}, &r); err != nil {
		return regError("register", fd, err)
	}
	d.regs.set(fd, r)
	return nil
}

// regError is the error of Register, Modify or Deregister (op), out of
// line so that their frames stay small: they run in ticks on callback
// fibers too (see Wait).
//
//go:noinline
func regError(op string, fd int, err error) error {
	return fmt.Errorf("epoll: %s fd %d: %w", op, fd, err)
}

// Modify implements driver.Driver. If epoll_ctl says the registered fd is
// gone, Modify succeeds, and the next Wait reports it Closed under tok.
func (d *Driver) Modify(fd int, tok driver.Token, in driver.Interest) error {
	if err := d.check("modify", fd); err != nil {
		return err
	}
	r, ok := d.regs.get(fd)
	if !ok {
		return regError("modify", fd, fs.ErrNotExist)
	}
	next := r
	next.tok, next.in = tok, in&(driver.Read|driver.Write)
	err := d.apply(fd, r, &next)
	switch {
	case gone(err):
		d.forget(fd, tok)
	case err != nil:
		return regError("modify", fd, err)
	default:
		d.regs.set(fd, next)
	}
	return nil
}

// forget drops the registration of fd, which epoll_ctl says is gone, and
// queues its Closed event for the next Wait.
//
//go:noinline
func (d *Driver) forget(fd int, tok driver.Token) {
	d.regs.del(fd)
	d.pending = append(d.pending, driver.Event{Token: tok, Closed: true})
}

// Deregister implements driver.Driver. It succeeds when epoll_ctl says the
// fd is gone: the kernel dropped its registration already.
func (d *Driver) Deregister(fd int) error {
	if err := d.check("deregister", fd); err != nil {
		return err
	}
	r, ok := d.regs.get(fd)
	if !ok {
		return regError("deregister", fd, fs.ErrNotExist)
	}
	d.regs.del(fd)
	if err := d.apply(fd, r, &reg{}); err != nil && !gone(err) {
		return regError("deregister", fd, err)
	}
	return nil
}

// apply takes fd in the kernel from registration r (the zero reg if new) to
// next, and marks next always if epoll refuses the file.
func (d *Driver) apply(fd int, r reg, next *reg) error {
	switch {
	case next.in == r.in || r.always && next.in != 0:
		return nil // nothing changes in the kernel
	case r.always:
		delete(d.always, fd)
		next.always = false
		return nil
	case r.in != 0 && next.in != 0:
		return ctl(d.epfd, unix.EPOLL_CTL_MOD, fd, next)
	case r.in != 0:
		return ctl(d.epfd, unix.EPOLL_CTL_DEL, fd, next)
	}
	err := ctl(d.epfd, unix.EPOLL_CTL_ADD, fd, next)
	switch {
	case errors.Is(err, unix.EEXIST):
		// The kernel still holds this file under this number: the number
		// was closed while another descriptor kept the file open, the
		// driver forgot it, and then the number was made to name the same
		// file again (dup2). Take the registration over.
		return ctl(d.epfd, unix.EPOLL_CTL_MOD, fd, next)
	case errors.Is(err, unix.EPERM):
		next.always = true
		d.always[fd] = struct{}{}
		return nil
	}
	return err
}

// epollEvents is the epoll_ctl(2) mask of each interest: 0, r, w, rw.
var epollEvents = [4]uint32{0, unix.EPOLLIN, unix.EPOLLOUT, unix.EPOLLIN | unix.EPOLLOUT}

func ctl(epfd, op, fd int, r *reg) error {
	ev := unix.EpollEvent{Events: epollEvents[r.in], Fd: int32(fd), Pad: int32(r.seq)}
	if e := rawCtl(epfd, op, fd, &ev); e != 0 {
		return ctlError(e)
	}
	return nil
}

// rawCtl is epoll_ctl(2) as a raw system call: it does not block, so it
// keeps the P and adds no frames of the scheduler's to the caller's stack
// (see Wait); small enough to inline, it adds none of its own either.
func rawCtl(epfd, op, fd int, ev *unix.EpollEvent) unix.Errno {
	_, _, e := unix.RawSyscall6(unix.SYS_EPOLL_CTL, uintptr(epfd), uintptr(op), uintptr(fd), uintptr(unsafe.Pointer(ev)), 0, 0)
	return e
}

//go:noinline
func ctlError(e unix.Errno) error { return os.NewSyscallError("epoll_ctl", e) }

// gone reports whether epoll_ctl says that the registered fd is gone: epoll
// finds a registration by file and number together, so both EBADF (no file
// has the number) and ENOENT (another file has it) mean that it was closed.
func gone(err error) bool { return errors.Is(err, unix.EBADF) || errors.Is(err, unix.ENOENT) }

// readiness maps epoll events to interest. EPOLLRDHUP is not asked for:
// level-triggered EPOLLIN already reports the end of stream it signals.
func readiness(ev uint32) driver.Interest {
	var in driver.Interest
	if ev&(unix.EPOLLIN|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		in |= driver.Read
	}
	if ev&(unix.EPOLLOUT|unix.EPOLLHUP|unix.EPOLLERR) != 0 {
		in |= driver.Write
	}
	return in
}
