//go:build linux

package epoll

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"github.com/revoltgo/eventloop/drivers/internal/fdcheck"
	"golang.org/x/sys/unix"
)

// Driver is a driver.Driver over one epoll instance. The zero value is not
// usable; call New.
type Driver struct {
	epfd int
	wake eventfdWaker
	regs map[int]reg
	seq  uint32 // registrations so far; stored with the fd in the kernel's user data

	// alwaysFds lists the registrations in mode always; while there is one,
	// Wait does not block.
	alwaysFds []int
	// pending: Closed events found by Register, Modify or a rebuild, or
	// beyond the caller's slice.
	pending fdcheck.Pending
	evbuf   []unix.EpollEvent
	sweep   fdcheck.Sweep
	pwait2  bool
	// ts is epoll_pwait2's timeout, in the Driver rather than on the stack
	// because it is passed to the kernel as a uintptr.
	ts     unix.Timespec
	closed bool
}

const (
	// wakeData is the Fd of the eventfd's epoll_event; no registered fd is
	// negative.
	wakeData = -1
	// batch and maxBatch size the epoll_event buffer: it grows once to
	// the caller's slice, up to maxBatch.
	batch    = 256
	maxBatch = 4096
	// maxWaitMsec caps epoll_wait's timeout (about 11.5 days), as the Go
	// runtime caps its own; Wait then returns (0, nil) early.
	maxWaitMsec = 1e9
)

var (
	_ driver.Driver         = (*Driver)(nil)
	_ driver.WaitResolution = (*Driver)(nil)
)

// New creates the epoll instance and its wakeup eventfd.
func New() (*Driver, error) {
	epfd, err := unix.EpollCreate1(unix.EPOLL_CLOEXEC)
	if err != nil {
		return nil, os.NewSyscallError("epoll_create1", err)
	}
	d := &Driver{epfd: epfd, regs: make(map[int]reg), evbuf: make([]unix.EpollEvent, batch)}
	if err := d.wake.open(); err != nil {
		closeFd(epfd)
		return nil, err
	}
	ev := unix.EpollEvent{Events: unix.EPOLLIN, Fd: wakeData}
	if err := unix.EpollCtl(epfd, unix.EPOLL_CTL_ADD, d.wake.fd, &ev); err != nil {
		d.wake.close()
		closeFd(epfd)
		return nil, os.NewSyscallError("epoll_ctl", err)
	}
	d.pwait2 = d.probePwait2()
	return d, nil
}

// Name returns "epoll".
func (d *Driver) Name() string { return "epoll" }

// Fd returns the epoll instance's descriptor, for embedding the loop in
// another one: it is readable whenever Wait would report something. It is
// -1 after Close. See the package doc for the one case where the instance
// behind the number is replaced.
func (d *Driver) Fd() int { return d.epfd }

// Resolution is a microsecond with epoll_pwait2(2) (Linux 5.11 and later),
// which takes a timespec, and a millisecond without it.
func (d *Driver) Resolution() time.Duration {
	if d.pwait2 {
		return time.Microsecond
	}
	return time.Millisecond
}

// Register implements driver.Driver.
func (d *Driver) Register(fd int, tok driver.Token, in driver.Interest) error {
	if err := d.check("register", fd); err != nil {
		return err
	}
	if r, ok := d.regs[fd]; ok {
		if d.alive(fd, &r) {
			return fmt.Errorf("epoll: register fd %d: %w", fd, fs.ErrExist)
		}
		// The number was closed and reused before a sweep noticed.
		d.forget(fd, r, true)
	}
	d.seq++
	r := reg{tok: tok, seq: d.seq, in: in & (driver.Read | driver.Write)}
	if err := d.attach(fd, &r); err != nil {
		return fmt.Errorf("epoll: register fd %d: %w", fd, err)
	}
	d.regs[fd] = r
	d.sweep.Activity()
	return nil
}

// Modify implements driver.Driver. If the fd turns out to have been closed
// behind the driver's back, Modify succeeds, and the next Wait reports it
// Closed under tok.
func (d *Driver) Modify(fd int, tok driver.Token, in driver.Interest) error {
	if err := d.check("modify", fd); err != nil {
		return err
	}
	r, ok := d.regs[fd]
	if !ok {
		return fmt.Errorf("epoll: modify fd %d: %w", fd, fs.ErrNotExist)
	}
	d.sweep.Activity()
	r.tok = tok
	in &= driver.Read | driver.Write
	if in == r.in {
		d.regs[fd] = r
		return nil
	}
	next := r
	next.in = in
	var err error
	switch {
	case r.mode == inKernel && in != 0:
		if err = d.ctl(unix.EPOLL_CTL_MOD, fd, &next); err != nil {
			err = os.NewSyscallError("epoll_ctl", err)
		}
	case r.mode == inKernel:
		if err = d.ctl(unix.EPOLL_CTL_DEL, fd, &next); err != nil {
			err = os.NewSyscallError("epoll_ctl", err)
			break
		}
		next.mode = parked
		if next.id, err = fdcheck.Identify(fd); err != nil {
			err = os.NewSyscallError("fstat", err)
		}
	case r.mode == always && in != 0:
	default:
		// Leaving parked or always: make sure the number still names the
		// file it named, or epoll_ctl would watch a stranger.
		if !d.alive(fd, &r) {
			err = unix.EBADF
			break
		}
		if r.mode == always {
			d.dropAlways(fd)
		}
		err = d.attach(fd, &next)
	}
	if gone(err) {
		d.forget(fd, next, true)
		return nil
	}
	if err != nil {
		if r.mode == always && next.mode != always {
			d.alwaysFds = append(d.alwaysFds, fd)
		}
		return fmt.Errorf("epoll: modify fd %d: %w", fd, err)
	}
	d.regs[fd] = next
	return nil
}

// Deregister implements driver.Driver. An fd that the kernel already dropped
// (closed, or closed and its number reused) is forgotten without error.
func (d *Driver) Deregister(fd int) error {
	if err := d.check("deregister", fd); err != nil {
		return err
	}
	r, ok := d.regs[fd]
	if !ok {
		return fmt.Errorf("epoll: deregister fd %d: %w", fd, fs.ErrNotExist)
	}
	d.forget(fd, r, false)
	d.sweep.Activity()
	if r.mode != inKernel {
		return nil
	}
	if err := d.ctl(unix.EPOLL_CTL_DEL, fd, &r); err != nil && !gone(err) {
		return fmt.Errorf("epoll: deregister fd %d: %w", fd, os.NewSyscallError("epoll_ctl", err))
	}
	return nil
}

// Wakeup implements driver.Driver.
func (d *Driver) Wakeup() error { return d.wake.wakeup() }

// Close implements driver.Driver.
func (d *Driver) Close() error {
	if d.closed {
		return nil // a second Close is a no-op
	}
	d.closed = true
	err := errors.Join(d.wake.close(), closeFd(d.epfd))
	d.epfd = -1
	d.regs, d.alwaysFds, d.pending = nil, nil, fdcheck.Pending{}
	return err
}

func (d *Driver) check(op string, fd int) error {
	if d.closed {
		return errClosed(op)
	}
	// epoll_event keeps the fd in an int32.
	if fd < 0 || fd > math.MaxInt32 {
		return fmt.Errorf("epoll: %s fd %d: %w", op, fd, fs.ErrInvalid)
	}
	return nil
}

func errClosed(op string) error {
	return fmt.Errorf("epoll: %s: %w", op, driver.ErrClosed)
}
