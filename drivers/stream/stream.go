//go:build unix

package stream

import (
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"sync/atomic"
	"time"

	"github.com/revoltgo/eventloop/driver"
	"github.com/revoltgo/eventloop/drivers/internal/fdcheck"
	"golang.org/x/sys/unix"
)

// Driver is a driver.Driver over poll(2). The zero value is not usable; call New.
type Driver struct {
	// pfds is the array handed to poll. pfds[0] is the wakeup fd; pfds[i]
	// and regs[i] describe the same registration for i >= 1.
	pfds  []unix.PollFd
	regs  []registration
	index map[int]int // fd -> i, so that Modify and Deregister need no scan
	next  int         // where the next Wait starts looking, for fairness

	// A close from another thread need not wake a blocked poll(2), and
	// once a new file takes the number poll asks about that file and never
	// reports POLLNVAL: so a sweep compares each fd's identity with the one
	// it had at Register now and then, and caps a blocking Wait at the
	// next sweep while fds are registered.
	sweep   fdcheck.Sweep
	pending fdcheck.Pending // Closed events found by Register, or beyond the caller's slice

	wake   wakeup
	closed atomic.Bool // read by Wakeup on other goroutines
}

type registration struct {
	fd   int
	tok  driver.Token
	in   driver.Interest
	id   fdcheck.Ident // of the file at Register, to tell a reused number
	dead bool          // reported Closed in this Wait; dropped before Wait returns
}

var (
	_ driver.Driver         = (*Driver)(nil)
	_ driver.WaitResolution = (*Driver)(nil)
)

// New opens the wakeup fd; it is the only kernel object the driver owns.
func New() (*Driver, error) {
	d := &Driver{index: make(map[int]int), next: 1}
	if err := d.wake.open(); err != nil {
		return nil, err
	}
	d.pfds = []unix.PollFd{{Fd: int32(d.wake.r), Events: unix.POLLIN}}
	d.regs = []registration{{fd: d.wake.r}}
	return d, nil
}

// Name returns "stream".
func (d *Driver) Name() string { return "stream" }

// Resolution is a millisecond: poll(2) takes its timeout in milliseconds.
func (d *Driver) Resolution() time.Duration { return time.Millisecond }

// Register implements driver.Driver.
func (d *Driver) Register(fd int, tok driver.Token, in driver.Interest) error {
	if err := d.check("register", fd); err != nil {
		return err
	}
	if i, ok := d.index[fd]; ok {
		if d.alive(i) {
			return fmt.Errorf("stream: register fd %d: %w", fd, fs.ErrExist)
		}
		// The number was closed and reused before a sweep noticed: the
		// old registration is reported Closed by the next Wait.
		old := d.regs[i].tok
		d.remove(i)
		d.pending.Add(old)
	}
	if err := probe(fd); err != nil {
		return fmt.Errorf("stream: register fd %d: %w", fd, err)
	}
	id, err := fdcheck.Identify(fd)
	if err != nil {
		return fmt.Errorf("stream: register fd %d: %w", fd, os.NewSyscallError("fstat", err))
	}
	var p unix.PollFd
	setInterest(&p, fd, in)
	d.index[fd] = len(d.pfds)
	d.pfds = append(d.pfds, p)
	d.regs = append(d.regs, registration{fd: fd, tok: tok, in: in & (driver.Read | driver.Write), id: id})
	d.sweep.Activity()
	return nil
}

// Modify implements driver.Driver.
func (d *Driver) Modify(fd int, tok driver.Token, in driver.Interest) error {
	if err := d.check("modify", fd); err != nil {
		return err
	}
	i, ok := d.index[fd]
	if !ok {
		return fmt.Errorf("stream: modify fd %d: %w", fd, fs.ErrNotExist)
	}
	setInterest(&d.pfds[i], fd, in)
	d.regs[i].tok = tok
	d.regs[i].in = in & (driver.Read | driver.Write)
	d.sweep.Activity()
	return nil
}

// Deregister implements driver.Driver.
func (d *Driver) Deregister(fd int) error {
	if err := d.check("deregister", fd); err != nil {
		return err
	}
	i, ok := d.index[fd]
	if !ok {
		return fmt.Errorf("stream: deregister fd %d: %w", fd, fs.ErrNotExist)
	}
	d.remove(i)
	d.sweep.Activity()
	return nil
}

// Wakeup implements driver.Driver; it is safe from any goroutine.
func (d *Driver) Wakeup() error {
	if d.closed.Load() {
		return driver.ErrClosed
	}
	return d.wake.signal()
}

// Close closes the wakeup fd. The registered fds belong to the caller and
// stay open.
func (d *Driver) Close() error {
	if !d.closed.CompareAndSwap(false, true) {
		return nil // a second Close is a no-op
	}
	err := d.wake.close()
	d.pfds, d.regs, d.index, d.pending = nil, nil, nil, fdcheck.Pending{}
	return err
}

func (d *Driver) check(op string, fd int) error {
	if d.closed.Load() {
		return driver.ErrClosed
	}
	// PollFd.Fd is an int32 on every platform.
	if fd < 0 || fd > math.MaxInt32 {
		return fmt.Errorf("stream: %s fd %d: %w", op, fd, fs.ErrInvalid)
	}
	return nil
}

// probe asks poll about fd alone, without waiting, so that Register refuses
// what Wait could only report as Closed: an fd that is not open, and on
// macOS a device, which poll(2) there does not support (see BUGS in its
// manual page) and answers with POLLNVAL although the fd is open.
func probe(fd int) error {
	p := []unix.PollFd{{Fd: int32(fd)}}
	for {
		_, err := unix.Poll(p, 0)
		if err == nil {
			break
		}
		if err != unix.EINTR {
			return os.NewSyscallError("poll", err)
		}
	}
	if p[0].Revents&unix.POLLNVAL == 0 {
		return nil
	}
	if _, err := unix.FcntlInt(uintptr(fd), unix.F_GETFD, 0); err != nil {
		return os.NewSyscallError("fcntl", err)
	}
	return fmt.Errorf("poll(2) cannot watch this file: %w", errors.ErrUnsupported)
}

// alive reports whether the fd of slot i still names the file registered
// there. An fstat error other than EBADF says nothing about the number, so
// the registration is kept.
func (d *Driver) alive(i int) bool {
	id, err := fdcheck.Identify(d.regs[i].fd)
	if err != nil {
		return err != unix.EBADF
	}
	return id == d.regs[i].id
}

// remove forgets the registration in slot i by moving the last one into it.
func (d *Driver) remove(i int) {
	delete(d.index, d.regs[i].fd)
	last := len(d.pfds) - 1
	if i != last {
		d.pfds[i] = d.pfds[last]
		d.regs[i] = d.regs[last]
		d.index[d.regs[i].fd] = i
	}
	d.pfds[last] = unix.PollFd{}
	d.regs[last] = registration{}
	d.pfds = d.pfds[:last]
	d.regs = d.regs[:last]
}

// setInterest fills p for fd and in. An fd with no interest is given to poll
// as -1 rather than with events 0, because poll reports POLLHUP and POLLERR
// even for events 0 and Wait would return at once for an fd nobody watches;
// POSIX poll: "If the value of fd is less than 0, events shall be ignored,
// and revents shall be set to 0 in that entry on return from poll()."
func setInterest(p *unix.PollFd, fd int, in driver.Interest) {
	p.Fd, p.Events, p.Revents = -1, 0, 0
	if in&(driver.Read|driver.Write) == 0 {
		return
	}
	p.Fd = int32(fd)
	if in&driver.Read != 0 {
		p.Events |= unix.POLLIN
	}
	if in&driver.Write != 0 {
		p.Events |= unix.POLLOUT
	}
}
